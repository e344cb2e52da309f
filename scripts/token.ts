// npm run token -- --sub <id>: prints one development token for that user, and nothing else.
import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { localSettings } from '../infra/local/runtime.ts';
import { loadOrCreateSecret, signDevToken } from '../infra/local/tokens.ts';

const { values } = parseArgs({
  options: { sub: { type: 'string' }, ttl: { type: 'string', default: '7d' } },
});
if (!values.sub) {
  console.error('usage: npm run token -- --sub <user id> [--ttl 7d]');
  process.exit(2);
}
const { dataDir } = localSettings();
await mkdir(dataDir, { recursive: true });
console.log(await signDevToken(await loadOrCreateSecret(dataDir), values.sub, values.ttl));
