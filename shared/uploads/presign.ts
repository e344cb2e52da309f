// The one-time presigned PUT of a direct upload and of an avatar's consent recording: signing only
// (no request), apart from the uploads store so the avatar status does not load the allowance and
// Idempotency-Key code.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3 } from '../aws/s3.ts';
import { config } from '../config.ts';

/** What a one-time PUT must send besides its bytes: S3 refuses it (412) once an object is at the key. */
export const PUT_ONCE_HEADERS = { 'if-none-match': '*' } as const;

/**
 * A presigned PUT of exactly `size` bytes (and of `contentType`, when given) to `key`, once: S3
 * refuses any other length or type, and (If-None-Match: *) a PUT to the key once an object is there.
 * A URL may be used until it expires and the bucket keeps overwritten versions, so without the
 * condition each PUT would store `size` bytes more than the allowance counted. Signed headers are
 * checked by S3, so the size and type signed here are the ones stored.
 */
export const presignPutOnce = (
  key: string,
  { size, contentType }: { size: number; contentType?: string },
  { expiresIn, signedAt }: { expiresIn: number; signedAt: Date },
): Promise<string> =>
  getSignedUrl(
    s3(),
    new PutObjectCommand({
      Bucket: config.bucketName,
      Key: key,
      ContentType: contentType,
      ContentLength: size,
      IfNoneMatch: PUT_ONCE_HEADERS['if-none-match'],
    }),
    {
      expiresIn,
      signingDate: signedAt,
      signableHeaders: new Set([...(contentType ? ['content-type'] : []), 'content-length', 'if-none-match']),
    },
  );
