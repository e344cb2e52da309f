// The local HTTP server over real sockets: routing, CORS preflight, the v2.0 body rule, and the
// seed.json contract of `npm start`.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedAws } from '../../infra/local/embedded.ts';
import type { SeedFile } from '../../infra/local/runtime.ts';
import { ensureSeed, openLocalStores } from '../../infra/local/runtime.ts';
import { type LocalServer, startServer } from '../../infra/local/server.ts';

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

  it('answers unknown routes 404 and wrong methods 405, FastAPI style', async () => {
    const missing = await fetch(`${server.url}/api/v1/nothing`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { detail: 'Not Found' });
    const wrong = await fetch(`${server.url}/api/v1/brands`, { method: 'DELETE' });
    assert.equal(wrong.status, 405);
    assert.deepEqual(await wrong.json(), { detail: 'Method Not Allowed' });
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
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
