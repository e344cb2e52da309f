// POST /api/v1/uploads: a presigned PUT URL for one file under the caller's own prefix, for files too
// big for an API request (guideline documents, chat attachments).
import { httpRoute } from '#shared/http/route';
import { CreateUploadBody, UploadSlot } from '#shared/uploads/schemas';
import { createUpload } from '#shared/uploads/store';

export const handler = httpRoute(
  {
    body: CreateUploadBody,
    response: UploadSlot,
    summary: 'Get a presigned URL for a direct upload',
    errors: [429],
  },
  ({ caller, body }) => createUpload(caller.userId, body),
);
