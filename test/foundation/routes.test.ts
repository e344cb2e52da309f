// Walks the route table: every route refuses a request without a token, and has a sample event.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { handler as unmatched } from '../../functions/system/not-found.ts';
import { buildEvent, requestTime } from '../../infra/local/events.ts';
import { lambdaContext } from '../../infra/local/handlers.ts';
import { eventFile, pathParameterNames, routeKey, routes, unmatchedRoute } from '../../infra/routes.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const sampleUrl = (path: string) => path.replace(/\{\w+\}/g, '01a1fc6e-0000-7000-8000-000000000000');

describe('route table', () => {
  for (const route of routes.filter((r) => r.auth !== false)) {
    it(`${routeKey(route)} answers 401 without a token`, async () => {
      const res = await h.call(route.method, sampleUrl(route.path), { token: null, json: {} });
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      assert.deepEqual(res.body, { detail: 'Not authenticated' });
    });
  }

  for (const route of routes) {
    it(`${routeKey(route)} has a valid v2.0 sample event`, async () => {
      const event = JSON.parse(await readFile(eventFile(route), 'utf8'));
      assert.equal(event.version, '2.0');
      assert.equal(event.routeKey, routeKey(route));
      assert.equal(event.requestContext.routeKey, routeKey(route));
      assert.equal(event.requestContext.http.method, route.method);
      assert.equal(typeof event.rawPath, 'string');
      assert.equal(typeof event.rawQueryString, 'string');
      assert.equal(typeof event.isBase64Encoded, 'boolean');
      assert.deepEqual(Object.keys(event.pathParameters ?? {}).sort(), pathParameterNames(route).sort());
      for (const name of Object.keys(event.headers)) assert.equal(name, name.toLowerCase());
      if (route.auth !== false) assert.match(event.headers.authorization, /^Bearer /);
      // API Gateway's format (`12/Mar/2020:19:03:58 +0000`), the same instant as timeEpoch.
      assert.equal(event.requestContext.time, requestTime(new Date(event.requestContext.timeEpoch)));
    });
  }

  it('stamps requestContext.time as API Gateway does: dd/Mon/yyyy:HH:mm:ss +0000, the instant of timeEpoch', () => {
    assert.equal(requestTime(new Date(Date.UTC(2020, 2, 12, 19, 3, 58, 390))), '12/Mar/2020:19:03:58 +0000');
    const { requestContext } = buildEvent(routes[0]!, {}, { method: 'GET', url: '/', headers: {} });
    assert.match(requestContext.time, /^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    assert.equal(requestContext.time, requestTime(new Date(requestContext.timeEpoch)));
  });

  it('answers an unknown path with 404 and a wrong method with 405', async () => {
    assert.deepEqual((await h.call('GET', '/api/v1/nowhere')).body, { detail: 'Not Found' });
    const wrong = await h.call('DELETE', '/api/v1/brands');
    assert.equal(wrong.status, 405);
    assert.deepEqual(wrong.body, { detail: 'Method Not Allowed' });
    const slash = await h.call('POST', '/api/v1/brands/?draft=1', { token: null });
    assert.equal(slash.status, 307);
    assert.equal(slash.headers.location, 'http://localhost/api/v1/brands?draft=1');
    assert.equal(slash.text, '');
  });

  it('routes on the decoded path, as Starlette does: an encoded slash separates segments', async () => {
    const team = await h.call('POST', '/api/v1/teams', {
      json: { team_type: 'content', display_name: 'Slashes', tier: 'growth', operation_mode: 'autopilot' },
    });
    assert.equal(team.status, 201);
    const id = team.body.id;
    // `<id>%2Fx` is the path `<id>/x`: no route, where it was the id `<id>/x` (422 uuid_parsing).
    const extra = await h.call('GET', `/api/v1/teams/${id}%2fx`);
    assert.deepEqual([extra.status, extra.body], [404, { detail: 'Not Found' }]);
    // A route the decoded path names answers, and a trailing `%2F` is a trailing slash (307).
    const dashboard = await h.call('GET', `/api/v1/teams/${id}%2Fdashboard`);
    assert.equal(dashboard.status, 200);
    assert.equal(dashboard.body.team.id, id);
    const slash = await h.call('GET', `/api/v1/teams/${id}%2F`);
    assert.equal(slash.status, 307);
    assert.equal(slash.headers.location, `http://localhost/api/v1/teams/${id}`);
    // Other escapes decode as Python's unquote does: bytes that are not UTF-8 become U+FFFD, a
    // malformed escape stays as sent.
    const notUtf8 = await h.call('GET', '/api/v1/teams/%E9');
    assert.deepEqual([notUtf8.status, notUtf8.body.detail[0].input], [422, '\uFFFD']);
    const malformed = await h.call('GET', '/api/v1/teams/%zz%E9');
    assert.deepEqual([malformed.status, malformed.body.detail[0].input], [422, '%zz\uFFFD']);
    const braces = await h.call('GET', `/api/v1/teams/%7B${id}%7D`);
    assert.equal(braces.status, 200);
  });

  it("answers API Gateway's $default route (no route matched) with FastAPI's 404 and 405", async () => {
    const call = async (method: string, url: string) => {
      const event = buildEvent(unmatchedRoute, {}, { method, url, headers: {}, scheme: 'https' });
      return unmatched(event, lambdaContext(unmatchedRoute));
    };
    const missing = await call('GET', '/api/v1/nowhere');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(JSON.parse(missing.body!), { detail: 'Not Found' });
    const wrong = await call('DELETE', '/api/v1/brands');
    assert.equal(wrong.statusCode, 405);
    assert.deepEqual(JSON.parse(wrong.body!), { detail: 'Method Not Allowed' });
    assert.match(String(wrong.headers?.allow), /GET/);
    assert.match(String(wrong.headers?.allow), /POST/);
  });

  it("answers API Gateway's $default route for a trailing-slash path with Starlette's 307", async () => {
    const call = async (method: string, url: string) => {
      const event = buildEvent(
        unmatchedRoute,
        {},
        { method, url, headers: { host: 'api.example.com' }, scheme: 'https' },
      );
      return unmatched(event, lambdaContext(unmatchedRoute));
    };
    const id = '01a1fc6e-0000-7000-8000-000000000000';
    const get = await call('GET', `/api/v1/projects/${id}/?view=full&q=a%20b`);
    assert.equal(get.statusCode, 307);
    assert.equal(get.headers?.location, `https://api.example.com/api/v1/projects/${id}?view=full&q=a%20b`);
    assert.equal(get.body ?? '', '');
    const post = await call('POST', '/api/v1/brands/');
    assert.equal(post.statusCode, 307);
    assert.equal(post.headers?.location, 'https://api.example.com/api/v1/brands');
    assert.equal(post.body ?? '', '');
    const missing = await call('GET', '/api/v1/nowhere/');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(JSON.parse(missing.body!), { detail: 'Not Found' });
  });
});
