// Chat sessions and endpoint 11. The spec gives the content bound and leaves the attachment shape
// open; ours is `{key, name?, media_type?}` (docs/chat.md).
import * as v from 'valibot';
import { cursorPageQuery, list, model, optionalNullable, string, uuid, valueError } from '../http/fields.ts';
import { dateTimeOut, nullableUuid, uuidOut } from '../http/response-fields.ts';
import { codePointLength } from '../strings.ts';
import { ATTACHMENT_LIMITS, DOCUMENT_FORMATS, IMAGE_FORMATS } from './content-blocks.ts';

export const CHAT_LIMITS = {
  title: { min: 1, max: 200 },
  content: { min: 1, max: 10_000 },
  /** Images and documents together; each kind has its own limit too (ATTACHMENT_LIMITS). */
  attachments: ATTACHMENT_LIMITS.images + ATTACHMENT_LIMITS.documents,
  key: { min: 1, max: 1024 },
  name: { min: 1, max: 255 },
  mediaType: { min: 1, max: 255 },
  /** Documents a session holds: its names item (chatKeys.documentNames) keeps each one's name (at most
   * 200 characters) and its owner (48), and 1,000 of them (about 250 KB) stay below DynamoDB's 400 KB
   * item limit. */
  sessionDocuments: 1_000,
  page: { min: 1, max: 100, default: 50 },
} as const;

export const ChatSessionPath = model({ session_id: uuid() });

export const CreateChatSessionBody = model({
  title: string(CHAT_LIMITS.title),
  team_id: optionalNullable(uuid()),
  project_id: optionalNullable(uuid()),
});
export type CreateChatSessionInput = v.InferOutput<typeof CreateChatSessionBody>;

export const AttachmentInput = model({
  /** An object key under the caller's own upload prefix (see POST /api/v1/uploads). */
  key: v.pipe(
    string(CHAT_LIMITS.key),
    v.description(
      `The key POST /api/v1/uploads answered for one of your uploads, holding an image (at most ${ATTACHMENT_LIMITS.images} a message) or a document (at most ${ATTACHMENT_LIMITS.documents}); otherwise a 422 value_error at this key.`,
    ),
  ),
  /** Shown to the model as the document's name; defaults to the key's file name. */
  name: optionalNullable(string(CHAT_LIMITS.name)),
  /** Overrides the stored object's Content-Type and the file extension. */
  media_type: optionalNullable(
    v.pipe(
      string(CHAT_LIMITS.mediaType),
      v.description(
        `Overrides the stored object's Content-Type: one of ${[...Object.keys(IMAGE_FORMATS), ...Object.keys(DOCUMENT_FORMATS)].join(', ')} (parameters allowed), else a 422 value_error at this field.`,
      ),
    ),
  ),
});
export type AttachmentInput = v.InferOutput<typeof AttachmentInput>;

const BLANK_CONTENT = 'content must hold some text, not only whitespace';

/** A character that is whitespace to none of JavaScript (`\s`), Python (`str.isspace`: also U+001C–U+001F
 * and U+0085) and Java (`Character.isWhitespace`, a subset of the two): which one Converse counts by is
 * not said, so text blank to any of them is refused. */
const SOME_TEXT = '[^\\s\\x1c-\\x1f\\x85]';
const someText = new RegExp(SOME_TEXT, 'u');

/**
 * The message's text block. Converse refuses a text block of whitespace alone ("text content blocks
 * must contain non-whitespace text"), and the agent replays every message of the session on each turn,
 * so one stored blank message would break the whole session. A length error is reported alone.
 */
const messageText = v.pipe(
  string(CHAT_LIMITS.content),
  v.check(
    (s) => s === '' || codePointLength(s) > CHAT_LIMITS.content.max || someText.test(s),
    valueError(BLANK_CONTENT),
  ),
  // The pattern (a search: some character that is not whitespace) says the check in the document.
  v.metadata({
    jsonSchema: {
      type: 'string',
      minLength: CHAT_LIMITS.content.min,
      maxLength: CHAT_LIMITS.content.max,
      pattern: SOME_TEXT,
      description: `Plain text, ${CHAT_LIMITS.content.min}–${CHAT_LIMITS.content.max} code points, not only whitespace; stored as sent.`,
    },
  }),
);

export const SendMessageBody = model({
  content: messageText,
  attachments: optionalNullable(list(AttachmentInput, { max: CHAT_LIMITS.attachments })),
});
export type SendMessageInput = v.InferOutput<typeof SendMessageBody>;

export const ListMessagesQuery = cursorPageQuery(CHAT_LIMITS.page);
export type ListMessagesInput = v.InferOutput<typeof ListMessagesQuery>;

// ---- responses ----------------------------------------------------------------------------

// Bedrock Converse's block shapes: the one definition of the types `content-blocks.ts` builds.
const S3Source = v.object({
  s3Location: v.object({ uri: v.string(), bucketOwner: v.optional(v.string()) }),
});
export type S3Source = v.InferOutput<typeof S3Source>;

export const ContentBlock = v.union([
  v.object({ text: v.string() }),
  v.object({ image: v.object({ format: v.picklist(Object.values(IMAGE_FORMATS)), source: S3Source }) }),
  v.object({
    document: v.object({
      format: v.picklist(Object.values(DOCUMENT_FORMATS)),
      name: v.string(),
      source: S3Source,
    }),
  }),
]);
export type ContentBlock = v.InferOutput<typeof ContentBlock>;

export const ChatMessage = v.object({
  id: uuidOut,
  session_id: uuidOut,
  role: v.picklist(['user', 'assistant']),
  content: v.array(ContentBlock),
  created_at: dateTimeOut,
});
export type ChatMessage = v.InferOutput<typeof ChatMessage>;

export const ChatMessagePage = v.object({
  /** Oldest first. */
  messages: v.array(ChatMessage),
  /** Pass as `after` for the next page; null on the last page. */
  next_after: v.nullable(v.string()),
});
export type ChatMessagePage = v.InferOutput<typeof ChatMessagePage>;

export const ChatSession = v.object({
  id: uuidOut,
  title: v.string(),
  team_id: nullableUuid,
  project_id: nullableUuid,
  created_at: dateTimeOut,
});
export type ChatSession = v.InferOutput<typeof ChatSession>;
export const ChatSessionList = v.array(ChatSession);
