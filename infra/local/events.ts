// API Gateway HTTP API (payload v2.0) events, built the way AWS builds them, and route matching
// with API Gateway's preference for the most specific path.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type Route, routeKey, routes } from '../routes.ts';

export interface IncomingRequest {
  method: string;
  /** Path and query string, as on the request line. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer;
  sourceIp?: string;
}

interface Matcher {
  route: Route;
  pattern: RegExp;
  names: string[];
  staticSegments: number;
}

const matchers: Matcher[] = routes
  .map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_, name) => {
      names.push(name);
      return '([^/]+)';
    });
    const staticSegments = route.path.split('/').filter((s) => s && !s.startsWith('{')).length;
    return { route, pattern: new RegExp(`^${source}$`), names, staticSegments };
  })
  .sort((a, b) => b.staticSegments - a.staticSegments);

export type RouteMatch =
  | { found: true; route: Route; pathParameters: Record<string, string> }
  | { found: false; status: 404 | 405; allow?: string[] };

export function matchRoute(method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const matcher of matchers) {
    const match = matcher.pattern.exec(path);
    if (!match) continue;
    if (matcher.route.method !== method) {
      allow.push(matcher.route.method);
      continue;
    }
    const pathParameters = Object.fromEntries(
      matcher.names.map((name, i) => [name, safeDecode(match[i + 1] ?? '')]),
    );
    return { found: true, route: matcher.route, pathParameters };
  }
  return allow.length > 0 ? { found: false, status: 405, allow } : { found: false, status: 404 };
}

const safeDecode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

// HTTP APIs pass these as text and base64-encode every other body (multipart included).
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
  const query = new URLSearchParams(rawQueryString);
  const queryStringParameters: Record<string, string> = {};
  for (const key of new Set(query.keys())) queryStringParameters[key] = query.getAll(key).join(',');
  const body = request.body && request.body.length > 0 ? request.body : undefined;
  const asText = body !== undefined && TEXT_TYPE.test(headers['content-type'] ?? '');
  const domainName = (headers.host ?? 'localhost').replace(/:\d+$/, '');
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath: safeDecode(rawPath),
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
        path: safeDecode(rawPath),
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: routeKey(route),
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body !== undefined ? { body: asText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body !== undefined && !asText,
  };
  return event;
}

const splitOnce = (text: string, separator: string): [string, string] => {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
};
