import type { Route } from '../routes.ts';

export const brandRoutes: Route[] = [
  // An Idempotency-Key's claim: PutItem and a consistent GetItem, sealed by a retry (UpdateItem); a
  // valid brand is never refused, so never given back.
  {
    method: 'POST',
    path: '/api/v1/brands',
    entry: 'brands/create-brand',
    table: ['GetItem', 'PutItem', 'UpdateItem'],
  },
  // The caller's brands, newest first, from gsi1 (an offset walked on its slim view).
  {
    method: 'GET',
    path: '/api/v1/brands',
    entry: 'brands/list-brands',
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  { method: 'GET', path: '/api/v1/brands/{brand_id}', entry: 'brands/get-brand', table: ['GetItem'] },
];
