import type { Route } from '../routes.ts';

export const brandRoutes: Route[] = [
  { method: 'POST', path: '/api/v1/brands', entry: 'brands/create-brand', table: 'write' },
  { method: 'GET', path: '/api/v1/brands', entry: 'brands/list-brands', table: 'read' },
  { method: 'GET', path: '/api/v1/brands/{brand_id}', entry: 'brands/get-brand', table: 'read' },
];
