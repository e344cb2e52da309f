// GET /api/v1/shopping/sessions/{session_id}: one of the caller's sessions with its recent searches.
import { httpRoute } from '#shared/http/route';
import { ShoppingSession, ShoppingSessionPath } from '#shared/shopping/schemas';
import { getShoppingSession } from '#shared/shopping/store';

export const handler = httpRoute(
  { path: ShoppingSessionPath, response: ShoppingSession, summary: 'Read a shopping session' },
  ({ caller, path }) => getShoppingSession(caller.userId, path.session_id),
);
