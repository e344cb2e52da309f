// POST /api/v1/brand-kits: save a reviewed draft as a brand kit, optionally for one of the caller's
// brands; an Idempotency-Key header makes a retry answer the first kit.
import { BrandKit, CreateBrandKitBody } from '#shared/brand-kits/schemas';
import { createBrandKit } from '#shared/brand-kits/store';
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateBrandKitBody,
    status: 201,
    response: BrandKit,
    summary: 'Save a reviewed brand kit draft',
    errors: [404, 409],
  },
  ({ caller, header, body }) => createBrandKit(caller.userId, body, header['idempotency-key']),
);
