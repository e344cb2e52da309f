// Shared pieces of the hardening suite: every route's request built from its sample event (so new
// routes are covered as they land), one of every resource per user through the domain seeders, and
// a scanner that keeps every response body and log line for the secret search.
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { DEMO_SEEDERS, type Seeder, type SeedIds } from '../../infra/local/seed/index.ts';
import { seedShopping } from '../../infra/local/seed/shopping.ts';
import { seedTeams } from '../../infra/local/seed/teams.ts';
import { SEED_SECRETS, seedWorkspaces } from '../../infra/local/seed/workspaces.ts';
import { eventFile, type Route, routeKey, routes } from '../../infra/routes.ts';
import { signProviderMessage } from '../../shared/avatars/signature.ts';
import { newId } from '../../shared/ids.ts';
import { createShoppingSession } from '../../shared/shopping/store.ts';
import { CreateTeamBody } from '../../shared/teams/schemas.ts';
import { createTeam } from '../../shared/teams/store.ts';
import { connectAdsAccount, saveAdsCredentials } from '../../shared/workspaces/credentials.ts';
import { CreateWorkspaceTaskBody } from '../../shared/workspaces/schemas.ts';
import { createWorkspace } from '../../shared/workspaces/store.ts';
import { createWorkspaceTask } from '../../shared/workspaces/tasks.ts';
import { type CallOptions, type CallResult, responseObservers } from '../support/harness.ts';

export const authenticatedRoutes = routes.filter((route) => route.auth !== false);

/** Secrets the scans look for: the seeded client secret and provider page token. */
export const WORKSPACE_SECRETS = SEED_SECRETS;

const LIGHT = new Map<Seeder, Seeder>([
  [
    seedTeams,
    async ({ owner }, seeded = {}) => {
      const body = sampleBody('teams/create-team', { ...seeded, owner_id: owner });
      return { team_id: (await createTeam(owner, v.parse(CreateTeamBody, body))).id };
    },
  ],
  [
    seedWorkspaces,
    async ({ owner }) => {
      const workspace = await createWorkspace(owner, { name: 'Hardening workspace' });
      await saveAdsCredentials(owner, workspace.id, {
        client_id: '1029384756102938',
        client_secret: SEED_SECRETS.clientSecret,
      });
      await connectAdsAccount(workspace.id, {
        account_id: 'act_5550001',
        account_name: 'Hardening Ads',
        scopes: ['ads_management'],
        token_expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        social_user_id: '10230001',
        user_access_token: SEED_SECRETS.userAccessToken,
        pages: [{ id: '104300101', name: 'Hardening page', access_token: SEED_SECRETS.pageAccessToken }],
      });
      const task = sampleBody('workspaces/create-workspace-task', { owner_id: owner });
      await createWorkspaceTask(owner, workspace.id, v.parse(CreateWorkspaceTaskBody, task));
      return { workspace_id: workspace.id };
    },
  ],
  [
    seedShopping,
    async ({ owner }) => ({
      shopping_session_id: (await createShoppingSession(owner, { title: 'Hardening session' })).id,
    }),
  ],
]);

/** One of every resource for `userId`, written through the domains' own write paths. `full`: the
 * demo data sets themselves (the catalogue import included). */
export async function seedResourcesFor(userId: string, options: { full?: boolean } = {}) {
  const ids: SeedIds = { owner_id: userId, asset: 'swagger-ui.css' };
  // The demo seeders in their order (later ones build on earlier ids); the three whose demo data
  // sets take seconds are swapped for one resource of the same kind.
  for (const seeder of DEMO_SEEDERS) {
    const run = options.full ? seeder : (LIGHT.get(seeder) ?? seeder);
    Object.assign(ids, await run({ owner: userId, other: newId() }, { ...ids }));
  }
  return ids;
}

interface SampleEvent {
  headers: Record<string, string>;
  pathParameters?: Record<string, string>;
  rawQueryString: string;
  body?: string;
  isBase64Encoded: boolean;
}

const samples = new Map<Route, SampleEvent>();
export const sampleEvent = (route: Route): SampleEvent => {
  let event = samples.get(route);
  if (!event) {
    event = JSON.parse(readFileSync(eventFile(route), 'utf8')) as SampleEvent;
    samples.set(route, event);
  }
  return event;
};

const fill = (text: string, ids: SeedIds) =>
  text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => ids[name] ?? whole);

/** The JSON body of the sample event of the route with this entry, its placeholders filled. */
const sampleBody = (entry: string, ids: SeedIds): unknown => {
  const route = routes.find((r) => r.entry === entry);
  if (!route) throw new Error(`no route ${entry}`);
  return JSON.parse(fill(sampleEvent(route).body ?? '{}', ids));
};

/** The seed key each path parameter takes its value from (from the sample event: `{{team_id}}`). */
export const pathSeedKeys = (route: Route): Record<string, string> =>
  Object.fromEntries(
    Object.entries(sampleEvent(route).pathParameters ?? {}).map(([name, value]) => [
      name,
      /^\{\{(\w+)\}\}$/.exec(value)?.[1] ?? name,
    ]),
  );

export const takesId = (route: Route) =>
  Object.keys(pathSeedKeys(route)).some((name) => name.endsWith('_id'));

/** Percent-encoded; a lone surrogate becomes the invalid UTF-8 a hostile client can send. */
const encodeSegment = (segment: string) => {
  try {
    return encodeURIComponent(segment);
  } catch {
    return `%ED%A0%80${encodeURIComponent(segment.replace(/[\uD800-\uDFFF]/g, '\uFFFD'))}`;
  }
};

export interface RequestSpec {
  method: string;
  url: string;
  options: CallOptions;
}

/** A realistic request for `route`: path ids from `pathIds` (by seed key), the body's ids from the
 * caller's own `bodyIds`, headers and query from the sample event. */
export function sampleRequest(
  route: Route,
  pathIds: SeedIds,
  bodyIds: SeedIds = pathIds,
  overridePath: Record<string, string> = {},
): RequestSpec {
  const event = sampleEvent(route);
  const keys = pathSeedKeys(route);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeSegment(overridePath[name] ?? pathIds[keys[name] ?? name] ?? newId()),
  );
  const url = event.rawQueryString ? `${path}?${event.rawQueryString}` : path;
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'idempotency-key', 'x-avatar-signature'])
    if (event.headers[name]) headers[name] = event.headers[name];
  if (headers['idempotency-key']) headers['idempotency-key'] = `hardening-${newId()}`;
  let body: Buffer | undefined;
  if (event.body !== undefined && event.body !== null) {
    const raw = event.isBase64Encoded
      ? Buffer.from(event.body, 'base64')
      : Buffer.from(fill(event.body, bodyIds), 'utf8');
    body = raw;
  }
  // Signed the way the provider signs, when the test configured a provider secret.
  const providerSecret = process.env.AVATAR_PROVIDER_SECRET;
  if (headers['x-avatar-signature'] && providerSecret)
    headers['x-avatar-signature'] = signProviderMessage(
      providerSecret,
      Math.floor(Date.now() / 1000),
      body ?? '',
    );
  return { method: route.method, url, options: { headers, ...(body ? { body } : {}) } };
}

// ---- data exposure -------------------------------------------------------------------------

export interface ExposureScan {
  /** Response bodies and log lines seen so far. */
  readonly texts: string[];
  readonly logLines: number;
  readonly responses: number;
  /** Occurrences of each secret in everything seen. */
  occurrences(secrets: Record<string, string>): Record<string, number>;
  stop(): void;
}

/** Keeps every response body the harness returns and every log line (LOG_LEVEL=info for this
 * process; the lines are captured, not printed). */
export function startExposureScan(): ExposureScan {
  const texts: string[] = [];
  let logLines = 0;
  let responses = 0;
  const previousLevel = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'info';
  const original = { log: console.log, error: console.error, warn: console.warn };
  const capture = (...args: unknown[]) => {
    logLines++;
    texts.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  };
  console.log = capture;
  console.error = capture;
  console.warn = capture;
  const observer = (response: CallResult) => {
    responses++;
    texts.push(response.text, JSON.stringify(response.headers));
  };
  responseObservers.push(observer);
  return {
    texts,
    get logLines() {
      return logLines;
    },
    get responses() {
      return responses;
    },
    occurrences(secrets) {
      return Object.fromEntries(
        Object.entries(secrets).map(([name, secret]) => [
          name,
          texts.reduce((n, text) => n + text.split(secret).length - 1, 0),
        ]),
      );
    },
    stop() {
      Object.assign(console, original);
      const at = responseObservers.indexOf(observer);
      if (at >= 0) responseObservers.splice(at, 1);
      if (previousLevel === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = previousLevel;
    },
  };
}

/** The promise's value, or a failure after `seconds` (a hung handler fails the test, not the run). */
export const within = <T>(promise: Promise<T>, seconds: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
};

/** Prints a figure the report and docs/security.md quote (through the original stdout). */
export const figure = (name: string, value: unknown) =>
  process.stdout.write(
    `# hardening figure: ${name} = ${typeof value === 'string' ? value : JSON.stringify(value)}\n`,
  );

export { routeKey, routes };
