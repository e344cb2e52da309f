// POST /api/v1/shopping/sessions: open a shopping session for the caller; an Idempotency-Key header
// makes a retry answer the first session.
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';
import { CreateShoppingSessionBody, ShoppingSession } from '#shared/shopping/schemas';
import { createShoppingSession } from '#shared/shopping/store';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateShoppingSessionBody,
    status: 201,
    response: ShoppingSession,
    summary: 'Open a shopping session',
    errors: [409],
  },
  ({ caller, header, body }) => createShoppingSession(caller.userId, body, header['idempotency-key']),
);
