// The integration harness: embedded dynalite + s3rver on free ports, the real handlers invoked with
// the v2.0 events the local server would build. No fake of our own stores anywhere.
import { randomBytes } from 'node:crypto';
import { type EmbeddedAws, startEmbeddedAws } from '../../infra/local/embedded.ts';
import { buildEvent } from '../../infra/local/events.ts';
import { type HandlerLoader, invoke } from '../../infra/local/handlers.ts';
import { signDevToken, useDevAuth } from '../../infra/local/tokens.ts';
import { routeRequest, unmatchedRoute } from '../../infra/routes.ts';
import { useLocalSecretsKey } from '../../shared/crypto/local-key.ts';
import { newId } from '../../shared/ids.ts';
import { assertMatchesContract } from './contract.ts';
// DynamoDB's rules dynalite lets pass, on every request the handlers send (./dynamo-rules.ts).
import './dynamo-rules.ts';

export interface CallOptions {
  token?: string | null;
  /** Overrides the Authorization header entirely (for malformed-header tests). */
  authorization?: string;
  json?: unknown;
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** Invokes the handlers this loads (the bundled functions) instead of the source modules. */
  handlers?: HandlerLoader;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  body: any;
}

/** Called with every response `call` returns (the hardening suite scans them for secrets). */
export const responseObservers: ((response: CallResult, method: string, url: string) => void)[] = [];

export interface Harness {
  aws: EmbeddedAws;
  secret: string;
  owner: { id: string; token: string };
  other: { id: string; token: string };
  tokenFor(sub: string): Promise<string>;
  call(method: string, url: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

/** Request fields whose values are secrets: no response may ever carry them back. */
const SECRET_FIELD = /secret|password|access_token|api_key/i;

function collectSecrets(value: unknown, into: Set<string>) {
  if (Array.isArray(value)) for (const item of value) collectSecrets(item, into);
  else if (value && typeof value === 'object')
    for (const [key, field] of Object.entries(value)) {
      if (SECRET_FIELD.test(key) && typeof field === 'string' && field.length >= 8) into.add(field);
      else collectSecrets(field, into);
    }
}

export async function startHarness(): Promise<Harness> {
  const aws = await startEmbeddedAws();
  const secret = randomBytes(32).toString('hex');
  useDevAuth(secret);
  useLocalSecretsKey(randomBytes(32).toString('hex'));
  const tokenFor = (sub: string) => signDevToken(secret, sub, '1h');
  const ownerId = newId();
  const otherId = newId();
  const owner = { id: ownerId, token: await tokenFor(ownerId) };
  const other = { id: otherId, token: await tokenFor(otherId) };
  // Every test's responses are scanned for the bearer tokens, the signing secret and every secret
  // saved through a credentials route (OWASP API3: excessive data exposure). Other routes may echo
  // their own input in a 422, as FastAPI does.
  const secrets = new Set([owner.token, other.token, secret]);

  async function call(method: string, url: string, options: CallOptions = {}): Promise<CallResult> {
    // Unmatched requests go to the `$default` route's function, as on AWS and in the local server.
    const { route, pathParameters } = routeRequest(method, url.split('?')[0] ?? '/');
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? owner.token : options.token;
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    else if (token) headers.authorization = `Bearer ${token}`;
    let body: Buffer | undefined;
    if (options.json !== undefined) {
      if (route.secrets) collectSecrets(options.json, secrets);
      body = Buffer.from(JSON.stringify(options.json));
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) body = Buffer.from(options.body);
    const event = buildEvent(route, pathParameters, { method, url, headers, body });
    const result = await invoke(route, event, options.handlers);
    const text = result.body ?? '';
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    const response = {
      status: result.statusCode ?? 200,
      headers: Object.fromEntries(
        Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
      ),
      text,
      body: parsed,
    };
    for (const observe of responseObservers) observe(response, method, url);
    for (const value of secrets)
      if (text.includes(value))
        throw new Error(`${method} ${url} answered with a secret the tests sent or hold`);
    // The `$default` function is no operation of the API's OpenAPI document.
    if (route !== unmatchedRoute)
      await assertMatchesContract(
        route,
        response.status,
        response.headers['content-type'] ?? '',
        parsed,
        response.headers,
      );
    return response;
  }

  return { aws, secret, owner, other, tokenFor, call, close: () => aws.close() };
}
