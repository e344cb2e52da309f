// The local HTTP server over real sockets: routing (404/405, trailing-slash 307), CORS preflight, the
// v2.0 body rule (bad UTF-8 included), the seed.json contract of `npm start`, how the server stops,
// and what `npm start` says when its port is taken.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import dynalite from 'dynalite';
import { jwtVerify } from 'jose';
import { type EmbeddedAws, ensureTable, LOCAL_TABLE } from '../../infra/local/embedded.ts';
import { loadHandler } from '../../infra/local/handlers.ts';
import {
  ensureSeed,
  fillFromSeed,
  localSettings,
  markRunning,
  markStopped,
  openLocalStores,
  runningInstance,
  type SeedFile,
} from '../../infra/local/runtime.ts';
import { type LocalServer, startServer } from '../../infra/local/server.ts';
import { loadOrCreateSecret } from '../../infra/local/tokens.ts';
import { CORS, eventFile, routes } from '../../infra/routes.ts';
import { LOCAL_SECRETS_KEY_ENV } from '../../shared/crypto/envelope.ts';
import {
  loadOrCreateLocalSecretsKey,
  UnreadableKeyFileError,
  useLocalSecretsKey,
} from '../../shared/crypto/local-key.ts';
import { SAFE_SUBJECT_RULE } from '../../shared/http/auth.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../shared/http/route.ts';
import { assertMatchesContract } from '../support/contract.ts';

let dataDir: string;
let aws: EmbeddedAws;
let server: LocalServer;
let seed: SeedFile;
let secret: string;
/** The module list-brands runs instead of its own, where a test sets it: a fixture under
 * test/fixtures/, or a path naming nothing (a route table itself is never changed). */
let listBrandsEntry: string | undefined;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tcs-data-'));
  const stores = await openLocalStores(dataDir);
  aws = stores.aws!;
  secret = stores.secret;
  server = await startServer(0, {
    handlers: (route) =>
      loadHandler(
        route.entry === 'brands/list-brands' && listBrandsEntry
          ? { ...route, entry: listBrandsEntry }
          : route,
      ),
  });
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

  it('seeds a demo team made when it was hired: its past weeks plan, as far back as its tasks', async () => {
    // The calendar plans no slot before a team was made; a demo team made at the first start with six
    // weeks of tasks behind it planned almost nothing, and refused its past weeks (422).
    const team = await fetch(`${server.url}/api/v1/teams/${seed.team_id}`, { headers: auth() });
    const { created_at, hired_at } = (await team.json()) as { created_at: string; hired_at: string };
    assert.equal(created_at, hired_at);
    const monthAgo = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString().slice(0, 10);
    const calendar = await fetch(
      `${server.url}/api/v1/teams/${seed.team_id}/calendar/generate?start=${monthAgo}`,
      {
        method: 'POST',
        headers: auth(),
      },
    );
    assert.equal(calendar.status, 200, await calendar.clone().text());
    const { entries } = (await calendar.json()) as { entries: { status: string }[] };
    assert.ok(entries.some((entry) => entry.status === 'planned'));
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

  it('never leaves seed.json half-written for an invoke running beside (it re-seeded a second demo set)', async () => {
    // Another process reading seed.json while this one rewrites it (every start and invoke does, for
    // fresh tokens): a reader that met the file truncated took it for missing and seeded anew.
    const reader = new Worker(
      `const { readFileSync } = require('node:fs');
      const { parentPort, workerData } = require('node:worker_threads');
      let reads = 0, torn = 0, stop = false;
      parentPort.on('message', () => { stop = true; });
      (function loop() {
        for (let i = 0; i < 200; i++) {
          reads++;
          try { JSON.parse(readFileSync(workerData, 'utf8')); } catch { torn++; }
        }
        if (stop) parentPort.postMessage({ reads, torn }); else setImmediate(loop);
      })();`,
      { eval: true, workerData: join(dataDir, 'seed.json') },
    );
    const counts = new Promise<{ reads: number; torn: number }>((resolve) => reader.once('message', resolve));
    try {
      for (let i = 0; i < 200; i++) {
        const found = await ensureSeed(dataDir, undefined, secret);
        assert.deepEqual([found.users.owner.id, found.project_id], [seed.users.owner.id, seed.project_id]);
      }
    } finally {
      reader.postMessage('stop');
    }
    const { reads, torn } = await counts;
    await reader.terminate();
    assert.ok(reads > 200, `${reads} reads`);
    assert.equal(torn, 0, `${torn} of ${reads} reads found seed.json half-written`);
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

  it('marks authenticated answers no-store through the server, and leaves public ones cacheable', async () => {
    const own = await fetch(`${server.url}/api/v1/projects/${seed.project_id}`, { headers: auth() });
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('cache-control'), 'no-store');
    const spec = await fetch(`${server.url}/api/v1/openapi.json`);
    assert.equal(spec.status, 200);
    assert.equal(spec.headers.get('cache-control'), null);
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

  it('serves a request line in absolute form as its path and query, its authority as Host (it answered 404)', async () => {
    const { host } = new URL(server.url);
    for (const target of [
      `${server.url}/api/v1/projects/${seed.project_id}?include=nothing`,
      `HTTP://${host}/api/v1/projects/${seed.project_id}`,
    ]) {
      const res = await rawExchange(
        server.url,
        `GET ${target} HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${auth().authorization}\r\nconnection: close\r\n\r\n`,
      );
      assert.equal(res.status, 200, `${target}: ${res.body}`);
      assert.equal(JSON.parse(res.body).id, seed.project_id);
    }
    // The target's authority stands for Host (RFC 9112 §3.2.2): a redirect names it.
    const moved = await rawExchange(
      server.url,
      `GET http://docs.example:8080/api/v1/brands/?limit=1 HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`,
    );
    assert.equal(moved.status, 307, moved.body);
    assert.equal(moved.headers.location, 'http://docs.example:8080/api/v1/brands?limit=1');
    // With no path, the root: not a route.
    const bare = await rawExchange(
      server.url,
      `GET ${server.url}?x=1 HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`,
    );
    assert.equal(bare.status, 404, bare.body);
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
    assert.equal(res.headers.get('access-control-allow-methods'), CORS.allowMethods.join(','));
    // Browsers keep the answer this long instead of asking before every request.
    assert.equal(res.headers.get('access-control-max-age'), String(CORS.maxAgeSeconds));
    // Without Access-Control-Request-Method an OPTIONS is no preflight: it is routed like any request.
    const plain = await fetch(`${server.url}/api/v1/brands`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example' },
    });
    assert.notEqual(plain.status, 204);
    assert.equal(plain.headers.get('access-control-allow-methods'), null);
  });

  it('lets a browser read the 401 challenge of a cross-origin answer (exposed headers)', async () => {
    const res = await fetch(`${server.url}/api/v1/brands`, { headers: { origin: 'https://app.example' } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('access-control-expose-headers'), 'www-authenticate,retry-after,allow');
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
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

  it('joins a repeated header with commas, as API Gateway does, whatever the header (Node.js drops some)', async () => {
    // Node.js joins most repeats with ", " and keeps only the first Authorization or Content-Type;
    // the v2.0 event holds every value, joined with ",".
    const send = (headers: Record<string, string | string[]>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          `${server.url}/api/v1/brands`,
          { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => {
              body += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ name: 'Repeated headers' }));
      });
    const [first, second] = ['a'.repeat(200), 'b'.repeat(200)];
    const keys = await send({ ...auth(), 'idempotency-key': [first, second] });
    assert.equal(keys.status, 422);
    const [item] = (JSON.parse(keys.body) as { detail: { loc: string[]; input: string }[] }).detail;
    assert.deepEqual(item!.loc, ['header', 'idempotency-key']);
    assert.equal(item!.input, `${first},${second}`);
    // Two credentials are one header of both: no token, so refused (Node.js kept the first, a 201).
    const token = `Bearer ${seed.users.owner.token}`;
    const twice = await send({ authorization: [token, token] });
    assert.deepEqual(twice, { status: 401, body: '{"detail":"Could not validate credentials"}' });
  });

  it('hands the function the v2.0 event API Gateway builds: cookies apart, repeated query values joined, the peer after x-forwarded-for', async () => {
    // Payload format 2.0: Cookie headers go to `cookies` (not `headers`), a repeated query parameter is
    // one value joined with ",", and the client's own x-forwarded-for is kept with the peer appended.
    listBrandsEntry = '../test/fixtures/event-echo-handler';
    try {
      const event = await new Promise<APIGatewayProxyEventV2>((resolve, reject) => {
        const req = request(
          `${server.url}/api/v1/brands?tag=a&q=x%20y&tag=b`,
          { headers: { ...auth(), cookie: ['a=1', 'b=2; c=3'], 'x-forwarded-for': '203.0.113.7' } },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => {
              body += chunk;
            });
            res.on('end', () => resolve(JSON.parse(body)));
          },
        );
        req.on('error', reject);
        req.end();
      });
      assert.deepEqual(event.cookies, ['a=1', 'b=2', 'c=3']);
      assert.equal(event.headers.cookie, undefined);
      assert.equal(event.rawQueryString, 'tag=a&q=x%20y&tag=b');
      assert.deepEqual(event.queryStringParameters, { tag: 'a,b', q: 'x y' });
      const peer = event.requestContext.http.sourceIp;
      assert.match(peer, /^(127\.0\.0\.1|::1)$/);
      assert.equal(event.headers['x-forwarded-for'], `203.0.113.7, ${peer}`);
    } finally {
      listBrandsEntry = undefined;
    }
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

  it('hands a body of exactly 10 MiB to its function; one byte more is API Gateway’s 413, its own body', async () => {
    const post = (bytes: number) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const req = request(
          `${server.url}/api/v1/brands`,
          { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
            );
          },
        );
        // The server may close the connection before the whole body is sent: the answer still comes.
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
        });
        req.end(Buffer.alloc(bytes, 120));
      });
    // At the limit the function reads it, and answers with its own JSON limit.
    assert.deepEqual(await post(10 * 1024 * 1024), {
      status: 413,
      body: { detail: `Request body too large: the limit is ${DEFAULT_BODY_LIMIT_BYTES} bytes` },
    });
    const gateway = await post(10 * 1024 * 1024 + 1);
    assert.deepEqual(gateway, { status: 413, body: { message: 'Request Entity Too Large' } });
    // Both are the route's documented 413 (the document declared `{"detail"}` alone).
    const route = routes.find((r) => r.path === '/api/v1/brands' && r.method === 'POST')!;
    await assertMatchesContract(route, 413, 'application/json', gateway.body);
  });

  it('answers a function whose module fails to load as API Gateway does, with the CORS headers, logging the cause once', async () => {
    // The route's module path made to name nothing (as a file renamed or saved mid-edit would): on AWS
    // the function fails to initialise, and API Gateway answers its own 500.
    listBrandsEntry = 'brands/no-such-module';
    const logged: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...line: unknown[]) => logged.push(line);
    try {
      for (const attempt of [1, 2]) {
        const res = await fetch(`${server.url}/api/v1/brands`, {
          headers: { ...auth(), origin: 'https://app.example' },
        });
        assert.equal(res.status, 500, `attempt ${attempt}`);
        assert.equal(res.headers.get('access-control-allow-origin'), '*', `attempt ${attempt}`);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.deepEqual(await res.json(), { message: 'Internal Server Error' }, `attempt ${attempt}`);
      }
    } finally {
      console.error = consoleError;
      listBrandsEntry = undefined;
    }
    // Once, however many requests meet the failure (Node.js keeps it until a restart): the function
    // and the cause, never the request's credentials or the signing secret.
    assert.equal(logged.length, 1, JSON.stringify(logged));
    const line = logged[0]!.join(' ');
    assert.match(line, /brands\/no-such-module/);
    assert.match(line, /ERR_MODULE_NOT_FOUND/);
    for (const secretValue of [seed.users.owner.token, secret]) assert.ok(!line.includes(secretValue), line);
    // The route answers again once its module loads.
    const again = await fetch(`${server.url}/api/v1/brands`, { headers: auth() });
    assert.equal(again.status, 200);
  });

  it('answers its own failure (a handler that throws) with the CORS headers too', async () => {
    // A module outside functions/ whose handler rejects instead of answering.
    listBrandsEntry = '../test/fixtures/rejecting-handler';
    const consoleError = console.error;
    console.error = () => {};
    try {
      const res = await fetch(`${server.url}/api/v1/brands`, {
        headers: { ...auth(), origin: 'https://app.example' },
      });
      assert.equal(res.status, 500);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await res.json(), { detail: 'Internal Server Error' });
    } finally {
      console.error = consoleError;
      listBrandsEntry = undefined;
    }
  });
});

/** Rejects instead of waiting forever, so a stop that hangs fails its test rather than the whole run. */
const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

/** A raw client socket, and when (performance.now()) it saw 'close'. */
const rawClient = async (url: string) => {
  const { port } = new URL(url);
  const socket = connect({ host: '127.0.0.1', port: Number(port) });
  socket.on('error', () => {}); // a reset from the server is expected when it stops
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, closed };
};

const received = (socket: Socket, marker: string) =>
  new Promise<void>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes(marker)) resolve();
    });
  });

/** One request written as given on a connection of its own, and what came back until the server
 * closed it (the request asks for that, or the server drops it). */
async function rawExchange(url: string, request: string) {
  const { socket, closed } = await rawClient(url);
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.write(request);
  await within(closed, 5000, 'the server closing the connection');
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end).toLowerCase().split('\r\n');
  const headers = Object.fromEntries(
    head.slice(1).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(head[0]?.split(' ')[1]), headers, body: text.slice(end + 4) };
}

describe("the request line and headers past API Gateway's 10,240 bytes", () => {
  /** A request whose line and header values come to `bytes` (API Gateway's measure), padded in the
   * query string or in a header. */
  const sized = (bytes: number, where: 'query' | 'header') => {
    const values = ['localhost', 'close', 'https://app.example'];
    const line = (target: string) => `GET ${target} HTTP/1.1`;
    const fixed = line('/api/v1/nothing?pad=').length + values.join('').length;
    const pad = 'x'.repeat(bytes - fixed);
    const target = where === 'query' ? `/api/v1/nothing?pad=${pad}` : '/api/v1/nothing?pad=';
    const header = where === 'header' ? `x-pad: ${pad}\r\n` : '';
    return (
      `${line(target)}\r\nhost: ${values[0]}\r\nconnection: ${values[1]}\r\norigin: ${values[2]}\r\n` +
      `${header}\r\n`
    );
  };

  it('serves a request of 10,240 bytes and refuses one byte more, in the URL or a header: 431, with CORS headers', async () => {
    for (const where of ['query', 'header'] as const) {
      const atLimit = await rawExchange(server.url, sized(10_240, where));
      assert.equal(atLimit.status, 404, `${where}: ${atLimit.body}`);
      assert.deepEqual(JSON.parse(atLimit.body), { detail: 'Not Found' });
      const past = await rawExchange(server.url, sized(10_241, where));
      assert.equal(past.status, 431, `${where}: ${past.body}`);
      assert.equal(past.headers['content-type'], 'application/json', where);
      assert.equal(past.headers['access-control-allow-origin'], '*', where);
      assert.deepEqual(JSON.parse(past.body), { message: 'Request Header Fields Too Large' }, where);
    }
  });

  it("answers the same 431 past Node.js's own 16 KiB (it answered a bare 431, no body), and still serves the next request", async () => {
    for (const where of ['query', 'header'] as const) {
      const past = await rawExchange(server.url, sized(20 * 1024, where));
      assert.equal(past.status, 431, `${where}: ${past.body}`);
      assert.equal(past.headers['content-type'], 'application/json', where);
      assert.deepEqual(JSON.parse(past.body), { message: 'Request Header Fields Too Large' }, where);
    }
    // What Node.js cannot parse otherwise still gets its own answer.
    const garbled = await rawExchange(server.url, 'GET / HTTP/1.1\r\nhost localhost\r\n\r\n');
    assert.equal(garbled.status, 400);
    const res = await fetch(`${server.url}/api/v1/projects/${seed.project_id}`, { headers: auth() });
    assert.equal(res.status, 200);
  });
});

describe('stopping the local server', () => {
  it('close() drops idle keep-alive connections at once and a client stalled mid-body after the grace', async () => {
    // A server of its own: the shared one serves the other tests until after().
    const local = await startServer(0);
    const idle = await rawClient(local.url);
    const stalled = await rawClient(local.url);
    try {
      // A completed request on a keep-alive connection (HTTP/1.1's default): the connection stays open, idle.
      idle.socket.write(
        'OPTIONS /api/v1/brands HTTP/1.1\r\nhost: localhost\r\norigin: https://app.example\r\n' +
          'access-control-request-method: POST\r\n\r\n',
      );
      await within(received(idle.socket, '\r\n\r\n'), 5000, 'the preflight answer');
      // Headers promise 100 bytes, 9 arrive, then nothing: the handler waits on the body. Wait until the
      // server has the request, or it would count as an idle connection and be dropped at once.
      const requested = new Promise<void>((resolve) => local.server.once('request', () => resolve()));
      stalled.socket.write(
        'POST /api/v1/brands HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
          'content-length: 100\r\n\r\n{"name":',
      );
      await within(requested, 5000, 'the stalled request reaching the server');

      const errors: unknown[] = [];
      const consoleError = console.error;
      console.error = (...line: unknown[]) => errors.push(line);
      const stopping = performance.now();
      let idleAfter: number;
      let stalledAfter: number;
      try {
        await within(local.close(), 5000, 'close()');
        idleAfter = (await within(idle.closed, 1000, 'the idle socket closing')) - stopping;
        stalledAfter = (await within(stalled.closed, 1000, 'the stalled socket closing')) - stopping;
        // The handler learns of the dropped body a few ticks after the socket goes.
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        console.error = consoleError;
      }
      // The client dropped by the stop is no server failure: nothing is logged as an error.
      assert.deepEqual(errors, []);
      // Idle: dropped at once. Stalled: given the grace (2 s) to finish, then dropped.
      assert.ok(idleAfter < 1000, `idle connection closed ${Math.round(idleAfter)} ms after close()`);
      assert.ok(
        stalledAfter >= 1000,
        `stalled connection closed ${Math.round(stalledAfter)} ms after close()`,
      );
    } finally {
      // Were close() to hang, these would still let the server stop, so nothing outlives the test.
      idle.socket.destroy();
      stalled.socket.destroy();
      await within(local.close(), 5000, 'close() after the clients left').catch(() => {});
    }
  });
});

/** A script of package.json as npm runs it (in the package folder; INIT_CWD where npm was run), to
 * its exit. */
async function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  /** What to do while it runs (a server's stop included): its exit is awaited after. */
  whileRunning?: (child: ChildProcess) => Promise<void>,
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL(`../../scripts/${script}`, import.meta.url)), ...args],
    {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      // The SDK's Node.js 20 notice is not ours; without it stderr holds only what the script prints.
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const code = await (whileRunning?.(child) ?? Promise.resolve())
    .then(() => within(exited, 60_000, `${script} exiting`))
    .finally(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
  return { code, stdout, stderr };
}

/** What start.ts and invoke.ts say about a data folder another process holds (runtime.ts). */
const inUse = (folder: string) =>
  `Another process is using ${folder} (an npm run invoke, or an npm start not yet serving). Wait for it, or set DATA_DIR to another folder.\n`;

describe('npm start', () => {
  it('on a port already in use, exits 1 with one line naming the port and no stack trace', async () => {
    // Something else holds the port on the address the server binds (127.0.0.1).
    const blocker = createTcpServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    // DATA_DIR as README's local runtime documents it: a fresh folder, removed afterwards.
    const data = await mkdtemp(join(tmpdir(), 'tcs-start-'));
    try {
      const { code, stdout, stderr } = await runScript('start.ts', [], {
        PORT: String(port),
        DATA_DIR: data,
      });
      assert.equal(
        stderr,
        `Port ${port} is in use. Stop what listens there, or set PORT to another port.\n`,
        'stderr',
      );
      assert.equal(code, 1);
      assert.equal(stdout, '', 'nothing printed as if it were serving');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await rm(data, { recursive: true, force: true });
    }
  });

  it('reads an empty PORT or DATA_DIR as unset (3000, .data), and a PORT of anything but digits as no port', () => {
    const saved = { PORT: process.env.PORT, DATA_DIR: process.env.DATA_DIR };
    try {
      Object.assign(process.env, { PORT: '', DATA_DIR: '' });
      assert.deepEqual(localSettings(), { port: 3000, dataDir: join(process.cwd(), '.data') });
      Object.assign(process.env, { PORT: '0', DATA_DIR: '/tmp/elsewhere' });
      assert.deepEqual(localSettings(), { port: 0, dataDir: '/tmp/elsewhere' }); // 0: any free port
      // Only digits are a port: Number() took a blank for 0 (any free port) and hex or exponents as ports.
      for (const port of [' ', '0x50', '1e3', ' 3000', '3000\n']) {
        process.env.PORT = port;
        assert.ok(Number.isNaN(localSettings().port), JSON.stringify(port));
      }
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it('on a PORT that is no port number, exits 1 with one line before touching the data folder', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'tcs-start-'));
    const data = join(parent, 'data');
    try {
      for (const port of ['abc', '70000', '-1', '3000abc', '1.5']) {
        const { code, stdout, stderr } = await runScript('start.ts', [], { PORT: port, DATA_DIR: data });
        assert.equal(stderr, `PORT must be a port number from 0 to 65535, not "${port}".\n`, port);
        assert.deepEqual([code, stdout], [1, ''], port);
        assert.deepEqual(await readdir(parent), [], `${port}: no data folder made`);
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('on a DATA_DIR that is no folder and cannot be made one, exits 1 with one line (it threw a stack trace)', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'tcs-start-'));
    const file = join(parent, 'a-file');
    await writeFile(file, 'not a folder');
    try {
      for (const [data, code] of [
        [file, 'EEXIST'],
        [join(file, 'sub'), 'ENOTDIR'],
        // A parent that stands but takes no children (Linux): Node's recursive mkdir loops there forever.
        ...(existsSync('/proc/self') ? [['/proc/tcs-data', 'ENOENT'] as const] : []),
      ] as const) {
        const { code: exit, stdout, stderr } = await runScript('start.ts', [], { PORT: '0', DATA_DIR: data });
        assert.equal(
          stderr,
          `DATA_DIR ${data} cannot be used as a data folder (${code}). Set DATA_DIR to a folder, or to a path where one can be made.\n`,
          data,
        );
        assert.deepEqual([exit, stdout], [1, ''], data);
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('on a data folder another process holds without serving it (an invoke), exits 1 with one line', async () => {
    // This process holds dataDir's stores and has written no running.json, as a running invoke does.
    await markStopped(dataDir);
    const { code, stdout, stderr } = await runScript('start.ts', [], { PORT: '0', DATA_DIR: dataDir });
    assert.equal(stderr, inUse(dataDir), 'stderr');
    assert.equal(code, 1);
    assert.equal(stdout, '');
    // Its stores still answer.
    const res = await fetch(`${server.url}/api/v1/projects/${seed.project_id}`, { headers: auth() });
    assert.equal(res.status, 200);
  });

  it('on a seed.json it cannot read, exits 1 with one line and seeds nothing (it seeded a second demo set)', async () => {
    const data = await mkdtemp(join(tmpdir(), 'tcs-start-'));
    const file = join(data, 'seed.json');
    try {
      for (const [broken, reason] of [
        ['{"base_url": "http://localhost:3000", "users": {', /not JSON: /],
        ['{"project_id": "x"}', /no users\.owner\.id and users\.other\.id/],
      ] as const) {
        await writeFile(file, broken);
        const { code, stdout, stderr } = await runScript('start.ts', [], { PORT: '0', DATA_DIR: data });
        assert.equal(code, 1);
        assert.equal(stdout, '');
        assert.match(stderr, new RegExp(`^${file.replaceAll('.', '\\.')} cannot be read \\(`));
        assert.match(stderr, reason);
        assert.match(
          stderr,
          /Fix it, or delete it to seed a new demo set beside the data already there\.\n$/,
        );
        assert.equal(stderr.split('\n').length, 2, 'one line');
        assert.equal(await readFile(file, 'utf8'), broken, 'left as it was');
      }
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });

  it('says it is running only once seed.json is written: an invoke meanwhile seeded a second demo set', async () => {
    const data = await mkdtemp(join(tmpdir(), 'tcs-start-'));
    let seedAtFirstSight: boolean | undefined;
    try {
      const { code } = await runScript('start.ts', [], { PORT: '0', DATA_DIR: data }, async (child) => {
        // An invoke finding running.json uses the server's stores and, with no seed.json yet, seeds.
        const deadline = Date.now() + 60_000;
        while (seedAtFirstSight === undefined && Date.now() < deadline && child.exitCode === null) {
          const files = await readdir(data);
          if (files.includes('running.json')) seedAtFirstSight = files.includes('seed.json');
          else await new Promise((resolve) => setTimeout(resolve, 5));
        }
        child.kill('SIGTERM');
      });
      assert.equal(seedAtFirstSight, true, 'seed.json written before running.json');
      assert.equal(code, 0);
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});

describe('npm run invoke', () => {
  const runInvoke = (args: string[], initCwd: string) =>
    runScript('invoke.ts', args, { INIT_CWD: initCwd, DATA_DIR: dataDir });

  it('reads the event at an absolute path, or relative to where npm was run, as sam local invoke -e does', async () => {
    // Used as `npm start`'s stores (this process serves them), as invoke does while a server runs.
    await markRunning(dataDir, aws);
    const folder = await mkdtemp(join(tmpdir(), 'tcs-events-'));
    try {
      const event = join(folder, 'my-event.json');
      const getProject = routes.find((r) => r.entry === 'projects/get-project')!;
      await writeFile(event, await readFile(eventFile(getProject)));
      // The README's `events/…` path works from another folder too (the package's).
      const sample = relative(fileURLToPath(new URL('../..', import.meta.url)), eventFile(getProject));
      for (const path of [event, 'my-event.json', sample]) {
        const { code, stdout, stderr } = await runInvoke(['projects/get-project', path], folder);
        assert.equal(code, 0, `${path}: ${stderr}`);
        const result = JSON.parse(stdout) as { statusCode: number; body: string };
        assert.equal(result.statusCode, 200, path);
        assert.equal(JSON.parse(result.body).id, seed.project_id, path);
      }
      // A path that names nothing: one line saying so, before any store is opened.
      const missing = await runInvoke(['projects/get-project', 'nothing.json'], folder);
      assert.equal(missing.code, 2);
      assert.equal(missing.stdout, '');
      assert.match(missing.stderr, /^nothing\.json: cannot read the event \(ENOENT\): .*nothing\.json\n$/);
      // The folder held by a process that serves nothing (another invoke): one line, exit 1.
      await markStopped(dataDir);
      const held = await runInvoke(['projects/get-project', event], folder);
      assert.deepEqual([held.code, held.stdout, held.stderr], [1, '', inUse(dataDir)]);
    } finally {
      await markStopped(dataDir);
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('names a function it does not know before the usage and the list (it printed the usage alone)', async () => {
    const { code, stdout, stderr } = await runInvoke(['brands/nope', 'events/x.json'], tmpdir());
    assert.deepEqual([code, stdout], [2, '']);
    const [first, usage] = stderr.split('\n');
    assert.deepEqual(
      [first, usage],
      ['brands/nope: no such function', 'usage: npm run invoke -- <function> <event.json>'],
    );
  });
});

describe('npm run invoke, on an event with a placeholder seed.json has no value for', () => {
  it('names it and the known ones in one line and exits 2, invoking nothing (the handler answered 422)', async () => {
    await markRunning(dataDir, aws);
    const folder = await mkdtemp(join(tmpdir(), 'tcs-events-'));
    try {
      // A create whose brand name carries the mistyped placeholders: invoked, it would be stored.
      const createBrand = routes.find((r) => r.entry === 'brands/create-brand')!;
      const event = JSON.parse(await readFile(eventFile(createBrand), 'utf8'));
      const name = `Unfilled {{brnad_id}} {{nope}} {{brnad_id}} ${Date.now()}`;
      event.body = JSON.stringify({ name });
      await writeFile(join(folder, 'typo.json'), JSON.stringify(event));
      const { code, stdout, stderr } = await runScript('invoke.ts', ['brands/create-brand', 'typo.json'], {
        INIT_CWD: folder,
        DATA_DIR: dataDir,
      });
      assert.deepEqual([code, stdout], [2, ''], stderr);
      assert.equal(stderr.split('\n').length, 2, `one line: ${stderr}`);
      assert.match(stderr, /^typo\.json: unknown placeholders \{\{brnad_id\}\}, \{\{nope\}\} \(known: /);
      for (const known of ['owner_token', 'other_token', 'owner_id', 'brand_id', 'project_id'])
        assert.ok(stderr.includes(`{{${known}}}`), `${known} listed: ${stderr}`);
      assert.ok(!stderr.includes(seed.users.owner.token), 'names, never values');
      const brands = await fetch(`${server.url}/api/v1/brands?limit=100`, { headers: auth() });
      const listed = (await brands.json()) as { name: string }[];
      assert.ok(!listed.some((brand) => brand.name === name), 'nothing invoked');
    } finally {
      await markStopped(dataDir);
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('npm run invoke, on an event that is not JSON', () => {
  it('says so in one line and exits 2, before any store is opened (it crashed with a stack trace)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tcs-events-'));
    try {
      await writeFile(join(folder, 'broken.json'), '{"version": "2.0",\n');
      // This process holds the folder's stores and serves nothing: opening them would exit 1.
      await markStopped(dataDir);
      const { code, stdout, stderr } = await runScript('invoke.ts', ['projects/get-project', 'broken.json'], {
        INIT_CWD: folder,
        DATA_DIR: dataDir,
      });
      assert.deepEqual([code, stdout], [2, '']);
      assert.match(stderr, /^broken\.json: not a JSON event \(.+\): .*broken\.json\n$/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('npm run token', () => {
  it('refuses a subject the server would refuse, naming the rule it breaks (a space included)', async () => {
    for (const sub of ['has space', 'a/b', 'x'.repeat(256)]) {
      const { code, stdout, stderr } = await runScript('token.ts', ['--sub', sub], { DATA_DIR: dataDir });
      assert.deepEqual([code, stdout], [2, ''], sub);
      assert.equal(stderr.split('\n')[0], `--sub must be ${SAFE_SUBJECT_RULE}`, sub);
      // The rule as the server holds it (isSafeSubject): a space is refused too.
      assert.match(stderr, /^--sub must be .*space/);
    }
  });

  it('answers arguments it cannot read with the usage and exit 2, not a stack trace', async () => {
    for (const args of [['--sub'], ['--sub', 'abc', '--subject', 'x'], ['--sub', 'abc', 'extra'], ['abc']]) {
      const { code, stdout, stderr } = await runScript('token.ts', args, { DATA_DIR: dataDir });
      assert.deepEqual([code, stdout], [2, ''], args.join(' '));
      const lines = stderr.split('\n');
      assert.equal(lines.length, 3, `${args.join(' ')}: one line and the usage, not ${stderr}`);
      assert.equal(lines[1], 'usage: npm run token -- --sub <user id> [--ttl 7d]', args.join(' '));
    }
  });

  it('prints the usage for --help, exit 0, and writes nothing', async () => {
    // It was an unknown option: the usage on stderr and exit 2.
    const fresh = join(dataDir, 'help-only');
    const { code, stdout, stderr } = await runScript('token.ts', ['--help'], { DATA_DIR: fresh });
    assert.deepEqual([code, stdout, stderr], [0, 'usage: npm run token -- --sub <user id> [--ttl 7d]\n', '']);
    await assert.rejects(stat(fresh), { code: 'ENOENT' });
  });

  it('refuses a --ttl that makes a token expired when it is printed (the server would answer 401)', async () => {
    for (const ttl of ['0s', '-5m', '5 minutes ago']) {
      const { code, stdout, stderr } = await runScript('token.ts', ['--sub', 'abc', `--ttl=${ttl}`], {
        DATA_DIR: dataDir,
      });
      assert.deepEqual([code, stdout], [2, ''], ttl);
      assert.match(stderr, new RegExp(`^--ttl ${ttl}: `), ttl);
    }
    const { code, stdout } = await runScript('token.ts', ['--sub', 'abc', '--ttl', '1h'], {
      DATA_DIR: dataDir,
    });
    assert.equal(code, 0);
    const res = await fetch(`${server.url}/api/v1/brands`, {
      headers: { authorization: `Bearer ${stdout.trim()}` },
    });
    assert.equal(res.status, 200);
  });
});

describe('npm run token, on a fresh data folder', () => {
  it('refuses a bad --ttl before writing anything (it made the folder and jwt-secret first)', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'tcs-token-'));
    const data = join(parent, 'data');
    try {
      for (const ttl of ['soon', '0s', '-5m']) {
        const { code, stdout, stderr } = await runScript('token.ts', ['--sub', 'abc', `--ttl=${ttl}`], {
          DATA_DIR: data,
        });
        assert.deepEqual([code, stdout], [2, ''], ttl);
        assert.match(stderr, new RegExp(`^--ttl ${ttl}: `), ttl);
        assert.deepEqual(await readdir(parent), [], `${ttl}: no data folder made`);
      }
      // A good one makes the folder and its secret, and a token signed with it.
      const { code, stdout } = await runScript('token.ts', ['--sub', 'abc', '--ttl', '1h'], {
        DATA_DIR: data,
      });
      assert.equal(code, 0);
      const { payload } = await jwtVerify(
        stdout.trim(),
        new TextEncoder().encode(await readFile(join(data, 'jwt-secret'), 'utf8')),
      );
      assert.equal(payload.sub, 'abc');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('the local secrets key', () => {
  it('is made once on a fresh folder however many start at once, and never read half-written', async () => {
    // It was created exclusively and then written: a second start could read it empty in between and
    // seal the integration secrets under an empty key.
    const parent = await mkdtemp(join(tmpdir(), 'tcs-secrets-key-'));
    const inUse = process.env[LOCAL_SECRETS_KEY_ENV]!;
    try {
      for (let round = 0; round < 10; round++) {
        const folder = join(parent, String(round));
        await mkdir(folder);
        const used: string[] = [];
        await Promise.all(
          [1, 2, 3, 4].map(async () => {
            await loadOrCreateLocalSecretsKey(folder);
            used.push(process.env[LOCAL_SECRETS_KEY_ENV]!);
          }),
        );
        const key = await readFile(join(folder, 'secrets-key'), 'utf8');
        assert.match(key, /^[0-9a-f]{64}$/);
        assert.deepEqual(used, [key, key, key, key], `round ${round}`);
        assert.deepEqual(await readdir(folder), ['secrets-key'], 'nothing else left behind');
      }
    } finally {
      useLocalSecretsKey(inUse);
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('a local key file that holds no key', () => {
  it('is refused in one line naming the file, never used as an empty key', async () => {
    // An empty jwt-secret was read as the secret: tokens signed with no key at all.
    const folder = await mkdtemp(join(tmpdir(), 'tcs-empty-key-'));
    try {
      await writeFile(join(folder, 'jwt-secret'), '');
      const { code, stdout, stderr } = await runScript('token.ts', ['--sub', 'abc'], { DATA_DIR: folder });
      assert.deepEqual([code, stdout], [1, '']);
      assert.equal(
        stderr,
        `${join(folder, 'jwt-secret')} does not hold a key (64 hex digits). Delete it to make a new one (tokens signed with the old one are then refused).\n`,
      );
      await writeFile(join(folder, 'secrets-key'), 'not a key\n');
      await assert.rejects(loadOrCreateLocalSecretsKey(folder), (error: unknown) => {
        assert.ok(error instanceof UnreadableKeyFileError);
        assert.equal(
          error.message,
          `${join(folder, 'secrets-key')} does not hold a key (64 hex digits). Delete it to make a new one (the integration secrets stored with the old one can then no longer be read).`,
        );
        return true;
      });
      // 64 hex digits exactly: a shorter or a longer key is no key of ours either.
      for (const wrong of ['ab'.repeat(16), 'a'.repeat(65)]) {
        await writeFile(join(folder, 'secrets-key'), wrong);
        await assert.rejects(loadOrCreateLocalSecretsKey(folder), UnreadableKeyFileError);
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('the development signing secret', () => {
  it('is made once on a fresh folder however many start at once (npm start beside npm run token), each using that one', async () => {
    // Both read before either writes: each made a secret of its own and the later write replaced the
    // first, so tokens one signed the other refused.
    const parent = await mkdtemp(join(tmpdir(), 'tcs-secret-'));
    try {
      for (let round = 0; round < 10; round++) {
        const folder = join(parent, String(round));
        await mkdir(folder);
        const secrets = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateSecret(folder)));
        assert.equal(new Set(secrets).size, 1, `round ${round}: ${secrets.join(' ')}`);
        assert.match(secrets[0]!, /^[0-9a-f]{64}$/);
        const file = join(folder, 'jwt-secret');
        assert.equal(await readFile(file, 'utf8'), secrets[0]);
        assert.equal((await stat(file)).mode & 0o777, 0o600);
        assert.deepEqual(await readdir(folder), ['jwt-secret'], 'nothing else left behind');
        // Afterwards it is read, not made again.
        assert.equal(await loadOrCreateSecret(folder), secrets[0]);
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('the embedded table', () => {
  it('is ACTIVE before the first write, however long dynalite keeps a new table CREATING', async () => {
    // dynalite answers CreateTable at once and marks the table ACTIVE later (at once locally, by a
    // timer): a write in between is refused, which broke a first start now and then.
    const slow = dynalite({ createTableMs: 300 });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    try {
      await ensureTable(endpoint);
      await client.send(
        new PutItemCommand({ TableName: LOCAL_TABLE, Item: { pk: { S: 'first' }, sk: { S: 'write' } } }),
      );
    } finally {
      client.destroy();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
