// Swagger UI over the OpenAPI document, from the swagger-ui-dist package: no CDN, works offline.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '../http/errors.ts';

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

/** Clients keep an asset a day: it changes only with the swagger-ui-dist version. */
const ASSET_CACHE_CONTROL = 'public, max-age=86400';

/** The asset named `name` and its headers; a name outside SWAGGER_ASSETS is 404 before any file is
 * read. In AWS the files are copied beside the bundle (route `bundleFiles`); locally they come from
 * node_modules. */
export async function swaggerAsset(
  name: string,
  moduleUrl: string,
): Promise<{ text: string; headers: Record<string, string> }> {
  const type = Object.hasOwn(SWAGGER_ASSETS, name) ? SWAGGER_ASSETS[name] : undefined;
  if (!type) throw new NotFoundError('Asset');
  let text = cache.get(name);
  if (text === undefined) {
    text = await readFile(join(dirname(fileURLToPath(moduleUrl)), name), 'utf8').catch(() =>
      readFile(createRequire(moduleUrl).resolve(`${PACKAGE}/${name}`), 'utf8'),
    );
    cache.set(name, text);
  }
  return { text, headers: { 'content-type': type, 'cache-control': ASSET_CACHE_CONTROL } };
}
