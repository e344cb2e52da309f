// The avatar's objects in the bucket: the source video (written before its record) and the consent
// recording (uploaded by the client through a presigned PUT; its presence is `consent_received`).
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { headObject, isMissingObject, s3 } from '../aws/s3.ts';
import { config } from '../config.ts';
import { log } from '../log.ts';

/** Whether a non-empty object exists at `key`. */
export async function objectExists(key: string): Promise<boolean> {
  return ((await headObject(key))?.ContentLength ?? 0) > 0;
}

/** The first `count` bytes of an object and its total size, in one ranged GET; undefined when the
 * object does not exist. */
export async function readObjectHead(
  key: string,
  count: number,
): Promise<{ head: Buffer; size: number } | undefined> {
  try {
    const object = await s3().send(
      new GetObjectCommand({ Bucket: config.bucketName, Key: key, Range: `bytes=0-${count - 1}` }),
    );
    const head = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    const total = /\/(\d+)$/.exec(object.ContentRange ?? '')?.[1];
    return { head, size: total === undefined ? (object.ContentLength ?? head.length) : Number(total) };
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    // An empty object has no byte 0: S3 answers 416 to the range.
    if ((error as Error).name === 'InvalidRange') return { head: Buffer.alloc(0), size: 0 };
    throw error;
  }
}

export async function putObject(key: string, body: Buffer, contentType: string): Promise<void> {
  await s3().send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, ContentType: contentType }),
  );
}

/** Clean-up after a failed multi-step write: logged, never thrown over the original outcome. */
export async function deleteObjectQuietly(key: string): Promise<void> {
  try {
    await s3().send(new DeleteObjectCommand({ Bucket: config.bucketName, Key: key }));
  } catch (error) {
    log.warn('avatar object left behind', { key, error: (error as Error).name });
  }
}
