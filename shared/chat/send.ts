// Endpoint 11: a user's message, its attachments checked against the bucket and turned into content
// blocks. One wave (session read, Idempotency-Key claim, one ranged GET of each attachment's first
// bytes), then the write.

import { headObject, type ObjectStart, readObjectStart } from '../aws/s3.ts';
import { config } from '../config.ts';
import { ownedBy } from '../db/store.ts';
import { ConflictError, RequestValidationError, type ValidationItem } from '../http/errors.ts';
import { valueError } from '../http/fields.ts';
import { fieldError } from '../http/validation.ts';
import { createOnce } from '../idempotency.ts';
import { bareMediaType } from '../media-type.ts';
import { isOwnUploadKey } from '../uploads/keys.ts';
import {
  ATTACHMENT_LIMITS,
  ATTACHMENT_START_BYTES,
  attachmentType,
  documentMark,
  IMAGE_FORMATS,
  imageFormatOf,
  imageSizeOf,
  mediaTypeOfName,
  type ResolvedAttachment,
  readsAsText,
  SUPPORTED_TYPES_TEXT,
  toContentBlocks,
} from './content-blocks.ts';
import { chatKeys } from './keys.ts';
import type { AttachmentInput, ChatMessage, SendMessageInput } from './schemas.ts';
import {
  hasRoomFor,
  readMessage,
  readSessionWithNames,
  SESSION_DOCUMENTS_FULL,
  SESSION_RESOURCE,
  storeUserMessage,
} from './store.ts';

const MiB = 1024 * 1024;
const GENERIC_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', '']);

const imageFormats = Object.values(IMAGE_FORMATS);
const NOT_AN_IMAGE = `the file is not a ${imageFormats.slice(0, -1).join(', ')} or ${imageFormats.at(-1)} image`;
const NO_JPEG_FRAME = 'the file is a damaged or incomplete jpeg image (no frame header)';
const NOT_TEXT = 'the file is not UTF-8 text';

type Refusal = { field: 'key' | 'media_type'; reason: string };
const NO_FILE: Refusal = { field: 'key', reason: 'no uploaded file at this key' };

/**
 * An attachment's object: its type, size and first bytes from one ranged GET. An empty object's answer
 * (416) says no type, which decides as for any object: a HeadObject asks it, only then.
 */
const readAttachment = async (key: string): Promise<ObjectStart | undefined> => {
  const object = await readObjectStart(key, ATTACHMENT_START_BYTES);
  if (!object || object.size > 0) return object;
  const head = await headObject(key);
  return head && { ...object, contentType: head.ContentType };
};

/** One attachment's type and size against the object that is there. */
const resolveOne = (
  userId: string,
  attachment: AttachmentInput,
  object: ObjectStart | undefined,
): ResolvedAttachment | Refusal => {
  if (!isOwnUploadKey(userId, attachment.key))
    return { field: 'key', reason: 'key is not one of your uploads' };
  if (!object) return NO_FILE;
  const fileName = attachment.name ?? attachment.key.split('/').at(-1)!;
  // The client's media type wins, then the stored Content-Type, then the file extension. A stored
  // type that names something (video/mp4) decides even when unsupported: the bytes are that, whatever
  // the file is called. Only a generic one leaves it to the extension.
  if (attachment.media_type !== null && !attachmentType(attachment.media_type))
    return { field: 'media_type', reason: `unsupported media type (supported: ${SUPPORTED_TYPES_TEXT})` };
  const stored = bareMediaType(object.contentType);
  const type = attachmentType(
    attachment.media_type ??
      (GENERIC_TYPES.has(stored) ? undefined : stored) ??
      mediaTypeOfName(fileName) ??
      mediaTypeOfName(attachment.key),
  );
  if (!type) return { field: 'key', reason: `unsupported file type (supported: ${SUPPORTED_TYPES_TEXT})` };
  const limit = type.kind === 'image' ? ATTACHMENT_LIMITS.imageBytes : ATTACHMENT_LIMITS.documentBytes;
  if (object.size > limit)
    return { field: 'key', reason: `${type.kind} is larger than ${limit / MiB} MB (${limit} bytes)` };
  return { key: attachment.key, fileName, type };
};

/**
 * An attachment as its first bytes show it: an image in the format its bytes are in (a JPEG named
 * .png is a JPEG) and within Converse's pixel limit, a binary document bearing its format's mark (a
 * .pdf that is an HTML page is refused), a text document reading as UTF-8 text.
 */
const bytesChecked = (attachment: ResolvedAttachment, object: ObjectStart): ResolvedAttachment | Refusal => {
  const { type } = attachment;
  const start = object.bytes;
  if (type.kind === 'image') {
    const format = imageFormatOf(start);
    if (!format) return { field: 'key', reason: NOT_AN_IMAGE };
    const size = imageSizeOf(format, start);
    // A JPEG with no frame header before its end cannot be decoded; one whose frame header is past the
    // bytes read (a long run of metadata) is taken unchecked.
    if (size === 'none' || (size === undefined && format === 'jpeg' && start.length >= object.size))
      return { field: 'key', reason: NO_JPEG_FRAME };
    const most = ATTACHMENT_LIMITS.imagePixels;
    if (size && (size.width > most || size.height > most))
      return {
        field: 'key',
        reason: `image is larger than ${most} × ${most} pixels (${size.width} × ${size.height})`,
      };
    return { ...attachment, type: { kind: 'image', format, mediaType: `image/${format}` } };
  }
  const mark = documentMark(type.format);
  if (!mark)
    return readsAsText(start, start.length < object.size) ? attachment : { field: 'key', reason: NOT_TEXT };
  return mark(start) ? attachment : { field: 'key', reason: `the file is not in ${type.format} format` };
};

/**
 * Checks every attachment (own upload prefix, object exists, supported type, size, per-kind count)
 * and reports all failures at once, at `["body","attachments",i,<field>]`.
 */
export async function resolveAttachments(
  userId: string,
  attachments: readonly AttachmentInput[],
): Promise<ResolvedAttachment[]> {
  const objects = await Promise.all(
    attachments.map((a) => (isOwnUploadKey(userId, a.key) ? readAttachment(a.key) : undefined)),
  );
  const problems: ValidationItem[] = [];
  const resolved: ResolvedAttachment[] = [];
  const counts = { image: 0, document: 0 };
  for (const [i, attachment] of attachments.entries()) {
    const object = objects[i];
    let outcome = resolveOne(userId, attachment, object);
    if ('type' in outcome && object) outcome = bytesChecked(outcome, object);
    if ('type' in outcome) {
      const most = outcome.type.kind === 'image' ? ATTACHMENT_LIMITS.images : ATTACHMENT_LIMITS.documents;
      if (++counts[outcome.type.kind] > most)
        outcome = { field: 'key', reason: `a message takes at most ${most} ${outcome.type.kind}s` };
    }
    if ('type' in outcome) resolved.push(outcome);
    else
      problems.push(
        fieldError(
          ['body', 'attachments', i, outcome.field],
          attachment[outcome.field],
          valueError(outcome.reason),
        ),
      );
  }
  if (problems.length > 0) throw new RequestValidationError(problems);
  return resolved;
}

/**
 * With an Idempotency-Key, the key is claimed in the first wave, beside the session read and the
 * attachment checks; the message is written in the second under the claim's id (shared/idempotency.ts:
 * a retry answers the first message, or writes it if the first request died before it could).
 */
export const sendMessage = (
  userId: string,
  sessionId: string,
  input: SendMessageInput,
  key: string | undefined,
): Promise<ChatMessage> =>
  createOnce({
    claimAt: key === undefined ? undefined : chatKeys.idempotency(sessionId, userId, key),
    idAttribute: 'message_id',
    noun: 'message',
    request: [input.content, input.attachments ?? []],
    // The session answers first: a stranger learns nothing about keys or attachments. Read
    // consistently (as every table read): the document names of the message sent just before are in it.
    check: async () => ownedBy(await readSessionWithNames(sessionId), userId, SESSION_RESOURCE),
    // Checked only to write: a retry returns the first message even if its attachments have gone since.
    prepare: async (checking) => {
      const [attachments, session] = await Promise.all([
        resolveAttachments(userId, input.attachments ?? []),
        checking,
      ]);
      const documents = attachments.filter((attachment) => attachment.type.kind === 'document').length;
      // As read; sends at the same moment are held to it by the claim of their names (store.ts).
      if (!hasRoomFor(session.document_names, documents)) throw new ConflictError(SESSION_DOCUMENTS_FULL);
      return attachments;
    },
    write: (identity, session, attachments) =>
      storeUserMessage(
        session,
        (taken, mark) => toContentBlocks(input.content, attachments, config.bucketName, taken, mark),
        identity,
        key !== undefined,
      ),
    read: (id) => readMessage(sessionId, id),
  });
