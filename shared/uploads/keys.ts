// Where a user's direct uploads live in the bucket. Every route that takes an `upload_key` or an
// attachment key checks it is under the caller's own prefix (else 404, as for a missing object).
export const UPLOADS_PREFIX = 'uploads/';

export const userUploadPrefix = (userId: string) => `${UPLOADS_PREFIX}${userId}/`;

export const isOwnUploadKey = (userId: string, key: string) =>
  key.startsWith(userUploadPrefix(userId)) && !key.includes('..') && !key.includes('//');

/** Draft artefacts (brand-kit logos) expire by a bucket lifecycle rule on this prefix. */
export const draftPrefix = (userId: string) => `drafts/${userId}/`;
