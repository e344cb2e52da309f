// The structured log line: one JSON object per call, its own keys first and never overwritten.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { log } from '../../shared/log.ts';

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
