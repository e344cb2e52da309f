// Swagger UI over the OpenAPI document, from the swagger-ui-dist package: no CDN, works offline.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'swagger-ui-dist';
const STYLE_SHEET = 'swagger-ui.css';
const SCRIPT = 'swagger-ui-bundle.js';

/** The files /docs/{asset} serves, by name, with their media types. */
export const SWAGGER_ASSETS: Record<string, string> = {
  [STYLE_SHEET]: 'text/css; charset=utf-8',
  [SCRIPT]: 'text/javascript; charset=utf-8',
};

/** The same files in the repository, copied beside the docs-asset function's bundle (its route's
 * `bundleFiles`): an asset served locally is one deployed. */
export const SWAGGER_ASSET_FILES = Object.keys(SWAGGER_ASSETS).map(
  (name) => `node_modules/${PACKAGE}/${name}`,
);

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Team Content Service API</title>
<link rel="stylesheet" href="/docs/${STYLE_SHEET}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/${SCRIPT}"></script>
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
      readFile(createRequire(moduleUrl).resolve(`${PACKAGE}/${name}`), 'utf8'),
    );
    cache.set(name, text);
  }
  return text;
}
