// POST /api/v1/shopping/sessions: open a shopping session for the caller.
import { httpRoute } from '#shared/http/route';
import { CreateShoppingSessionBody, ShoppingSession } from '#shared/shopping/schemas';
import { createShoppingSession } from '#shared/shopping/store';

export const handler = httpRoute(
  {
    body: CreateShoppingSessionBody,
    status: 201,
    response: ShoppingSession,
    summary: 'Open a shopping session',
  },
  ({ caller, body }) => createShoppingSession(caller.userId, body),
);
