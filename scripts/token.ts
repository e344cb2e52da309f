// npm run token -- --sub <id>: prints one development token for that user, and nothing else. Its
// arguments are all checked before anything is written.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { decodeJwt } from 'jose';
import { exitOnLocalProblem, localSettings, makeDataFolder } from '../infra/local/runtime.ts';
import { loadOrCreateSecret, signDevToken } from '../infra/local/tokens.ts';
import { isSafeSubject, SAFE_SUBJECT_RULE } from '../shared/http/auth.ts';

function usage(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}
const USAGE = 'usage: npm run token -- --sub <user id> [--ttl 7d]';
const { values } = (() => {
  try {
    return parseArgs({
      options: { sub: { type: 'string' }, ttl: { type: 'string', default: '7d' }, help: { type: 'boolean' } },
    });
  } catch (error) {
    // A missing value, an unknown option, a stray argument: parseArgs says which.
    return usage((error as Error).message.split('\n')[0]!);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.sub) usage('--sub is required');
// The server would refuse the token (401): say so here instead.
if (!isSafeSubject(values.sub)) usage(`--sub must be ${SAFE_SUBJECT_RULE}`);
// The ttl is tried on a token signed with a throwaway key, so that a bad one is refused before the
// data folder or its secret is made.
let probe: string;
try {
  probe = await signDevToken(randomBytes(32).toString('hex'), values.sub, values.ttl);
} catch (error) {
  usage(`--ttl ${values.ttl}: ${(error as Error).message} (e.g. 1h, 7d, 30m)`);
}
// A ttl of no time, or in the past (`-5m`, `5 minutes ago`), makes a token expired already (a 401).
const { exp = 0, iat = 0 } = decodeJwt(probe);
if (exp <= iat)
  usage(`--ttl ${values.ttl}: the token would be expired already; give a time ahead (e.g. 1h, 7d, 30m)`);
const { dataDir } = localSettings();
const secret = await makeDataFolder(dataDir)
  .then(() => loadOrCreateSecret(dataDir))
  .catch(exitOnLocalProblem);
console.log(await signDevToken(secret, values.sub, values.ttl));
