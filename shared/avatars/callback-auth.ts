// The callback route's authentication (the `verify` step of its pipeline): the provider's signature
// over the raw body, before anything reads the body.
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { now } from '../clock.ts';
import { bodyBytes } from '../http/body.ts';
import { ServiceUnavailableError } from '../http/errors.ts';
import type { RequestVerifier } from '../http/route.ts';
import { log } from '../log.ts';
import { AVATAR_LIMITS } from './schemas.ts';
import { parseSignatureHeader, SIGNATURE_FORMAT, SIGNATURE_HEADER, verifyCallback } from './signature.ts';
import { providerSigningSecret } from './signing-secret.ts';

async function verifyProviderSignature(event: APIGatewayProxyEventV2): Promise<void> {
  const secret = await providerSigningSecret();
  if (!secret) {
    // Fail closed, and as a retryable error: the provider tries again once the secret is configured.
    log.error('avatar provider secret not configured');
    throw new ServiceUnavailableError();
  }
  verifyCallback(
    event.headers?.[SIGNATURE_HEADER],
    // The body exactly as sent: the signature covers these bytes, not a re-serialisation.
    bodyBytes(event),
    secret,
    Math.floor(now().getTime() / 1000),
    AVATAR_LIMITS.callbackToleranceSeconds,
  );
}

/** The callback's authentication, as its route declares it (and the OpenAPI document describes it). */
export const providerSignature: RequestVerifier = {
  check: verifyProviderSignature,
  scheme: {
    name: 'providerSignature',
    definition: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Avatar-Signature',
      description: `${SIGNATURE_FORMAT}. The timestamp must be within ${AVATAR_LIMITS.callbackToleranceSeconds} seconds of the service's clock; a message is accepted once.`,
    },
  },
};

/** The replay key of a verified callback: a digest of what was signed (the timestamp that was checked,
 * as a number, and the body), so a resent message has the same key however its header is rewritten. */
export function signedMessageId(event: APIGatewayProxyEventV2): string {
  const { timestamp } = parseSignatureHeader(event.headers?.[SIGNATURE_HEADER]);
  return createHash('sha256').update(`${timestamp}.`).update(bodyBytes(event)).digest('hex');
}
