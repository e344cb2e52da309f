// The embedded runtime's secrets key: 32 random bytes kept in the data folder (never printed or
// logged), handed to the envelope through the environment. AWS uses the stack's KMS key instead.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forgetDataKeys, LOCAL_SECRETS_KEY_ENV } from './envelope.ts';

export function useLocalSecretsKey(hex: string) {
  process.env[LOCAL_SECRETS_KEY_ENV] = hex;
  forgetDataKeys();
}

/** Reads `$DATA_DIR/secrets-key`, creating it on the first start, and puts it to use. */
export async function loadOrCreateLocalSecretsKey(dataDir: string): Promise<void> {
  const file = join(dataDir, 'secrets-key');
  let hex: string;
  try {
    hex = (await readFile(file, 'utf8')).trim();
  } catch {
    hex = randomBytes(32).toString('hex');
    await writeFile(file, hex, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
      hex = (await readFile(file, 'utf8')).trim(); // another process created it first
    });
  }
  useLocalSecretsKey(hex);
}
