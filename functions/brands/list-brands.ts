// GET /api/v1/brands: the caller's brands, newest first.
import { BrandList, ListBrandsQuery } from '#shared/brands/schemas';
import { listBrands } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  { query: ListBrandsQuery, response: BrandList, summary: 'List the caller’s brands, newest first' },
  ({ caller, query }) => listBrands(caller.userId, query),
);
