// POST /api/v1/brand-kits/generate-from-upload (spec 1): a draft brand kit from a PDF or DOCX, sent as
// the multipart part `file` or named by `upload_key` (a direct upload). Nothing is saved but the logos.
import { GenerateFromUploadBody, GenerateFromUploadForm, generateDraft } from '#shared/brand-kits/generate';
import { BRAND_KIT_LIMITS, BrandKitDraft } from '#shared/brand-kits/schemas';
import { formBody } from '#shared/http/multipart';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  {
    form: formBody(GenerateFromUploadForm, { maxFileBytes: BRAND_KIT_LIMITS.multipartFileBytes }),
    body: GenerateFromUploadBody,
    maxBodyBytes: BRAND_KIT_LIMITS.multipartBodyBytes,
    response: BrandKitDraft,
    summary: 'Draft a brand kit from a brand-guidelines document (PDF or DOCX)',
    errors: [404],
  },
  ({ caller, form, body, remainingMs }) =>
    generateDraft(caller.userId, form ? { file: form.file } : { uploadKey: body.upload_key }, remainingMs()),
);
