// The deployed artifact, invoked. Every other test runs the handlers' TypeScript through tsx; AWS runs
// each function as esbuild bundles it with the stack's one configuration (infra/bundling.ts). Here
// every function is built that way, each alone in a folder with no node_modules above it (as in
// /var/task), and each bundled handler answers real requests on the embedded stores as its source
// does: a dynamic import esbuild cannot follow, a file looked up beside the module, a missing
// external or a module-level side effect shows here rather than in AWS. (The local table grants of
// infra/local/grants.ts watch the sources' DynamoDB client; a bundle has its own, unwatched. The
// same requests through the sources are checked.)
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { handler as sourceCatalogImport } from '../../functions/shopping/import-catalog-feed.ts';
import { esbuildOptions } from '../../infra/bundling.ts';
import { buildEvent } from '../../infra/local/events.ts';
import { type Handler, type HandlerLoader, invoke } from '../../infra/local/handlers.ts';
import { fillFromSeed, type SeedFile } from '../../infra/local/runtime.ts';
import { seedDemoData } from '../../infra/local/seed/index.ts';
import { signDevToken } from '../../infra/local/tokens.ts';
import { CATALOG_IMPORT_ENTRY, eventFile, routes, unmatchedRoute } from '../../infra/routes.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { config } from '../../shared/config.ts';
import { draftPrefix } from '../../shared/uploads/keys.ts';
import { readAdsCredentials } from '../../shared/workspaces/credentials.ts';
import { avatarTeam, callback, SECRET, statusUrl, uploadVideo, webm } from '../avatars/support.ts';
import { guidelineDocx, guidelinePdf } from '../brand-kits/fixtures.ts';
import { assertMatchesContract } from '../support/contract.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { multipart } from '../support/multipart.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const ENTRIES = [...routes.map((route) => route.entry), unmatchedRoute.entry, CATALOG_IMPORT_ENTRY];
/** Driven by the avatar scenario below: their sample events name an upload and a signature that do
 * not exist (README, "Invoking one handler"). */
const AVATAR_ENTRIES = ['teams/avatar-upload', 'teams/avatar-status', 'avatar-provider/callback'];

let dir: string;
let warnings: string[];
let h: Harness;
/** The same harness, its requests answered by the bundled functions. */
let bundled: Harness;
let seed: SeedFile;

/** Every function, as the stack builds it: one esbuild call for all (the modules they share are read
 * once), each output still a whole bundle, named as CDK names it (`index.mjs`). */
async function buildFunctions(into: string) {
  const result = await build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    external: [...esbuildOptions.external],
    entryPoints: Object.fromEntries(
      ENTRIES.map((entry) => [`${entry}/index`, join(ROOT, 'functions', `${entry}.ts`)]),
    ),
    outdir: into,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: ROOT,
    logLevel: 'silent',
  });
  // What the stack's afterBundling hook copies beside a function's bundle.
  for (const route of routes)
    for (const file of route.bundleFiles ?? [])
      await copyFile(join(ROOT, file), join(into, route.entry, basename(file)));
  return result.warnings.map((warning) => `${warning.location?.file}: ${warning.text}`);
}

const loaded = new Map<string, Promise<Handler>>();
/** The entries whose bundle was imported and invoked. */
const invoked = new Set<string>();

function bundledHandler(entry: string): Promise<Handler> {
  let handler = loaded.get(entry);
  if (!handler) {
    const url = pathToFileURL(join(dir, entry, 'index.mjs')).href;
    handler = import(url).then((module: { handler: Handler }) => module.handler);
    loaded.set(entry, handler);
  }
  invoked.add(entry);
  return handler;
}

const fromBundles: HandlerLoader = (route) => bundledHandler(route.entry);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tcs-bundles-'));
  warnings = await buildFunctions(dir);
  // Started after the build, as a Lambda container starts after deployment: the bundles read the
  // endpoints, signing secret and secrets key from the environment the harness sets.
  h = await startHarness();
  bundled = {
    ...h,
    call: (method, url, options = {}) => h.call(method, url, { ...options, handlers: fromBundles }),
  };
  process.env.AVATAR_PROVIDER_SECRET = SECRET;
  const { users, ids } = await seedDemoData();
  seed = {
    base_url: 'http://localhost:3000',
    users: {
      owner: { id: users.owner, token: await h.tokenFor(users.owner) },
      other: { id: users.other, token: await h.tokenFor(users.other) },
    },
    ...ids,
  };
});
after(async () => {
  delete process.env.AVATAR_PROVIDER_SECRET;
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

// Presigned URLs carry the second they were signed in; the rest of a body must be the same.
const SIGNING_TIME = /(X-Amz-(?:Date|Credential|Signature)=)[^&"]+/g;
const comparable = (text: string | undefined) => (text ?? '').replace(SIGNING_TIME, '$1…');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Two drafts of one document differ only in the new draft id of their logo keys. */
const sameDraft = (text: string) => comparable(text).replace(UUID, '<id>');

/** A body's structure: keys and value types, not values (a create answers new ids and times). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, field]) => [key, shape(field)]),
    );
  return value === null ? null : typeof value;
}

const parsed = (result: APIGatewayProxyStructuredResultV2) => {
  try {
    return JSON.parse(result.body ?? '');
  } catch {
    return result.body;
  }
};

const contentType = (result: APIGatewayProxyStructuredResultV2) => {
  const header = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type');
  return header === undefined ? '' : String(header[1]);
};

describe('the bundles', () => {
  it('build without a warning, each alone in a folder no node_modules is above', () => {
    assert.deepEqual(warnings, []);
    for (const entry of ENTRIES) assert.ok(existsSync(join(dir, entry, 'index.mjs')), entry);
    // Else a package the bundle failed to include could still be found by `require` (the banner's).
    for (let folder = dir; folder !== dirname(folder); folder = dirname(folder))
      assert.ok(!existsSync(join(folder, 'node_modules')), `${folder} has node_modules`);
  });

  it('read the harness’s settings: its table, signing secret and secrets key', async () => {
    // A brand the bundle writes, the source reads, and the other way round.
    const created = await bundled.call('POST', '/api/v1/brands', { json: { name: 'Bundled brand' } });
    assert.equal(created.status, 201, created.text);
    const read = await h.call('GET', `/api/v1/brands/${created.body.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, created.body);
    const bySource = await h.call('POST', '/api/v1/brands', { json: { name: 'Source brand' } });
    assert.deepEqual((await bundled.call('GET', `/api/v1/brands/${bySource.body.id}`)).body, bySource.body);
    // The bundle checks tokens against the harness's secret, not any other.
    const foreign = await signDevToken('another-secret-0123456789abcdef0123', h.owner.id, '1h');
    const refused = await bundled.call('GET', '/api/v1/brands', { token: foreign });
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, { detail: 'Could not validate credentials' });
    // Credentials the bundle seals open with the harness's key.
    const workspace = await bundled.call('POST', '/api/v1/workspaces', { json: { name: 'Bundled' } });
    assert.equal(workspace.status, 201, workspace.text);
    const credentials = { client_id: '1234567890123456', client_secret: 'bundled-app-secret-0123' };
    const saved = await bundled.call(
      'PUT',
      `/api/v1/workspaces/${workspace.body.id}/integrations/ads-provider/credentials`,
      { json: credentials },
    );
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(await readAdsCredentials(workspace.body.id), credentials);
  });
});

describe('every route’s bundle answers its sample event as its source does', () => {
  for (const route of routes.filter((r) => !AVATAR_ENTRIES.includes(r.entry))) {
    it(route.entry, async () => {
      const event = JSON.parse(fillFromSeed(await readFile(eventFile(route), 'utf8'), seed));
      const source = await invoke(route, structuredClone(event) as APIGatewayProxyEventV2);
      const result = await invoke(route, structuredClone(event) as APIGatewayProxyEventV2, fromBundles);
      assert.ok((result.statusCode ?? 200) < 300, `${result.statusCode} ${result.body}`);
      assert.equal(result.statusCode, source.statusCode);
      assert.equal(contentType(result), contentType(source));
      await assertMatchesContract(route, result.statusCode ?? 200, contentType(result), parsed(result));
      // A read answers exactly what the source answers; a write, a body of the same shape (new ids and
      // times; the chat send is the same message, its Idempotency-Key sent twice).
      if (route.method === 'GET') {
        // A read that follows the clock (the today view's progress, to 1e-4 of a cycle) may move
        // between the two calls: then the bundle's answer must be the source's one call later.
        const same = comparable(result.body) === comparable(source.body);
        const next = same ? source : await invoke(route, structuredClone(event) as APIGatewayProxyEventV2);
        assert.equal(comparable(result.body), comparable(next.body));
      } else assert.deepEqual(shape(parsed(result)), shape(parsed(source)));
    });
  }
});

const GENERATE_ENTRY = 'brand-kits/generate-from-upload';
const GENERATE = '/api/v1/brand-kits/generate-from-upload';
const pdfForm = async () =>
  multipart({ name: 'file', content: await guidelinePdf(), filename: 'g.pdf', type: 'application/pdf' });

describe('bundled functions beyond the sample events', () => {
  it('$default answers 404, 405 and the trailing-slash 307 as its source does', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/nowhere'],
      ['DELETE', '/api/v1/brands'],
      ['GET', '/api/v1/brands/'],
    ] as const) {
      const [source, result] = [await h.call(method, url), await bundled.call(method, url)];
      assert.deepEqual(
        { status: result.status, headers: result.headers, text: result.text },
        { status: source.status, headers: source.headers, text: source.text },
      );
      assert.ok([404, 405, 307].includes(result.status), `${method} ${url}: ${result.status}`);
    }
  });

  it('generate-from-upload drafts from a PDF and a direct-upload DOCX as its source does', async () => {
    const pdf = await pdfForm();
    const fromPdf = await bundled.call('POST', GENERATE, pdf);
    assert.equal(fromPdf.status, 200, fromPdf.text);
    assert.equal(fromPdf.body.name, 'Acme Rocket');
    assert.deepEqual(fromPdf.body.color_palette, ['#E4572E', '#17408B', '#FFC914']);
    assert.equal(fromPdf.body.font_headings, 'Montserrat');
    assert.equal(sameDraft(fromPdf.text), sameDraft((await h.call('POST', GENERATE, pdf)).text));

    // The DOCX through a direct upload: the bundle's presigned PUT URL, then its upload_key.
    const docx = guidelineDocx();
    const slot = await bundled.call('POST', '/api/v1/uploads', {
      json: {
        filename: 'guidelines.docx',
        content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        size: docx.length,
      },
    });
    assert.equal(slot.status, 200, slot.text);
    const put = await fetch(slot.body.upload_url, { method: 'PUT', body: docx, headers: slot.body.headers });
    assert.equal(put.status, 200, await put.text());
    const fromDocx = await bundled.call('POST', GENERATE, { json: { upload_key: slot.body.key } });
    assert.equal(fromDocx.status, 200, fromDocx.text);
    assert.equal(fromDocx.body.name, 'Globex');
    assert.deepEqual(fromDocx.body.competitors, ['Initech', 'Umbrella Energy', 'Hooli Power']);
    const sourceDocx = await h.call('POST', GENERATE, { json: { upload_key: slot.body.key } });
    assert.equal(sameDraft(fromDocx.text), sameDraft(sourceDocx.text));

    // The logo the bundle stored is in the harness's bucket: served, and saved with the kit.
    assert.ok(fromDocx.body.logo_key.startsWith(draftPrefix(h.owner.id)));
    const logo = await fetch(fromDocx.body.logo_url);
    assert.equal(logo.status, 200);
    assert.equal(Buffer.from(await logo.arrayBuffer()).toString('latin1', 1, 4), 'PNG');
    const brand = await h.call('POST', '/api/v1/brands', { json: { name: 'Globex' } });
    const kit = await bundled.call('POST', '/api/v1/brand-kits', {
      json: { ...fromDocx.body, brand_id: brand.body.id },
    });
    assert.equal(kit.status, 201, kit.text);
  });

  it('a generate-from-upload bundle that cannot load pdf.js answers 500, not the caller’s corrupt PDF', async () => {
    // Built with unpdf left out, as an import esbuild could not follow would ship: the parser is
    // missing from the deployment, which is our fault (a 500 in the function's metrics), not the
    // document's (a 422 that tells every caller their file is broken).
    const without = join(dir, 'without-pdfjs');
    await build({
      ...esbuildOptions,
      mainFields: [...esbuildOptions.mainFields],
      external: [...esbuildOptions.external, 'unpdf'],
      entryPoints: { index: join(ROOT, 'functions', `${GENERATE_ENTRY}.ts`) },
      outdir: without,
      outExtension: { '.js': '.mjs' },
      logLevel: 'silent',
    });
    const { handler } = (await import(pathToFileURL(join(without, 'index.mjs')).href)) as {
      handler: Handler;
    };
    // Invoked without the harness's contract check: a 500 is no answer of the API's document.
    const route = routes.find((r) => r.entry === GENERATE_ENTRY)!;
    const form = await pdfForm();
    const event = buildEvent(
      route,
      {},
      {
        method: 'POST',
        url: GENERATE,
        ...form,
        headers: { ...form.headers, authorization: `Bearer ${h.owner.token}` },
      },
    );
    const res = await invoke(route, event, async () => handler);
    assert.equal(res.statusCode, 500, res.body);
    assert.deepEqual(JSON.parse(res.body ?? ''), { detail: 'Internal Server Error' });
  });

  it('the avatar functions: upload, status and the signed callback, as their sources', async () => {
    const flow = async (harness: Harness) => {
      const team = await avatarTeam(h.owner.id);
      const upload = await uploadVideo(harness, team);
      assert.equal(upload.status, 202, upload.text);
      const training = await harness.call('GET', statusUrl(team));
      const consent = await fetch(upload.body.consent_url, { method: 'PUT', body: webm() });
      assert.equal(consent.status, 200, await consent.text());
      const report = {
        event_id: `evt_${team}`,
        team_id: team,
        avatar_id: upload.body.avatar_id,
        status: 'ready',
        error: null,
      };
      const reported = await callback(harness, report);
      const ready = await harness.call('GET', statusUrl(team));
      return [upload, training, reported, ready].map((res) => ({
        status: res.status,
        shape: shape(res.body),
        status_field: res.body.status,
      }));
    };
    const result = await flow(bundled);
    assert.deepEqual(
      result.map((res) => [res.status, res.status_field]),
      [
        [202, 'training'],
        [200, 'training'],
        [200, 'ready'],
        [200, 'ready'],
      ],
    );
    assert.deepEqual(result, await flow(h));
  });

  it('the catalog import imports a feed put under catalog/feeds/ as its source does', async () => {
    const key = 'catalog/feeds/affiliate/bundle.example/feed.tsv';
    await s3().send(
      new PutObjectCommand({
        Bucket: config.bucketName,
        Key: key,
        Body: 'id\ttitle\tlink\tprice\nb1\tTent\thttps://bundle.example/b1\t199.00 USD\nb2\t\thttps://bundle.example/b2\t1 USD',
      }),
    );
    const event = { detail: { object: { key } } };
    // Versions and catalogue sizes differ between the two snapshots.
    const reports = async (handler: typeof sourceCatalogImport) =>
      (await handler(event)).map((report) => ({
        ...report,
        version: undefined,
        catalog_products: undefined,
      }));
    const result = await reports(
      (await bundledHandler(CATALOG_IMPORT_ENTRY)) as unknown as typeof sourceCatalogImport,
    );
    assert.deepEqual(
      result.map((report) => ({ ...report, rejected: undefined })),
      [
        {
          ...result[0],
          merchant: 'bundle.example',
          format: 'gmc',
          imported: 1,
          replaced: 0,
          rejected: undefined,
        },
      ],
    );
    // The source's import of the same feed replaces the product the bundle's put in the catalogue.
    assert.deepEqual(await reports(sourceCatalogImport), [{ ...result[0], replaced: 1 }]);
  });
});

it('invoked every function of the stack bundled', () => {
  assert.deepEqual([...invoked].sort(), [...ENTRIES].sort());
});
