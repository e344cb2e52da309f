// Bearer-token verification with jose. Locally: HS256 with the development secret. In AWS: RS256 or
// ES256 against the issuer's JWKS (the stack's Cognito user pool by default). Issuer and audience are
// always checked; `alg: none`, expired and not-yet-valid tokens are refused by jwtVerify itself, a
// token issued in the future (past a minute of skew) here.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { config } from '../config.ts';
import { log } from '../log.ts';
import { InvalidCredentialsError, NotAuthenticatedError, ServiceUnavailableError } from './errors.ts';

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
    // A key set that cannot be fetched or read is our outage (503), not the caller's bad token; only
    // a kid the set does not hold is about the token.
    const keyFor = async (...key: Parameters<typeof jwks>) => {
      try {
        return await jwks(...key);
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
          throw error;
        throw new KeySetUnavailable(error);
      }
    };
    verifier = async (token) =>
      (await jwtVerify(token, keyFor, { ...options, algorithms: ['RS256', 'ES256'] })).payload;
  } else if (devSecret) {
    const secret = new TextEncoder().encode(devSecret);
    verifier = async (token) =>
      (await jwtVerify(token, secret, { ...options, algorithms: ['HS256'] })).payload;
  } else throw new Error('No token verification key configured (AUTH_JWKS_URL or AUTH_DEV_SECRET)');
  return verifier;
};

class KeySetUnavailable extends Error {
  constructor(readonly reason: unknown) {
    super('token signing keys unavailable');
  }
}

// Tokens already verified in this container, until they expire: a client sends the same token on
// every request, and verifying its signature costs about 100 µs. Bounded, oldest dropped first.
const VERIFIED_CACHE_SIZE = 1000;
const verified = new Map<string, { caller: Caller; expiresAt: number }>();

/** Forget the cached key and verified tokens (tests switch between verifiers). */
export const resetAuthKeys = () => {
  verifier = undefined;
  verified.clear();
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

// Cognito access tokens carry the app client in `client_id` rather than `aud`, and say so with
// `token_use: access`: only such a token's `client_id` stands for its audience (another issuer's
// `client_id` may name anything). Cognito ID tokens (`token_use: id`, `aud` = the client) identify a
// user to the client app; they are not API credentials.
const audienceMatches = (payload: JWTPayload, audience: string) => {
  if (payload.token_use !== undefined && payload.token_use !== 'access') return false;
  const aud = payload.aud;
  if (Array.isArray(aud) ? aud.includes(audience) : aud === audience) return true;
  return aud === undefined && payload.token_use === 'access' && payload.client_id === audience;
};

/** How far ahead of this clock an issuer's may be: a token issued later than that is refused. Here, not
 * by jose: it checks `iat` only against a maximum token age (maxTokenAge), which the service sets none of. */
const ISSUED_AHEAD_SECONDS = 60;
const issuedInThePast = (payload: JWTPayload) =>
  payload.iat === undefined || payload.iat <= Date.now() / 1000 + ISSUED_AHEAD_SECONDS;

/**
 * The subject becomes the user id inside our keys (`uploads/<sub>/…`, `USER#<sub>`), so it may not
 * hold their separators: a sub `<victim>/<upload id>` would own the prefix of a victim's upload. Any
 * issuer's usual ids pass (Cognito's UUIDs, `auth0|…`, `google-oauth2|…`, e-mail addresses). Nor may
 * it be dots alone: `uploads/./<victim>/…` was a `.` user's key, and the embedded S3 resolved it to
 * the victim's object.
 */
export const SAFE_SUBJECT_RULE = '1-255 printable ASCII characters other than space, / and #, not dots alone';
export const isSafeSubject = (sub: unknown): sub is string =>
  typeof sub === 'string' && /^[\x21-\x7e]{1,255}$/.test(sub) && !/[/#]/.test(sub) && !/^\.+$/.test(sub);

export async function authenticate(authorization: string | undefined): Promise<Caller> {
  const token = bearerToken(authorization);
  const known = verified.get(token);
  if (known && known.expiresAt > Date.now()) return known.caller;
  if (known) verified.delete(token);
  const verify = verifierFor();
  let payload: JWTPayload;
  try {
    payload = await verify(token);
  } catch (error) {
    if (error instanceof KeySetUnavailable) {
      log.error('token signing keys unavailable', {
        reason: String((error.reason as Error)?.message ?? error.reason),
      });
      throw new ServiceUnavailableError();
    }
    throw new InvalidCredentialsError();
  }
  if (
    !audienceMatches(payload, config.auth.audience) ||
    !isSafeSubject(payload.sub) ||
    !issuedInThePast(payload)
  )
    throw new InvalidCredentialsError();
  const caller = { userId: payload.sub };
  if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
  verified.set(token, { caller, expiresAt: (payload.exp ?? 0) * 1000 });
  return caller;
}
