// The avatar's objects in the bucket: the source video (a form's, written before its record; or the
// caller's direct upload, used where it is) and the consent recording (uploaded by the client through
// a presigned PUT; its presence is `consent_received`).
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { headObject, isMissingObject, s3 } from '../aws/s3.ts';
import { config } from '../config.ts';
import { log } from '../log.ts';

/** Whether a non-empty object exists at `key`. */
export async function objectExists(key: string): Promise<boolean> {
  return ((await headObject(key))?.ContentLength ?? 0) > 0;
}

/** The first `count` bytes of an object, its total size and the version read (on a versioned bucket),
 * in one ranged GET; undefined when the object does not exist. */
export async function readObjectHead(
  key: string,
  count: number,
): Promise<{ head: Buffer; size: number; versionId?: string } | undefined> {
  try {
    const object = await s3().send(
      new GetObjectCommand({ Bucket: config.bucketName, Key: key, Range: `bytes=0-${count - 1}` }),
    );
    const head = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    const total = /\/(\d+)$/.exec(object.ContentRange ?? '')?.[1];
    const size = total === undefined ? (object.ContentLength ?? head.length) : Number(total);
    return { head, size, versionId: object.VersionId };
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
