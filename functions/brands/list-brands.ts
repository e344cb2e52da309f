// GET /api/v1/brands: the caller's brands, newest first.
import { BrandList } from '#shared/brands/schemas';
import { listBrands } from '#shared/brands/store';
import { OwnerListQuery } from '#shared/db/owner-lists';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  { query: OwnerListQuery, response: BrandList, summary: 'List the caller’s brands, newest first' },
  ({ caller, query }) => listBrands(caller.userId, query),
);
