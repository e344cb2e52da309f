// Runs a module's code in a child process stopped after `HANG_GUARD_MS`: a pattern that backtracks or
// a cut that grows with the square of its input holds the thread, so only another process can stop
// it. Not a budget (no timed assertion): what it guards took minutes or hours before its fix.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

export const HANG_GUARD_MS = 60_000;

/** The JSON the code prints (paths are the repository's), `input` on its stdin. */
export function runGuarded<T>(code: string, input?: string): T {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    input,
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(child.signal, null, `still running after ${HANG_GUARD_MS} ms`);
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as T;
}
