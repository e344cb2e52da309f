// The embedded runtime's secrets key: 32 random bytes kept in the data folder (never printed or
// logged), handed to the envelope through the environment. AWS uses the stack's KMS key instead.
import { randomBytes, randomUUID } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forgetDataKeys, LOCAL_SECRETS_KEY_ENV } from './envelope.ts';

/** A local key file that holds no key: the scripts say so in one line (exitOnLocalProblem). */
export class UnreadableKeyFileError extends Error {
  constructor(file: string, lost: string) {
    super(`${file} does not hold a key (64 hex digits). Delete it to make a new one (${lost}).`);
  }
}

/**
 * A local key file's 32 random bytes (hex), made on the first start (`lost`: what a new key loses). Commands starting at once on a
 * fresh folder (`npm start` and `npm run token`) all find none: the key is written aside whole and
 * linked into place, which fails where the name exists, so one key wins and the others read it, and
 * no reader meets it half-written (a plain write let the later one replace the first; an exclusive
 * create let a reader meet the file empty, before its key was written).
 */
export async function readOrCreateKeyFile(file: string, lost: string): Promise<string> {
  const read = async () => {
    const key = (await readFile(file, 'utf8')).trim();
    // An empty file (an older version's creation cut short) would sign or seal with no key at all.
    if (!/^[0-9a-f]{64}$/.test(key)) throw new UnreadableKeyFileError(file, lost);
    return key;
  };
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('hex');
  const aside = `${file}.${randomUUID()}.tmp`;
  await writeFile(aside, key, { mode: 0o600, flag: 'wx' });
  try {
    await link(aside, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await read();
  } finally {
    await rm(aside, { force: true });
  }
}

export function useLocalSecretsKey(hex: string) {
  process.env[LOCAL_SECRETS_KEY_ENV] = hex;
  forgetDataKeys();
}

/** Reads `$DATA_DIR/secrets-key`, creating it on the first start, and puts it to use. */
export async function loadOrCreateLocalSecretsKey(dataDir: string): Promise<void> {
  useLocalSecretsKey(
    await readOrCreateKeyFile(
      join(dataDir, 'secrets-key'),
      'the integration secrets stored with the old one can then no longer be read',
    ),
  );
}
