// npm run invoke -- <function> <event.json>: runs one handler on one sample event against the
// local stores and prints the result, as `sam local invoke -e` does. `{{name}}` placeholders in
// the event are filled from seed.json (`{{owner_token}}`, `{{other_token}}`, `{{project_id}}`, …);
// one it has no value for is refused before the handler runs.
import { resolve } from 'node:path';
import { invoke } from '../infra/local/handlers.ts';
import {
  callerFolder,
  ensureSeed,
  exitOnLocalProblem,
  fillPlaceholders,
  localSettings,
  openLocalStores,
  readCommandLineFile,
  seedPlaceholders,
} from '../infra/local/runtime.ts';
import { functionId, routes } from '../infra/routes.ts';

const [name, eventFile] = process.argv.slice(2);
const route = routes.find((r) => r.entry === name || functionId(r) === name);
if (!route || !eventFile) {
  // A name given but not known is said first: the usage alone left the reader to spot it in the list.
  if (name !== undefined && !route) console.error(`${name}: no such function`);
  console.error(
    `usage: npm run invoke -- <function> <event.json>\nfunctions: ${routes.map((r) => r.entry).join(', ')}`,
  );
  process.exit(2);
}
// npm runs scripts in the package folder; the path is the caller's, from where npm was run (INIT_CWD),
// and may be absolute, as `sam local invoke -e` takes it; `events/…` also works from any subfolder.
// Read before the stores open (or a first run seeds them) so that a wrong path costs nothing.
const eventPath = resolve(callerFolder(), eventFile);
const template = await readCommandLineFile(eventFile).then(
  (bytes) => bytes.toString('utf8'),
  (error: NodeJS.ErrnoException) => {
    console.error(`${eventFile}: cannot read the event (${error.code ?? error.message}): ${eventPath}`);
    process.exit(2);
  },
);
// The placeholders sit inside JSON strings, so the event is JSON before they are filled too.
try {
  JSON.parse(template);
} catch (error) {
  console.error(`${eventFile}: not a JSON event (${(error as Error).message}): ${eventPath}`);
  process.exit(2);
}
process.env.LOG_LEVEL ||= 'silent'; // empty is unset, as for PORT and DATA_DIR
const { dataDir } = localSettings();
const { aws, secret } = await openLocalStores(dataDir).catch(exitOnLocalProblem);
const seed = await ensureSeed(dataDir, undefined, secret).catch(async (error) => {
  await aws?.close();
  return exitOnLocalProblem(error);
});
const known = seedPlaceholders(seed);
const { text: event, missing } = fillPlaceholders(template, known);
// Left in place, it reached the handler as text, which answered a 422 that did not say why.
if (missing.length > 0) {
  const names = (list: string[]) => list.map((name) => `{{${name}}}`).join(', ');
  console.error(
    `${eventFile}: unknown placeholder${missing.length > 1 ? 's' : ''} ${names(missing)} (known: ${names(Object.keys(known).sort())})`,
  );
  await aws?.close();
  process.exit(2);
}
const result = await invoke(route, JSON.parse(event));
console.log(JSON.stringify(result, null, 2));
await aws?.close();
