import { SWAGGER_ASSET_FILES } from '../../shared/openapi/swagger-ui.ts';
import type { Route } from '../routes.ts';

export const systemRoutes: Route[] = [
  { method: 'GET', path: '/api/v1/openapi.json', entry: 'system/openapi', auth: false },
  { method: 'GET', path: '/docs', entry: 'system/docs-page', auth: false },
  {
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'system/docs-asset',
    auth: false,
    bundleFiles: SWAGGER_ASSET_FILES,
  },
];
