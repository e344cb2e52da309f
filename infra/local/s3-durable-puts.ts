// s3rver answers a PUT once the body has passed its MD5 transform, not once its file stream has
// written it (a Buffer body is not waited for at all): a GET right after the answer can read a short
// or empty file. Seen under load as the catalogue pointer read back empty ("Unexpected end of JSON
// input"). S3 makes an object readable whole once its PUT has answered; so does this store: its
// putObject resolves only when the file is written. (s3rver's putPart has the same flaw; nothing here
// uploads in parts.)
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

interface StoredObject {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, string>;
}
type Written = { size: number; md5: string };

/** The parts of s3rver's filesystem store (lib/stores/filesystem.js) this replaces and uses. */
export interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: 'object'): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<Written>;
}

/** Writes the content to the file and resolves once it is there, with its size and MD5. */
async function writeWhole(path: string, content: Buffer | Readable): Promise<Written> {
  await mkdir(dirname(path), { recursive: true });
  const md5 = createHash('md5');
  let size = 0;
  await pipeline(
    Buffer.isBuffer(content) ? Readable.from([content]) : content,
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    }),
    createWriteStream(path),
  );
  return { size, md5: md5.digest('hex') };
}

export const durablePuts = (store: FilesystemStore) => {
  store.putObject = async (object) => {
    const written = await writeWhole(
      store.getResourcePath(object.bucket, object.key, 'object'),
      object.content,
    );
    await store.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    return written;
  };
};
