// GET /docs: the interactive documentation page.
import { httpRoute, Reply } from '#shared/http/route';
import { DOCS_PAGE } from '#shared/openapi/swagger-ui';

export const handler = httpRoute(
  { auth: false, summary: 'Interactive API documentation (Swagger UI)', mediaTypes: ['text/html'] },
  async () => new Reply(200, DOCS_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
);
