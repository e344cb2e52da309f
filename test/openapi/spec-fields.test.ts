// The generated document against ../shared/spec/api-spec.md: per spec resource, every field with its
// type, nullability, presence and default, compared with the response schema the code declares.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { generateOpenApiDocument } from '../../infra/local/openapi.ts';

type Field = [type: string, nullable: boolean, defaultValue?: unknown];

/** Field tables transcribed from the spec ("Resources and their fields"). */
const SPEC: {
  resource: string;
  operation: [method: string, path: string, status: number];
  fields: Record<string, Field>;
}[] = [
  {
    resource: 'Brand',
    operation: ['get', '/api/v1/brands/{brand_id}', 200],
    fields: {
      id: ['uuid', false],
      name: ['string', false],
      created_at: ['date-time', false],
      updated_at: ['date-time', false],
      website_url: ['string', true],
      logo_url: ['string', true],
      industry: ['string', true],
      description: ['string', true],
      partner_slug: ['string', true],
      brand_kit_count: ['integer', false, 0],
      audit_count: ['integer', false, 0],
      competitor_count: ['integer', false, 0],
    },
  },
  {
    resource: 'Project',
    operation: ['get', '/api/v1/projects/{project_id}', 200],
    fields: {
      id: ['uuid', false],
      user_id: ['string', false],
      title: ['string', false],
      status: ['string', false],
      mode: ['string', false],
      created_at: ['date-time', false],
      updated_at: ['date-time', false],
      description: ['string', true],
      composer_prompt: ['string', true],
      bundle_template: ['string', true],
      project_tasks: ['array', false, []],
      task_count: ['integer', false, 0],
      completed_count: ['integer', false, 0],
      total_budget_usd: ['number', false, 0],
    },
  },
];

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes
const describeField = (schema: any): Field => {
  const variants = schema.anyOf ?? [schema];
  // biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes
  const nonNull = variants.filter((s: any) => s.type !== 'null');
  const nullable = nonNull.length < variants.length;
  const [main] = nonNull;
  const type = main.format === 'uuid' || main.format === 'date-time' ? main.format : (main.type ?? 'any');
  return schema.default === undefined ? [type, nullable] : [type, nullable, schema.default];
};

// biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
let document: any;
before(async () => {
  document = await generateOpenApiDocument();
});

describe('generated schemas match the spec', () => {
  for (const { resource, operation, fields } of SPEC) {
    it(`${resource}: every spec field, type, nullability and default; nothing else`, () => {
      const [method, path, status] = operation;
      const schema = document.paths[path][method].responses[status].content['application/json'].schema;
      assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(fields).sort());
      for (const [name, expected] of Object.entries(fields)) {
        assert.deepEqual(describeField(schema.properties[name]), expected, `${resource}.${name}`);
        assert.ok(schema.required.includes(name), `${resource}.${name} is always present`);
      }
    });
  }
});
