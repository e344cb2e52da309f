// The one route table. The CDK stack, the local server, the sample events and the tests that walk
// every route all read it. `entry` names the handler module under functions/ (without .ts);
// `table` and `bucket` are the grants the route's function gets, and nothing more.
export type Access = 'read' | 'write' | 'readWrite';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: Method;
  path: string;
  entry: string;
  table?: Access;
  bucket?: Access;
  /** Encrypt/decrypt with the stack's secrets key (integration credentials). */
  secrets?: boolean;
  /** false only for routes that authenticate another way. */
  auth?: boolean;
  memoryMb?: number;
  timeoutSeconds?: number;
}

export const API_PREFIX = '/api/v1';

export const routes: readonly Route[] = [
  { method: 'POST', path: '/api/v1/brands', entry: 'brands/create-brand', table: 'write' },
  { method: 'GET', path: '/api/v1/brands', entry: 'brands/list-brands', table: 'read' },
  { method: 'GET', path: '/api/v1/brands/{brand_id}', entry: 'brands/get-brand', table: 'read' },
  { method: 'POST', path: '/api/v1/projects', entry: 'projects/create-project', table: 'write' },
  { method: 'GET', path: '/api/v1/projects/{project_id}', entry: 'projects/get-project', table: 'read' },
];

export const routeKey = (route: Route) => `${route.method} ${route.path}`;

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
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as Method[],
  allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
  maxAgeSeconds: 600,
} as const;
