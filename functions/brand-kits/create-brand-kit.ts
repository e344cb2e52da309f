// POST /api/v1/brand-kits: save a reviewed draft as a brand kit, optionally for one of the caller's brands.
import { BrandKit, CreateBrandKitBody } from '#shared/brand-kits/schemas';
import { createBrandKit } from '#shared/brand-kits/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  {
    body: CreateBrandKitBody,
    status: 201,
    response: BrandKit,
    summary: 'Save a reviewed brand kit draft',
    errors: [404, 409],
  },
  ({ caller, body }) => createBrandKit(caller.userId, body),
);
