// The structured log line: one JSON object per call, its own keys first and never overwritten.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { log } from '../../shared/log.ts';
import { startHarness } from '../support/harness.ts';

it("a caller's field cannot overwrite the line's own message or level", (t) => {
  const lines: string[] = [];
  t.mock.method(console, 'error', (line: string) => lines.push(line));
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'info';
  try {
    log.error('unhandled error', { message: 'getaddrinfo ENOTFOUND', level: 'info', error: 'Error' });
  } finally {
    if (level === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = level;
  }
  const line = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(line), ['level', 'time', 'message', 'error']);
  assert.equal(line.message, 'unhandled error');
  assert.equal(line.level, 'error');
});

it('hands Lambda’s JSON log format the entry as an object, so its fields stay fields; a warning as a warning', (t) => {
  const calls: unknown[] = [];
  t.mock.method(console, 'warn', (entry: unknown) => calls.push(entry));
  const saved = { level: process.env.LOG_LEVEL, format: process.env.AWS_LAMBDA_LOG_FORMAT };
  process.env.LOG_LEVEL = 'info';
  try {
    process.env.AWS_LAMBDA_LOG_FORMAT = 'JSON';
    log.warn('slow request', { status: 200, ms: 812 });
    process.env.AWS_LAMBDA_LOG_FORMAT = 'Text';
    log.warn('slow request', { status: 200, ms: 812 });
  } finally {
    for (const [name, value] of [
      ['LOG_LEVEL', saved.level],
      ['AWS_LAMBDA_LOG_FORMAT', saved.format],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
  const [structured, line] = calls;
  // The runtime keeps a lone object as `message` (aws-lambda-nodejs-runtime-interface-client's
  // formatJsonMessage); a string would be stored escaped inside it.
  assert.equal(typeof structured, 'object');
  assert.deepEqual(
    { ...(structured as object), time: undefined },
    { level: 'warn', time: undefined, message: 'slow request', status: 200, ms: 812, requestId: undefined },
  );
  // Elsewhere, the same entry as one JSON line.
  const { time: _, ...fields } = JSON.parse(line as string);
  assert.deepEqual(fields, { level: 'warn', message: 'slow request', status: 200, ms: 812 });
});

it('writes the lines at or above LOG_LEVEL: silent none, error errors, warn warnings too, anything else all', (t) => {
  // Before, only `silent` was read: LOG_LEVEL=error wrote every request's line.
  const written: string[] = [];
  for (const method of ['log', 'warn', 'error'] as const)
    t.mock.method(console, method, (line: string) => written.push(JSON.parse(line).level));
  const saved = process.env.LOG_LEVEL;
  const levels: Record<string, string[]> = {};
  try {
    for (const setting of ['silent', 'error', 'warn', 'info', ' ERROR ', 'verbose', '']) {
      process.env.LOG_LEVEL = setting;
      written.length = 0;
      log.info('a');
      log.warn('b');
      log.error('c');
      levels[setting] = [...written];
    }
  } finally {
    if (saved === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = saved;
  }
  const all = ['info', 'warn', 'error'];
  assert.deepEqual(levels, {
    silent: [],
    error: ['error'],
    warn: ['warn', 'error'],
    info: all,
    ' ERROR ': ['error'],
    verbose: all,
    '': all,
  });
});

it('tags each line with its own invocation’s request id while the local runtime runs many at once', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const brand = await h.call('POST', '/api/v1/brands', { json: { name: 'Concurrent' } });
  const lines: { requestId?: string; message: string }[] = [];
  t.mock.method(console, 'log', (line: string) => lines.push(JSON.parse(line)));
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'info';
  try {
    // Each request awaits DynamoDB between its first line and its access line, so they interleave.
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 ? h.call('GET', `/api/v1/brands/${brand.body.id}`) : h.call('GET', '/api/v1/brands'),
      ),
    );
  } finally {
    if (level === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = level;
  }
  const ids = lines.filter((line) => line.message === 'request').map((line) => line.requestId);
  assert.equal(ids.length, 8);
  assert.equal(new Set(ids).size, 8, `access lines share request ids: ${ids.join(', ')}`);
});
