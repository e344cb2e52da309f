// The S3 client, one per container, created on first use (kept apart from DynamoDB's so functions
// that never touch S3 do not bundle it).
import {
  DeleteObjectCommand,
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

/** The HTTP status S3 answered a failed request with (412: a conditional write's key is taken; 409:
 * another conditional write to it is in flight, which S3 asks to retry). */
export const s3StatusOf = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** S3's answer for a key with no object (HeadObject says `NotFound`, GetObject `NoSuchKey`). */
export const isMissingObject = (error: unknown) => {
  const { name } = error as Error;
  return name === 'NotFound' || name === 'NoSuchKey' || s3StatusOf(error) === 404;
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

/** Deletes the object at `key` (on the versioned bucket, a delete marker: never a version). */
export async function deleteObject(key: string): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: config.bucketName, Key: key }));
}

/** An object's first bytes, with what a HeadObject would say of it. */
export interface ObjectStart {
  /** Its first bytes: all of them when it is shorter than asked. */
  bytes: Buffer;
  /** The whole object's size in bytes. */
  size: number;
  /** Undefined for an empty object (its 416 says nothing of it). */
  contentType?: string;
  /** The version read, on a versioned bucket. */
  versionId?: string;
}

/**
 * The first `length` bytes of the object at `key`, its size, type and version from one ranged GET
 * (`Content-Range: bytes 0-N/TOTAL` holds the size: no HeadObject first), or undefined when there is
 * no object. An empty object has no byte 0: S3 answers the range with 416 InvalidRange.
 */
export async function readObjectStart(key: string, length: number): Promise<ObjectStart | undefined> {
  try {
    const object = await s3().send(
      new GetObjectCommand({ Bucket: config.bucketName, Key: key, Range: `bytes=0-${length - 1}` }),
    );
    const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    const total = /\/(\d+)$/.exec(object.ContentRange ?? '')?.[1];
    return {
      // A store that ignores the range sends it all (and no Content-Range).
      bytes: bytes.subarray(0, length),
      size: total === undefined ? (object.ContentLength ?? bytes.length) : Number(total),
      contentType: object.ContentType,
      versionId: object.VersionId,
    };
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    if ((error as Error).name === 'InvalidRange') return { bytes: Buffer.alloc(0), size: 0 };
    throw error;
  }
}
