// The local HTTP server: each request becomes the v2.0 event API Gateway would send, handed to the
// same handler module Lambda runs; requests no route matches go to the `$default` route's function,
// as on AWS. CORS preflights and the payload limit are answered here, as the HTTP API answers them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CORS, routeRequest } from '../routes.ts';
import { buildEvent } from './events.ts';
import { invoke } from './handlers.ts';

/** API Gateway's own payload limit. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

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

async function handle(req: IncomingMessage, res: ServerResponse) {
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const path = url.split('?')[0] ?? '/';
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
    headers: req.headersDistinct,
    body,
    sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, ''),
    port: req.socket.localPort,
  });
  const result = await invoke(route, event);
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

export async function startServer(port: number, host = '127.0.0.1'): Promise<LocalServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error & { code?: string }) => {
      // A client that went away mid-request (or was dropped by a stop) is not a server failure.
      if (error.code === 'ECONNRESET' && req.destroyed) return void res.destroy();
      console.error(JSON.stringify({ level: 'error', message: 'local server failure', error: error.name }));
      if (!res.headersSent) send(res, 500, { detail: 'Internal Server Error' }, corsHeaders(req));
      else res.destroy();
    });
  });
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
