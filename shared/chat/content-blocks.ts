// Chat attachments become content blocks in the shapes model APIs accept (Bedrock Converse: `text`,
// `image` and `document` blocks whose source is an S3 location). Pure: no AWS access here.
import { bareMediaType } from '../media-type.ts';
import type { ContentBlock, S3Source } from './schemas.ts';

const MiB = 1024 * 1024;

/** Bedrock Converse's limits per message. */
export const ATTACHMENT_LIMITS = {
  images: 20,
  documents: 5,
  imageBytes: 3.75 * MiB,
  documentBytes: 4.5 * MiB,
  /** Width and height, each. */
  imagePixels: 8000,
} as const;

export const IMAGE_FORMATS = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;

export const DOCUMENT_FORMATS = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
} as const;

export type ImageFormat = (typeof IMAGE_FORMATS)[keyof typeof IMAGE_FORMATS];
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[keyof typeof DOCUMENT_FORMATS];

export type AttachmentType =
  | { kind: 'image'; format: ImageFormat; mediaType: string }
  | { kind: 'document'; format: DocumentFormat; mediaType: string };

const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'text/x-markdown': 'text/markdown',
  'application/csv': 'text/csv',
};

const EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  htm: 'text/html',
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
};

/** The attachment type of a media type (`image/png`, `text/plain; charset=utf-8`), if supported. */
export const attachmentType = (mediaType: string | null | undefined): AttachmentType | undefined => {
  if (!mediaType) return undefined;
  const bare = bareMediaType(mediaType);
  const type = ALIASES[bare] ?? bare;
  if (type in IMAGE_FORMATS)
    return { kind: 'image', format: IMAGE_FORMATS[type as keyof typeof IMAGE_FORMATS], mediaType: type };
  if (type in DOCUMENT_FORMATS)
    return {
      kind: 'document',
      format: DOCUMENT_FORMATS[type as keyof typeof DOCUMENT_FORMATS],
      mediaType: type,
    };
  return undefined;
};

/** The media type a file name's extension stands for. */
export const mediaTypeOfName = (name: string): string | undefined => {
  const match = /\.([a-z0-9]+)$/i.exec(name);
  return match ? EXTENSIONS[match[1]!.toLowerCase()] : undefined;
};

/** How many of a file's first bytes tell its image format apart (WebP's mark ends at byte 12) and,
 * for PNG, GIF and WebP, its size (a WebP canvas's ends at byte 30). */
const IMAGE_SIGNATURE_BYTES = 32;

const startsWith = (bytes: Uint8Array, mark: readonly number[], at = 0) =>
  mark.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The image format a file's first bytes are in, if one Converse takes. Converse checks the bytes
 * against the block's format ("The image was specified using the image/jpeg media type, but the image
 * appears to be a image/png image"), so the bytes decide, not the name or the declared type.
 */
export const imageFormatOf = (bytes: Uint8Array): ImageFormat | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  return undefined;
};

/** How far into a file a PDF's header may start (readers skip up to 1 KiB of leading bytes). */
const DOCUMENT_SIGNATURE_BYTES = 1024;

/**
 * How far into a JPEG its frame header (its size) is looked for. It follows the APPn segments: EXIF,
 * thumbnail included, is at most 64 KiB (a 16-bit length) and usually far less; ICC and XMP add a
 * few KB. A photo whose metadata runs past this is taken with its size unchecked (docs/chat.md).
 */
const JPEG_FRAME_BYTES = 64 * 1024;

/** How much of a text document is checked to read as text (readsAsText). */
const TEXT_CHECK_BYTES = 64 * 1024;

/** How many of an attachment's first bytes are read: enough for every check, since its type (an
 * image, a document with a mark, text) is known only from the answer that brings them. 25 attachments
 * are at most 1.6 MiB, in the one GET each takes anyway. */
export const ATTACHMENT_START_BYTES = Math.max(
  IMAGE_SIGNATURE_BYTES,
  DOCUMENT_SIGNATURE_BYTES,
  JPEG_FRAME_BYTES,
  TEXT_CHECK_BYTES,
);

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * Whether a document's first bytes can be of its format: a PDF holds `%PDF-` in its first KiB, DOCX
 * and XLSX are ZIP files, DOC and XLS OLE files. Text formats have no mark (undefined: readsAsText
 * checks them). Converse refuses a document it cannot parse as its format.
 */
export const documentMark = (format: DocumentFormat): ((bytes: Uint8Array) => boolean) | undefined => {
  if (format === 'pdf')
    return (bytes) => Buffer.from(bytes.subarray(0, DOCUMENT_SIGNATURE_BYTES)).includes('%PDF-', 0, 'latin1');
  if (format === 'docx' || format === 'xlsx') return (bytes) => startsWith(bytes, ZIP);
  if (format === 'doc' || format === 'xls') return (bytes) => startsWith(bytes, OLE);
  return undefined;
};

/**
 * Whether a text document's first bytes read as text: UTF-8 (a BOM allowed; a character cut by the end
 * of the bytes read, when they are not the whole file, too) and no NUL byte. Converse parses a
 * document's bytes as its format ("The document source bytes could not be parsed as the specified
 * format"), and the agent replays the session on every turn: a PDF or a picture sent as text/plain
 * would break every later answer, as a mislabelled image would.
 */
export const readsAsText = (bytes: Uint8Array, cut: boolean): boolean => {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
    return true;
  } catch {
    return false;
  }
};

export interface ImageSize {
  width: number;
  height: number;
}

/** Frame headers (SOF0–SOF15) hold the size; C4 (DHT), C8 (JPG) and CC (DAC) share their range. */
const isFrameHeader = (code: number) => code >= 0xc0 && code <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(code);

/**
 * A JPEG's width and height from its frame header, reached by walking its marker segments from the
 * start (a search for the frame's marker would find an EXIF thumbnail's first); 'none' when its
 * markers end before one (EOI, a scan, a length below 2): no decoder reads that; undefined when the
 * bytes end first. Hand-written (30 lines): image-size would bring every other format's parser, and
 * tells bytes cut short from a broken file only in the text of the error it throws.
 */
const jpegFrameSize = (bytes: Uint8Array): ImageSize | 'none' | undefined => {
  let at = 2; // after SOI
  for (;;) {
    // A marker is 0xFF and a code. Fill bytes (0xFF) may precede the code, and decoders skip stray
    // bytes before a marker (libjpeg warns, and decodes).
    while (at < bytes.length && bytes[at] !== 0xff) at++;
    while (at < bytes.length && bytes[at] === 0xff) at++;
    if (at >= bytes.length) return undefined;
    const code = bytes[at++]!;
    if (code === 0xd9 || code === 0xda) return 'none'; // EOI, or a scan before any frame
    // Markers without a length: a stuffed zero, TEM, RST0–7, SOI.
    if (code === 0x00 || code === 0x01 || (code >= 0xd0 && code <= 0xd8)) continue;
    if (at + 2 > bytes.length) return undefined;
    const length = (bytes[at]! << 8) | bytes[at + 1]!;
    if (length < 2) return 'none';
    if (isFrameHeader(code)) {
      // Length, precision, then height and width.
      if (at + 7 > bytes.length) return undefined;
      return {
        height: (bytes[at + 3]! << 8) | bytes[at + 4]!,
        width: (bytes[at + 5]! << 8) | bytes[at + 6]!,
      };
    }
    at += length;
  }
};

/**
 * An image's width and height as its first bytes state them: PNG's IHDR, GIF's logical screen, WebP's
 * VP8, VP8L or VP8X header, a JPEG's frame header; undefined when the bytes are too few, 'none' for a
 * JPEG whose markers end before a frame header.
 */
export const imageSizeOf = (format: ImageFormat, bytes: Uint8Array): ImageSize | 'none' | undefined => {
  if (format === 'jpeg') return jpegFrameSize(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'png' && bytes.length >= 24)
    return { width: view.getUint32(16), height: view.getUint32(20) };
  if (format === 'gif' && bytes.length >= 10)
    return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
  if (format !== 'webp' || bytes.length < 30) return undefined;
  const uint24 = (at: number) => view.getUint16(at, true) + (view.getUint8(at + 2) << 16);
  if (startsWith(bytes, ascii('VP8 '), 12))
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  if (startsWith(bytes, ascii('VP8L'), 12)) {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (startsWith(bytes, ascii('VP8X'), 12)) return { width: uint24(24) + 1, height: uint24(27) + 1 };
  return undefined;
};

export const SUPPORTED_TYPES_TEXT = `images: ${Object.values(IMAGE_FORMATS).join(', ')}; documents: ${Object.values(
  DOCUMENT_FORMATS,
).join(', ')}`;

const NAME_MAX = 200;

/**
 * A document name Bedrock accepts (letters, digits, single spaces, hyphens, parentheses, square
 * brackets), at most 200 characters, and unique among `taken` (lower-case: names that differ only in
 * case are kept apart too), which it joins:
 * "Q3 report.final.pdf" → "Q3 report final". With a `mark` (a send that kept losing its names to
 * others), the mark goes after the name: "notes (2b9f1c)", which no other send chooses.
 */
export const documentName = (fileName: string, taken: Set<string>, mark?: string): string => {
  // Only an extension that names a type is one: "Release notes v1.2" keeps its ".2" (as "v1 2").
  const stem = (fileName.split('/').at(-1) ?? '').replace(/\.([a-z0-9]+)$/i, (extension, letters: string) =>
    letters.toLowerCase() in EXTENSIONS ? '' : extension,
  );
  const base =
    stem
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^A-Za-z0-9\-()[\]]+/g, ' ')
      .trim()
      .slice(0, NAME_MAX)
      .trim() || 'document';
  // A session may hold a name a hundred times: the suffix's room is taken from the base.
  const withSuffix = (suffix: string) => `${base.slice(0, NAME_MAX - suffix.length).trimEnd()}${suffix}`;
  let name = mark ? withSuffix(` (${mark})`) : base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = withSuffix(mark ? ` (${mark} ${n})` : ` (${n})`);
  taken.add(name.toLowerCase());
  return name;
};

export interface ResolvedAttachment {
  key: string;
  /** The name the client gave, else the key's last segment. */
  fileName: string;
  type: AttachmentType;
}

/**
 * The message's blocks: its text first, then one block per attachment in the order sent. Document
 * names are unique within the session, not only the message: the agent replays the session to
 * Converse, which refuses a request whose messages hold two documents of one name.
 */
export const toContentBlocks = (
  text: string,
  attachments: readonly ResolvedAttachment[],
  bucket: string,
  /** Document names the session's earlier messages hold, lower-case. */
  taken: Iterable<string> = [],
  /** See documentName. */
  mark?: string,
): ContentBlock[] => {
  const names = new Set<string>(taken);
  const blocks: ContentBlock[] = [{ text }];
  for (const attachment of attachments) {
    const source: S3Source = { s3Location: { uri: `s3://${bucket}/${attachment.key}` } };
    const { type } = attachment;
    if (type.kind === 'image') blocks.push({ image: { format: type.format, source } });
    else
      blocks.push({
        document: { format: type.format, name: documentName(attachment.fileName, names, mark), source },
      });
  }
  return blocks;
};

/** The document names a message's blocks hold, lower-case (as `taken` holds them). */
export const documentNamesOf = (blocks: readonly ContentBlock[]): string[] =>
  blocks.flatMap((block) => ('document' in block ? [block.document.name.toLowerCase()] : []));
