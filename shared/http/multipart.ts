// Form bodies: multipart/form-data through Middy's multipart parser (busboy), and URL-encoded ones. Kept
// out of route.ts so only the upload routes bundle them.
import { randomUUID } from 'node:crypto';
import type { Request } from '@middy/core';
import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { bareMediaType } from '../media-type.ts';
import { bodyBytes } from './body.ts';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.ts';
import { valueError } from './fields.ts';

/** An uploaded file part, as the parser hands it over. */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  content: Buffer;
  truncated?: boolean;
}

export interface FormBody<S extends v.GenericSchema = v.GenericSchema> {
  schema: S;
  maxFileBytes: number;
  /** The form's fields, or undefined when the body is not a form (multipart or URL-encoded). */
  parse(event: APIGatewayProxyEventV2): Promise<Record<string, unknown> | undefined>;
}

export const isUploadedFile = (part: unknown): part is UploadedFile =>
  typeof part === 'object' && part !== null && Buffer.isBuffer((part as UploadedFile).content);

const NOT_A_FILE = "Expected UploadFile, received: <class 'str'>";

/** A form field taking a file (FastAPI's `UploadFile`): a text part in its place fails as there. What
 * makes a part a file is in its headers, which JSON Schema cannot see: the description says it. */
export const uploadedFile = () =>
  v.pipe(
    v.custom<UploadedFile>(isUploadedFile, valueError(NOT_A_FILE)),
    v.metadata({
      jsonSchema: {
        type: 'string',
        format: 'binary',
        description: `A file part: its Content-Disposition names a filename (whatever its Content-Type). A text part is refused with a 422 value_error: ${NOT_A_FILE}`,
      },
    }),
  );

// ---- the Content-Type header ---------------------------------------------------------------
// RFC 9110 §8.3.1 / §5.6, strictly: a header that breaks this grammar is read as no form at all (an
// empty form, as before), never guessed at.
//   media-type = type "/" subtype parameters
//   parameters = *( OWS ";" OWS [ parameter ] )
//   parameter  = token "=" ( token / quoted-string )
// (The `content-type` package would do the same, but it is here only as a dependency of a dev
// dependency (s3rver → koa), untyped; node:util's MIMEType follows WHATWG, which also reads forms
// RFC 9110 refuses, such as `boundary=a b`, unterminated quotes or a repeated boundary.)
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** qdtext and quoted-pair (HTAB, SP, VCHAR, obs-text; a backslash escapes any one of them). */
const QUOTED_STRING = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
const PARAMETER = `(${TOKEN})=(${TOKEN}|${QUOTED_STRING})`;
// Each run of whitespace has one place in the pattern (no exponential backtracking on a long header).
const MEDIA_TYPE = new RegExp(`^[ \\t]*(${TOKEN}/${TOKEN})((?:[ \\t]*;(?:[ \\t]*${PARAMETER})?)*)[ \\t]*$`);
const PARAMETERS = new RegExp(`;[ \\t]*${PARAMETER}`, 'g');

/** RFC 2046 §5.1.1: 1 to 70 of these, the last not a space. */
const RFC2046_BOUNDARY = /^[0-9A-Za-z'()+_,\-./:= ?]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** The only boundaries Middy's parser lets through (its content-type check is this strict). */
const MIDDY_BOUNDARY = /^[a-zA-Z0-9-]{1,70}$/;

/** The boundary of a multipart/form-data Content-Type (type and parameter names in any case, the
 * boundary quoted or not, other parameters anywhere), or undefined when there is no usable one:
 * not multipart/form-data, not RFC 9110 syntax, no boundary, two boundaries, or not RFC 2046's. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = MEDIA_TYPE.exec(contentType ?? '');
  if (!match || match[1]!.toLowerCase() !== 'multipart/form-data') return undefined;
  const boundaries = [...match[2]!.matchAll(PARAMETERS)]
    .filter((parameter) => parameter[1]!.toLowerCase() === 'boundary')
    .map(([, , value]) => (value!.startsWith('"') ? value!.slice(1, -1).replace(/\\(.)/gs, '$1') : value!));
  return boundaries.length === 1 && RFC2046_BOUNDARY.test(boundaries[0]!) ? boundaries[0] : undefined;
}

/** The same body delimited by `to` instead of `from`, for Middy's parser, which takes only
 * MIDDY_BOUNDARY. busboy splits on every CRLF "--" boundary, with a CRLF put before the body, and
 * `to` occurs nowhere in the body (see freshBoundary): replacing exactly those occurrences keeps
 * every part, preamble and epilogue byte for byte. */
function withBoundary(bytes: Buffer, from: string, to: string): Buffer {
  const delimiter = Buffer.from(`\r\n--${from}`, 'latin1');
  const replacement = Buffer.from(`\r\n--${to}`, 'latin1');
  const chunks: Buffer[] = [];
  let at = 0;
  if (bytes.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2))) {
    chunks.push(replacement.subarray(2));
    at = delimiter.length - 2;
  }
  for (let next = bytes.indexOf(delimiter, at); next >= 0; next = bytes.indexOf(delimiter, at)) {
    chunks.push(bytes.subarray(at, next), replacement);
    at = next + delimiter.length;
  }
  chunks.push(bytes.subarray(at));
  return Buffer.concat(chunks);
}

/** A boundary Middy accepts whose delimiter ("--" boundary) occurs nowhere in `bytes`. */
function freshBoundary(bytes: Buffer): string {
  for (;;) {
    const boundary = `tcs-${randomUUID()}`;
    if (!bytes.includes(`--${boundary}`, 0, 'latin1')) return boundary;
  }
}

// ---- file parts --------------------------------------------------------------------------------

/** How a file part reads in JSON, i.e. when a 422 echoes it as `input` (a file sent where a text
 * field belongs): FastAPI's UploadFile attributes `filename`, `content_type` and `size`, never the
 * bytes (a Buffer serialises as an array of numbers, 3 to 4 characters per byte: a 3.6 MB upload
 * answered 12 MB, past Lambda's 6 MB response limit). `filename` is null for a part busboy took
 * for a file by its content type alone. */
interface FileDescriptor {
  filename: string | null;
  content_type: string;
  size: number;
}

const describeFile = (file: UploadedFile): FileDescriptor => ({
  filename: file.filename ?? null,
  content_type: file.mimetype,
  size: file.content.length,
});

/** Gives a parsed file part its JSON form (non-enumerable: the part's own fields stay as they are). */
const describedInJson = (file: UploadedFile): UploadedFile =>
  Object.defineProperty(file, 'toJSON', {
    value: () => describeFile(file),
    enumerable: false,
    configurable: true,
  });

/** The longest name of a text part Middy's parser is given as text. The names forms declare are a
 * few words (`consent_attestation`); on one this long its array pattern takes microseconds. */
const TEXT_NAME_MAX = 100;

/** A part as the body delimits it: its headers (latin1) and the size of its content in bytes. */
interface PartExtent {
  headers: string;
  size: number;
}

/** Each part's extent, or undefined unless every part's headers end (CRLF CRLF) before the next
 * delimiter begins and the close delimiter is there. */
function partExtents(bytes: Buffer, boundary: string): PartExtent[] | undefined {
  const dash = `--${boundary}`;
  const delimiter = `\r\n${dash}`;
  let at = bytes.subarray(0, dash.length).toString('latin1') === dash ? 0 : bytes.indexOf(delimiter) + 2;
  if (at < 2 && at !== 0) return undefined;
  const parts: PartExtent[] = [];
  for (;;) {
    const after = at + dash.length;
    if (bytes.toString('latin1', after, after + 2) === '--') return parts;
    const next = bytes.indexOf(delimiter, after);
    const headersEnd = bytes.indexOf('\r\n\r\n', after);
    if (next < 0 || headersEnd < 0 || headersEnd + 4 > next) return undefined;
    parts.push({ headers: bytes.toString('latin1', after, headersEnd), size: next - (headersEnd + 4) });
    at = next + 2;
  }
}

/** The parameters of a part's Content-Disposition header, its quoted strings blanked (`name=` inside
 * a quoted filename, or in another header, is no parameter of it), or undefined without the header. */
const DISPOSITION = /(?:^|\r\n)content-disposition[ \t]*:([^\r\n]*)/i;
// An unclosed quote runs to the end: the match cannot fail once begun, so no start is tried again (a
// pattern that needed the closing quote took minutes on a header of 500,000 `"\`).
const QUOTED = /"(?:[^"\\]|\\.?)*(?:"|$)/g; // `.` is any character of a line, latin1 at that
const dispositionOf = (headers: string): string | undefined =>
  DISPOSITION.exec(headers)?.[1]?.replace(QUOTED, '""');

/** A name parameter, without which Starlette finds no field (busboy then hands the part over as
 * nameless), and a filename parameter, which makes a part a file (isFilePart). */
const NAME = /;\s*name\*?\s*=/i;
const FILENAME = /;\s*filename\*?\s*=/i;

/** Starlette's bound on a text part (`max_part_size`, 1 MiB); busboy's `fieldSize` would instead cut
 * a longer one to it without a word. Files have their own bounds. */
const TEXT_PART_MAX_BYTES = 1024 * 1024;

/** What one form may hold (Starlette allows 1,000 of each; our forms have two or three fields). */
export const FORM_LIMITS = { files: 10, fields: 50 } as const;

/** Starlette's refusal of a form past FORM_LIMITS. */
const tooMany = (parts: keyof typeof FORM_LIMITS) =>
  new BadRequestError(`Too many ${parts}. Maximum number of ${parts} is ${FORM_LIMITS[parts]}.`);

/** Starlette's refusal of a part whose Content-Disposition names no field. */
const nameless = () => new BadRequestError('The Content-Disposition header field "name" must be provided.');

/** Starlette's refusal of a text part past TEXT_PART_MAX_BYTES. */
const textPartTooLarge = () =>
  new BadRequestError(`Part exceeded maximum size of ${TEXT_PART_MAX_BYTES / 1024}KB.`);

/** A body the parser cannot read as a form (or would not settle on). */
const malformed = () => new UnsupportedMediaTypeError('Invalid or malformed multipart/form-data');

/** Parsing a body already in memory takes milliseconds; one that has not settled by then never will. */
const PARSE_WATCHDOG_MS = 2000;

/** Starlette's rule: a part is a file when its Content-Disposition names a filename, whatever its
 * Content-Type (busboy's default also takes any application/octet-stream part for one). */
const isFilePart = (filename: string | undefined) => filename !== undefined;

/** The value FastAPI reads for a name sent more than once: the last part's. Middy's parser keeps
 * repeated text parts last-wins already, but gathers a name's file parts into one array, newest
 * first, with the latest text part of that name after them whatever the order (an empty one is
 * dropped: a falsy value is overwritten by the next file). `lastIsFile` (busboy's own reading of
 * the part order) says which kind the last part was. */
function lastValue(value: unknown, lastIsFile: boolean | undefined): unknown {
  const entries = Array.isArray(value) ? value : [value];
  const files = entries.filter(isUploadedFile);
  if (files.length === 0) return value;
  if (lastIsFile !== false) return files[0];
  const texts = entries.filter((entry) => !isUploadedFile(entry));
  return texts.length > 0 ? texts.at(-1) : '';
}

const URL_ENCODED = 'application/x-www-form-urlencoded';

/** A URL-encoded body, which Starlette reads as a form too: text fields only (so a file field given
 * text fails as in FastAPI), the last value of a repeated name, an empty one absent. */
function urlEncodedFields(event: APIGatewayProxyEventV2): Record<string, string> {
  const text = bodyBytes(event).toString('utf8');
  const last = new Map<string, string>();
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++count > FORM_LIMITS.fields) throw tooMany('fields');
    last.set(name, value);
  }
  // fromEntries defines each name as an own property, `__proto__` included.
  return Object.fromEntries([...last].filter(([, value]) => value !== ''));
}

export function formBody<S extends v.GenericSchema>(
  schema: S,
  options: { maxFileBytes: number },
): FormBody<S> {
  // `parts` lets one part past the others' sum reach isPartAFile, which counts it. busboy's `files`
  // takes the text parts handed over as files too (below): the counts here hold FORM_LIMITS.
  const { files: maxFiles, fields: maxFields } = FORM_LIMITS;
  const limits = {
    fileSize: options.maxFileBytes,
    files: maxFiles + maxFields,
    fields: maxFields,
    parts: maxFiles + maxFields + 1,
    headerPairs: 50,
  };
  return {
    schema,
    maxFileBytes: options.maxFileBytes,
    async parse(event) {
      if (!event.body) return undefined;
      if (bareMediaType(event.headers?.['content-type']) === URL_ENCODED) return urlEncodedFields(event);
      // No usable boundary (see multipartBoundary): the body is not read, the form is empty.
      const boundary = multipartBoundary(event.headers?.['content-type']);
      if (boundary === undefined) return undefined;
      // busboy reports a part cut short by emitting 'error' on the file stream, which the Middy parser
      // never listens to (an uncaught exception: the Lambda runtime goes down), and never settles on
      // a part whose headers do not end (the invocation hangs until its timeout). Such bodies are
      // refused before they reach the parser; a watchdog covers the rest.
      const bytes = bodyBytes(event);
      const parts = partExtents(bytes, boundary);
      if (!parts) throw malformed();
      // Middy's parser takes one spelling of the header and only [A-Za-z0-9-] boundaries: it gets
      // that spelling, and a body delimited by a boundary it takes (the event itself is left as is).
      const delimitedBy = MIDDY_BOUNDARY.test(boundary) ? boundary : freshBoundary(bytes);
      const request = {
        event: {
          ...event,
          headers: { ...event.headers, 'content-type': `multipart/form-data; boundary=${delimitedBy}` },
          ...(delimitedBy === boundary
            ? {}
            : { body: withBoundary(bytes, boundary, delimitedBy).toString('base64'), isBase64Encoded: true }),
        },
      } as unknown as Request;
      // Whether each name's last part is a file, in the order busboy reads the parts.
      const lastIsFile = new Map<string, boolean>();
      // busboy skips the parts past its limits without a word: they are counted here.
      const count = { files: 0, fields: 0 };
      // Refused before the parser, in the parts' order, as Starlette refuses at that part: one with no
      // Content-Disposition (busboy skips it unseen, Starlette finds no name in it; one past busboy's
      // 16 KiB buffer left the parser unsettled until its watchdog, a 415 after 2 s) or no name in it,
      // and a text part past Starlette's bound (busboy would cut it).
      for (const part of parts) {
        const disposition = dispositionOf(part.headers);
        if (disposition === undefined || !NAME.test(disposition)) throw nameless();
        if (part.size > TEXT_PART_MAX_BYTES && !FILENAME.test(disposition)) throw textPartTooLarge();
      }
      let namelessPart = false;
      // Middy hands these to busboy as they are (its typings list fewer of busboy's options).
      const busboy = {
        limits,
        isPartAFile: (
          name: string | undefined,
          _contentType: string | undefined,
          filename: string | undefined,
        ) => {
          const file = isFilePart(filename);
          count[file ? 'files' : 'fields']++;
          if (name === undefined) namelessPart = true;
          else lastIsFile.set(name, file);
          // Middy's parser reads a text part named `x[…]` as an item of `x` (FastAPI reads a field
          // of that very name, which no form here declares) and throws, outside its promise, on one
          // after a plain `x`, on one whose `x` is inherited (`toString[]`, `__proto__[x]`: it then
          // never settles) or on a text part without a name: the process went down. Its pattern
          // for `x[…]`, `/(.+)\[(.*)]$/`, runs on every text part's name in one turn of the event
          // loop and backtracks: 18.5 s on 3,000 `[`, 8 s on 100,000 letters. So it is given as
          // text only a name without `[` of at most TEXT_NAME_MAX characters; the others, names no
          // form declares, are files kept under their own name (or "undefined") and never read.
          return file || name === undefined || name.length > TEXT_NAME_MAX || name.includes('[');
        },
      };
      const parser = httpMultipartBodyParser({ busboy, charset: 'utf8', disableContentTypeError: true });
      let watchdog: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          parser.before!(request),
          new Promise((_, reject) => {
            watchdog = setTimeout(
              () => reject(new Error('multipart parse never settled')),
              PARSE_WATCHDOG_MS,
            );
          }),
        ]);
      } catch {
        throw malformed();
      } finally {
        clearTimeout(watchdog);
      }
      if (namelessPart) throw nameless();
      // Starlette's refusal, where busboy would drop the parts and a required one could seem missing.
      if (count.files > maxFiles) throw tooMany('files');
      if (count.fields > maxFields) throw tooMany('fields');
      const parsed = request.event.body as unknown;
      if (typeof parsed !== 'object' || parsed === null) return undefined;
      const fields: Record<string, unknown> = {};
      for (const [name, sent] of Object.entries(parsed)) {
        // Any file over the limit, the last of its name or not, makes the request too large.
        for (const part of Array.isArray(sent) ? sent : [sent])
          if (isUploadedFile(part)) {
            if (part.truncated) throw new PayloadTooLargeError(options.maxFileBytes);
            describedInJson(part);
          }
        const value = lastValue(sent, lastIsFile.get(name));
        // FastAPI reads an empty form field as absent.
        if (value !== '') fields[name] = value;
      }
      return fields;
    },
  };
}
