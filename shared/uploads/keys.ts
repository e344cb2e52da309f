// Where a user's direct uploads live in the bucket. Every route that takes an `upload_key` or an
// attachment key checks it is under the caller's own prefix (else 404, as for a missing object).
export const UPLOADS_PREFIX = 'uploads/';

export const userUploadPrefix = (userId: string) => `${UPLOADS_PREFIX}${userId}/`;

/** No key of ours has a longer part below the user's prefix (ids, and file names of at most 100). */
const MAX_KEY_PART_BYTES = 200;
/** S3's limit on a key's UTF-8 bytes: it answers a request naming a longer one 400 KeyTooLongError. */
const S3_KEY_MAX_BYTES = 1024;

/**
 * A key the caller may name under one of their prefixes: no `..` or `//` to climb out of it, no `.`
 * segment (S3 takes `a/./b` literally, while HTTP layers resolve it to `a/b`: the embedded S3 read
 * another object, and a client normalising a presigned URL breaks its signature), no
 * control character or lone surrogate, which no key of ours holds and the S3 client cannot even
 * encode into a request URL (it throws `URIError`), and no part longer than any key of ours has
 * (the embedded S3 fails on a file name of about 245 characters, where S3 would answer 404), nor
 * more bytes in all than S3 takes (1,024 characters can be 4 KB of UTF-8; S3 answers 400, not 404).
 */
export const isKeyUnder = (prefix: string, key: string) =>
  key.startsWith(prefix) &&
  Buffer.byteLength(key) <= S3_KEY_MAX_BYTES &&
  !key.includes('..') &&
  !key.includes('//') &&
  !/[\p{Cc}\p{Cs}]/u.test(key) &&
  // The prefix's parts too: a prefix holding a `.` segment names another prefix once resolved.
  !key.split('/').includes('.') &&
  key
    .slice(prefix.length)
    .split('/')
    .every((part) => Buffer.byteLength(part) <= MAX_KEY_PART_BYTES);

export const isOwnUploadKey = (userId: string, key: string) => isKeyUnder(userUploadPrefix(userId), key);

/** What the OpenAPI document says of an `upload_key`: the rule is the handler's (a 404, not a 422). */
export const UPLOAD_KEY_DESCRIPTION = `The key POST /api/v1/uploads answered for one of your uploads (under ${UPLOADS_PREFIX}<your user id>/); any other key answers 404 Upload not found.`;

/** Draft brand-kit logos expire after a day (the bucket's lifecycle rule on this prefix). */
export const DRAFTS_PREFIX = 'drafts/';
export const draftPrefix = (userId: string) => `${DRAFTS_PREFIX}${userId}/`;

export const isOwnDraftKey = (userId: string, key: string) => isKeyUnder(draftPrefix(userId), key);

const SAFE_NAME_LENGTH = 100;

/** A file name that is safe as the last segment of a key: ASCII letters, digits, `.`, `_`, `-`. */
export const safeFileName = (filename: string): string => {
  const base = filename.split(/[\\/]/).at(-1) ?? '';
  const safe = base
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .slice(-SAFE_NAME_LENGTH)
    // After the cut, which can leave a dot in front (a hidden file's name).
    .replace(/^\.+/, '');
  return safe || 'file';
};

/** A new direct upload: one folder per upload, so two files with the same name never collide. */
export const uploadKey = (userId: string, uploadId: string, filename: string) =>
  `${userUploadPrefix(userId)}${uploadId}/${safeFileName(filename)}`;
