// POST /api/v1/uploads: a presigned PUT URL for one file under the caller's own prefix, for files too
// big for an API request (guideline documents, chat attachments). An Idempotency-Key header makes a
// retry answer the first upload's key, counted once.
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';
import { CreateUploadBody, UploadSlot } from '#shared/uploads/schemas';
import { createUpload } from '#shared/uploads/store';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateUploadBody,
    response: UploadSlot,
    summary: 'Get a presigned URL for a direct upload',
    errors: [409, 429],
  },
  ({ caller, header, body }) => createUpload(caller.userId, body, header['idempotency-key']),
);
