// Faults injected into the AWS SDK clients: a middleware inside the SDK's own retry loop that fails
// chosen attempts of chosen commands (throttling, 500s, timeouts, lost responses, refused conditions),
// as the hardening suite and the domain tests use them. `clearFaults()` removes them all; a test that
// drained the retry quota also resets the client (resetDynamo / resetS3).
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';

export type Kind =
  | 'throttle'
  | 'rate'
  | 'server'
  | 'timeout'
  | 'reset'
  | 'wrapped'
  | 'dns'
  | 'conflict'
  | 'condition';
export const sdkError = (kind: Kind): Error =>
  Object.assign(
    new Error(`injected ${kind}`),
    {
      throttle: { name: 'ThrottlingException', $fault: 'client', $metadata: { httpStatusCode: 400 } },
      // Any service's HTTP 429, whatever the error's name.
      rate: { name: 'SomeServiceRateExceeded', $fault: 'client', $metadata: { httpStatusCode: 429 } },
      server: { name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500 } },
      timeout: { name: 'TimeoutError', $metadata: {} },
      // Node's socket and DNS failures, as the HTTP handler rethrows them.
      reset: { code: 'ECONNRESET' },
      // A socket failure wrapped by a layer between (an agent, a proxy library).
      wrapped: {
        name: 'RequestError',
        cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      },
      dns: { code: 'ENOTFOUND' },
      // S3's answer to a conditional write while another write to the key is in flight.
      conflict: { name: 'ConditionalRequestConflict', $fault: 'client', $metadata: { httpStatusCode: 409 } },
      // DynamoDB refusing a conditional write: its condition did not hold when the write ran.
      condition: {
        name: 'ConditionalCheckFailedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      },
    }[kind],
  );

export interface Fault {
  /** Command names (e.g. /Put|Update/) the fault applies to. */
  commands: RegExp;
  /** Attempts (1-based, counted over matching commands) that fail; others pass. */
  failing: (attempt: number) => boolean;
  kind: Kind;
  /** The request reaches the service, then its response is lost (a write that did happen). */
  afterSend?: boolean;
  /** Only requests whose input holds this text (a key's prefix, such as `IDEMPOTENCY#`). */
  about?: string;
}

const injected: { client: 'dynamo' | 's3'; name: string }[] = [];
let added = 0;

interface Stack {
  add(middleware: unknown, options: { step: string; priority: string; name: string }): void;
  remove(name: string): boolean;
}
const stackOf = (client: 'dynamo' | 's3') =>
  (client === 'dynamo' ? dynamo().middlewareStack : s3().middlewareStack) as unknown as Stack;

/** Adds a middleware to a client, removed by `clearFaults` or by the function returned: inside the
 * SDK's retry loop (finalizeRequest, low priority: each attempt), or ahead of it (initialize, high
 * priority: once per call, so a fault there outlasts the retries). */
export function intercept(
  client: 'dynamo' | 's3',
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
  middleware: (next: any, context: any) => (args: any) => Promise<any>,
  step: 'finalizeRequest' | 'initialize' = 'finalizeRequest',
): () => void {
  const name = `sdk-fault-${++added}`;
  stackOf(client).add(middleware, { step, priority: step === 'initialize' ? 'high' : 'low', name });
  const entry = { client, name };
  injected.push(entry);
  return () => {
    const at = injected.indexOf(entry);
    if (at < 0) return; // already cleared
    injected.splice(at, 1);
    stackOf(client).remove(name);
  };
}

/** Adds a fault inside the SDK's retry loop. */
export function inject(client: 'dynamo' | 's3', fault: Fault) {
  let attempt = 0;
  intercept(
    client,
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
    (next: any, context: any) => async (args: any) => {
      const command = String(context.commandName ?? '');
      if (!fault.commands.test(command)) return next(args);
      if (fault.about && !JSON.stringify(args.input ?? {}).includes(fault.about)) return next(args);
      attempt++;
      if (!fault.failing(attempt)) return next(args);
      if (fault.afterSend) {
        await next(args);
        throw sdkError(fault.kind);
      }
      throw sdkError(fault.kind);
    },
  );
  return { attempts: () => attempt };
}

/** Removes every middleware added with `inject` or `intercept`. */
export const clearFaults = () => {
  for (const { client, name } of injected.splice(0)) stackOf(client).remove(name);
};
