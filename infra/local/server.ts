// The local HTTP server: each request becomes the v2.0 event API Gateway would send, handed to the
// same handler module Lambda runs; requests no route matches go to the `$default` route's function,
// as on AWS. CORS preflights and the size limits are answered here, as the HTTP API answers them.
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { STATUS_TEXT } from '../../shared/http/errors.ts';
import { CORS, routeRequest } from '../routes.ts';
import { buildEvent } from './events.ts';
import { type HandlerLoader, invoke, loadHandler } from './handlers.ts';

/** API Gateway's own payload limit. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** An HTTP API's quota on the request line and the header values together (not adjustable). */
const MAX_LINE_AND_HEADER_BYTES = 10_240;
/** API Gateway documents the quota, not its answer: 431 is HTTP's status for it (and Node.js's own
 * past its 16 KiB), the body API Gateway's shape for its own answers. */
const HEADERS_TOO_LARGE = { message: 'Request Header Fields Too Large' };

/** The request line (`GET /path?query HTTP/1.1`) and every header value, in bytes: Node.js reads
 * both as latin1, a character a byte. */
const lineAndHeaderBytes = (req: IncomingMessage) =>
  `${req.method} ${req.url} HTTP/${req.httpVersion}`.length +
  req.rawHeaders.reduce((bytes, text, i) => (i % 2 === 1 ? bytes + text.length : bytes), 0);

/** A target in absolute form (`GET http://host/path`, as clients address a proxy), which a server must
 * accept (RFC 9112 §3.2.2): its path and query, and its authority, which stands for `Host`. */
const originForm = (target: string): { url: string; host?: string } => {
  const absolute = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)/i.exec(target);
  if (!absolute) return { url: target };
  const rest = target.slice(absolute[0].length);
  return { url: rest.startsWith('/') ? rest : `/${rest}`, host: absolute[1]!.replace(/^[^@]*@/, '') };
};

export interface LocalServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

/** What API Gateway adds to the answer of a cross-origin request (one with an Origin header). */
const corsHeaders = (req: IncomingMessage): Record<string, string> =>
  req.headers.origin
    ? {
        'access-control-allow-origin': CORS.allowOrigins.join(','),
        'access-control-expose-headers': CORS.exposeHeaders.join(','),
      }
    : {};

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function handle(req: IncomingMessage, res: ServerResponse, load: HandlerLoader) {
  const method = req.method ?? 'GET';
  const { url, host } = originForm(req.url ?? '/');
  const path = url.split('?')[0] ?? '/';
  if (lineAndHeaderBytes(req) > MAX_LINE_AND_HEADER_BYTES) {
    send(res, 431, HEADERS_TOO_LARGE, corsHeaders(req));
    return;
  }
  if (method === 'OPTIONS' && req.headers.origin && req.headers['access-control-request-method']) {
    res.writeHead(204, {
      'access-control-allow-origin': CORS.allowOrigins.join(','),
      'access-control-allow-methods': CORS.allowMethods.join(','),
      'access-control-allow-headers': CORS.allowHeaders.join(','),
      'access-control-max-age': String(CORS.maxAgeSeconds),
    });
    res.end();
    return;
  }
  const { route, pathParameters } = routeRequest(method, path);
  const body = await readBody(req);
  if (body === 'too-large') {
    // Answer at once and drop the connection rather than read the rest of an oversized upload.
    send(res, 413, { message: 'Request Entity Too Large' }, { connection: 'close', ...corsHeaders(req) });
    res.on('finish', () => req.destroy());
    return;
  }
  const event = buildEvent(route, pathParameters, {
    method,
    url,
    // Every line of a repeated header (req.headers joins them with ", " and keeps only the first of
    // some, Authorization and Content-Type among them); the event joins them as API Gateway does.
    headers: host === undefined ? req.headersDistinct : { ...req.headersDistinct, host: [host] },
    body,
    sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, ''),
    port: req.socket.localPort,
  });
  const result = await invoke(route, event, load);
  const headers: Record<string, string | string[]> = { ...corsHeaders(req) };
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  const payload =
    result.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(payload.length);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(payload);
}

/** Node.js's own answer to a request it cannot parse (it writes these when no 'clientError' listener
 * is set), but JSON for one past its header limit (16 KiB, `maxHeaderSize`), which it would answer with
 * a bare 431: the same answer as past API Gateway's quota, without the CORS headers (no header was
 * read). Only when nothing of an answer has gone out on the connection, as Node.js does. */
function answerUnparsed(error: NodeJS.ErrnoException, socket: Duplex) {
  const answering = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    const status =
      { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 }[
        error.code ?? ''
      ] ?? 400;
    const body = status === 431 ? JSON.stringify(HEADERS_TOO_LARGE) : '';
    const json = body ? `content-type: application/json\r\ncontent-length: ${body.length}\r\n` : '';
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${json}connection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export interface ServerOptions {
  host?: string;
  /** Where each route's handler comes from (by default its module under functions/). */
  handlers?: HandlerLoader;
}

export async function startServer(
  port: number,
  { host = '127.0.0.1', handlers = loadHandler }: ServerOptions = {},
): Promise<LocalServer> {
  const server = createServer((req, res) => {
    handle(req, res, handlers).catch((error: Error & { code?: string }) => {
      // A client that went away mid-request (or was dropped by a stop) is not a server failure.
      if (error.code === 'ECONNRESET' && req.destroyed) return void res.destroy();
      console.error(JSON.stringify({ level: 'error', message: 'local server failure', error: error.name }));
      if (!res.headersSent) send(res, 500, { detail: STATUS_TEXT[500] }, corsHeaders(req));
      else res.destroy();
    });
  });
  server.on('clientError', answerUnparsed);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: actual } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${actual}`,
    server,
    close: () =>
      new Promise((resolve) => {
        // close() drops idle keep-alive connections itself (Node.js 19+).
        server.close(() => resolve());
        // Requests in flight get a moment to finish; a client that stalls mid-body does not hold the stop.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
