// Where a user's direct uploads live in the bucket. Every route that takes an `upload_key` or an
// attachment key checks it is under the caller's own prefix (else 404, as for a missing object).
export const UPLOADS_PREFIX = 'uploads/';

export const userUploadPrefix = (userId: string) => `${UPLOADS_PREFIX}${userId}/`;

export const isOwnUploadKey = (userId: string, key: string) =>
  key.startsWith(userUploadPrefix(userId)) && !key.includes('..') && !key.includes('//');

/** Draft artefacts (brand-kit logos) expire by a bucket lifecycle rule on this prefix. */
export const draftPrefix = (userId: string) => `drafts/${userId}/`;

export const isOwnDraftKey = (userId: string, key: string) =>
  key.startsWith(draftPrefix(userId)) && !key.includes('..') && !key.includes('//');

const SAFE_NAME_LENGTH = 100;

/** A file name that is safe as the last segment of a key: ASCII letters, digits, `.`, `_`, `-`. */
export const safeFileName = (filename: string): string => {
  const base = filename.split(/[\\/]/).at(-1) ?? '';
  const safe = base
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^\.+/, '')
    .slice(-SAFE_NAME_LENGTH);
  return safe || 'file';
};

/** A new direct upload: one folder per upload, so two files with the same name never collide. */
export const uploadKey = (userId: string, uploadId: string, filename: string) =>
  `${userUploadPrefix(userId)}${uploadId}/${safeFileName(filename)}`;
