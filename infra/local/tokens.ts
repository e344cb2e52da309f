// Development tokens: HS256, signed with a secret kept in the data folder (never printed or logged).
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { resetAuthKeys } from '../../shared/http/auth.ts';

export const LOCAL_ISSUER = 'urn:team-content-service:local';
export const LOCAL_AUDIENCE = 'team-content-api';

export async function loadOrCreateSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'jwt-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const secret = randomBytes(32).toString('hex');
    await writeFile(file, secret, { mode: 0o600 });
    return secret;
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
