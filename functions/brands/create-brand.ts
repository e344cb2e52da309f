// POST /api/v1/brands (spec 7): create a brand owned by the caller.
import { Brand, CreateBrandBody } from '#shared/brands/schemas';
import { createBrand } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  { body: CreateBrandBody, status: 201, response: Brand, summary: 'Create a brand' },
  ({ caller, body }) => createBrand(caller.userId, body),
);
