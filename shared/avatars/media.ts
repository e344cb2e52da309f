// The avatar's objects in the bucket: the source video (a form's, written before its record; or the
// caller's direct upload, used where it is) and the consent recording (uploaded by the client through
// a presigned PUT; its presence is `consent_received`).
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { deleteObject, headObject, s3 } from '../aws/s3.ts';
import { config } from '../config.ts';
import { log } from '../log.ts';

/** Whether a non-empty object exists at `key`. */
export async function objectExists(key: string): Promise<boolean> {
  return ((await headObject(key))?.ContentLength ?? 0) > 0;
}

export async function putObject(key: string, body: Buffer, contentType: string): Promise<void> {
  await s3().send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, ContentType: contentType }),
  );
}

/** Clean-up after a failed multi-step write: logged, never thrown over the original outcome. */
export async function deleteObjectQuietly(key: string): Promise<void> {
  try {
    await deleteObject(key);
  } catch (error) {
    log.warn('avatar object left behind', { key, error: (error as Error).name });
  }
}
