// The logger every AWS SDK client of ours gets. The SDK's logger middleware builds a copy of each
// request and response, walked through the operation's schema to mask sensitive members, as the
// argument of `logger.info(...)`; with the SDK's default no-op logger that copy is built on every
// call and thrown away (≈ 7% of the CPU time of a 200-item Query here, profiled). Its call is
// `logger?.info?.(…)`, so a logger without `info` (and without `error`, built the same way on
// failures, which our error mapper logs anyway) skips the copy. `debug` is called unguarded.
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { log } from '../log.ts';

const ignore = () => {};

export const sdkLogger = {
  trace: ignore,
  debug: ignore,
  // The SDK's own warnings (socket pool at capacity, clock skew…): strings, no payloads.
  warn: (...messages: unknown[]) => log.warn('aws-sdk', { detail: messages.map(String).join(' ') }),
} as unknown as NonNullable<DynamoDBClientConfig['logger']>;
