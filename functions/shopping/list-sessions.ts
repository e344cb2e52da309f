// GET /api/v1/shopping/sessions: the caller's shopping sessions, newest first, without their searches.
import { OwnerListQuery } from '#shared/db/owner-lists';
import { httpRoute } from '#shared/http/route';
import { ShoppingSessionList } from '#shared/shopping/schemas';
import { listShoppingSessions } from '#shared/shopping/store';

export const handler = httpRoute(
  {
    query: OwnerListQuery,
    response: ShoppingSessionList,
    summary: 'List the caller’s shopping sessions, newest first',
  },
  ({ caller, query }) => listShoppingSessions(caller.userId, query),
);
