// ListObjectsV2 past its first page, answered as S3 answers it. s3rver makes its continuation token
// with DES, which Node.js 17 and later (OpenSSL 3) refuse: every listing with more keys than one page
// answered 500 InternalError. The catalogue import lists its snapshots page by page to prune them.
// Here the listing itself is still s3rver's store; the token names the last entry listed, a key or a
// common prefix (S3's is opaque).
import { type KoaContext, type Next, objectOf, refuse } from './s3-conditional-writes.ts';

interface ListedObject {
  key: string;
  size: number;
  lastModifiedDate: Date;
  metadata: Record<string, string>;
}

/** The part of s3rver's store (lib/stores/filesystem.js) that lists keys. */
export interface ListingStore {
  getBucket(bucket: string): Promise<unknown>;
  listObjects(
    bucket: string,
    options: { prefix?: string; delimiter?: string; startAfter?: string; maxKeys: number },
  ): Promise<{ objects: ListedObject[]; commonPrefixes: string[]; isTruncated: boolean }>;
}

/** S3 answers at most 1,000 keys a page, whatever MaxKeys asks. */
const PAGE_LIMIT = 1000;

const xmlText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const element = (name: string, value: string | number | boolean | undefined) =>
  value === undefined || value === '' ? '' : `<${name}>${xmlText(String(value))}</${name}>`;

/** Where a page ended: after a key, or past a common prefix (and so past every key under it). */
interface Position {
  after: string;
  prefix: boolean;
}
const tokenOf = (position: Position) => Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
function positionOf(token: string): Position | undefined {
  try {
    const position = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return typeof position?.after === 'string' && typeof position.prefix === 'boolean' ? position : undefined;
  } catch {
    return undefined;
  }
}

/** The page's last entry in key order, a key or a common prefix. */
function lastEntry(key: string | undefined, prefix: string | undefined): Position | undefined {
  if (prefix !== undefined && (key === undefined || prefix > key)) return { after: prefix, prefix: true };
  return key === undefined ? undefined : { after: key, prefix: false };
}

export const listPages =
  (store: ListingStore) =>
  async (ctx: KoaContext, next: Next): Promise<unknown> => {
    const { bucket, key } = objectOf(ctx);
    if (ctx.method !== 'GET' || key || ctx.query['list-type'] !== '2') return next();
    // A missing bucket, or a request S3 would refuse, is s3rver's to answer.
    if (!(await store.getBucket(bucket))) return next();
    const query = ctx.query as Record<string, string | undefined>;
    const maxKeys = query['max-keys'] === undefined ? PAGE_LIMIT : Number(query['max-keys']);
    if (!Number.isInteger(maxKeys) || maxKeys < 0)
      return refuse(ctx, 400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range');
    const token = query['continuation-token'];
    const prefix = query.prefix ?? '';
    const delimiter = query.delimiter ?? '';
    const from = token === undefined ? undefined : positionOf(token);
    if (token !== undefined && !from)
      return refuse(ctx, 400, 'InvalidArgument', 'The continuation token provided is incorrect');
    const startAfter = from ? from.after : (query['start-after'] ?? '');
    const listed =
      maxKeys === 0
        ? { objects: [], commonPrefixes: [], isTruncated: false }
        : await store.listObjects(bucket, {
            prefix,
            delimiter,
            startAfter,
            maxKeys: Math.min(PAGE_LIMIT, maxKeys),
          });
    // Keys after a prefix that ended the page are under it: s3rver groups them into it again.
    if (from?.prefix) listed.commonPrefixes = listed.commonPrefixes.filter((common) => common !== from.after);
    const last = lastEntry(listed.objects.at(-1)?.key, listed.commonPrefixes.at(-1));
    ctx.status = 200;
    ctx.type = 'application/xml';
    ctx.body = [
      '<?xml version="1.0" encoding="UTF-8"?>\n',
      '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
      element('Name', bucket),
      `<Prefix>${xmlText(prefix)}</Prefix>`,
      element('Delimiter', delimiter),
      element('StartAfter', token === undefined ? startAfter : undefined),
      element('ContinuationToken', token),
      element('NextContinuationToken', listed.isTruncated && last !== undefined ? tokenOf(last) : undefined),
      element('KeyCount', listed.objects.length + listed.commonPrefixes.length),
      element('MaxKeys', maxKeys),
      element('IsTruncated', listed.isTruncated),
      ...listed.objects.map(
        (object) =>
          `<Contents>${element('Key', object.key)}${element('LastModified', object.lastModifiedDate.toISOString())}${element('ETag', object.metadata.etag)}${element('Size', object.size)}<StorageClass>STANDARD</StorageClass></Contents>`,
      ),
      ...listed.commonPrefixes.map(
        (common) => `<CommonPrefixes>${element('Prefix', common)}</CommonPrefixes>`,
      ),
      '</ListBucketResult>',
    ].join('');
  };
