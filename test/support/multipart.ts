// multipart/form-data bodies for the tests, as a browser builds them. (The hardening tests build
// their malformed bodies by hand on purpose.)

export interface FormPart {
  name: string;
  content: Uint8Array | string;
  /** A file part when set. */
  filename?: string;
  type?: string;
}

/** The body of a form delimited by `boundary` (the boundary itself, unquoted). */
export function formBody(boundary: string, ...parts: FormPart[]): Buffer {
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
        (part.filename === undefined
          ? '\r\n\r\n'
          : `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`),
    ),
    Buffer.from(part.content),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
}

/** A request's body and Content-Type for these parts, under a random boundary. */
export function multipart(...parts: FormPart[]) {
  const boundary = `----form${Math.random().toString(16).slice(2)}`;
  return {
    body: formBody(boundary, ...parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
