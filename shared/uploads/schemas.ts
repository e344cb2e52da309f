// Direct uploads (POST /api/v1/uploads): what a presigned PUT may carry, by content type.
import * as v from 'valibot';
import { ATTACHMENT_LIMITS } from '../chat/content-blocks.ts';
import { integer, literal, model, string, valueError } from '../http/fields.ts';
import { dateTimeOut, intOut } from '../http/response-fields.ts';

const MiB = 1024 * 1024;

/** What a chat attachment of a document type takes (Converse's limit): the upload of a type only
 * chat reads is held to it, so a file too big to attach is refused before it is uploaded. */
const CHAT_DOCUMENT_BYTES = ATTACHMENT_LIMITS.documentBytes;

/** Largest upload of each accepted type: PDF and DOCX as generate-from-upload reads them, the other
 * documents as chat attachments take them, videos as the avatar upload reads them (docs/uploads.md). */
export const UPLOAD_MAX_BYTES = {
  'application/pdf': 50 * MiB,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 50 * MiB,
  'image/png': 20 * MiB,
  'image/jpeg': 20 * MiB,
  'image/gif': 20 * MiB,
  'image/webp': 20 * MiB,
  'text/plain': CHAT_DOCUMENT_BYTES,
  'text/csv': CHAT_DOCUMENT_BYTES,
  'text/markdown': CHAT_DOCUMENT_BYTES,
  'text/html': CHAT_DOCUMENT_BYTES,
  'application/msword': CHAT_DOCUMENT_BYTES,
  'application/vnd.ms-excel': CHAT_DOCUMENT_BYTES,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': CHAT_DOCUMENT_BYTES,
  'video/mp4': 2048 * MiB,
  'video/quicktime': 2048 * MiB,
  'video/webm': 2048 * MiB,
} as const;
export type UploadContentType = keyof typeof UPLOAD_MAX_BYTES;

export const UPLOAD_CONTENT_TYPES = Object.keys(UPLOAD_MAX_BYTES) as [
  UploadContentType,
  ...UploadContentType[],
];

export const UPLOAD_LIMITS = {
  filename: { min: 1, max: 255 },
  /** The largest of any type. */
  maxBytes: Math.max(...Object.values(UPLOAD_MAX_BYTES)),
  /** How long the presigned PUT URL is valid. */
  urlSeconds: 15 * 60,
  /**
   * What one user may ask to upload per UTC day (OWASP API4): ten of the largest videos, or this many
   * files. Counted when the URL is issued, by the size it is signed for.
   */
  daily: { bytes: 20 * 1024 ** 3, uploads: 1000 },
} as const;

export const DAILY_ALLOWANCE_USED = `Daily upload allowance used: at most ${UPLOAD_LIMITS.daily.bytes} bytes in ${UPLOAD_LIMITS.daily.uploads} uploads per UTC day; try again after midnight UTC`;

const UploadFields = model({
  filename: string(UPLOAD_LIMITS.filename),
  content_type: literal(UPLOAD_CONTENT_TYPES),
  size: integer({ ge: 1, le: UPLOAD_LIMITS.maxBytes }),
});

/** The limits below the largest, as JSON Schema states them: if content_type is one of these, size is
 * at most that. */
const sizeLimitsByType = () => {
  const byLimit = new Map<number, UploadContentType[]>();
  for (const type of UPLOAD_CONTENT_TYPES)
    if (UPLOAD_MAX_BYTES[type] < UPLOAD_LIMITS.maxBytes)
      byLimit.set(UPLOAD_MAX_BYTES[type], [...(byLimit.get(UPLOAD_MAX_BYTES[type]) ?? []), type]);
  return [...byLimit].map(([max, types]) => ({
    if: { properties: { content_type: { enum: types } }, required: ['content_type'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, in a plain object never awaited
    then: { properties: { size: { maximum: max } } },
  }));
};

export const CreateUploadBody = v.pipe(
  UploadFields,
  // The limit of the type named, reported on `size` (where a client fixes it).
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { content_type, size } = dataset.value;
    const max = UPLOAD_MAX_BYTES[content_type];
    if (size > max)
      addIssue({
        message: valueError(`${content_type} uploads are at most ${max} bytes`),
        input: size,
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'size', value: size }],
      });
  }),
  v.metadata({
    jsonSchema: {
      $model: UploadFields,
      allOf: sizeLimitsByType(),
      description: `size is at most the limit of its content_type, in bytes: ${Object.entries(
        UPLOAD_MAX_BYTES,
      )
        .map(([type, max]) => `${type} ${max}`)
        .join(', ')}.`,
    },
  }),
);
export type CreateUploadInput = v.InferOutput<typeof CreateUploadBody>;

export const UploadSlot = v.object({
  /** The object key to name in later requests (`upload_key`, attachments). */
  key: v.string(),
  upload_url: v.string(),
  method: v.literal('PUT'),
  /** Headers the PUT must carry exactly as given (they are part of the signature). */
  headers: v.record(v.string(), v.string()),
  /** The PUT must carry exactly this many bytes. */
  size: intOut,
  expires_at: dateTimeOut,
});
export type UploadSlot = v.InferOutput<typeof UploadSlot>;
