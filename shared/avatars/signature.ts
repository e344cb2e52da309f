// Provider callbacks are signed, not bearer-authenticated: `X-Avatar-Signature: t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the secret shared with the provider. Several v1
// values may be sent (the provider signs with old and new secret while one is being rotated).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors.ts';

export const SIGNATURE_HEADER = 'x-avatar-signature';

/** 401 without a bearer challenge: the caller is a signing provider, not a token holder. */
export class SignatureError extends HttpError {
  constructor(detail: string) {
    super(401, detail);
  }
}

export const SIGNATURE_TEXTS = {
  invalid: 'Invalid signature',
  stale: 'Signature timestamp outside the tolerance',
  replayed: 'Callback already received',
} as const;

const HEX_SHA256 = /^[0-9a-f]{64}$/;

const mac = (secret: string, timestamp: number, body: Buffer) =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();

/** The header value a provider sends for `body` at `timestamp` (tests and local tools use it). */
export const signCallback = (secret: string, timestamp: number, body: Buffer | string): string =>
  `t=${timestamp},v1=${mac(secret, timestamp, Buffer.from(body)).toString('hex')}`;

/** Checks the header against the raw body: throws SignatureError (401) unless one v1 value is the
 * HMAC of what was sent and its timestamp is within the tolerance of now. */
export function verifyCallback(
  header: string | undefined,
  body: Buffer,
  secret: string,
  nowSeconds: number,
  toleranceSeconds: number,
): void {
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of (header ?? '').split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && HEX_SHA256.test(value)) candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0) throw new SignatureError(SIGNATURE_TEXTS.invalid);
  const expected = mac(secret, timestamp, body);
  // Every candidate is compared (no early exit), each in constant time.
  let matched = false;
  for (const candidate of candidates)
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  if (!matched) throw new SignatureError(SIGNATURE_TEXTS.invalid);
  // Checked after the MAC, so the timestamp that is judged is one the provider signed.
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) throw new SignatureError(SIGNATURE_TEXTS.stale);
}
