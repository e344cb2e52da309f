// npm start: the whole API on http://localhost:$PORT over embedded DynamoDB and S3 in $DATA_DIR.
import { join } from 'node:path';
import {
  ensureSeed,
  exitOnLocalProblem,
  localSettings,
  markRunning,
  markStopped,
  openLocalStores,
} from '../infra/local/runtime.ts';
import { startServer } from '../infra/local/server.ts';

const { port, dataDir } = localSettings();
// Said here, before the stores open: listen() would throw it with a stack trace once they had.
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number from 0 to 65535, not "${process.env.PORT}".`);
  process.exit(1);
}
const { aws, secret } = await openLocalStores(dataDir).catch(exitOnLocalProblem);
if (!aws) {
  console.error(
    `Another instance is already serving ${dataDir}. Stop it, or set DATA_DIR to another folder.`,
  );
  process.exit(1);
}
const server = await startServer(port).catch(async (error: NodeJS.ErrnoException) => {
  await aws.close();
  if (error.code !== 'EADDRINUSE') throw error;
  console.error(`Port ${port} is in use. Stop what listens there, or set PORT to another port.`);
  process.exit(1);
});
// From here a stop closes the stores and the server (a first start's seeding included).
const shutdown = async () => {
  await markStopped(dataDir);
  await server.close();
  await aws.close();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

const seed = await ensureSeed(dataDir, server.url, secret).catch(async (error) => {
  await server.close();
  await aws.close();
  return exitOnLocalProblem(error);
});
// Only now: an invoke that found running.json before seed.json existed would seed a second demo set
// (until now, the folder is held and an invoke says so).
await markRunning(dataDir, aws);

const token = seed.users.owner.token;
console.log(`Team Content Service listening on ${server.url}
Data folder: ${dataDir} (ids and tokens in ${join(dataDir, 'seed.json')})

Bearer token for the demo owner (${seed.users.owner.id}):
${token}

Try:
  curl -H "Authorization: Bearer ${token}" ${server.url}/api/v1/projects/${seed.project_id}
  curl -H "Authorization: Bearer ${token}" ${server.url}/api/v1/brands
  curl -X POST -H "Authorization: Bearer ${token}" -H 'content-type: application/json' \\
       -d '{"name":"Acme"}' ${server.url}/api/v1/brands
`);
