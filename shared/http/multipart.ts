// multipart/form-data bodies, through Middy's multipart parser (busboy). Kept out of route.ts so
// only the upload routes bundle it.
import type { Request } from '@middy/core';
import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as v from 'valibot';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.ts';

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
  /** The form's fields, or undefined when the body is not multipart. */
  parse(event: APIGatewayProxyEventV2): Promise<Record<string, unknown> | undefined>;
}

export const isUploadedFile = (part: unknown): part is UploadedFile =>
  typeof part === 'object' && part !== null && Buffer.isBuffer((part as UploadedFile).content);

/** The boundary, where Middy's parser accepts the content type (it ignores the body otherwise). */
const MULTIPART_BOUNDARY = /^multipart\/form-data; boundary=([a-zA-Z0-9-]{1,70})(?:; ?[cC]harset=[\w-]+)?$/;

/** A part name Middy's parser turns into `data[base].push(…)` (`name[]`) on an inherited property
 * (`toString[]`, `__proto__[x]`): it throws inside busboy's event, uncaught, and never settles. */
const ARRAY_NAME = /^(.+)\[(.*)\]$/;
const NAME_PARAM = /;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/gi;
const unsafeNames = (headers: string) =>
  /;\s*name\*\s*=/i.test(headers) ||
  [...headers.matchAll(NAME_PARAM)].some((m) => {
    const base = ARRAY_NAME.exec((m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1'))?.[1];
    return base !== undefined && base in Object.prototype;
  });

/** Every part's headers end (CRLF CRLF) before the next delimiter begins, name no inherited
 * property as an array, and the close delimiter is there. */
function isWellFormed(bytes: Buffer, boundary: string): boolean {
  const dash = `--${boundary}`;
  const delimiter = `\r\n${dash}`;
  let at = bytes.subarray(0, dash.length).toString('latin1') === dash ? 0 : bytes.indexOf(delimiter) + 2;
  if (at < 2 && at !== 0) return false;
  for (;;) {
    const after = at + dash.length;
    if (bytes.toString('latin1', after, after + 2) === '--') return true;
    const next = bytes.indexOf(delimiter, after);
    const headersEnd = bytes.indexOf('\r\n\r\n', after);
    if (next < 0 || headersEnd < 0 || headersEnd + 4 > next) return false;
    if (unsafeNames(bytes.toString('latin1', after, headersEnd))) return false;
    at = next + 2;
  }
}

/** Parsing a body already in memory takes milliseconds; one that has not settled by then never will. */
const PARSE_WATCHDOG_MS = 2000;

export function formBody<S extends v.GenericSchema>(
  schema: S,
  options: { maxFileBytes: number },
): FormBody<S> {
  const parser = httpMultipartBodyParser({
    busboy: { limits: { fileSize: options.maxFileBytes, files: 10, fields: 50, parts: 60, headerPairs: 50 } },
    charset: 'utf8',
    disableContentTypeError: true,
  });
  return {
    schema,
    maxFileBytes: options.maxFileBytes,
    async parse(event) {
      if (!event.body) return undefined;
      // busboy reports a part cut short by emitting 'error' on the file stream, which the Middy parser
      // never listens to (an uncaught exception: the Lambda runtime goes down), and never settles on
      // a part whose headers do not end or on a `toString[]` field (the invocation hangs until its
      // timeout). Such bodies are refused before they reach the parser; a watchdog covers the rest.
      const boundary = MULTIPART_BOUNDARY.exec(event.headers?.['content-type'] ?? '')?.[1];
      if (
        boundary &&
        !isWellFormed(Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'), boundary)
      )
        throw new UnsupportedMediaTypeError('Invalid or malformed multipart/form-data');
      const request = { event } as unknown as Request;
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
        throw new UnsupportedMediaTypeError('Invalid or malformed multipart/form-data');
      } finally {
        clearTimeout(watchdog);
      }
      const parsed = request.event.body as unknown;
      if (typeof parsed !== 'object' || parsed === null) return undefined;
      const fields: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(parsed)) {
        if (isUploadedFile(value) && value.truncated) throw new PayloadTooLargeError(options.maxFileBytes);
        // FastAPI reads an empty form field as absent.
        if (value !== '') fields[name] = value;
      }
      return fields;
    },
  };
}
