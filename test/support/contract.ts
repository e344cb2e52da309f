// Every response the tests receive is checked against the OpenAPI operation generated for its route:
// the status must be listed, the body's media type declared, and a JSON body must match (response
// objects are closed, so a missing or an extra field fails). This is how the document is kept honest.

import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { documentedRoute } from '../../infra/local/openapi.ts';
import type { Route } from '../../infra/routes.ts';
import { bareMediaType } from '../../shared/media-type.ts';
import { buildOpenApiDocument, operationFor } from '../../shared/openapi/document.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
// uuid and date-time are part of the contract: a response id that is not a UUID is drift too.
addFormats(ajv as never, ['uuid', 'date-time']);
ajv.addSchema({ $id: 'openapi', components: buildOpenApiDocument([]).components });

type Operation = ReturnType<typeof operationFor>;
const operations = new Map<Route, Promise<Operation>>();
const validators = new Map<string, ValidateFunction>();

const validatorFor = (key: string, schema: unknown) => {
  let validate = validators.get(key);
  if (!validate) {
    const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
    validate = ajv.compile(resolved);
    validators.set(key, validate);
  }
  return validate;
};

/** Why `value` does not match a schema of the OpenAPI document (its `#/components` refs resolved),
 * or undefined when it does; `key` names the schema for the compiled-validator cache. */
export function schemaErrors(key: string, schema: unknown, value: unknown): string | undefined {
  const validate = validatorFor(key, schema);
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

export async function assertMatchesContract(
  route: Route,
  status: number,
  contentType: string,
  body: unknown,
  headers?: Record<string, string>,
) {
  let operation = operations.get(route);
  if (!operation) {
    operation = documentedRoute(route).then(operationFor);
    operations.set(route, operation);
  }
  const responses = (await operation).responses as Record<
    string,
    {
      content?: Record<string, { schema: unknown }>;
      headers?: Record<string, { schema?: { const?: string } }>;
    }
  >;
  const declared = responses[String(status)];
  if (!declared)
    throw new Error(
      `${route.method} ${route.path} answered ${status}, which its OpenAPI operation does not list (declared: ${Object.keys(responses).join(', ')}). Declare it with \`errors: [${status}]\` in the route's httpRoute options, or fix the handler.`,
    );
  // A header the operation declares for this status is part of the contract too: a client reads it.
  if (headers)
    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      const value = headers[name.toLowerCase()];
      if (value === undefined)
        throw new Error(
          `${route.method} ${route.path} ${status} lacks the ${name} header its OpenAPI operation declares`,
        );
      const expected = header.schema?.const;
      if (expected !== undefined && value !== expected)
        throw new Error(`${route.method} ${route.path} ${status} ${name} is ${value}, declared ${expected}`);
    }
  // A body of another media type than those declared is drift too (the docs routes declared none).
  const declaredTypes = Object.keys(declared.content ?? {});
  const mediaType = bareMediaType(contentType);
  if (declaredTypes.length > 0 && mediaType !== '' && !declaredTypes.includes(mediaType))
    throw new Error(
      `${route.method} ${route.path} ${status} answered ${contentType}, which its OpenAPI operation does not declare (${declaredTypes.join(', ')})`,
    );
  const schema = declared.content?.['application/json']?.schema;
  if (!schema || !contentType.includes('json')) return;
  const validate = validatorFor(`${route.method} ${route.path} ${status}`, schema);
  if (!validate(body))
    throw new Error(
      `${route.method} ${route.path} ${status} body does not match its OpenAPI schema: ${ajv.errorsText(validate.errors)}`,
    );
}
