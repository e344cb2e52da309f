// An Idempotency-Key on the create routes (shared/idempotency.ts), on the real handlers and the
// embedded DynamoDB: a retry answers the first record, another request with the key is a conflict, a
// refused request gives the key back, keys are the caller's own, 20 concurrent sends make one record.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { accountKeys } from '../../shared/accounts/keys.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { config } from '../../shared/config.ts';
import { getItem } from '../../shared/db/store.ts';
import { recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { scanTable } from '../support/table-scan.ts';

let h: Harness;
let workspaceId: string;
let strangersBrand: string;
/** A direct upload of the owner's that is no image (a brand kit refuses it as a logo). */
let videoUpload: string;

before(async () => {
  h = await startHarness();
  workspaceId = (await h.call('POST', '/api/v1/workspaces', { json: { name: 'Keys' } })).body.id;
  const brand = await h.call('POST', '/api/v1/brands', { json: { name: 'Not yours' }, token: h.other.token });
  strangersBrand = brand.body.id;
  videoUpload = `uploads/${h.owner.id}/keys/clip.mp4`;
  await putObject(videoUpload, 'video/mp4');
});
after(() => h.close());

interface CreateRoute {
  name: string;
  url: () => string;
  /** A body whose records are told apart by `label`. */
  body: (label: string) => Record<string, unknown>;
  /** The caller's records, as listed (newest first, up to 100). */
  list?: () => string;
  label: (entry: Record<string, unknown>) => unknown;
  /** Where the create has no list route: the ids of the stored records with this label. */
  stored?: (label: string) => Promise<unknown[]>;
  /** A request the create itself refuses after its first wave (a stranger's brand…), or, where the
   * create refuses nothing once its body is valid, one the validation refuses. */
  refused: (label: string) => { url?: string; body: Record<string, unknown>; status: number };
  /** DynamoDB waves without a key (the create's own reads, none for these bodies, then its write). */
  waves: number;
}

const routes: CreateRoute[] = [
  {
    name: 'POST /brands',
    waves: 1,
    url: () => '/api/v1/brands',
    body: (label) => ({ name: label }),
    list: () => '/api/v1/brands?limit=100',
    label: (entry) => entry.name,
    refused: (label) => ({ body: { name: label, website_url: 'x'.repeat(501) }, status: 422 }),
  },
  {
    name: 'POST /teams',
    waves: 1,
    url: () => '/api/v1/teams',
    body: (label) => ({ team_type: 'content', tier: 'pro', operation_mode: 'auto', display_name: label }),
    list: () => '/api/v1/teams?limit=100',
    label: (entry) => entry.display_name,
    refused: (label) => ({
      body: {
        team_type: 'content',
        tier: 'pro',
        operation_mode: 'auto',
        display_name: label,
        brand_id: strangersBrand,
      },
      status: 404,
    }),
  },
  {
    name: 'POST /chat/sessions',
    waves: 1,
    url: () => '/api/v1/chat/sessions',
    body: (label) => ({ title: label }),
    list: () => '/api/v1/chat/sessions?limit=100',
    label: (entry) => entry.title,
    refused: (label) => ({ body: { title: label, team_id: randomUUID() }, status: 404 }),
  },
  {
    name: 'POST /shopping/sessions',
    waves: 1,
    url: () => '/api/v1/shopping/sessions',
    body: (label) => ({ title: label }),
    list: () => '/api/v1/shopping/sessions?limit=100',
    label: (entry) => entry.title,
    refused: (label) => ({ body: { title: label.padEnd(201, '!') }, status: 422 }),
  },
  {
    name: 'POST /projects',
    // Its tasks, then the project item; with a key, the claim beside the tasks.
    waves: 2,
    url: () => '/api/v1/projects',
    body: (label) => ({
      title: label,
      tasks: Array.from({ length: 30 }, (_, i) => ({ title: `${label} #${i}`, budget_usd: i })),
    }),
    list: () => '/api/v1/projects?limit=100',
    label: (entry) => entry.title,
    refused: (label) => ({ body: { title: label, mode: 'sideways' }, status: 422 }),
  },
  {
    name: 'POST /workspaces',
    // The workspace item, then the owner's member item; with a key, the claim beside the first.
    waves: 2,
    url: () => '/api/v1/workspaces',
    body: (label) => ({ name: label }),
    list: () => '/api/v1/workspaces?limit=100',
    label: (entry) => entry.name,
    refused: (label) => ({ body: { name: label.padEnd(201, '!') }, status: 422 }),
  },
  {
    name: 'POST /brand-kits',
    // No brand named: the kit alone (with one, the brand's read, then the kit and its count).
    waves: 1,
    url: () => '/api/v1/brand-kits',
    body: (label) => ({ name: label }),
    label: (entry) => entry.name,
    stored: async (label) =>
      (await storedItems('brand-kit', 'name', label))
        .filter((kit) => kit.name === label)
        .map((kit) => kit.id),
    // Refused by the stage that copies the logos, after the key is claimed.
    refused: (label) => ({ body: { name: label, logo_key: videoUpload }, status: 422 }),
  },
  {
    name: 'POST /workspaces/{id}/tasks',
    waves: 2,
    url: () => `/api/v1/workspaces/${workspaceId}/tasks`,
    body: (label) => ({
      skill_slug: 'post',
      title: label,
      hired_agent_id: '0190a1b2-0000-7000-8000-000000000001',
    }),
    list: () => `/api/v1/workspaces/${workspaceId}/tasks?limit=100`,
    label: (entry) => entry.title,
    refused: (label) => ({
      url: `/api/v1/workspaces/${randomUUID()}/tasks`,
      body: { skill_slug: 'post', title: label, hired_agent_id: '0190a1b2-0000-7000-8000-000000000001' },
      status: 404,
    }),
  },
];

for (const route of routes) {
  describe(`Idempotency-Key on ${route.name}`, () => {
    const create = (json: unknown, key?: string, options: { token?: string; url?: string } = {}) =>
      h.call('POST', options.url ?? route.url(), {
        json,
        headers: key === undefined ? {} : { 'idempotency-key': key },
        token: options.token,
      });
    /** The ids of the caller's records with this label. */
    const stored = async (label: string, token?: string) => {
      if (route.stored) return route.stored(label);
      const res = await h.call('GET', route.list!(), { token });
      assert.equal(res.status, 200, res.text);
      return (res.body as Record<string, unknown>[]).filter((e) => route.label(e) === label).map((e) => e.id);
    };

    it('a retry with the key answers 201 with the first record; one record is stored', async () => {
      const label = `retried ${randomUUID()}`;
      const key = `retry-${randomUUID()}`;
      const first = await create(route.body(label), key);
      const again = await create(route.body(label), key);
      assert.deepEqual([first.status, again.status], [201, 201], first.text);
      assert.equal(again.body.id, first.body.id);
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(await stored(label), [first.body.id]);
      // Another key is another record.
      const other = await create(route.body(label), `${key}-2`);
      assert.notEqual(other.body.id, first.body.id);
    });

    it('the same key with a different request is 409, and stores nothing', async () => {
      const label = `conflict ${randomUUID()}`;
      const key = `conflict-${randomUUID()}`;
      const first = await create(route.body(label), key);
      assert.equal(first.status, 201, first.text);
      const changed = await create(route.body(`${label} (changed)`), key);
      assert.equal(changed.status, 409, changed.text);
      assert.deepEqual(changed.body, { detail: 'Idempotency-Key was already used with a different request' });
      assert.deepEqual(await stored(`${label} (changed)`), []);
    });

    it('a refused request gives the key back: the corrected request uses it, once', async () => {
      const label = `corrected ${randomUUID()}`;
      const key = `refused-${randomUUID()}`;
      const refusal = route.refused(label);
      const refused = await create(refusal.body, key, { url: refusal.url });
      assert.equal(refused.status, refusal.status, refused.text);
      const corrected = await create(route.body(label), key);
      assert.equal(corrected.status, 201, corrected.text);
      const retried = await create(route.body(label), key);
      assert.equal(retried.body.id, corrected.body.id);
      assert.deepEqual(await stored(label), [corrected.body.id]);
    });

    it("another user's request with the same key neither answers nor blocks the owner's", async () => {
      const label = `shared key ${randomUUID()}`;
      const key = `shared-${randomUUID()}`;
      const mine = await create(route.body(label), key);
      // The stranger's request, with another body: not a conflict, and not the owner's record. (A
      // workspace task needs a workspace of the stranger's own.)
      const url =
        route.name === 'POST /workspaces/{id}/tasks'
          ? `/api/v1/workspaces/${(await h.call('POST', '/api/v1/workspaces', { json: { name: 'Theirs' }, token: h.other.token })).body.id}/tasks`
          : undefined;
      const theirs = await create(route.body(`${label} (theirs)`), key, { token: h.other.token, url });
      assert.equal(theirs.status, 201, theirs.text);
      assert.notEqual(theirs.body.id, mine.body.id);
      const again = await create(route.body(label), key);
      assert.equal(again.body.id, mine.body.id);
      assert.deepEqual(await stored(label), [mine.body.id]);
    });

    it('a keyed create and its retry take two DynamoDB waves each (the claim beside the first wave)', async () => {
      const label = `waves ${randomUUID()}`;
      const key = `waves-${randomUUID()}`;
      const recorder = recordDynamoRequests();
      try {
        await create(route.body(`${label} (no key)`));
        assert.equal(recorder.waves(), route.waves, recorder.commands().join(', '));
        recorder.clear();
        const first = await create(route.body(label), key);
        assert.equal(recorder.waves(), 2, recorder.commands().join(', '));
        recorder.clear();
        const retry = await create(route.body(label), key);
        assert.equal(retry.body.id, first.body.id);
        assert.equal(recorder.waves(), 2, recorder.commands().join(', '));
      } finally {
        recorder.stop();
      }
    });

    it('20 concurrent sends with one key store one record, and all answer it', async () => {
      const label = `concurrent ${randomUUID()}`;
      const key = `concurrent-${randomUUID()}`;
      const answers = await Promise.all(Array.from({ length: 20 }, () => create(route.body(label), key)));
      for (const res of answers) assert.equal(res.status, 201, res.text);
      assert.equal(new Set(answers.map((res) => res.body.id)).size, 1);
      assert.deepEqual(await stored(label), [answers[0]!.body.id]);
    });

    it('an Idempotency-Key of 0 or more than 255 characters is a header error (422)', async () => {
      const label = `bad key ${randomUUID()}`;
      const key = 'k'.repeat(256);
      const long = await create(route.body(label), key);
      assert.equal(long.status, 422, long.text);
      assert.deepEqual(long.body.detail, [
        {
          type: 'string_too_long',
          loc: ['header', 'idempotency-key'],
          msg: 'String should have at most 255 characters',
          input: key,
          ctx: { max_length: 255 },
        },
      ]);
      const empty = await create(route.body(label), '');
      assert.equal(empty.status, 422, empty.text);
      assert.deepEqual(
        empty.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
        [['string_too_short', ['header', 'idempotency-key']]],
      );
      assert.deepEqual(await stored(label), []);
    });
  });
}

describe('the claim of an Idempotency-Key', () => {
  it("holds the request's fingerprint, never the request, and expires after 24 hours", async () => {
    const key = `stored-${randomUUID()}`;
    const description = `secret plans ${randomUUID()}`;
    const before = Math.floor(Date.now() / 1000);
    const brand = await h.call('POST', '/api/v1/brands', {
      json: { name: 'Claimed', description },
      headers: { 'idempotency-key': key },
    });
    assert.equal(brand.status, 201, brand.text);
    const claim = await getItem<Record<string, unknown>>(
      accountKeys.idempotencyClaim(h.owner.id, 'brand', key),
    );
    assert.ok(claim, 'the claim is in the caller’s partition');
    assert.deepEqual(Object.keys(claim).sort(), [
      'created_at',
      'expires_at',
      'fingerprint',
      'id',
      'kind',
      'pk',
      'sk',
    ]);
    assert.deepEqual([claim.id, claim.created_at], [brand.body.id, brand.body.created_at]);
    assert.match(String(claim.fingerprint), /^[\w-]{43}$/);
    assert.ok(!JSON.stringify(claim).includes(key) && !JSON.stringify(claim).includes(description));
    const ttl = Number(claim.expires_at) - before;
    assert.ok(ttl >= 24 * 3600 && ttl <= 24 * 3600 + 60, String(ttl));
  });
});

/** The stored items of a kind whose `field` begins with `label` (a whole-table Scan). */
const storedItems = (kind: string, field: string, label: string) =>
  scanTable({
    FilterExpression: 'kind = :kind AND begins_with(#field, :label)',
    ExpressionAttributeNames: { '#field': field },
    ExpressionAttributeValues: { ':kind': kind, ':label': label },
  });

/** An object of the owner's in the bucket, as a direct upload stores it. */
const putObject = (Key: string, ContentType: string) =>
  s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key, Body: 'bytes', ContentType }));

/** 20 concurrent sends of one body with one key; their answers, all 201 with one id. */
async function concurrentSends(url: string, json: unknown) {
  const headers = { 'idempotency-key': `staged-${randomUUID()}` };
  const answers = await Promise.all(Array.from({ length: 20 }, () => h.call('POST', url, { json, headers })));
  assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([201]));
  assert.equal(new Set(answers.map((res) => res.body.id)).size, 1);
  return answers[0]!.body;
}

describe('what the losing twins of a keyed create staged is taken back', () => {
  it("a project's tasks: 20 concurrent sends leave one project's 30 tasks, in order", async () => {
    const label = `staged ${randomUUID()}`;
    const body = { title: label, tasks: Array.from({ length: 30 }, (_, i) => ({ title: `${label} #${i}` })) };
    const project = await concurrentSends('/api/v1/projects', body);
    const tasks = (await h.call('GET', `/api/v1/projects/${project.id}/tasks?limit=100`)).body.tasks;
    assert.deepEqual(
      tasks.map((t: { title: string }) => t.title),
      body.tasks.map((t) => t.title),
    );
    assert.equal((await storedItems('project_task', 'title', label)).length, 30);
  });

  it('a workspace item: 20 concurrent sends leave one', async () => {
    const label = `staged ${randomUUID()}`;
    const workspace = await concurrentSends('/api/v1/workspaces', { name: label });
    assert.deepEqual(
      (await storedItems('workspace', 'name', label)).map((item) => item.id),
      [workspace.id],
    );
  });

  it("a brand kit's logo copies: 20 concurrent sends leave one of each source, the kit's", async () => {
    const label = `staged ${randomUUID()}`;
    const [logo, dark] = [randomUUID(), randomUUID()].map((id) => `uploads/${h.owner.id}/keys/${id}.png`);
    await Promise.all([putObject(logo!, 'image/png'), putObject(dark!, 'image/png')]);
    const kit = await concurrentSends('/api/v1/brand-kits', {
      name: label,
      logo_key: logo,
      logo_dark_key: dark,
    });
    assert.deepEqual(
      (await storedItems('brand-kit', 'name', label)).map((item) => item.id),
      [kit.id],
    );
    // The kit names the only two objects (how many copies were made, which the local S3's missing
    // versions would hide, is counted in test/brand-kits/http.test.ts: one a source).
    const { Contents = [] } = await s3().send(
      new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: `brand-kits/${h.owner.id}/` }),
    );
    assert.deepEqual(Contents.map((object) => object.Key).sort(), [kit.logo_key, kit.logo_dark_key].sort());
  });
});
