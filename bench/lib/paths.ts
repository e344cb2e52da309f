import { fileURLToPath } from 'node:url';
import { usesTable } from '../../infra/grants.ts';
import type { Route } from '../../infra/routes.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Build output and scratch files (gitignored). */
export const OUT = fileURLToPath(new URL('../out/', import.meta.url));

/** A function the cold-start budget holds: table access only (no bucket, no secrets key). */
export const isDynamoOnly = (route: Route) => usesTable(route) && !route.bucket && !route.secrets;
