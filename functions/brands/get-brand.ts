// GET /api/v1/brands/{brand_id}: one of the caller's brands.
import { BrandPath } from '#shared/brands/schemas';
import { getBrand } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute({ path: BrandPath }, ({ caller, path }) =>
  getBrand(caller.userId, path.brand_id),
);
