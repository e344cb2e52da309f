// Records the DynamoDB (or S3) requests the handlers send (an SDK middleware on the shared client),
// with when each started and finished, so a test or a benchmark can count round trips and waves.
//
//   const recorder = recordDynamoRequests();
//   await h.call('GET', `/api/v1/teams/${id}/dashboard`);
//   assert.equal(recorder.waves(), 1);
//   recorder.stop();
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';

export interface RecordedRequest {
  /** `GetItemCommand`, `QueryCommand`, … (the low-level client's names). */
  command: string;
  /** The command's input (TableName, Key, Limit, …), to check how a read is bounded. */
  input: Record<string, unknown>;
  started: number;
  /** Infinity until the request (retries included) settles. */
  finished: number;
  /** Whether it settled with an answer (not an error, such as S3's 412 for a conditional write). */
  answered?: boolean;
  /** The items a Query or Scan answered, to check what a read carried. */
  items?: readonly Record<string, unknown>[];
}

export interface RequestRecorder {
  readonly requests: readonly RecordedRequest[];
  commands(): string[];
  /** Sequential rounds: a request opens a new wave when it starts after one of the current wave settled. */
  waves(): number;
  clear(): void;
  stop(): void;
}

let recorders = 0;

/** Sequential rounds: a request opens a new wave when it starts after one of the current wave settled. */
export function wavesOf(requests: readonly Pick<RecordedRequest, 'started' | 'finished'>[]): number {
  let waves = 0;
  let waveSettles = Number.NEGATIVE_INFINITY;
  for (const request of [...requests].sort((a, b) => a.started - b.started)) {
    if (waves === 0 || request.started >= waveSettles) {
      waves++;
      waveSettles = request.finished;
    } else waveSettles = Math.min(waveSettles, request.finished);
  }
  return waves;
}

type Stack = {
  add(middleware: unknown, options: { step: 'initialize'; name: string }): void;
  remove(name: string): unknown;
};
type Middleware = (
  next: (args: unknown) => Promise<unknown>,
  context: { commandName?: string },
) => (args: unknown) => Promise<unknown>;

function recordRequests(stack: Stack): RequestRecorder {
  const requests: RecordedRequest[] = [];
  const name = `request-recorder-${++recorders}`;
  const recorder: Middleware = (next, context) => async (args) => {
    const request: RecordedRequest = {
      command: String(context.commandName ?? 'unknown'),
      input: (args as { input?: Record<string, unknown> }).input ?? {},
      started: performance.now(),
      finished: Number.POSITIVE_INFINITY,
    };
    requests.push(request);
    try {
      const result = await next(args);
      const output = (result as { output?: { presigned?: unknown; Items?: Record<string, unknown>[] } })
        .output;
      // A presigned URL (getSignedUrl) runs the client's stack, but nothing leaves the process.
      if (output?.presigned) requests.splice(requests.indexOf(request), 1);
      request.answered = true;
      request.items = output?.Items;
      return result;
    } finally {
      request.finished = performance.now();
    }
  };
  stack.add(recorder, { step: 'initialize', name });
  return {
    requests,
    commands: () => requests.map((request) => request.command),
    waves: () => wavesOf(requests),
    clear: () => {
      requests.length = 0;
    },
    stop: () => {
      stack.remove(name);
    },
  };
}

export const recordDynamoRequests = () => recordRequests(dynamo().middlewareStack as unknown as Stack);
export const recordS3Requests = () => recordRequests(s3().middlewareStack as unknown as Stack);

/** The requests one call makes (recording only while it runs). */
export async function dynamoRequestsOf<T>(
  call: () => Promise<T>,
): Promise<{ result: T; commands: string[]; waves: number }> {
  const recorder = recordDynamoRequests();
  try {
    const result = await call();
    return { result, commands: recorder.commands(), waves: recorder.waves() };
  } finally {
    recorder.stop();
  }
}

/**
 * Queries that end every `items` items, as DynamoDB's 1 MB pages end them over large ones: small test
 * items then stand for a partition of large ones. Returns the undo.
 */
export function shortDynamoPages(items: number): () => void {
  const name = `short-pages-${++recorders}`;
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Limit?: number };
      if (input.Limit !== undefined) input.Limit = Math.min(input.Limit, items);
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => dynamo().middlewareStack.remove(name);
}
