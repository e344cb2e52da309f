import type { Route } from '../routes.ts';

export const brandRoutes: Route[] = [
  { method: 'POST', path: '/api/v1/brands', entry: 'brands/create-brand', table: ['PutItem'] },
  // The caller's brands, newest first, from gsi1.
  { method: 'GET', path: '/api/v1/brands', entry: 'brands/list-brands', indexes: ['gsi1'] },
  { method: 'GET', path: '/api/v1/brands/{brand_id}', entry: 'brands/get-brand', table: ['GetItem'] },
];
