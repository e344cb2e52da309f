// Counts the S3 requests a call makes, beside test/support/aws-requests.ts (which records the
// DynamoDB ones), and the sequential waves of both together.
import { s3 } from '../../shared/aws/s3.ts';
import type { RecordedRequest } from '../../test/support/aws-requests.ts';

/** Same rule as the DynamoDB recorder: a request opens a new wave when it starts after one of the
 * current wave's requests settled. */
export function wavesOf(requests: readonly Pick<RecordedRequest, 'started' | 'finished'>[]): number {
  let waves = 0;
  let settles = Number.NEGATIVE_INFINITY;
  for (const request of [...requests].sort((a, b) => a.started - b.started)) {
    if (waves === 0 || request.started >= settles) {
      waves++;
      settles = request.finished;
    } else settles = Math.min(settles, request.finished);
  }
  return waves;
}

let recorders = 0;

export function recordS3Requests() {
  const requests: RecordedRequest[] = [];
  const name = `bench-s3-recorder-${++recorders}`;
  const stack = s3().middlewareStack;
  stack.add(
    (next, context) => async (args) => {
      const request: RecordedRequest = {
        command: String(context.commandName ?? 'unknown'),
        input: {},
        started: performance.now(),
        finished: Number.POSITIVE_INFINITY,
      };
      requests.push(request);
      try {
        return await next(args);
      } finally {
        request.finished = performance.now();
      }
    },
    { step: 'initialize', name },
  );
  return { requests, stop: () => stack.remove(name) };
}
