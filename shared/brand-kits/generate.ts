// Endpoint 1: a brand kit draft from a guidelines document. Nothing is persisted but the logo images,
// under the caller's draft prefix (a lifecycle rule expires them). The extractor (pdf.js, the DOCX
// reader) runs in a worker process, which imports it on first use (extract/worker.ts); no other
// function's bundle carries it.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import * as v from 'valibot';
import { s3 } from '../aws/s3.ts';
import { config } from '../config.ts';
import { UnsupportedMediaTypeError } from '../http/errors.ts';
import { model, string } from '../http/fields.ts';
import { type UploadedFile, uploadedFile } from '../http/multipart.ts';
import { valueRefused } from '../http/validation.ts';
import { newId } from '../ids.ts';
import { codePointLength, cutAtWord } from '../strings.ts';
import { UPLOAD_KEY_DESCRIPTION } from '../uploads/keys.ts';
import { readOwnUpload } from '../uploads/store.ts';
import type { BrandKitExtraction, BrandKitDraft as ExtractedDraft, ExtractedLogo } from './extract/types.ts';
import { DocumentError } from './extract/types.ts';
import { extractInWorker, WORKER_START_MS } from './extract/worker.ts';
import { draftLogoKey } from './keys.ts';
import {
  BRAND_KIT_LIMITS,
  type BrandKitDraft,
  LOGO_FIELDS,
  LOGO_ROLES,
  TEXT_MAX,
  WORD_LISTS,
} from './schemas.ts';
import { draftFields } from './store.ts';

/** The multipart form: one file part. A text part named `file` fails as FastAPI's UploadFile does. */
export const GenerateFromUploadForm = model({ file: uploadedFile() });

/** The JSON alternative: one of the caller's direct uploads, for documents over the multipart limit. */
export const GenerateFromUploadBody = model({
  upload_key: v.pipe(string({ min: 1, max: BRAND_KIT_LIMITS.key }), v.description(UPLOAD_KEY_DESCRIPTION)),
});

/** Time kept back from the function's own timeout for storing logos and answering. */
const RESERVE_MS = 2_000;

export type DocumentSource = { file: UploadedFile } | { uploadKey: string };

export async function generateDraft(
  userId: string,
  source: DocumentSource,
  remainingMs: number,
): Promise<BrandKitDraft> {
  const [bytes, loc, input] =
    'file' in source
      ? [source.file.content, ['body', 'file'], null]
      : [
          await readOwnUpload(userId, source.uploadKey, BRAND_KIT_LIMITS.uploadBytes),
          ['body', 'upload_key'],
          source.uploadKey,
        ];
  const timeoutMs = Math.max(
    1,
    Math.min(BRAND_KIT_LIMITS.extractMs, remainingMs - RESERVE_MS - WORKER_START_MS),
  );
  let extraction: BrandKitExtraction;
  try {
    extraction = await extractInWorker(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), {
      timeoutMs,
      endsAt: Date.now() + remainingMs - RESERVE_MS,
    });
  } catch (error) {
    if (!(error instanceof DocumentError)) throw error;
    if (error.kind === 'unsupported') throw new UnsupportedMediaTypeError(error.message);
    // Encrypted, corrupt, empty, inflating past the limits, or too slow: the document is the problem.
    throw valueRefused(loc, input, error.message);
  }
  const keys = await storeDraftLogos(userId, extraction.logos);
  return draftFields({ ...savable(extraction.draft), ...keys });
}

/**
 * The draft as `POST /brand-kits` takes it back, so that a draft saves as returned: a text past its
 * field's limit is cut at a word and ends in '…' (a website URL is dropped: a cut URL names another
 * page, and so is a social link past the same limit), keyword items outside 1–200 characters are left
 * out, lists and the palette kept to the save's counts (the palette lists the colours with a role first).
 */
function savable(draft: ExtractedDraft): ExtractedDraft {
  const fitted = { ...draft };
  for (const field of Object.keys(TEXT_MAX) as (keyof typeof TEXT_MAX)[]) {
    const value = fitted[field];
    const max = TEXT_MAX[field];
    if (value && codePointLength(value) > max)
      fitted[field] = field === 'website_url' ? null : cutAtWord(value, max);
  }
  for (const field of WORD_LISTS)
    fitted[field] = fitted[field]
      .filter((item) => item.length > 0 && codePointLength(item) <= BRAND_KIT_LIMITS.listItem)
      .slice(0, BRAND_KIT_LIMITS.listItems);
  fitted.color_palette = fitted.color_palette?.slice(0, BRAND_KIT_LIMITS.palette) ?? null;
  // A social link is held to a website_url's limit, and left out past it with the handle read from it
  // (a cut URL names another page): a document's link may be any length, a saved object at most
  // 16 KiB, which one link of at most 500 characters per known network stays well within.
  const tooLong = Object.entries(fitted.social_links ?? {}).flatMap(([network, url]) =>
    codePointLength(url) > TEXT_MAX.website_url ? [network] : [],
  );
  if (tooLong.length > 0) {
    const without = (links: Record<string, string> | null) => {
      const kept = Object.entries(links ?? {}).filter(([network]) => !tooLong.includes(network));
      return kept.length > 0 ? Object.fromEntries(kept) : null;
    };
    fitted.social_links = without(fitted.social_links);
    fitted.social_profiles = without(fitted.social_profiles);
  }
  return fitted;
}

/** One PutObject per role the document shows (the first logo of each role), in one wave. */
async function storeDraftLogos(userId: string, logos: ExtractedLogo[]) {
  const draftId = newId();
  const stored = await Promise.all(
    LOGO_ROLES.flatMap((role) => {
      const logo = logos.find((l) => l.role === role);
      if (!logo) return [];
      const key = draftLogoKey(userId, draftId, role);
      const put = s3().send(
        new PutObjectCommand({
          Bucket: config.bucketName,
          Key: key,
          Body: logo.png,
          ContentType: 'image/png',
        }),
      );
      return [put.then(() => [LOGO_FIELDS[role].key, key] as const)];
    }),
  );
  return Object.fromEntries(stored) as Partial<
    Record<(typeof LOGO_FIELDS)[keyof typeof LOGO_FIELDS]['key'], string>
  >;
}
