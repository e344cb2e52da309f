// Provider callbacks are signed, not bearer-authenticated: `X-Avatar-Signature: t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the secret shared with the provider. Several v1
// values may be sent (the provider signs with old and new secret while one is being rotated).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors.ts';

export const SIGNATURE_HEADER = 'x-avatar-signature';

/** What the header holds, for those who sign (the OpenAPI document shows it). */
export const SIGNATURE_FORMAT =
  '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the secret shared with the avatar provider; several `v1` values may be sent (while a secret is rotated)';

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

/** The signature header for `body` at `timestamp`, with the secret shared with the provider: what the
 * provider sends with its callbacks, and what our job submissions carry so it can tell them genuine. */
export const signProviderMessage = (secret: string, timestamp: number, body: Buffer | string): string =>
  `t=${timestamp},v1=${mac(secret, timestamp, Buffer.from(body)).toString('hex')}`;

/** The header's timestamp and v1 values. A header with more than one `t` has no timestamp: which
 * one was signed would be ambiguous, and the replay key must name the one that was checked. */
export function parseSignatureHeader(header: string | undefined): {
  timestamp?: number;
  candidates: string[];
} {
  const timestamps: number[] = [];
  const candidates: string[] = [];
  for (const part of (header ?? '').split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't') timestamps.push(/^\d{1,12}$/.test(value) ? Number(value) : Number.NaN);
    else if (key === 'v1' && HEX_SHA256.test(value)) candidates.push(value);
  }
  const [timestamp] = timestamps;
  return {
    timestamp: timestamps.length === 1 && !Number.isNaN(timestamp) ? timestamp : undefined,
    candidates,
  };
}

/** Checks the header against the raw body: throws SignatureError (401) unless one v1 value is the
 * HMAC of what was sent and its timestamp is within the tolerance of now. */
export function verifyCallback(
  header: string | undefined,
  body: Buffer,
  secret: string,
  nowSeconds: number,
  toleranceSeconds: number,
): void {
  const { timestamp, candidates } = parseSignatureHeader(header);
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
