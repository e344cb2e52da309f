// Development tokens: HS256, signed with a secret kept in the data folder (never printed or logged).
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { readOrCreateKeyFile } from '../../shared/crypto/local-key.ts';
import { resetAuthKeys } from '../../shared/http/auth.ts';

export const LOCAL_ISSUER = 'urn:team-content-service:local';
export const LOCAL_AUDIENCE = 'team-content-api';

/** `$DATA_DIR/jwt-secret`, made on the first start (once, however many commands start at once). */
export const loadOrCreateSecret = (dataDir: string): Promise<string> =>
  readOrCreateKeyFile(join(dataDir, 'jwt-secret'), 'tokens signed with the old one are then refused');

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
