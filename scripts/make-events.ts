// npm run events: writes a v2.0 sample event for every route that has none yet (existing files are
// kept, so hand-written bodies survive). `{{name}}` placeholders are filled by `npm run invoke`.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { buildEvent, requestTime } from '../infra/local/events.ts';
import { eventFile, pathParameterNames, routes } from '../infra/routes.ts';

let written = 0;
for (const route of routes) {
  const file = eventFile(route);
  if (existsSync(file)) continue;
  written++;
  const params = Object.fromEntries(pathParameterNames(route).map((name) => [name, `{{${name}}}`]));
  const url = route.path.replace(/\{(\w+)\}/g, (_, name) => `{{${name}}}`);
  const headers: Record<string, string> = { host: 'localhost:3000', 'user-agent': 'curl/8.5.0' };
  if (route.auth !== false) headers.authorization = 'Bearer {{owner_token}}';
  let body: Buffer | undefined;
  if (route.method !== 'GET') {
    headers['content-type'] = 'application/json';
    body = Buffer.from('{}');
  }
  const event = buildEvent(route, params, { method: route.method, url, headers, body });
  event.requestContext.requestId = 'sample-request-id';
  event.requestContext.timeEpoch = 1_795_000_000_000;
  event.requestContext.time = requestTime(new Date(event.requestContext.timeEpoch));
  await writeFile(file, `${JSON.stringify(event, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
if (written === 0) console.log(`every route has its sample event (${routes.length} in events/)`);
