// OWASP API4/API8: generated path ids, queries and bodies for every route of the route table (wrong
// types, code-point boundaries with astral characters, huge numbers, nested junk, prototype-polluting
// keys). Never a 5xx; every 422 is FastAPI's error shape; Object.prototype stays clean; every answer
// matches the route's OpenAPI operation (the harness checks that on each call).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type * as v from 'valibot';
import { loadHandler } from '../../infra/local/handlers.ts';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import type { Route } from '../../infra/routes.ts';
import { signProviderMessage } from '../../shared/avatars/signature.ts';
import { multipartBody, mutatedBody, pathId, queryString } from '../support/fuzz.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import {
  figure,
  pathSeedKeys,
  routeKey,
  routes,
  sampleEvent,
  sampleRequest,
  seedResourcesFor,
  startExposureScan,
  WORKSPACE_SECRETS,
  within,
} from './support.ts';

/** At least this many requests per run, spread evenly over the routes. */
const TOTAL_REQUESTS = 10_000;
const perRoute = Math.ceil(TOTAL_REQUESTS / routes.length);
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const MULTIPART_RUNS = 400;
/** A hung handler fails its property (and fast-check shrinks the input) instead of stalling the run. */
const CALL_SECONDS = 10;
let multipartRoutes = 0;
const uncaught: Error[] = [];
process.on('uncaughtException', (error) => uncaught.push(error));

const ajv = new Ajv2020({ strict: false, allErrors: true });
// FastAPI's 422 body, closed: nothing beyond type, loc, msg, input and ctx.
const validationError = ajv.compile({
  type: 'object',
  required: ['detail'],
  additionalProperties: false,
  properties: {
    detail: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['type', 'loc', 'msg', 'input'],
        additionalProperties: false,
        properties: {
          type: { type: 'string', minLength: 1 },
          loc: { type: 'array', minItems: 1, items: { type: ['string', 'integer'] } },
          msg: { type: 'string', minLength: 1 },
          input: {},
          ctx: { type: 'object' },
        },
      },
    },
  },
});

const prototypeKeys = () =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) =>
    Object.getOwnPropertyNames(p).sort().join(','),
  );

let h: Harness;
let ids: SeedIds;
let scan: ReturnType<typeof startExposureScan>;
let before0: string[];
const statuses = new Map<number, number>();
let requests = 0;
const started = performance.now();

before(async () => {
  before0 = prototypeKeys();
  process.env.AVATAR_PROVIDER_SECRET = 'hardening-provider-signing-secret-0c9f';
  h = await startHarness();
  scan = startExposureScan();
  ids = await seedResourcesFor(h.owner.id);
});
after(async () => {
  scan.stop();
  figure('fuzz requests', requests);
  figure('fuzz statuses', Object.fromEntries([...statuses].sort(([a], [b]) => a - b)));
  figure('fuzz seconds', Math.round((performance.now() - started) / 100) / 10);
  delete process.env.AVATAR_PROVIDER_SECRET;
  await h.close();
});

const entriesOf = (schema: v.GenericSchema | undefined): string[] =>
  schema && 'entries' in schema
    ? Object.keys((schema as v.ObjectSchema<v.ObjectEntries, undefined>).entries)
    : [];

/** The route's declared query and body fields (from the schemas its handler validates with). */
async function declaredFields(route: Route) {
  const handler = (await loadHandler(route)) as unknown as {
    route?: { query?: v.GenericSchema; body?: v.GenericSchema };
  };
  return { query: entriesOf(handler.route?.query), body: entriesOf(handler.route?.body) };
}

const jsonTemplate = (
  route: Route,
  body: Buffer | string | undefined,
): Record<string, unknown> | undefined => {
  if (body === undefined || sampleEvent(route).isBase64Encoded) return undefined;
  try {
    const parsed = JSON.parse(String(body));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** Routes whose handler declares a multipart form (read from the handler modules themselves). */
const formRoutes = (
  await Promise.all(
    routes.map(async (route) => {
      const handler = (await loadHandler(route)) as unknown as {
        route?: { form?: { schema: v.GenericSchema } };
      };
      return [route, handler.route?.form] as const;
    }),
  )
).filter((entry): entry is readonly [Route, { schema: v.GenericSchema }] => entry[1] !== undefined);

describe('fuzzing every route', () => {
  for (const route of routes) {
    it(`${routeKey(route)}: ${perRoute} generated requests, never a 5xx`, async () => {
      const sample = sampleRequest(route, ids);
      const fields = await declaredFields(route);
      let template = jsonTemplate(route, sample.options.body);
      // A multipart route that also takes JSON: fuzz its JSON alternative.
      if (!template && fields.body.length > 0)
        template = Object.fromEntries(fields.body.map((name) => [name, `uploads/${h.owner.id}/x/file.pdf`]));
      const hasBody = route.method !== 'GET';
      const params = Object.keys(pathSeedKeys(route));
      const request = fc.record({
        path: fc.tuple(...params.map((name) => pathId(ids[pathSeedKeys(route)[name]!]))),
        query: queryString([...fields.query, ...new URLSearchParams(sample.url.split('?')[1] ?? '').keys()]),
        body: hasBody ? mutatedBody(template) : fc.constant(undefined),
        contentType: fc.constantFrom(
          'application/json',
          'application/json',
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/vnd.api+json',
        ),
        token: fc.constantFrom(h.owner.token, h.owner.token, h.other.token),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ path, query, body, contentType, token }) => {
          const overridePath = Object.fromEntries(params.map((name, i) => [name, path[i]!]));
          const spec = sampleRequest(route, ids, ids, overridePath);
          const url = `${spec.url.split('?')[0]}${query ? `?${query}` : ''}`;
          const headers = { ...spec.options.headers } as Record<string, string>;
          if (body !== undefined) headers['content-type'] = contentType;
          if (route.auth === false && headers['x-avatar-signature']) {
            headers['x-avatar-signature'] = signProviderMessage(
              process.env.AVATAR_PROVIDER_SECRET!,
              Math.floor(Date.now() / 1000),
              body ?? '',
            );
          }
          // The harness throws when the answer is not in the route's OpenAPI operation.
          const res = await within(
            h.call(route.method, url, { headers, token, ...(body !== undefined ? { body } : {}) }),
            CALL_SECONDS,
            `${route.method} ${url}`,
          );
          requests++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert.ok(res.status < 500, `${res.status} ${res.text}`);
          if (res.status === 422)
            assert.ok(validationError(res.body), ajv.errorsText(validationError.errors));
          if (route.path === '/docs/{asset}' && res.status === 200)
            assert.match(path[0] ?? '', /^[\w.-]+$/, 'a docs asset outside the allow-list was served');
        }),
        { numRuns: perRoute, seed: SEED, endOnFailure: false },
      );
    });
  }

  // Every free-form object of every sample body, holding a number the table cannot store: the random
  // walk above seldom builds a valid body around one, and each was a 500 (a black-box run found them).
  it('a free-form object holding a number the table cannot store is a 422 on every route, never a 5xx', async () => {
    let tried = 0;
    for (const route of routes) {
      const spec = sampleRequest(route, ids);
      const template = jsonTemplate(route, spec.options.body);
      for (const [field, value] of Object.entries(template ?? {})) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
        for (const number of ['1e20', '-9007199254740993', '1e-200']) {
          const body = JSON.stringify({ ...template, [field]: '@' }).replace('"@"', `{"n":${number}}`);
          const res = await h.call(route.method, spec.url, { ...spec.options, body });
          requests++;
          tried++;
          assert.equal(res.status, 422, `${routeKey(route)} ${field} ${number}: ${res.status} ${res.text}`);
        }
      }
    }
    // The object fields the sample bodies carry (teams, brand kits, workspace tasks), three numbers each.
    assert.ok(tried >= 5 * 3, `${tried} tried`);
  });

  // The routes that take multipart forms, with generated forms (hostile names, truncations).
  for (const [route, form] of formRoutes)
    it(`${routeKey(route)}: ${MULTIPART_RUNS} generated multipart forms, never a 5xx`, async () => {
      multipartRoutes++;
      await fc.assert(
        fc.asyncProperty(multipartBody(entriesOf(form.schema)), async ({ body, contentType }) => {
          const spec = sampleRequest(route, ids);
          const res = await within(
            h.call(route.method, spec.url, { body, headers: { 'content-type': contentType } }),
            CALL_SECONDS,
            `multipart ${route.method} ${spec.url}`,
          );
          requests++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert.ok(res.status < 500, `${res.status} ${res.text}`);
          if (res.status === 422)
            assert.ok(validationError(res.body), ajv.errorsText(validationError.errors));
        }),
        { numRuns: MULTIPART_RUNS, seed: SEED, endOnFailure: false },
      );
    });

  it('no uncaught exception while fuzzing (it would take a Lambda runtime down)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(multipartRoutes >= 1);
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
  });

  it('left no trace on the prototypes', () => {
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(([] as unknown as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(prototypeKeys(), before0);
  });

  it(`sent at least ${TOTAL_REQUESTS} requests`, () => {
    assert.ok(requests >= TOTAL_REQUESTS, `${requests} requests`);
  });

  it('no response or log line carries a secret', () => {
    const hits = scan.occurrences({
      client_secret: WORKSPACE_SECRETS.clientSecret,
      page_token: WORKSPACE_SECRETS.pageAccessToken,
      user_token: WORKSPACE_SECRETS.userAccessToken,
      owner_bearer: h.owner.token,
      other_bearer: h.other.token,
      jwt_signing_secret: h.secret,
      provider_signing_secret: process.env.AVATAR_PROVIDER_SECRET!,
    });
    assert.ok(
      Object.values(hits).every((n) => n === 0),
      JSON.stringify(hits),
    );
  });
});
