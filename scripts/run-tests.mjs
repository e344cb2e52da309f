// npm test's runner: every test/**/*.test.ts through node's built-in test runner (tsx for TypeScript),
// each with DynamoDB's rules on its DynamoDB clients (test/support/dynamo-rules.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const find = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return find(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

const only = process.argv.slice(2);
const files = (only.length > 0 ? only : find('test')).sort();
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/support/dynamo-rules.ts',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    ...files,
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
      AWS_SDK_JS_SUPPRESS_DEPRECATION_WARNINGS: '1',
    },
  },
);
process.exit(result.status ?? 1);
