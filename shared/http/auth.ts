// Bearer-token verification with jose. Locally: HS256 with the development secret. In AWS: RS256 or
// ES256 against the issuer's JWKS (the stack's Cognito user pool by default). Issuer and audience are
// always checked; `alg: none`, expired and not-yet-valid tokens are refused by jwtVerify itself.
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { config } from '../config.ts';
import { InvalidCredentialsError, NotAuthenticatedError } from './errors.ts';

export interface Caller {
  userId: string;
}

type Verify = (token: string) => Promise<JWTPayload>;
let verifier: Verify | undefined;

const verifierFor = (): Verify => {
  if (verifier) return verifier;
  const { jwksUrl, devSecret, issuer } = config.auth;
  const options = { issuer, requiredClaims: ['sub', 'exp'] };
  if (jwksUrl) {
    const jwks = createRemoteJWKSet(new URL(jwksUrl));
    verifier = async (token) =>
      (await jwtVerify(token, jwks, { ...options, algorithms: ['RS256', 'ES256'] })).payload;
  } else if (devSecret) {
    const secret = new TextEncoder().encode(devSecret);
    verifier = async (token) =>
      (await jwtVerify(token, secret, { ...options, algorithms: ['HS256'] })).payload;
  } else throw new Error('No token verification key configured (AUTH_JWKS_URL or AUTH_DEV_SECRET)');
  return verifier;
};

/** Forget the cached key (tests switch between verifiers). */
export const resetAuthKeys = () => {
  verifier = undefined;
};

/** FastAPI's HTTPBearer: split at the first space, scheme compared case-insensitively. */
export const bearerToken = (header: string | undefined): string => {
  if (!header) throw new NotAuthenticatedError();
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  const token = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme.toLowerCase() !== 'bearer' || !token) throw new NotAuthenticatedError();
  return token;
};

// Cognito access tokens carry the app client in `client_id` rather than `aud`.
const audienceMatches = (payload: JWTPayload, audience: string) => {
  const aud = payload.aud;
  if (Array.isArray(aud) ? aud.includes(audience) : aud === audience) return true;
  return aud === undefined && payload.client_id === audience;
};

export async function authenticate(authorization: string | undefined): Promise<Caller> {
  const token = bearerToken(authorization);
  const verify = verifierFor();
  let payload: JWTPayload;
  try {
    payload = await verify(token);
  } catch {
    throw new InvalidCredentialsError();
  }
  if (!audienceMatches(payload, config.auth.audience) || typeof payload.sub !== 'string' || !payload.sub)
    throw new InvalidCredentialsError();
  return { userId: payload.sub };
}
