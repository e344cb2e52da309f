// A ranged GET of an empty object, answered as S3 answers it: 416 InvalidRange (no byte of it is in
// any range). s3rver answers 206 with `Content-Range: bytes 0-0/0` and a Content-Length of 1, then
// sends no byte, so the client's read of the body fails as a dropped connection. The chat send and the
// avatar upload read an upload with one ranged GET and take a 416 for an empty object.
import { type KoaContext, type Next, type ObjectStore, objectOf, refuse } from './s3-conditional-writes.ts';

export const emptyRanges =
  (store: ObjectStore) =>
  async (ctx: KoaContext, next: Next): Promise<unknown> => {
    const range = ctx.get('range');
    const { bucket, key } = objectOf(ctx);
    if (ctx.method !== 'GET' || !key || !/^bytes=/.test(range) || !(await store.existsObject(bucket, key)))
      return next();
    if ((await store.getMetadata(bucket, key))['content-length'] > 0) return next();
    return refuse(ctx, 416, 'InvalidRange', 'The requested range is not satisfiable', {
      RangeRequested: range,
      ActualObjectSize: '0',
    });
  };
