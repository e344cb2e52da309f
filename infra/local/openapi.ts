// Collects every route's declaration from its handler module and builds the OpenAPI document.
import { readFile } from 'node:fs/promises';
import type * as v from 'valibot';
import type { RouteOptions } from '../../shared/http/route.ts';
import { buildOpenApiDocument, type DocumentedRoute } from '../../shared/openapi/document.ts';
import { eventFile, type Route, routes } from '../routes.ts';
import { loadHandler } from './handlers.ts';

type Declared = { route?: RouteOptions<v.GenericSchema, v.GenericSchema, v.GenericSchema, v.GenericSchema> };

const sampleBody = async (route: Route): Promise<unknown> => {
  try {
    const event = JSON.parse(await readFile(eventFile(route), 'utf8')) as {
      body?: string;
      headers?: Record<string, string>;
    };
    if (!event.body || !event.headers?.['content-type']?.includes('json')) return undefined;
    return JSON.parse(event.body);
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
