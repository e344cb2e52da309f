// POST /api/v1/brands (spec 7): create a brand owned by the caller.
import { CreateBrandBody } from '#shared/brands/schemas';
import { createBrand } from '#shared/brands/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute({ body: CreateBrandBody, status: 201 }, ({ caller, body }) =>
  createBrand(caller.userId, body),
);
