import { OBJECTS } from '../grants.ts';
import type { Route } from '../routes.ts';

export const chatRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/chat/sessions',
    entry: 'chat/create-session',
    table: ['GetItem', 'PutItem'],
  },
  // The caller's sessions, newest first, from gsi1.
  {
    method: 'GET',
    path: '/api/v1/chat/sessions',
    entry: 'chat/list-sessions',
    indexes: ['gsi1'],
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
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    // HeadObject of each attachment, under the caller's uploads (a missing one is a 422), and a
    // ranged GetObject of an image's or a binary document's first bytes (its format).
    bucket: { read: [OBJECTS.uploads], list: [OBJECTS.uploads] },
  },
];
