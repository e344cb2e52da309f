// Development tokens: HS256, signed with a secret kept in the data folder (never printed or logged).
import { randomBytes, randomUUID } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { resetAuthKeys } from '../../shared/http/auth.ts';

export const LOCAL_ISSUER = 'urn:team-content-service:local';
export const LOCAL_AUDIENCE = 'team-content-api';

/** `$DATA_DIR/jwt-secret`, made on the first start. Two commands starting at once on a fresh folder
 * (`npm start` and `npm run token`) both find none: the secret is written aside whole and linked into
 * place, which fails if the name exists, so one secret wins and the other command reads it (a plain
 * write let the later one replace the first, and tokens one signed the other refused), and no reader
 * ever meets it half-written. */
export async function loadOrCreateSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'jwt-secret');
  const read = async () => (await readFile(file, 'utf8')).trim();
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('hex');
  const aside = `${file}.${randomUUID()}.tmp`;
  await writeFile(aside, secret, { mode: 0o600, flag: 'wx' });
  try {
    await link(aside, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await read();
  } finally {
    await rm(aside, { force: true });
  }
}

/** Points the bearer middleware at the development secret. */
export function useDevAuth(secret: string) {
  Object.assign(process.env, {
    AUTH_DEV_SECRET: secret,
    AUTH_ISSUER: LOCAL_ISSUER,
    AUTH_AUDIENCE: LOCAL_AUDIENCE,
  });
  delete process.env.AUTH_JWKS_URL;
  resetAuthKeys();
}

export async function signDevToken(secret: string, sub: string, expiresIn = '7d'): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}
