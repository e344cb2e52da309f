import { OBJECTS } from '../grants.ts';
import type { Route } from '../routes.ts';

export const uploadRoutes: Route[] = [
  // Signing a PUT needs no request, but the URL works only if this function may put the object.
  {
    method: 'POST',
    path: '/api/v1/uploads',
    entry: 'uploads/create-upload',
    // The caller's daily upload allowance: one conditional ADD, and where its condition refuses it, a
    // read of whether the refusal was its own resend (updateItem's `once`) or the limit. With an
    // Idempotency-Key, its claim (PutItem, GetItem; DeleteItem to give it back, UpdateItem to seal it).
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: { write: [OBJECTS.uploads] },
  },
];
