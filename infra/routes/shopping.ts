import { OBJECTS } from '../grants.ts';
import type { Route } from '../routes.ts';

export const shoppingRoutes: Route[] = [
  // An Idempotency-Key's claim: PutItem and a consistent GetItem, sealed by a retry (UpdateItem), which
  // Queries the session it stands for; a valid session is never refused, so never given back.
  {
    method: 'POST',
    path: '/api/v1/shopping/sessions',
    entry: 'shopping/create-session',
    table: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
  },
  // The caller's sessions, newest first, from gsi1 (an offset walked on its slim view).
  {
    method: 'GET',
    path: '/api/v1/shopping/sessions',
    entry: 'shopping/list-sessions',
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  {
    method: 'GET',
    path: '/api/v1/shopping/sessions/{session_id}',
    entry: 'shopping/get-session',
    table: ['Query'],
  },
  {
    method: 'POST',
    path: '/api/v1/shopping/sessions/{session_id}/search',
    entry: 'shopping/search-products',
    table: ['GetItem', 'PutItem'],
    // GetObject of the catalogue pointer (missing before the first import) and of the snapshot it
    // names; the in-memory index of 40,000 products takes about 100 MB, and more memory is more CPU
    // for the index build after each new version.
    bucket: { read: [OBJECTS.catalogSnapshots], list: [OBJECTS.catalogSnapshots] },
    memoryMb: 1024,
  },
];
