import { OBJECTS } from '../grants.ts';
import type { Route } from '../routes.ts';

export const chatRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/chat/sessions',
    entry: 'chat/create-session',
    // With an Idempotency-Key, its claim is sealed by a retry and given back when refused.
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
  },
  // The caller's sessions, newest first, from gsi1 (an offset walked on its slim view).
  {
    method: 'GET',
    path: '/api/v1/chat/sessions',
    entry: 'chat/list-sessions',
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  {
    method: 'GET',
    path: '/api/v1/chat/sessions/{session_id}/messages',
    entry: 'chat/list-messages',
    table: ['GetItem', 'Query'],
  },
  {
    method: 'POST',
    path: '/api/v1/chat/sessions/{session_id}/messages',
    entry: 'chat/send-message',
    table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    // One ranged GetObject of each attachment's first bytes, under the caller's uploads (its type, size
    // and format; a missing one is a 422, so `list`), and a HeadObject of an empty one (its 416 says no
    // type). s3:GetObject allows both.
    bucket: { read: [OBJECTS.uploads], list: [OBJECTS.uploads] },
  },
];
