// The local HTTP server over real sockets: routing (404/405, trailing-slash 307), CORS preflight, the
// v2.0 body rule (bad UTF-8 included), and the seed.json contract of `npm start`.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedAws } from '../../infra/local/embedded.ts';
import type { SeedFile } from '../../infra/local/runtime.ts';
import {
  ensureSeed,
  fillFromSeed,
  markStopped,
  openLocalStores,
  runningInstance,
} from '../../infra/local/runtime.ts';
import { type LocalServer, startServer } from '../../infra/local/server.ts';
import { eventFile, routes } from '../../infra/routes.ts';

let dataDir: string;
let aws: EmbeddedAws;
let server: LocalServer;
let seed: SeedFile;
let secret: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tcs-data-'));
  const stores = await openLocalStores(dataDir);
  aws = stores.aws!;
  secret = stores.secret;
  server = await startServer(0);
  seed = await ensureSeed(dataDir, server.url, secret);
});
after(async () => {
  await server.close();
  await aws.close();
  await rm(dataDir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${seed.users.owner.token}` });

describe('local server', () => {
  it('writes seed.json with the contract keys and serves the seeded project', async () => {
    const file = JSON.parse(await readFile(join(dataDir, 'seed.json'), 'utf8'));
    assert.equal(file.base_url, server.url);
    for (const user of ['owner', 'other']) {
      assert.match(file.users[user].id, /^[0-9a-f-]{36}$/);
      assert.match(file.users[user].token, /^ey/);
    }
    for (const key of ['brand_id', 'project_id']) assert.match(file[key], /^[0-9a-f-]{36}$/, key);
    const res = await fetch(`${server.url}/api/v1/projects/${file.project_id}`, { headers: auth() });
    assert.equal(res.status, 200);
    const project = (await res.json()) as { task_count: number; completed_count: number };
    assert.ok(project.task_count > 0 && project.completed_count > 0);
  });

  it('keeps ids and refreshes tokens on the next start', async () => {
    const again = await ensureSeed(dataDir, server.url, secret);
    assert.equal(again.project_id, seed.project_id);
    assert.equal(again.users.owner.id, seed.users.owner.id);
  });

  it('npm run invoke (no base URL) keeps the base_url the server wrote', async () => {
    const kept = await ensureSeed(dataDir, undefined, secret);
    assert.equal(kept.base_url, server.url);
    assert.equal(JSON.parse(await readFile(join(dataDir, 'seed.json'), 'utf8')).base_url, server.url);
  });

  it('fills every placeholder of every sample event from seed.json (npm run invoke)', async () => {
    for (const route of routes) {
      const filled = fillFromSeed(await readFile(eventFile(route), 'utf8'), seed);
      assert.deepEqual(filled.match(/\{\{\w+\}\}/g), null, eventFile(route));
    }
  });

  it('a running.json whose process no longer serves the stores is not taken for a running instance', async () => {
    // A pid that is alive but is not the server (pids are reused after a restart).
    const note = { pid: process.ppid, dynamodbEndpoint: aws.dynamodbEndpoint, s3Endpoint: aws.s3Endpoint };
    await writeFile(join(dataDir, 'running.json'), JSON.stringify(note));
    assert.deepEqual(await runningInstance(dataDir), note);
    await writeFile(
      join(dataDir, 'running.json'),
      JSON.stringify({ ...note, dynamodbEndpoint: 'http://127.0.0.1:9' }),
    );
    assert.equal(await runningInstance(dataDir), undefined);
    await markStopped(dataDir);
    assert.equal(await runningInstance(dataDir), undefined);
  });

  it('answers unknown routes 404 and wrong methods 405, FastAPI style', async () => {
    const missing = await fetch(`${server.url}/api/v1/nothing`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { detail: 'Not Found' });
    const wrong = await fetch(`${server.url}/api/v1/brands`, { method: 'DELETE' });
    assert.equal(wrong.status, 405);
    assert.deepEqual(await wrong.json(), { detail: 'Method Not Allowed' });
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
  });

  it('redirects a path that differs from a route only by a trailing slash: 307, empty body, location', async () => {
    // No token: FastAPI redirects before any dependency (the bearer check) runs.
    const get = await fetch(`${server.url}/api/v1/projects/${seed.project_id}/?view=full&q=a%20b`, {
      redirect: 'manual',
    });
    assert.equal(get.status, 307);
    assert.equal(
      get.headers.get('location'),
      `${server.url}/api/v1/projects/${seed.project_id}?view=full&q=a%20b`,
    );
    assert.equal(await get.text(), '');
    const post = await fetch(`${server.url}/api/v1/brands/?draft=1`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    assert.equal(post.status, 307);
    assert.equal(post.headers.get('location'), `${server.url}/api/v1/brands?draft=1`);
    assert.equal(await post.text(), '');
    // Starlette redirects when the other form exists under any method, and strips every trailing slash.
    const other = await fetch(`${server.url}/api/v1/brands//`, { method: 'DELETE', redirect: 'manual' });
    assert.equal(other.status, 307);
    assert.equal(other.headers.get('location'), `${server.url}/api/v1/brands`);
    // A client that follows the redirect (307 keeps the method and body) reaches the route.
    const followed = await fetch(`${server.url}/api/v1/projects/${seed.project_id}/`, { headers: auth() });
    assert.equal(followed.status, 200);
  });

  it('still answers 404 for an unknown path with a trailing slash', async () => {
    const res = await fetch(`${server.url}/api/v1/nothing/?a=1`, { redirect: 'manual' });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('location'), null);
    assert.deepEqual(await res.json(), { detail: 'Not Found' });
  });

  it('answers CORS preflights as the stack configures them', async () => {
    const res = await fetch(`${server.url}/api/v1/brands`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /authorization/);
  });

  it('passes JSON bodies as text and other bodies base64, as API Gateway does', async () => {
    const created = await fetch(`${server.url}/api/v1/brands`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ name: 'Über Café 😀' }),
    });
    assert.equal(created.status, 201);
    assert.equal(((await created.json()) as { name: string }).name, 'Über Café 😀');
    // The same JSON without a JSON content type arrives base64 and is validated as raw text.
    const raw = await fetch(`${server.url}/api/v1/brands`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/octet-stream' },
      body: JSON.stringify({ name: 'x' }),
    });
    assert.equal(raw.status, 422);
    const detail = ((await raw.json()) as { detail: { type: string; input: string }[] }).detail[0]!;
    assert.equal(detail.type, 'model_attributes_type');
    assert.equal(detail.input, '{"name":"x"}');
  });

  it('answers a JSON body that is not valid UTF-8 with 400, never storing replacement characters', async () => {
    const badUtf8 = (before: string, after: string) =>
      Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from(after)]);
    const json = { ...auth(), 'content-type': 'application/json' };
    const brand = await fetch(`${server.url}/api/v1/brands`, {
      method: 'POST',
      headers: json,
      body: badUtf8('{"name":"', '"}'),
    });
    assert.equal(brand.status, 400);
    assert.equal(brand.headers.get('content-type'), 'application/json');
    assert.equal(await brand.text(), '{"detail":"There was an error parsing the body"}');

    const session = await fetch(`${server.url}/api/v1/chat/sessions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title: 'utf-8' }),
    });
    assert.equal(session.status, 201);
    const { id } = (await session.json()) as { id: string };
    const messages = `${server.url}/api/v1/chat/sessions/${id}/messages`;
    const sent = await fetch(messages, {
      method: 'POST',
      headers: json,
      body: badUtf8('{"content":"', '"}'),
    });
    assert.equal(sent.status, 400);
    assert.equal(await sent.text(), '{"detail":"There was an error parsing the body"}');
    const listed = await fetch(messages, { headers: auth() });
    assert.deepEqual(((await listed.json()) as { messages: unknown[] }).messages, []);
  });

  it('answers a body over 10 MiB with 413 without reading it all', async () => {
    const status = await new Promise<number | string>((resolve) => {
      const req = request(
        `${server.url}/api/v1/brands`,
        { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' } },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', (error) => resolve(`error: ${error.message}`));
      req.end(Buffer.alloc(11 * 1024 * 1024, 120));
    });
    assert.equal(status, 413);
  });
});
