// The S3 client, one per container, created on first use (kept apart from DynamoDB's so functions
// that never touch S3 do not bundle it).
import {
  GetObjectCommand,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  S3Client,
} from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { sdkLogger } from './sdk-logger.ts';

let s3Client: S3Client | undefined;

export const s3 = (): S3Client => {
  if (!s3Client) {
    const endpoint = config.s3Endpoint;
    s3Client = new S3Client({
      region: config.region,
      maxAttempts: 3,
      logger: sdkLogger,
      // s3rver speaks path-style only and knows no flexible checksums; AWS accepts both settings.
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }
  return s3Client;
};

export const resetS3 = () => {
  s3Client?.destroy();
  s3Client = undefined;
};

/** S3's answer for a key with no object (HeadObject says `NotFound`, GetObject `NoSuchKey`). */
export const isMissingObject = (error: unknown) => {
  const { name, $metadata } = error as Error & { $metadata?: { httpStatusCode?: number } };
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

/** The object's metadata, or undefined when there is no object at `key`. */
export async function headObject(key: string): Promise<HeadObjectCommandOutput | undefined> {
  try {
    return await s3().send(new HeadObjectCommand({ Bucket: config.bucketName, Key: key }));
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    throw error;
  }
}

/**
 * The first `length` bytes of a non-empty object (all of it when shorter), or undefined when there is
 * no object. Not for an empty one: S3 answers a range over no bytes with 416 (the embedded S3 drops
 * the connection).
 */
export async function readObjectStart(key: string, length: number): Promise<Uint8Array | undefined> {
  try {
    const object = await s3().send(
      new GetObjectCommand({ Bucket: config.bucketName, Key: key, Range: `bytes=0-${length - 1}` }),
    );
    const bytes = (await object.Body?.transformToByteArray()) ?? new Uint8Array();
    return bytes.subarray(0, length); // a store that ignores Range sends it all
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    throw error;
  }
}
