// Collects every route's declaration from its handler module and builds the OpenAPI document.
import { readFile } from 'node:fs/promises';
import type * as v from 'valibot';
import type { RouteOptions } from '../../shared/http/route.ts';
import { buildOpenApiDocument, type DocumentedRoute } from '../../shared/openapi/document.ts';
import { uploadKey } from '../../shared/uploads/keys.ts';
import { eventFile, type Route, routes } from '../routes.ts';
import { loadHandler } from './handlers.ts';

type Declared = { route?: RouteOptions<v.GenericSchema, v.GenericSchema, v.GenericSchema, v.GenericSchema> };

// The sample events name the seed's records by `{{placeholder}}`, filled from seed.json when invoked;
// a document's example must be a valid request as it stands ("Try it out" sends it), so each is given
// a stand-in of its kind: a UUID for an id, a direct upload's key for a key.
const EXAMPLE_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const standIn = (name: string) =>
  name.endsWith('_key') ? uploadKey(EXAMPLE_ID, EXAMPLE_ID, name.replace(/_key$/, '')) : EXAMPLE_ID;

const sampleBody = async (route: Route): Promise<unknown> => {
  try {
    const event = JSON.parse(await readFile(eventFile(route), 'utf8')) as {
      body?: string;
      headers?: Record<string, string>;
    };
    if (!event.body || !event.headers?.['content-type']?.includes('json')) return undefined;
    return JSON.parse(event.body.replace(/\{\{(\w+)\}\}/g, (_, name: string) => standIn(name)));
  } catch {
    return undefined;
  }
};

export async function documentedRoute(route: Route): Promise<DocumentedRoute> {
  const handler = (await loadHandler(route)) as unknown as Declared;
  return { route, options: handler.route ?? {}, example: await sampleBody(route) };
}

export async function generateOpenApiDocument() {
  return buildOpenApiDocument(await Promise.all(routes.map(documentedRoute)));
}
