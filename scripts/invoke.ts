// npm run invoke -- <function> <event.json>: runs one handler on one sample event against the
// local stores and prints the result, as `sam local invoke -e` does. `{{name}}` placeholders in
// the event are filled from seed.json (`{{owner_token}}`, `{{other_token}}`, `{{project_id}}`, …).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invoke } from '../infra/local/handlers.ts';
import { ensureSeed, fillFromSeed, localSettings, openLocalStores } from '../infra/local/runtime.ts';
import { functionId, routes } from '../infra/routes.ts';

const [name, eventFile] = process.argv.slice(2);
const route = routes.find((r) => r.entry === name || functionId(r) === name);
if (!route || !eventFile) {
  console.error(
    `usage: npm run invoke -- <function> <event.json>\nfunctions: ${routes.map((r) => r.entry).join(', ')}`,
  );
  process.exit(2);
}
process.env.LOG_LEVEL ??= 'silent';
const { dataDir } = localSettings();
const { aws, secret } = await openLocalStores(dataDir);
const seed = await ensureSeed(dataDir, undefined, secret);
const text = fillFromSeed(await readFile(join(process.cwd(), eventFile), 'utf8'), seed);
const result = await invoke(route, JSON.parse(text));
console.log(JSON.stringify(result, null, 2));
await aws?.close();
