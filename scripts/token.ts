// npm run token -- --sub <id>: prints one development token for that user, and nothing else.
import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { localSettings } from '../infra/local/runtime.ts';
import { loadOrCreateSecret, signDevToken } from '../infra/local/tokens.ts';
import { isSafeSubject, SAFE_SUBJECT_RULE } from '../shared/http/auth.ts';

const { values } = parseArgs({
  options: { sub: { type: 'string' }, ttl: { type: 'string', default: '7d' } },
});
function usage(problem: string): never {
  console.error(`${problem}\nusage: npm run token -- --sub <user id> [--ttl 7d]`);
  process.exit(2);
}
if (!values.sub) usage('--sub is required');
// The server would refuse the token (401): say so here instead.
if (!isSafeSubject(values.sub)) usage(`--sub must be ${SAFE_SUBJECT_RULE}`);
const { dataDir } = localSettings();
await mkdir(dataDir, { recursive: true });
const secret = await loadOrCreateSecret(dataDir);
try {
  console.log(await signDevToken(secret, values.sub, values.ttl));
} catch (error) {
  usage(`--ttl ${values.ttl}: ${(error as Error).message} (e.g. 1h, 7d, 30m)`);
}
