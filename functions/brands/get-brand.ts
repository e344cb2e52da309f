// GET /api/v1/brands/{brand_id}: one of the caller's brands.
import { Brand, BrandPath } from '#shared/brands/schemas';
import { getBrand } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  { path: BrandPath, response: Brand, summary: 'Read one of the caller’s brands' },
  ({ caller, path }) => getBrand(caller.userId, path.brand_id),
);
