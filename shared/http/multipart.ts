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
      const request = { event } as unknown as Request;
      try {
        await parser.before!(request);
      } catch {
        throw new UnsupportedMediaTypeError('Invalid or malformed multipart/form-data');
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
