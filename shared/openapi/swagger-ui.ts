// Swagger UI over the OpenAPI document, from the swagger-ui-dist package: no CDN, works offline.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Team Content Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui' });</script>
</body>
</html>
`;

const cache = new Map<string, string>();

/** In AWS the files are copied beside the bundle (route `bundleFiles`); locally they come from node_modules. */
export async function swaggerAsset(name: string, moduleUrl: string): Promise<string> {
  let text = cache.get(name);
  if (text === undefined) {
    text = await readFile(join(dirname(fileURLToPath(moduleUrl)), name), 'utf8').catch(() =>
      readFile(createRequire(moduleUrl).resolve(`swagger-ui-dist/${name}`), 'utf8'),
    );
    cache.set(name, text);
  }
  return text;
}
