// POST /api/v1/brands (spec 7): create a brand owned by the caller; an Idempotency-Key header makes a
// retry answer the first brand.
import { Brand, CreateBrandBody } from '#shared/brands/schemas';
import { createBrand } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateBrandBody,
    status: 201,
    response: Brand,
    summary: 'Create a brand',
    errors: [409],
  },
  ({ caller, header, body }) => createBrand(caller.userId, body, header['idempotency-key']),
);
