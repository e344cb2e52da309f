// The consent recording's presigned PUT: issued by the upload, and again by the status while it is
// wanted (docs/avatars.md "consent_url").
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3 } from '../aws/s3.ts';
import { now } from '../clock.ts';
import { config } from '../config.ts';
import { PUT_ONCE_HEADERS, presignPutOnce } from '../uploads/presign.ts';
import { AVATAR_LIMITS } from './schemas.ts';

/** The consent recording's presigned PUT, valid an hour, of exactly the declared size, once
 * (If-None-Match: *), as a direct upload's; the status hands it out again while it is wanted. */
export const consentPut = async (key: string, size: number) => ({
  url: await presignPutOnce(key, { size }, { expiresIn: AVATAR_LIMITS.consentUrlSeconds, signedAt: now() }),
  headers: { ...PUT_ONCE_HEADERS } as Record<string, string>,
});

/** Undeclared, the plain PUT a client written to the spec sends (reusable within the hour and
 * outside the allowance: docs/avatars.md). */
export const plainConsentUrl = (key: string) =>
  getSignedUrl(s3(), new PutObjectCommand({ Bucket: config.bucketName, Key: key }), {
    expiresIn: AVATAR_LIMITS.consentUrlSeconds,
    signingDate: now(),
  });
