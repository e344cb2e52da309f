// Runs a bench/children/<name>.ts module in its own Node.js process (a clean heap and JIT state,
// its own stdout) and returns the one message it sends back.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

export function runChild<T>(
  name: string,
  args: string[] = [],
  options: { env?: Record<string, string | undefined>; execArgv?: string[] } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(join(ROOT, 'bench/children', `${name}.ts`), args, {
      execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
      env: { ...process.env, ...options.env },
      // stdout to /dev/null: the access log lines the pipeline writes cost what they cost in Lambda.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let message: T | undefined;
    child.on('message', (m) => {
      message = m as T;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      message !== undefined && code === 0
        ? resolve(message)
        : reject(new Error(`bench child ${name} exited ${code}`)),
    );
  });
}

/** In a child: hand the result to the parent and end. */
export function reply(message: unknown): void {
  process.send!(message, () => process.exit(0));
}
