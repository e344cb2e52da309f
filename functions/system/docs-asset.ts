// GET /docs/{asset}: Swagger UI's script and style sheet.
import { model, string } from '#shared/http/fields';
import { httpRoute, Reply } from '#shared/http/route';
import { bareMediaType } from '#shared/media-type';
import { SWAGGER_ASSETS, swaggerAsset } from '#shared/openapi/swagger-ui';

export const handler = httpRoute(
  {
    auth: false,
    path: model({ asset: string() }),
    summary: 'Swagger UI asset',
    mediaTypes: [...new Set(Object.values(SWAGGER_ASSETS).map(bareMediaType))],
  },
  async ({ path }) => {
    const { text, headers } = await swaggerAsset(path.asset, import.meta.url);
    return new Reply(200, text, headers);
  },
);
