// The one route table. The CDK stack, the local server, the sample events and the tests that walk
// every route all read it. `entry` names the handler module under functions/ (without .ts); its grant
// declarations (`table`, `indexes`, `bucket`, `secrets`: infra/grants.ts) are all its function gets,
// save one: the avatar callback also reads the provider's shared secret (granted in infra/stack.ts).
import { type Grants, OBJECTS } from './grants.ts';
import { avatarRoutes } from './routes/avatars.ts';
import { brandKitRoutes } from './routes/brand-kits.ts';
import { brandRoutes } from './routes/brands.ts';
import { chatRoutes } from './routes/chat.ts';
import { projectRoutes } from './routes/projects.ts';
import { shoppingRoutes } from './routes/shopping.ts';
import { systemRoutes } from './routes/system.ts';
import { teamRoutes } from './routes/teams.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { workspaceRoutes } from './routes/workspaces.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route extends Grants {
  method: Method;
  path: string;
  entry: string;
  /** false for the public routes (the OpenAPI document, the docs, unmatched requests) and for those
   * that authenticate another way (the signed avatar callback); the handler says the same. */
  auth?: boolean;
  /** FUNCTION_DEFAULTS when not given. */
  memoryMb?: number;
  timeoutSeconds?: number;
  /** Requests per second (and burst) below the stage's per-route default, for the heavy routes. */
  throttle?: { rate: number; burst: number };
  /** Files (from the repository root) copied beside the function's bundle. */
  bundleFiles?: string[];
}

/** A route's function's memory and timeout when the route names none: the stack deploys these and the
 * local runtime gives its handlers the same (infra/local/handlers.ts), so a deadline seen locally is
 * the one met on AWS. */
export const FUNCTION_DEFAULTS = { memoryMb: 512, timeoutSeconds: 10 } as const;

/** API Gateway applies it to each route on its own: a ceiling per route, not for the whole API. */
export const DEFAULT_THROTTLE = { rate: 200, burst: 400 } as const;

/** Each domain lists its routes in infra/routes/<domain>.ts; this is their union. */
export const routes: readonly Route[] = [
  ...brandKitRoutes,
  ...brandRoutes,
  ...projectRoutes,
  ...systemRoutes,
  ...teamRoutes,
  ...uploadRoutes,
  ...workspaceRoutes,
  ...avatarRoutes,
  ...shoppingRoutes,
  ...chatRoutes,
];

/**
 * API Gateway's `$default` route: the function that answers every request no route of the table
 * matches (FastAPI's 404/405 and Starlette's trailing-slash 307). The local server and the test
 * harness send unmatched requests to it too, so there is one place that builds those answers.
 */
export const unmatchedRoute: Route = {
  method: 'GET',
  path: '$default',
  entry: 'system/not-found',
  auth: false,
};

/** The one function no route reaches: the catalogue import, run by S3's Object Created events
 * (infra/stack.ts builds it; the bundle test invokes it). */
export const CATALOG_IMPORT_ENTRY = 'shopping/import-catalog-feed';

/** What the catalogue import may do: read feeds, read and write snapshots and their pointer, list the
 * snapshots and delete old ones (never a version: the bucket keeps them as noncurrent versions). */
export const CATALOG_IMPORT_GRANTS: Grants = {
  bucket: {
    read: [OBJECTS.catalogFeeds, OBJECTS.catalogSnapshots],
    write: [OBJECTS.catalogSnapshots],
    delete: [OBJECTS.catalogSnapshots],
    // The first import finds no pointer yet (without ListBucket that read answers 403, not 404), and
    // the prune lists the snapshots, page by page.
    list: [OBJECTS.catalogSnapshots],
  },
};

export const routeKey = (route: Route) =>
  route === unmatchedRoute ? '$default' : `${route.method} ${route.path}`;

/** brands/create-brand → BrandsCreateBrand: the construct id and the sample event's name. */
export const functionId = (route: Route) =>
  route.entry
    .split(/[/-]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

export const eventFile = (route: Route) => `events/${route.entry.replace('/', '.')}.json`;

export const pathParameterNames = (route: Route) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** CORS as the HTTP API answers it; the local server answers preflights the same way. */
export const CORS = {
  allowOrigins: ['*'],
  /** The methods the route table uses: a preflight for any other is refused at once. */
  allowMethods: [...new Set(routes.map((route) => route.method))].sort(),
  allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
  /** Response headers a browser client may read beyond CORS's safelist: the 401 challenge, the 503's
   * retry delay, the 405's methods. */
  exposeHeaders: ['www-authenticate', 'retry-after', 'allow'],
  maxAgeSeconds: 600,
} as const;

// ---- matching, with API Gateway's preference for the most specific path -------------------------
// (the `$default` route's function answers 404/405/307 from it)

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
  | { found: false; status: 404 | 405; allow?: string[] }
  /** Starlette's `redirect_slashes`: `path` is the request's path with its trailing slash toggled. */
  | { found: false; status: 307; path: string };

/** What the `$default` function answers; `path` is decoded (the event's `rawPath`). */
export function matchRoute(method: string, path: string): RouteMatch {
  const match = matchPath(method, path);
  if (match.found || match.status === 405 || path === '/') return match;
  // As Starlette's router: only when no route matched the path under any method, try the path with
  // its trailing slash removed (all of them, as `rstrip("/")`) or added; a route with that path under
  // any method (a full or a partial match) makes the answer a 307 to it.
  const toggled = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
  const other = matchPath(method, toggled);
  return !other.found && other.status === 404 ? match : { found: false, status: 307, path: toggled };
}

/**
 * Where a request goes: its route with the path's parameters, else `$default`. `path` is as sent;
 * it is decoded before matching, as Starlette routes on the decoded path (uvicorn's `scope["path"]`),
 * so an encoded slash separates segments: `/brands/<id>%2Fx` matches no route (404), not `{brand_id}`.
 */
export function routeRequest(
  method: string,
  path: string,
): { route: Route; pathParameters: Record<string, string> } {
  const match = matchPath(method, decodePath(path));
  return match.found ? match : { route: unmatchedRoute, pathParameters: {} };
}

/** `path` is decoded (the event's `rawPath`). */
function matchPath(method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const matcher of matchers) {
    const match = matcher.pattern.exec(path);
    if (!match) continue;
    if (matcher.route.method !== method) {
      allow.push(matcher.route.method);
      continue;
    }
    const pathParameters = Object.fromEntries(matcher.names.map((name, i) => [name, match[i + 1] ?? '']));
    return { found: true, route: matcher.route, pathParameters };
  }
  return allow.length > 0 ? { found: false, status: 405, allow } : { found: false, status: 404 };
}

/**
 * The `location` of the 307 above, as Starlette's `RedirectResponse` writes it: the absolute URL
 * from the request's scheme and `Host`, the other form of the path and the query string kept, quoted
 * with the characters Starlette leaves as they are.
 */
export function slashRedirectLocation(request: {
  scheme: string;
  host: string;
  path: string;
  rawQueryString?: string;
}): string {
  const query = request.rawQueryString ? `?${request.rawQueryString}` : '';
  return quoteUrl(`${request.scheme}://${request.host}${request.path}${query}`);
}

// Python's `quote(url, safe=":/%#?=@[]!$&'()*+,;")`: everything else becomes %XX of its UTF-8 bytes.
const QUOTE_SAFE = /^[A-Za-z0-9_.~\-:/%#?=@[\]!$&'()*+,;]$/;
const quoteUrl = (url: string) =>
  Array.from(url, (char) =>
    QUOTE_SAFE.test(char)
      ? char
      : [...Buffer.from(char, 'utf8')]
          .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
          .join(''),
  ).join('');

/**
 * A path as the client meant it, as Python's `urllib.parse.unquote` reads it (uvicorn's path): each
 * valid `%XX` is a byte, a malformed escape is kept as sent, and bytes that are not UTF-8 become U+FFFD.
 */
export const decodePath = (path: string) =>
  path.includes('%')
    ? new TextDecoder().decode(
        Buffer.concat(
          path
            .split(/(%[0-9A-Fa-f]{2})/)
            .map((part) =>
              /^%[0-9A-Fa-f]{2}$/.test(part)
                ? Buffer.from([Number.parseInt(part.slice(1), 16)])
                : Buffer.from(part),
            ),
        ),
      )
    : path;
