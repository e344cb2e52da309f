import type { Route } from '../routes.ts';

export const systemRoutes: Route[] = [
  { method: 'GET', path: '/api/v1/openapi.json', entry: 'system/openapi', auth: false },
  { method: 'GET', path: '/docs', entry: 'system/docs-page', auth: false },
  {
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'system/docs-asset',
    auth: false,
    bundleFiles: [
      'node_modules/swagger-ui-dist/swagger-ui.css',
      'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
    ],
  },
];
