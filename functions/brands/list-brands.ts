// GET /api/v1/brands: the caller's brands, newest first.
import { ListBrandsQuery } from '#shared/brands/schemas';
import { listBrands } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute({ query: ListBrandsQuery }, ({ caller, query }) =>
  listBrands(caller.userId, query),
);
