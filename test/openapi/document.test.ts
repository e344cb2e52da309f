import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { generateOpenApiDocument } from '../../infra/local/openapi.ts';
import { routeKey, routes } from '../../infra/routes.ts';
import { schemaErrors } from '../support/contract.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema: object;
}
// biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
let generated: any;
before(async () => {
  h = await startHarness();
  generated = await generateOpenApiDocument();
});
after(() => h.close());

describe('OpenAPI document', () => {
  it('is what the code declares: docs/openapi.json equals a fresh generation (run `npm run openapi`)', async () => {
    const committed = JSON.parse(await readFile('docs/openapi.json', 'utf8'));
    assert.deepEqual(committed, JSON.parse(JSON.stringify(generated)));
  });

  it('passes the OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(generated)));
    assert.equal(validator.version, '3.1');
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
  });

  it('documents every route, with the bearer scheme exactly where a token is needed', () => {
    assert.equal(generated.info.version, '0.1.0');
    for (const route of routes) {
      const operation = generated.paths[route.path]?.[route.method.toLowerCase()];
      assert.ok(operation, `${routeKey(route)} is not documented`);
      const security =
        route.auth !== false
          ? [{ bearerAuth: [] }]
          : route.path === '/api/v1/avatar-provider/callback'
            ? [{ providerSignature: [] }]
            : [];
      assert.deepEqual(operation.security, security, routeKey(route));
      if (route.auth !== false) assert.ok(operation.responses['401'], `${routeKey(route)} lists no 401`);
    }
  });

  it('tells a provider which header signs its callback, and how', () => {
    // Before, the callback declared no security and no header: `X-Avatar-Signature` was only in the docs.
    const scheme = generated.components.securitySchemes.providerSignature;
    assert.deepEqual([scheme.type, scheme.in, scheme.name], ['apiKey', 'header', 'X-Avatar-Signature']);
    assert.match(scheme.description, /^`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>\.<raw body>">`/);
    assert.match(scheme.description, /within 300 seconds/);
  });

  it('gives request examples that are valid requests as they stand ("Try it out" sends them)', () => {
    // The sample events' {{placeholders}} were copied in: a POST /teams example answered 422.
    type Operation = { requestBody?: { content?: Record<string, { example?: unknown; schema: unknown }> } };
    const examples = Object.entries(generated.paths).flatMap(([path, operations]) =>
      Object.entries(operations as Record<string, Operation>).flatMap(([method, operation]) => {
        const json = operation.requestBody?.content?.['application/json'];
        return json?.example === undefined ? [] : [{ at: `${method} ${path}`, json }];
      }),
    );
    assert.ok(examples.length >= 14, `${examples.length} examples`);
    for (const { at, json } of examples) {
      assert.doesNotMatch(JSON.stringify(json.example), /\{\{/, at);
      assert.equal(schemaErrors(`example of ${at}`, json.schema, json.example), undefined, at);
    }
  });

  it('carries constraints and defaults of the request schemas', () => {
    const body = generated.paths['/api/v1/brands'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(body.properties.name, { type: 'string', minLength: 1, maxLength: 200 });
    assert.deepEqual(body.required, ['name']);
    const [limit] = generated.paths['/api/v1/brands'].get.parameters;
    assert.deepEqual(limit, {
      name: 'limit',
      in: 'query',
      description: 'How many entries the page holds at most.',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    });
    const path = generated.paths['/api/v1/projects/{project_id}'].get.parameters[0];
    assert.deepEqual(path.schema, { type: 'string', format: 'uuid' });
    assert.deepEqual(
      generated.paths['/api/v1/projects'].post.responses['422'].content['application/json'].schema,
      {
        $ref: '#/components/schemas/HTTPValidationError',
      },
    );
  });

  it('lists `before` beside `offset` on every offset-paged list', () => {
    const paged = Object.entries(generated.paths).flatMap(([path, operations]) =>
      Object.values(operations as Record<string, { parameters: { name: string }[] }>)
        .filter((operation) => operation.parameters.some((p) => p.name === 'offset'))
        .map((operation) => [path, operation.parameters.find((p) => p.name === 'before')] as const),
    );
    assert.deepEqual(paged.map(([path]) => path).sort(), [
      '/api/v1/brands',
      '/api/v1/chat/sessions',
      '/api/v1/projects',
      '/api/v1/shopping/sessions',
      '/api/v1/teams',
      '/api/v1/teams/{team_id}/activity',
      '/api/v1/teams/{team_id}/tasks',
      '/api/v1/workspaces',
      '/api/v1/workspaces/{workspace_id}/tasks',
    ]);
    for (const [path, before] of paged)
      assert.deepEqual(
        { ...before, description: undefined },
        {
          name: 'before',
          in: 'query',
          description: undefined,
          required: false,
          schema: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }], default: null },
        },
        path,
      );
  });

  it('describes every query and header parameter on the parameter, where Swagger UI shows it', () => {
    const described = Object.entries(generated.paths).flatMap(([path, operations]) =>
      Object.entries(operations as Record<string, { parameters?: Parameter[] }>).flatMap(
        ([method, operation]) =>
          (operation.parameters ?? [])
            .filter((parameter) => parameter.in !== 'path')
            .map((parameter) => ({
              at: `${method} ${path} ${parameter.name}`,
              onParameter: typeof parameter.description === 'string' && parameter.description.length > 0,
              inSchema: 'description' in parameter.schema,
            })),
      ),
    );
    assert.equal(described.length, 45);
    assert.deepEqual(
      described.filter((parameter) => !parameter.onParameter || parameter.inSchema),
      [],
    );
  });

  it("marks the ads provider's client secret as FastAPI marks a SecretStr: a password, never answered", () => {
    const credentials =
      generated.paths['/api/v1/workspaces/{workspace_id}/integrations/ads-provider/credentials'].put
        .requestBody.content['application/json'].schema;
    assert.deepEqual(credentials.properties.client_secret, {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      format: 'password',
      writeOnly: true,
    });
    assert.deepEqual(credentials.properties.client_id, { type: 'string', minLength: 1, maxLength: 512 });
  });

  it('declares the media type of every success body (the docs routes and this document declared none)', () => {
    for (const route of routes) {
      const responses = generated.paths[route.path][route.method.toLowerCase()].responses;
      for (const [status, response] of Object.entries(responses as Record<string, { content?: object }>))
        if (/^2/.test(status) && status !== '204')
          assert.ok(
            response.content && Object.keys(response.content).length > 0,
            `${routeKey(route)} ${status}`,
          );
    }
    assert.deepEqual(Object.keys(generated.paths['/docs/{asset}'].get.responses['200'].content), [
      'text/css',
      'text/javascript',
    ]);
  });

  it('is served without a token at /api/v1/openapi.json', async () => {
    const res = await h.call('GET', '/api/v1/openapi.json', { token: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, JSON.parse(await readFile('docs/openapi.json', 'utf8')));
  });

  it('serves an offline Swagger UI page at /docs with its assets', async () => {
    const page = await h.call('GET', '/docs', { token: null });
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type']!, /^text\/html/);
    assert.match(page.text, /SwaggerUIBundle\(\{ url: '\/api\/v1\/openapi\.json'/);
    const script = await h.call('GET', '/docs/swagger-ui-bundle.js', { token: null });
    assert.equal(script.status, 200);
    assert.match(script.headers['content-type']!, /javascript/);
    assert.ok(script.text.length > 100_000);
    const missing = await h.call('GET', '/docs/package.json', { token: null });
    assert.equal(missing.status, 404);
  });
});
