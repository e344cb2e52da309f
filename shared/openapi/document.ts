// The OpenAPI 3.1 document, generated from the route table and the valibot schemas each handler
// declares (the same ones that validate requests), so the description cannot drift from the code.
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { usesTable } from '../../infra/grants.ts';
import type { Route } from '../../infra/routes.ts';
import type { JsonHint } from '../http/fields.ts';
import type { RouteOptions } from '../http/route.ts';

export const API_VERSION = '0.1.0';

type JsonSchema = Record<string, unknown>;
type Options = RouteOptions<v.GenericSchema, v.GenericSchema, v.GenericSchema, v.GenericSchema>;

export interface DocumentedRoute {
  route: Route;
  options: Options;
  /** A request body example (the sample event's). */
  example?: unknown;
}

/** Converts a valibot schema, using the JSON Schema our field constructors carry beside them. */
export function jsonSchemaOf(schema: v.GenericSchema, strict = false): JsonSchema {
  const converted = toJsonSchema(schema, {
    target: 'draft-2020-12',
    // Our field constructors (pipes of custom checks) end in a metadata action holding their JSON
    // Schema, which replaces the library's attempt: its complaints about the checks are expected.
    errorMode: 'ignore',
    overrideAction: ({ valibotAction, jsonSchema }) => {
      const metadata = (
        valibotAction as { metadata?: { jsonSchema?: JsonHint; jsonAnnotations?: JsonSchema } }
      ).metadata;
      if (metadata?.jsonAnnotations) {
        // Added to what the pipe before gives (a default, a format): valibot copies the metadata in,
        // so it is taken out again.
        const { jsonAnnotations: _, ...converted } = jsonSchema as JsonSchema;
        return { ...converted, ...metadata.jsonAnnotations } as typeof jsonSchema;
      }
      const hint = metadata?.jsonSchema;
      if (!hint) return undefined;
      const { $model, $items, ...rest } = hint;
      // A model's hint may add to the model's own schema (a rule's description, allOf).
      if ($model) return { ...jsonSchemaOf($model, strict), ...rest };
      if ($items) return { ...rest, items: jsonSchemaOf($items, strict) };
      return rest;
    },
  }) as JsonSchema;
  delete converted.$schema;
  return strict ? closeObjects(converted) : converted;
}

/** Response objects list every field they may carry: any other key is drift (or a leak). */
function closeObjects(schema: JsonSchema): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) out[key] = walk(value);
    if (out.type === 'object' && out.properties && out.additionalProperties === undefined)
      out.additionalProperties = false;
    return out;
  };
  return walk(schema) as JsonSchema;
}

const ERROR_TEXTS: Record<number, string> = {
  400: 'The body could not be decoded, or a form holds too many files or fields, a part without a name or a text part over 1 MiB',
  401: 'Missing or invalid bearer token',
  403: 'A precondition of the resource refuses the request',
  404: 'Not found, or not the caller’s',
  409: 'Conflicts with the resource’s current state',
  413: "Request body too large: past the route's limit (`detail`), or past API Gateway's 10 MiB (`message`)",
  415: 'Unsupported content',
  429: 'A daily allowance of the caller’s is used; retry after Retry-After',
  503: 'A dependency is throttled or unavailable; retry after Retry-After',
};

/** Headers an error always carries, declared so that a client (or its generated code) can read them. */
const errorHeaders = (status: number, route: Route) => {
  // The bearer challenge belongs to bearer routes; a signed route (the provider callback) sends none.
  if (status === 401 && route.auth !== false)
    return { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } };
  if (status === 429 || status === 503)
    return {
      'Retry-After': {
        description: 'Seconds to wait before retrying',
        schema: { type: 'integer', minimum: 0 },
      },
    };
  return undefined;
};

const errorResponse = (status: number, route: Route) => {
  if (status === 422)
    return {
      description: 'Validation error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
    };
  const headers = errorHeaders(status, route);
  // A body past API Gateway's own 10 MiB never reaches the function: the gateway's body answers it.
  const schema =
    status === 413
      ? { anyOf: [{ $ref: '#/components/schemas/HTTPError' }, { $ref: '#/components/schemas/GatewayError' }] }
      : { $ref: '#/components/schemas/HTTPError' };
  return {
    description:
      status === 401 && route.auth === false
        ? 'Missing, invalid or stale signature, or a callback already received'
        : (ERROR_TEXTS[status] ?? 'Error'),
    content: { 'application/json': { schema } },
    ...(headers ? { headers } : {}),
  };
};

const parameters = (schema: v.GenericSchema | undefined, place: 'path' | 'query' | 'header') => {
  if (!schema) return [];
  const json = jsonSchemaOf(schema);
  const required = new Set((json.required as string[] | undefined) ?? []);
  // A field's description belongs to its parameter (where Swagger UI and generated clients show it),
  // as FastAPI writes a Query(description=...).
  return Object.entries((json.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, { description, ...schema }]) => ({
      name,
      in: place,
      ...(description === undefined ? {} : { description }),
      required: place === 'path' || required.has(name),
      schema,
    }),
  );
};

/** The statuses a route can answer, beyond success. */
export function errorStatuses(route: Route, options: Options): number[] {
  const statuses = new Set(options.errors ?? []);
  if (route.auth !== false) statuses.add(401);
  if (options.path) statuses.add(404);
  if (options.path || options.query || options.header || options.body || options.form) statuses.add(422);
  if (options.body || options.form) statuses.add(413);
  if (options.body) statuses.add(400);
  if (options.form) statuses.add(415);
  if (usesTable(route) || route.bucket) statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

export function operationFor({ route, options, example }: DocumentedRoute) {
  const success = options.status ?? 200;
  const content: Record<string, unknown> = {};
  if (options.body)
    content['application/json'] = { schema: jsonSchemaOf(options.body), ...(example ? { example } : {}) };
  if (options.form) content['multipart/form-data'] = { schema: jsonSchemaOf(options.form.schema) };
  const responses: Record<string, unknown> = {
    [success]: {
      description: 'Success',
      ...(options.response
        ? { content: { 'application/json': { schema: jsonSchemaOf(options.response, true) } } }
        : options.mediaTypes
          ? {
              content: Object.fromEntries(
                options.mediaTypes.map((type) => [type, { schema: { type: 'string' } }]),
              ),
            }
          : {}),
    },
  };
  for (const status of errorStatuses(route, options)) responses[status] = errorResponse(status, route);
  return {
    operationId: route.entry.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    tags: [route.entry.split('/')[0]],
    ...(options.summary ? { summary: options.summary } : {}),
    security:
      route.auth !== false
        ? [{ bearerAuth: [] }]
        : options.verify
          ? [{ [options.verify.scheme.name]: [] }]
          : [],
    parameters: [
      ...parameters(options.path, 'path'),
      ...parameters(options.query, 'query'),
      ...parameters(options.header, 'header'),
    ],
    ...(Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {}),
    responses,
  };
}

export function buildOpenApiDocument(routes: DocumentedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const documented of routes) {
    const { route } = documented;
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationFor(documented);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Team Content Service',
      version: API_VERSION,
      description:
        'Teams of content agents, brands and brand kits, workspaces, avatars, shopping search, chat and projects. Errors keep the FastAPI wire format. ' +
        'API Gateway answers some requests itself, with `{"message": ...}` (GatewayError) where the functions answer `{"detail": ...}`: ' +
        "413 past its 10 MiB payload, 431 past its 10,240 bytes of request line and header values, 429 past a route's request rate, " +
        '500 when a function fails to answer at all (a function\'s own 500 is `{"detail": "Internal Server Error"}`). ' +
        'The local server (`npm start`) gives the same answers but the 429.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ...Object.fromEntries(
          routes.flatMap(({ options }) =>
            options.verify ? [[options.verify.scheme.name, options.verify.scheme.definition]] : [],
          ),
        ),
      },
      schemas: {
        HTTPError: {
          type: 'object',
          required: ['detail'],
          properties: { detail: { type: 'string' } },
        },
        GatewayError: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string' } },
          description:
            "API Gateway's own answer: the request did not reach a function, or its function failed",
        },
        ValidationError: {
          type: 'object',
          required: ['type', 'loc', 'msg'],
          properties: {
            type: { type: 'string' },
            loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
            msg: { type: 'string' },
            input: {},
            ctx: { type: 'object' },
          },
          additionalProperties: false,
        },
        HTTPValidationError: {
          type: 'object',
          properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
          additionalProperties: false,
        },
      },
    },
  };
}
