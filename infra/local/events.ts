// API Gateway HTTP API (payload v2.0) events, built the way AWS builds them.
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { decodePath, type Route, routeKey } from '../routes.ts';

export interface IncomingRequest {
  method: string;
  /** Path and query string, as on the request line. */
  url: string;
  /** A repeated header as a list of its lines: the event joins them with "," (API Gateway's "duplicate
   * headers are combined with commas"), Cookie lines into `cookies`. */
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer;
  sourceIp?: string;
  /** What the client spoke: API Gateway passes it on in `x-forwarded-proto` (https there). */
  scheme?: 'http' | 'https';
  /** The port the client reached (`x-forwarded-port`); the scheme's default when not given. */
  port?: number;
}

// HTTP APIs pass these as text and base64-encode every other body (multipart included). A text
// body that is not valid UTF-8 goes base64 too: decoding it here would replace the bad bytes with
// U+FFFD, and the handler's strict decoder must see them to answer FastAPI's 400.
const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript)\b|application\/[\w.+-]+\+(json|xml)\b)/i;

export function buildEvent(route: Route, pathParameters: Record<string, string>, request: IncomingRequest) {
  const [rawPath = '/', rawQueryString = ''] = splitOnce(request.url, '?');
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const joined = Array.isArray(value) ? value.join(key === 'cookie' ? '; ' : ',') : value;
    if (key === 'cookie') cookies = joined.split(/;\s*/).filter(Boolean);
    else headers[key] = joined;
  }
  // As API Gateway does: these are set (the client's own `x-forwarded-for` is kept, then the peer).
  const sourceIp = request.sourceIp ?? '127.0.0.1';
  const scheme = request.scheme ?? 'http';
  headers['x-forwarded-for'] = headers['x-forwarded-for']
    ? `${headers['x-forwarded-for']}, ${sourceIp}`
    : sourceIp;
  headers['x-forwarded-port'] = String(request.port ?? (scheme === 'https' ? 443 : 80));
  headers['x-forwarded-proto'] = scheme;
  const query = new URLSearchParams(rawQueryString);
  const queryStringParameters: Record<string, string> = {};
  for (const key of new Set(query.keys())) queryStringParameters[key] = query.getAll(key).join(',');
  const body = request.body && request.body.length > 0 ? request.body : undefined;
  const asText = body !== undefined && TEXT_TYPE.test(headers['content-type'] ?? '') && isUtf8(body);
  const domainName = (headers.host ?? 'localhost').replace(/:\d+$/, '');
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath: decodePath(rawPath),
    rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers,
    ...(Object.keys(queryStringParameters).length > 0 ? { queryStringParameters } : {}),
    ...(Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method,
        path: decodePath(rawPath),
        protocol: 'HTTP/1.1',
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: routeKey(route),
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body !== undefined ? { body: asText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body !== undefined && !asText,
  };
  return event;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (n: number) => String(n).padStart(2, '0');

/** `requestContext.time` as API Gateway writes it, in the access log's format: `12/Mar/2020:19:03:58 +0000`. */
export const requestTime = (at: Date) =>
  `${twoDigits(at.getUTCDate())}/${MONTHS[at.getUTCMonth()]}/${at.getUTCFullYear()}:` +
  `${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())}:${twoDigits(at.getUTCSeconds())} +0000`;

const splitOnce = (text: string, separator: string): [string, string] => {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
};
