// Faults injected into the AWS SDK clients (middleware inside the SDK's own retry loop): throttling,
// 500s, timeouts and lost responses on DynamoDB and S3. Retried where safe, 503 with Retry-After when
// the retries are exhausted, never a record pointing at a missing object, never a half-written
// project, an idempotent retry never doubles a record.
import assert from 'node:assert/strict';
import type { RequestListener } from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as importCatalogFeedHandler } from '../../functions/shopping/import-catalog-feed.ts';
import { usesTable } from '../../infra/grants.ts';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import type { Route } from '../../infra/routes.ts';
import { accountKeys } from '../../shared/accounts/keys.ts';
import { AVATAR_LIMITS } from '../../shared/avatars/schemas.ts';
import { SIGNATURE_TEXTS, signProviderMessage } from '../../shared/avatars/signature.ts';
import { moveAvatar, readAvatar } from '../../shared/avatars/store.ts';
import { dynamo, resetDynamo } from '../../shared/aws/dynamo.ts';
import { resetS3, s3 } from '../../shared/aws/s3.ts';
import { BRAND_KIT_LIMITS } from '../../shared/brand-kits/schemas.ts';
import { brandKeys } from '../../shared/brands/keys.ts';
import { chatKeys } from '../../shared/chat/keys.ts';
import { CHAT_LIMITS } from '../../shared/chat/schemas.ts';
import { setClock } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { getItem, updateItem } from '../../shared/db/store.ts';
import { CLAIM_ROUNDS } from '../../shared/idempotency.ts';
import { newId } from '../../shared/ids.ts';
import { addProjectTask } from '../../shared/projects/store.ts';
import type { ImportReport } from '../../shared/shopping/import.ts';
import { CATALOG_KEYS } from '../../shared/shopping/keys.ts';
import { KEPT_SNAPSHOTS, readLatestPointer } from '../../shared/shopping/snapshots.ts';
import { addActivity, addCycle, addMember, addTask, addTasks } from '../../shared/teams/agents.ts';
import { readCycles, readTeam } from '../../shared/teams/store.ts';
import { UPLOAD_LIMITS } from '../../shared/uploads/schemas.ts';
import { useDailyAllowance } from '../../shared/uploads/store.ts';
import { connectAdsAccount, readAdsCredentials } from '../../shared/workspaces/credentials.ts';
import { workspaceKeys } from '../../shared/workspaces/keys.ts';
import { advanceWorkspaceTask } from '../../shared/workspaces/progress.ts';
import { ADS_PROVIDER } from '../../shared/workspaces/schemas.ts';
import { createWorkspaceTask } from '../../shared/workspaces/tasks.ts';
import {
  avatarRecords,
  avatarTeam,
  CONSENT_SIZE,
  callback,
  mp4,
  SECRET,
  statusUrl,
  unixNow,
  uploadVideo,
  videoPart,
  withProvider,
} from '../avatars/support.ts';
import { recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { clearFaults, type Fault, inject, intercept, sdkError } from '../support/sdk-faults.ts';
import { scanTable } from '../support/table-scan.ts';
import { createTeam } from '../teams/fixtures.ts';
import {
  authenticatedRoutes,
  figure,
  routeKey,
  sampleRequest,
  seedResourcesFor,
  startExposureScan,
  WORKSPACE_SECRETS,
} from './support.ts';

/** An avatar upload's pointer write lands (its first attempt) and its give-back fails throughout. */
const failPointerGiveBack = () =>
  inject('dynamo', {
    commands: /^UpdateItem/,
    about: 'current_avatar_id',
    failing: (n) => n >= 2,
    kind: 'server',
  });

/** A write lands, its answer is lost, and the SDK's two resends fail (500): the writer is told it
 * failed. Later requests pass. Answers the fault that sees every attempt. */
const landedThenFailing = (commands: RegExp) => {
  const attempts = inject('dynamo', { commands, failing: (n) => n === 2 || n === 3, kind: 'server' });
  inject('dynamo', { commands, failing: (n) => n === 1, kind: 'timeout', afterSend: true });
  return attempts;
};

let h: Harness;
let ids: SeedIds;
let scan: ReturnType<typeof startExposureScan>;
const results: Record<string, unknown> = {};

before(async () => {
  h = await startHarness();
  scan = startExposureScan();
  ids = await seedResourcesFor(h.owner.id);
});
// A fresh client after each test: the SDK's retry quota (shared by every request of a client) is
// drained on purpose by the exhaustion tests, and would stop retries in the next one.
afterEach(() => {
  clearFaults();
  resetDynamo();
  resetS3();
});
after(async () => {
  scan.stop();
  figure('faults', results);
  resetDynamo();
  resetS3();
  await h.close();
});

const call = (route: Route) => {
  const spec = sampleRequest(route, ids);
  return h.call(spec.method, spec.url, { ...spec.options, token: h.owner.token });
};

const tableRoutes = authenticatedRoutes.filter(usesTable);

/** A brand's stored kits (counted or not). */
const kitsOfBrand = async (brandId: string) =>
  (await scanTable()).filter((item) => item.kind === 'brand-kit' && item.brand_id === brandId);

/** A one-shot latch for orchestrated races: `landed` resolves once `done` is called. */
const signal = () => {
  let done!: () => void;
  return { landed: new Promise<void>((resolve) => (done = resolve)), done: () => done() };
};

/** Every string in an item, however deep. */
const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(strings)
        : [];

/** The whole table (a test-only Scan, every page). */
/** Every stored item holding a text that begins with `prefix` (a record's, or one of its parts'). */
const itemsNamed = async (prefix: string) =>
  (await scanTable()).filter((item) => strings(item).some((text) => text.startsWith(prefix)));

/** An `s3://bucket/key` URI (chat content blocks) names `key`; other strings are taken as keys. */
const objectKeyOf = (text: string) =>
  text.startsWith(`s3://${config.bucketName}/`) ? text.slice(`s3://${config.bucketName}/`.length) : text;

/** Keys a record may name before the object exists, by design (a presigned PUT still to come). */
const NOT_YET_UPLOADED = /consent/;

/** Every record's reference to an object in the bucket names an object that exists. */
async function assertNoDanglingObjectReferences() {
  const { CommonPrefixes = [] } = await s3().send(
    new ListObjectsV2Command({ Bucket: config.bucketName, Delimiter: '/' }),
  );
  // Every folder our keys use, whether or not an object is left in it.
  const prefixes = new Set([
    ...CommonPrefixes.map((p) => p.Prefix!),
    'uploads/',
    'drafts/',
    'brand-kits/',
    'teams/',
  ]);
  const Items = await scanTable();
  const references = new Set<string>();
  for (const item of Items)
    for (const [attribute, value] of Object.entries(item))
      if (!NOT_YET_UPLOADED.test(attribute))
        for (const text of strings(value).map(objectKeyOf))
          if ([...prefixes].some((p) => text.startsWith(p)) && /^[\w./-]+$/.test(text)) references.add(text);
  const missing: string[] = [];
  for (const key of references)
    await s3()
      .send(new HeadObjectCommand({ Bucket: config.bucketName, Key: key }))
      .catch(() => missing.push(key));
  results.object_references_checked = (Number(results.object_references_checked) || 0) + references.size;
  assert.ok(Items.length > 0);
  assert.deepEqual(missing, []);
}

describe('faults in the AWS SDK clients', () => {
  it('every table route: one 500 on its first DynamoDB request is retried by the SDK, same answer', async () => {
    let retried = 0;
    for (const route of tableRoutes.filter((r) => r.method === 'GET')) {
      const clean = await call(route);
      const fault = inject('dynamo', { commands: /./, failing: (n) => n === 1, kind: 'server' });
      const faulty = await call(route);
      clearFaults();
      assert.equal(faulty.status, clean.status, `${routeKey(route)}: ${faulty.text}`);
      assert.ok(fault.attempts() >= 2, `${routeKey(route)} was not retried`);
      retried++;
    }
    results.read_routes_retried_after_a_500 = retried;
  });

  it('every table route: DynamoDB throttled throughout → 503 with Retry-After, nothing else said', async () => {
    inject('dynamo', { commands: /./, failing: () => true, kind: 'server' });
    const answers = await Promise.all(tableRoutes.map(async (route) => [route, await call(route)] as const));
    for (const [route, res] of answers) {
      assert.equal(res.status, 503, `${routeKey(route)}: ${res.status} ${res.text}`);
      assert.deepEqual(res.body, { detail: 'Service temporarily unavailable, retry later' });
      assert.match(res.headers['retry-after'] ?? '', /^\d+$/);
    }
    results.table_routes_503_when_exhausted = answers.length;
  });

  for (const kind of ['throttle', 'rate', 'timeout', 'reset', 'wrapped'] as const)
    it(`DynamoDB ${kind} on every attempt: 503 after the SDK's 3 attempts`, async () => {
      const fault = inject('dynamo', { commands: /Get/, failing: () => true, kind });
      const logged = scan.texts.length;
      const res = await h.call('GET', `/api/v1/brands/${ids.brand_id}`);
      assert.equal(res.status, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.equal(fault.attempts(), 3);
      // The warning names the socket failure, also when another error wraps it.
      const warning = scan.texts.slice(logged).find((line) => line.includes('dependency unavailable'));
      const socket = kind === 'reset' || kind === 'wrapped' ? 'ECONNRESET' : undefined;
      assert.equal(JSON.parse(warning ?? '{}').code, socket);
    });

  it('DynamoDB leaving a batch write unprocessed throughout (calendar): 503, not 500', async (t) => {
    // A Monday morning: the week's slots are ahead (late in the week, with every slot past, the
    // calendar has nothing to write and the test failed: on a Friday after 09:00 UTC).
    setClock(new Date('2026-11-23T07:00:00Z'));
    t.after(() => setClock(undefined));
    const team = await createTeam(h, {
      content_cadence: [{ platform: 'instagram', task_type: 'social_post', per_week: 3 }],
    });
    // DynamoDB answers a throttled BatchWriteItem with the items it did not write; here, all of them,
    // as the document client hands them back: answered at `initialize`, its input not yet marshalled
    // (an answer from a later step skips the unmarshalling, and the caller's retries of the wire
    // shape nested one level deeper each time, past DynamoDB's 32).
    let batches = 0;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        if (context.commandName !== 'BatchWriteItemCommand') return next(args);
        batches++;
        return { output: { UnprocessedItems: args.input.RequestItems, $metadata: {} } };
      },
      'initialize',
    );
    const res = await h.call('POST', `/api/v1/teams/${team.id}/calendar/generate`);
    assert.ok(batches > 1, 'the unprocessed items were retried');
    assert.deepEqual([res.status, res.headers['retry-after']], [503, '1'], res.text);
    assert.deepEqual(res.body, { detail: 'Service temporarily unavailable, retry later' });
  });

  it('DynamoDB leaving each batch write unprocessed three times (calendar): retried until written', async (t) => {
    setClock(new Date('2026-11-23T07:00:00Z'));
    t.after(() => setClock(undefined));
    const team = await createTeam(h, {
      content_cadence: [{ platform: 'instagram', task_type: 'social_post', per_week: 3 }],
    });
    // Each batch (named by its first request) comes back whole on its first three sends: throttling
    // that the batch's own retries (up to six, backing off) outlast.
    const sends = new Map<string, number>();
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        if (context.commandName !== 'BatchWriteItemCommand') return next(args);
        const batch = JSON.stringify(Object.values(args.input.RequestItems as object)[0][0]);
        sends.set(batch, (sends.get(batch) ?? 0) + 1);
        if (sends.get(batch)! <= 3)
          return { output: { UnprocessedItems: args.input.RequestItems, $metadata: {} } };
        return next(args);
      },
      'initialize',
    );
    const res = await h.call('POST', `/api/v1/teams/${team.id}/calendar/generate`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.entries.length, 3);
    assert.ok(sends.size > 0);
    assert.deepEqual(new Set(sends.values()), new Set([4]), 'each batch written on its fourth send');
  });

  it('a server fault outside the retried statuses (501): 503, not 500', async () => {
    // The SDK marks a service's own failure `$fault: server`; 501 is not among the transient statuses.
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        if (context.commandName !== 'GetItemCommand') return next(args);
        throw Object.assign(new Error('injected 501'), {
          name: 'NotImplemented',
          $fault: 'server',
          $metadata: { httpStatusCode: 501 },
        });
      },
      'initialize',
    );
    const res = await h.call('GET', `/api/v1/brands/${ids.brand_id}`);
    assert.deepEqual([res.status, res.headers['retry-after']], [503, '1'], res.text);
  });

  it('DynamoDB unreachable (DNS failure): 503, not 500, and the log names the cause', async () => {
    inject('dynamo', { commands: /Get/, failing: () => true, kind: 'dns' });
    const logged = scan.texts.length;
    const res = await h.call('GET', `/api/v1/brands/${ids.brand_id}`);
    assert.deepEqual([res.status, res.headers['retry-after']], [503, '1']);
    const warning = scan.texts.slice(logged).find((line) => line.includes('dependency unavailable'));
    assert.deepEqual(JSON.parse(warning ?? '{}').code, 'ENOTFOUND');
  });

  it('S3 unavailable on every bucket route: 503, and no record points at a missing object', async () => {
    inject('s3', { commands: /./, failing: () => true, kind: 'server' });
    const bucketRoutes = authenticatedRoutes.filter((r) => r.bucket);
    const statuses: Record<string, number> = {};
    for (const route of bucketRoutes) statuses[routeKey(route)] = (await call(route)).status;
    // A multipart avatar video goes to S3 first: S3 down → 503 and no avatar record.
    const team = await avatarTeam(h.owner.id);
    const boundary = 'faults1';
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="video"; filename="me.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
      ),
      mp4(),
      Buffer.from(
        `\r\n${part('consent_attestation', 'true')}${part('subject_is_minor', 'false')}${part('consent_size', '1024')}--${boundary}--\r\n`,
      ),
    ]);
    const upload = await h.call('POST', `/api/v1/teams/${team}/avatar/upload`, {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    statuses['avatar upload (multipart)'] = upload.status;
    clearFaults();
    results.bucket_routes_with_s3_down = statuses;
    assert.equal(upload.status, 503, upload.text);
    // No avatar record was written for the refused upload.
    const status = await h.call('GET', `/api/v1/teams/${team}/avatar/status`);
    assert.equal(status.status, 404, status.text);
    for (const [key, s] of Object.entries(statuses)) assert.ok(s < 500 || s === 503, `${key}: ${s}`);
    await assertNoDanglingObjectReferences();
  });

  it('catalogue import, its snapshot deletes failing throughout: it lands (a warning logged), the snapshots stay, the next import prunes them', async () => {
    const feed = 'catalog/feeds/ucp/prune-faults.example/feed.tsv';
    const importFeed = async (n: number) => {
      await s3().send(
        new PutObjectCommand({
          Bucket: config.bucketName,
          Key: feed,
          Body: `id\ttitle\tlink\tprice\nf${n}\tFault Lamp ${n}\thttps://prune-faults.example/${n}\t5.00 USD\n`,
        }),
      );
      const [report] = await importCatalogFeedHandler({ detail: { object: { key: feed } } });
      return report as ImportReport;
    };
    const snapshots = async () => {
      const { Contents = [] } = await s3().send(
        new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: CATALOG_KEYS.snapshotsPrefix }),
      );
      return Contents.map((object) => object.Key!).filter((key) => CATALOG_KEYS.versionOf(key));
    };
    for (let n = 0; n <= KEPT_SNAPSHOTS; n++) await importFeed(n);
    const before = await snapshots();
    assert.equal(before.length, KEPT_SNAPSHOTS);
    const deletes = inject('s3', { commands: /^DeleteObject/, failing: () => true, kind: 'server' });
    const logged = scan.texts.length;
    const landed = await importFeed(100);
    clearFaults();
    assert.equal(landed.imported, 1, JSON.stringify(landed));
    assert.equal((await readLatestPointer())!.pointer.version, landed.version);
    assert.deepEqual(await snapshots(), [...before, CATALOG_KEYS.snapshot(landed.version)]);
    // The oldest's delete, as the SDK tries it (3 attempts); the prune stops there.
    assert.equal(deletes.attempts(), 3);
    const warnings = scan.texts
      .slice(logged)
      .filter((text) => text.includes('snapshots not pruned'))
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      warnings.map(({ level, error, deleted }) => ({ level, error, deleted })),
      [{ level: 'warn', error: 'InternalServerError', deleted: 0 }],
    );
    const next = await importFeed(101);
    const kept = await snapshots();
    assert.equal(kept.length, KEPT_SNAPSHOTS);
    assert.equal(kept.at(-1), CATALOG_KEYS.snapshot(next.version));
    results.catalog_snapshots_after_failed_prune = {
      before: before.length,
      failed: KEPT_SNAPSHOTS + 1,
      next: kept.length,
    };
  });

  it('DynamoDB fails after the S3 write (avatar upload): 503, the object may stay, no record without it', async () => {
    const team = await avatarTeam(h.owner.id);
    inject('dynamo', { commands: /Put|Update/, failing: () => true, kind: 'server' });
    const res = await uploadVideo(h, team);
    clearFaults();
    assert.equal(res.status, 503, res.text);
    await assertNoDanglingObjectReferences();
  });

  // The write lands and its answer is lost; the SDK's resends are then refused by the condition the
  // first attempt changed, or fail throughout (a 500: whether the write landed is read back). The
  // team's ready avatar stays current unless the upload's own replaced it.
  // (The pointer's UpdateItem, not the upload allowance's or the job's acceptance.)
  for (const [write, commands, resends, about] of [
    ['its record', /Put/, 'refused', undefined],
    ['the team’s pointer', /Update/, 'refused', 'current_avatar_id'],
    ['the team’s pointer', /Update/, 'failing', 'current_avatar_id'],
  ] as const)
    it(`a lost response on ${write}${resends === 'failing' ? ', every resend failing' : ''} (avatar upload): 202, and the team names an avatar that is there`, async () => {
      const team = await avatarTeam(h.owner.id);
      const first = await uploadVideo(h, team);
      assert.equal(first.status, 202, first.text);
      await moveAvatar(team, first.body.avatar_id, 'ready');
      if (resends === 'failing')
        inject('dynamo', { commands, about, failing: (n) => n >= 2, kind: 'server' });
      const lost = inject('dynamo', {
        commands,
        about,
        failing: (n) => n === 1,
        kind: 'timeout',
        afterSend: true,
      });
      const res = await uploadVideo(h, team);
      clearFaults();
      assert.equal(res.status, 202, res.text);
      assert.ok(lost.attempts() >= 1, 'the fault reached its write');
      const status = await h.call('GET', `/api/v1/teams/${team}/avatar/status`);
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.avatar_id, res.body.avatar_id);
      await assertNoDanglingObjectReferences();
    });

  // A signed report's move or receipt lands with every answer lost (the SDK's resends fail): whether it
  // landed is read back, so the delivery answers 200 and a second one is the replay it is. Before, it
  // was a 503 with both written, and the provider's retry a 401 it may take for a bad signature.
  for (const [write, commands] of [
    ['move', /^UpdateItem/],
    ['receipt', /^PutItem/],
  ] as const)
    it(`provider callback, its ${write} landing with every answer lost: 200, not a 503 whose retry is a 401`, async () => {
      const secret = process.env.AVATAR_PROVIDER_SECRET;
      process.env.AVATAR_PROVIDER_SECRET = SECRET;
      try {
        const team = await avatarTeam(h.owner.id);
        const upload = await uploadVideo(h, team);
        assert.equal(upload.status, 202, upload.text);
        const avatar = upload.body.avatar_id;
        const body = JSON.stringify({
          event_id: `evt_lost_${write}`,
          team_id: team,
          avatar_id: avatar,
          status: 'failed',
          error: 'too dark',
        });
        const header = signProviderMessage(SECRET, unixNow(), body);
        const sent = landedThenFailing(commands);
        const first = await callback(h, body, { header });
        clearFaults();
        assert.equal(sent.attempts(), 3, 'the write landed, its answer lost, and both resends failed');
        assert.deepEqual(
          [first.status, first.body],
          [200, { avatar_id: avatar, status: 'failed' }],
          first.text,
        );
        assert.equal((await readAvatar(team, avatar))?.error, 'too dark');
        const again = await callback(h, body, { header });
        assert.deepEqual([again.status, again.body], [401, { detail: SIGNATURE_TEXTS.replayed }]);
      } finally {
        if (secret === undefined) delete process.env.AVATAR_PROVIDER_SECRET;
        else process.env.AVATAR_PROVIDER_SECRET = secret;
      }
    });

  // The avatar upload writes its record, the team's pointer and the consent's count in one wave, after
  // the provider took the job. A failed write takes the others back; the pointer first.
  it('avatar upload, its record write failing after the provider took the job: 503, the pointer given back, nothing stored; the retry trains', async () => {
    const team = await avatarTeam(h.owner.id);
    const first = await uploadVideo(h, team);
    await moveAvatar(team, first.body.avatar_id, 'ready');
    const record = inject('dynamo', {
      commands: /^PutItem/,
      about: 'AVATAR#',
      failing: () => true,
      kind: 'server',
    });
    const failed = await uploadVideo(h, team);
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    assert.ok(record.attempts() >= 1, 'the fault reached the record');
    // The team's ready avatar is current again; the failed upload left no record and no object.
    assert.equal((await readTeam(team))?.current_avatar_id, first.body.avatar_id);
    assert.deepEqual(
      (await avatarRecords(team)).map((a) => a.id),
      [first.body.avatar_id],
    );
    const status = await h.call('GET', statusUrl(team));
    assert.deepEqual([status.body.avatar_id, status.body.status], [first.body.avatar_id, 'ready']);
    assert.equal((await uploadVideo(h, team)).status, 202);
    await assertNoDanglingObjectReferences();
  });

  it('avatar upload, its record failing and the pointer’s give-back too: the next upload waits while one could be in flight (409, Retry-After), then trains', async () => {
    const team = await avatarTeam(h.owner.id);
    const at = Date.now();
    inject('dynamo', { commands: /^PutItem/, about: 'AVATAR#', failing: () => true, kind: 'server' });
    failPointerGiveBack();
    const failed = await uploadVideo(h, team);
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    const named = (await readTeam(team))?.current_avatar_id;
    assert.ok(named, 'the give-back failed: the pointer still names the upload’s avatar');
    assert.deepEqual(await avatarRecords(team), []);
    try {
      const early = await uploadVideo(h, team);
      assert.equal(early.status, 409, early.text);
      const wait = Number(early.headers['retry-after']);
      assert.ok(wait >= 1 && wait <= AVATAR_LIMITS.inFlightSeconds, early.headers['retry-after']);
      // Past the window no upload can still be writing it: a pointer naming nothing blocks nothing.
      setClock(new Date(at + (AVATAR_LIMITS.inFlightSeconds + 1) * 1000));
      const retry = await uploadVideo(h, team);
      assert.equal(retry.status, 202, retry.text);
      assert.equal((await uploadVideo(h, team)).status, 409, 'the retry’s avatar trains, and blocks');
    } finally {
      setClock(undefined);
    }
    await assertNoDanglingObjectReferences();
  });

  // A double fault: a write of the wave fails, and so does the pointer's give-back, so the pointer is
  // left naming a record that is then taken back (or never landed). The team's ready avatar is still
  // stored; the pointer write kept its id (`previous_avatar_id`), and the status answers it.
  for (const [write, fault] of [
    ['its record', { commands: /^PutItem/, about: 'AVATAR#' }],
    ['the consent count', { commands: /^UpdateItem/, about: 'upload_allowance' }],
  ] as const)
    it(`avatar upload, ${write} failing and the pointer’s give-back too: the status answers the team’s previous avatar (not 404), and the next upload trains once none can be in flight`, async () => {
      const team = await avatarTeam(h.owner.id);
      const first = await uploadVideo(h, team);
      assert.equal(first.status, 202, first.text);
      await moveAvatar(team, first.body.avatar_id, 'ready');
      const at = Date.now();
      const failing = inject('dynamo', { ...fault, failing: () => true, kind: 'server' });
      failPointerGiveBack();
      const failed = await uploadVideo(h, team);
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      assert.ok(failing.attempts() >= 1, 'the fault reached its write');
      const named = (await readTeam(team))?.current_avatar_id;
      assert.ok(
        named && named !== first.body.avatar_id,
        'the pointer still names the failed upload’s avatar',
      );
      assert.deepEqual(
        (await avatarRecords(team)).map((a) => a.id),
        [first.body.avatar_id],
      );
      const ready = [first.body.avatar_id, 'ready'];
      const reads = recordDynamoRequests();
      const status = await h.call('GET', statusUrl(team)).finally(() => reads.stop());
      assert.equal(status.status, 200, status.text);
      assert.deepEqual([status.body.avatar_id, status.body.status], ready);
      // The pointer sorts after the newest record, which is the previous avatar: nothing more to read.
      assert.equal(reads.waves(), 1, reads.commands().join(' '));
      try {
        setClock(new Date(at + (AVATAR_LIMITS.inFlightSeconds + 1) * 1000));
        const later = await h.call('GET', statusUrl(team));
        assert.deepEqual([later.status, later.body.avatar_id, later.body.status], [200, ...ready]);
        const retry = await uploadVideo(h, team);
        assert.equal(retry.status, 202, retry.text);
        assert.equal((await readTeam(team))?.current_avatar_id, retry.body.avatar_id);
      } finally {
        setClock(undefined);
      }
      await assertNoDanglingObjectReferences();
    });

  // A triple fault: a write of the wave fails, then the pointer's give-back, then the record's delete.
  it('avatar upload, its record failing, then the pointer’s give-back and the record’s delete: 503; the status answers the previous avatar; the next upload waits only while one could be in flight', async () => {
    const team = await avatarTeam(h.owner.id);
    const first = await uploadVideo(h, team);
    await moveAvatar(team, first.body.avatar_id, 'ready');
    const at = Date.now();
    inject('dynamo', { commands: /^PutItem/, about: 'AVATAR#', failing: () => true, kind: 'server' });
    failPointerGiveBack();
    const deletes = inject('dynamo', {
      commands: /^DeleteItem/,
      about: 'AVATAR#',
      failing: () => true,
      kind: 'server',
    });
    const failed = await uploadVideo(h, team);
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    assert.ok(deletes.attempts() >= 1, 'the record’s delete was tried, and failed');
    assert.notEqual((await readTeam(team))?.current_avatar_id, first.body.avatar_id);
    const status = await h.call('GET', statusUrl(team));
    assert.deepEqual(
      [status.status, status.body.avatar_id, status.body.status],
      [200, first.body.avatar_id, 'ready'],
    );
    try {
      const early = await uploadVideo(h, team);
      assert.equal(early.status, 409, early.text);
      const wait = Number(early.headers['retry-after']);
      assert.ok(wait >= 1 && wait <= AVATAR_LIMITS.inFlightSeconds, `Retry-After: ${wait}`);
      setClock(new Date(at + (AVATAR_LIMITS.inFlightSeconds + 1) * 1000));
      const retry = await uploadVideo(h, team);
      assert.equal(retry.status, 202, retry.text);
    } finally {
      setClock(undefined);
    }
    await assertNoDanglingObjectReferences();
  });

  // The same faults where the record landed (the consent count failed): the take-back leaves the
  // record and the pointer naming it, which no later request can tell from an upload whose 202 was
  // lost (a mark telling them apart would take a third wave on every upload). The avatar stands:
  // it trains and blocks, and the status hands out its consent URL, as after a lost 202.
  it('avatar upload, its consent count failing, then the pointer’s give-back and the record’s delete: 503, and the avatar stands as if its 202 were lost (status: training, with its consent URL; 409 until it finishes)', async () => {
    const team = await avatarTeam(h.owner.id);
    const first = await uploadVideo(h, team);
    await moveAvatar(team, first.body.avatar_id, 'ready');
    const at = Date.now();
    inject('dynamo', {
      commands: /^UpdateItem/,
      about: 'upload_allowance',
      failing: () => true,
      kind: 'server',
    });
    failPointerGiveBack();
    inject('dynamo', { commands: /^DeleteItem/, about: 'AVATAR#', failing: () => true, kind: 'server' });
    const failed = await uploadVideo(h, team);
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    const named = (await readTeam(team))?.current_avatar_id;
    assert.deepEqual(
      (await avatarRecords(team)).map((a) => a.id),
      [first.body.avatar_id, named],
    );
    const status = await h.call('GET', statusUrl(team));
    assert.deepEqual([status.status, status.body.avatar_id, status.body.status], [200, named, 'training']);
    assert.ok(status.body.consent_url, 'its consent URL, as after a lost 202');
    try {
      setClock(new Date(at + (AVATAR_LIMITS.inFlightSeconds + 1) * 1000));
      const next = await uploadVideo(h, team);
      assert.equal(next.status, 409, next.text);
      assert.equal(next.headers['retry-after'], undefined, 'it trains: no upload is in flight');
      // The provider's report finishes it (without its recording, `failed`): the team is free.
      await moveAvatar(
        team,
        named!,
        'failed',
        'The consent recording was not received before training finished',
      );
      assert.equal((await uploadVideo(h, team)).status, 202);
    } finally {
      setClock(undefined);
    }
    await assertNoDanglingObjectReferences();
  });

  // The consent count lands and its answer is lost, then a write of the wave fails: the give-back
  // takes out exactly what landed (by the avatar's id in the day's counted_ids).
  for (const resends of ['refused by its id', 'failing'] as const)
    it(`avatar upload, its consent count’s answer lost (the count landed; its resends ${resends}) and its record failing: 503, and the day’s allowance is back to what it was`, async () => {
      const user = newId();
      const token = await h.tokenFor(user);
      const team = await avatarTeam(user);
      const day = accountKeys.uploadAllowance(user, new Date().toISOString().slice(0, 10));
      await useDailyAllowance(user, 1000, new Date());
      type Allowance = { bytes: number; uploads: number; counted_ids?: Set<string> };
      const before = await getItem<Allowance>(day);
      inject('dynamo', { commands: /^PutItem/, about: 'AVATAR#', failing: () => true, kind: 'server' });
      if (resends === 'failing')
        inject('dynamo', {
          commands: /^UpdateItem/,
          about: 'upload_allowance',
          failing: (n) => n >= 2,
          kind: 'server',
        });
      const lost = inject('dynamo', {
        commands: /^UpdateItem/,
        about: 'upload_allowance',
        failing: (n) => n === 1,
        kind: 'timeout',
        afterSend: true,
      });
      const failed = await uploadVideo(h, team, undefined, token);
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      assert.ok(lost.attempts() >= 1, 'the count was sent, and its answer lost');
      const after = await getItem<Allowance>(day);
      assert.deepEqual(
        [after?.bytes, after?.uploads, after?.counted_ids?.size ?? 0],
        [before?.bytes, before?.uploads, 0],
      );
      // The retry is counted once.
      assert.equal((await uploadVideo(h, team, undefined, token)).status, 202);
      assert.equal((await getItem<Allowance>(day))?.bytes, (before?.bytes ?? 0) + CONSENT_SIZE);
    });

  it('avatar upload, the consent count refused in that wave (the allowance used meanwhile): 429, record and pointer taken back', async () => {
    // A user of its own: this one's day is used up.
    const user = newId();
    const token = await h.tokenFor(user);
    const team = await avatarTeam(user);
    const size = AVATAR_LIMITS.consentBytes.max;
    await useDailyAllowance(user, UPLOAD_LIMITS.daily.bytes - size, new Date());
    // Another upload takes a byte after this one read the allowance, before its count.
    let usedUp = false;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        if (
          !usedUp &&
          context.commandName === 'UpdateItemCommand' &&
          JSON.stringify(args.input).includes('UPLOADS#')
        ) {
          usedUp = true;
          await useDailyAllowance(user, 1, new Date());
        }
        return next(args);
      },
      'initialize',
    );
    const parts = { video: videoPart(), consent_attestation: 'true', consent_size: String(size) };
    const refused = await uploadVideo(h, team, parts, token);
    clearFaults();
    assert.equal(refused.status, 429, refused.text);
    assert.ok(usedUp, 'the race reached the count');
    assert.equal((await readTeam(team))?.current_avatar_id, undefined);
    assert.deepEqual(await avatarRecords(team), []);
    await assertNoDanglingObjectReferences();
  });

  it('avatar upload, two at once for the day’s last consent: one wins the pointer, the other the count; neither is counted, and the retry trains', async () => {
    // Both read the team and the allowance (one consent recording left) before either writes: the
    // provider holds each job until both arrived. A's pointer lands first; B's count lands first.
    const user = newId();
    const token = await h.tokenFor(user);
    const team = await avatarTeam(user);
    await useDailyAllowance(user, UPLOAD_LIMITS.daily.bytes - CONSENT_SIZE, new Date());
    const jobs: { avatar: string; answer: () => void }[] = [];
    let bothArrived = () => {};
    const arrived = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    let aPointed = () => {};
    const aPointerLanded = new Promise<void>((resolve) => {
      aPointed = resolve;
    });
    let bCounted = () => {};
    const bCountLanded = new Promise<void>((resolve) => {
      bCounted = resolve;
    });
    let countsSeen = 0;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const input = JSON.stringify(args.input);
        if (context.commandName !== 'UpdateItemCommand') return next(args);
        if (input.includes('UPLOADS#')) {
          // A's count (the first) waits for B's (the second) to land.
          if (++countsSeen === 1) {
            await bCountLanded;
            return next(args);
          }
          const answer = await next(args);
          bCounted();
          return answer;
        }
        if (input.includes('current_avatar_id') && input.includes(jobs[0]?.avatar ?? '-')) {
          const answer = await next(args);
          aPointed();
          return answer;
        }
        return next(args);
      },
      'initialize',
    );
    const provider: RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { avatar_id } = JSON.parse(Buffer.concat(chunks).toString());
        jobs.push({ avatar: avatar_id, answer: () => res.writeHead(202).end('{}') });
        if (jobs.length === 2) bothArrived();
      });
    };
    await withProvider(provider, async () => {
      const a = uploadVideo(h, team, undefined, token);
      const b = uploadVideo(h, team, undefined, token);
      await arrived;
      jobs[0]!.answer();
      await aPointerLanded;
      jobs[1]!.answer();
      const answers = await Promise.all([a, b]);
      clearFaults();
      // The first job's upload held the pointer (429: its count refused); the second's count took
      // the day's last place (409: its pointer refused).
      assert.deepEqual(answers.map((r) => r.status).sort(), [409, 429]);
      assert.ok(countsSeen >= 2, 'both counts were sent');
    });
    const today = await getItem<{ bytes: number; uploads: number }>(
      accountKeys.uploadAllowance(user, new Date().toISOString().slice(0, 10)),
    );
    assert.equal(today?.bytes, UPLOAD_LIMITS.daily.bytes - CONSENT_SIZE, 'a failed upload counts nothing');
    const retry = await uploadVideo(h, team, undefined, token);
    assert.equal(retry.status, 202, retry.text);
    await assertNoDanglingObjectReferences();
  });

  it('a project whose writes fail part-way is never visible half-written', async () => {
    const body = {
      title: 'Faulty project',
      tasks: Array.from({ length: 30 }, (_, i) => ({ title: `t${i}`, budget_usd: 1, status: 'completed' })),
    };
    let refused = 0;
    // Fail the n-th write of the create for n = 1, 2, 3 (task batches first, the project item last).
    for (const n of [1, 2, 3]) {
      inject('dynamo', { commands: /Put|BatchWrite|Update/, failing: (a) => a >= n, kind: 'server' });
      const res = await h.call('POST', '/api/v1/projects', { json: body });
      clearFaults();
      if (res.status === 503) refused++;
      else assert.equal(res.status, 201);
    }
    assert.ok(refused > 0);
    // Every project item in the table agrees with its tasks (counters written with the parent, last).
    const Items = await scanTable();
    const projects = Items.filter((i) => i.kind === 'project');
    for (const project of projects) {
      const tasks = Items.filter((i) => i.project_id === project.id && i.kind === 'project_task');
      assert.equal(project.task_count, tasks.length, `project ${project.id}`);
      const res = await h.call('GET', `/api/v1/projects/${project.id}`, { token: null, authorization: '' });
      assert.equal(res.status, 401);
    }
    results.projects_checked_for_half_writes = projects.length;
  });

  for (const [failed, fault] of [
    // The project item's PutItem (its input is marshalled: the claim's kind is another string).
    ['project item', { commands: /^Put/, about: '{"S":"project"}' }],
    // The second batch of tasks (the first landed).
    ['second task batch', { commands: /BatchWrite/, failing: (attempt: number) => attempt > 1 }],
  ] as const)
    it(`a keyed project create whose ${failed} failed is completed by its retry: its tasks once each`, async () => {
      const label = `Completed ${newId()}`;
      const body = {
        title: label,
        tasks: Array.from({ length: 30 }, (_, i) => ({ title: `${label} #${i}` })),
      };
      const headers = { 'idempotency-key': `complete-${label}` };
      inject('dynamo', { failing: () => true, ...fault, kind: 'server' });
      const first = await h.call('POST', '/api/v1/projects', { json: body, headers });
      assert.equal(first.status, 503, first.text);
      clearFaults();
      // The retry finds the claim and no project: it seals the claim and writes the first attempt's
      // tasks again (the same items: ids by position) before the project item.
      const retry = await h.call('POST', '/api/v1/projects', { json: body, headers });
      assert.equal(retry.status, 201, retry.text);
      const tasks = (await h.call('GET', `/api/v1/projects/${retry.body.id}/tasks?limit=100`)).body.tasks;
      assert.deepEqual(
        tasks.map((t: { title: string }) => t.title),
        body.tasks.map((t) => t.title),
      );
      const stored = (await scanTable()).filter((i) => String(i.title).startsWith(label));
      assert.deepEqual(
        stored.map((i) => i.kind).sort(),
        ['project', ...Array(30).fill('project_task')],
        'one project, each task once (the first attempt’s)',
      );
      assert.equal(
        (await h.call('POST', '/api/v1/projects', { json: body, headers })).body.id,
        retry.body.id,
      );
    });

  /** What a team's reads show of the agents' records: [tasks listed, total, activity listed, total, members]. */
  const teamLists = async (teamId: string) => {
    const tasks = (await h.call('GET', `/api/v1/teams/${teamId}/tasks?limit=100`)).body;
    const activity = (await h.call('GET', `/api/v1/teams/${teamId}/activity?limit=100`)).body;
    const { members } = (await h.call('GET', `/api/v1/teams/${teamId}`)).body;
    return [tasks.tasks.length, tasks.total, activity.activity.length, activity.total, members.length];
  };
  const WRITER = {
    role: 'writer',
    agent_slug: 'writer',
    display_name: 'W',
    persona_name: 'Leo',
    capabilities: [],
  };

  it("the agents' records: one whose team item cannot follow is neither listed nor counted", async () => {
    const team = await createTeam(h);
    const lists = () => teamLists(team.id);
    const writes = [
      () => addTask(team.id, { task_type: 'social_post', title: 'Uncounted' }),
      () =>
        addTasks(
          team.id,
          [1, 2, 3].map((i) => ({ task_type: 'social_post', title: `Batch ${i}` })),
        ),
      () => addActivity(team.id, { action_type: 'note', description: 'Uncounted' }),
      () => addMember(team.id, WRITER),
    ];
    for (const write of writes) {
      // The record goes in; the team's update (counter, updated_at) fails throughout.
      inject('dynamo', { commands: /^UpdateItem/, failing: () => true, kind: 'server' });
      await assert.rejects(write());
      clearFaults();
      resetDynamo();
    }
    assert.deepEqual(await lists(), [0, 0, 0, 0, 0]);
    // The agent's retry writes them anew, counted.
    for (const write of writes) await write();
    assert.deepEqual(await lists(), [4, 4, 1, 1, 1]);
  });

  // The record's write lands with every answer lost: the writer's retry writes it anew under a new id.
  it("the agents' records: one whose own write fails after landing is neither listed nor left uncounted", async () => {
    const team = await createTeam(h);
    const lists = () => teamLists(team.id);
    const writes = [
      () => addTask(team.id, { task_type: 'social_post', title: 'Landed' }),
      () => addTasks(team.id, [{ task_type: 'social_post', title: 'Landed in a batch' }]),
      () => addActivity(team.id, { action_type: 'note', description: 'Landed' }),
      () => addMember(team.id, WRITER),
    ];
    for (const write of writes) {
      landedThenFailing(/^(Put|BatchWrite)/);
      await assert.rejects(write());
      clearFaults();
      resetDynamo();
    }
    assert.deepEqual(await lists(), [0, 0, 0, 0, 0]);
  });

  it("a lost answer on a counter update (the agents' task and activity totals, a project's) does not count twice", async () => {
    const team = await createTeam(h);
    const project = (await h.call('POST', '/api/v1/projects', { json: { title: 'Counted once' } })).body;
    const writes = [
      () => addTask(team.id, { task_type: 'social_post', title: 'Counted once' }),
      () => addActivity(team.id, { action_type: 'note', description: 'Counted once' }),
      () => addProjectTask(project.id, { title: 'Counted once', status: 'pending', budget_usd: 5 }),
    ];
    for (const write of writes) {
      // The counter update lands and its answer is lost: the SDK resends it.
      const fault = inject('dynamo', {
        commands: /^Update/,
        failing: (n) => n === 1,
        kind: 'timeout',
        afterSend: true,
      });
      await write();
      assert.equal(fault.attempts(), 2);
      clearFaults();
    }
    assert.deepEqual(await teamLists(team.id), [1, 1, 1, 1, 0]);
    const counted = (await h.call('GET', `/api/v1/projects/${project.id}`)).body;
    assert.deepEqual([counted.task_count, counted.project_tasks.length, counted.total_budget_usd], [1, 1, 5]);
  });

  it("a counter update that lands with every answer lost (the agents' totals, a project's) keeps its record, counted once", async () => {
    const team = await createTeam(h);
    const project = (await h.call('POST', '/api/v1/projects', { json: { title: 'Landed unanswered' } })).body;
    const writes = [
      () => addTask(team.id, { task_type: 'social_post', title: 'Landed unanswered' }),
      () => addActivity(team.id, { action_type: 'note', description: 'Landed unanswered' }),
      () => addMember(team.id, WRITER),
      () => addProjectTask(project.id, { title: 'Landed unanswered', status: 'pending', budget_usd: 5 }),
    ];
    for (const write of writes) {
      // The update lands, its answer lost; the SDK's two resends fail (500). Its `last_write`, read
      // back, tells it landed. Before, the records were deleted beside totals that counted them.
      const sent = landedThenFailing(/^UpdateItem/);
      await write();
      clearFaults();
      assert.equal(sent.attempts(), 3);
    }
    assert.deepEqual(await teamLists(team.id), [1, 1, 1, 1, 1]);
    const counted = (await h.call('GET', `/api/v1/projects/${project.id}`)).body;
    assert.deepEqual([counted.task_count, counted.project_tasks.length, counted.total_budget_usd], [1, 1, 5]);
  });

  // The documented bound of the one `last_write` id (docs/security.md): a counter update lands, its
  // answer is lost, and another count lands on the same parent before the SDK's resend, which then finds
  // the other's id and counts again.
  it('a lost answer on a counter update with another count landing before its resend counts twice (documented)', async () => {
    const project = (await h.call('POST', '/api/v1/projects', { json: { title: 'Counted between' } })).body;
    let between: Promise<unknown> | undefined;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        if (!/^Update/.test(String(context.commandName)) || between) return next(args);
        await next(args);
        between = addProjectTask(project.id, { title: 'Landed between', status: 'pending', budget_usd: 1 });
        await between;
        throw sdkError('timeout');
      },
    );
    await addProjectTask(project.id, { title: 'Resent', status: 'pending', budget_usd: 5 });
    clearFaults();
    const counted = (await h.call('GET', `/api/v1/projects/${project.id}`)).body;
    results.project_task_count_resend_after_another_count = counted.task_count;
    assert.deepEqual(
      [counted.task_count, counted.project_tasks.length, counted.total_budget_usd],
      [3, 2, 11],
    );
  });

  it("a lost answer on an agent's write that checks what it finds (a new strategy cycle, a task's status move) is that write's success", async () => {
    const team = await createTeam(h);
    const lostOnce = (commands: RegExp) =>
      inject('dynamo', { commands, failing: (n) => n === 1, kind: 'timeout', afterSend: true });
    // The resend finds the cycle its first attempt wrote: not a racing writer's, so no second cycle.
    const put = lostOnce(/^PutItem/);
    const cycle = await addCycle(team.id, {
      start_date: '2026-11-01T00:00:00Z',
      end_date: '2026-11-08T00:00:00Z',
    });
    clearFaults();
    assert.equal(put.attempts(), 2);
    const cycles = await readCycles(team.id, 10);
    assert.deepEqual(
      cycles.map((c) => [c.instance_number, c.cycle_instance_id]),
      [[1, cycle.cycle_instance_id]],
    );
    // Landed with every answer lost (the SDK's resends failing): read back, ours all the same.
    const other = await createTeam(h);
    landedThenFailing(/^PutItem/);
    const landed = await addCycle(other.id, {
      start_date: '2026-11-01T00:00:00Z',
      end_date: '2026-11-08T00:00:00Z',
    });
    clearFaults();
    assert.deepEqual(
      (await readCycles(other.id, 10)).map((c) => [c.instance_number, c.cycle_instance_id]),
      [[1, landed.cycle_instance_id]],
    );
    // The resend finds the status its first attempt moved the task to: not a stale writer's, no 409.
    const workspace = (await h.call('POST', '/api/v1/workspaces', { json: { name: 'Moved once' } })).body;
    const task = await createWorkspaceTask(h.owner.id, workspace.id, {
      ...{ hired_agent_id: newId(), skill_slug: 'ad-copy', title: 'Moved once', description: null },
      ...{ schedule_type: 'once', priority: 'normal', approval_level: 'auto', trigger: {} },
    });
    const move = lostOnce(/^UpdateItem/);
    const moved = await advanceWorkspaceTask(workspace.id, task.id, 'pending', { status: 'in_progress' });
    clearFaults();
    assert.equal(move.attempts(), 2);
    assert.equal(moved.status, 'in_progress');
    // A writer that is stale all the same is still refused.
    await assert.rejects(advanceWorkspaceTask(workspace.id, task.id, 'pending', { status: 'in_progress' }), {
      status: 409,
    });
  });

  it('addProjectTask: a task whose own write fails after landing is not listed beside counts that leave it out', async () => {
    const project = (await h.call('POST', '/api/v1/projects', { json: { title: 'Agent tasks' } })).body;
    landedThenFailing(/^Put/);
    await assert.rejects(addProjectTask(project.id, { title: 'Landed', status: 'pending', budget_usd: 5 }));
    clearFaults();
    const tasks = (await h.call('GET', `/api/v1/projects/${project.id}/tasks`)).body.tasks;
    const { task_count, total_budget_usd } = (await h.call('GET', `/api/v1/projects/${project.id}`)).body;
    assert.deepEqual([tasks.length, task_count, total_budget_usd], [0, 0, 0]);
  });

  it('POST /brand-kits: a logo copy refused for a write in flight (409) on both tries is a 503, and the retry saves the kit', async () => {
    const draft = `drafts/${h.owner.id}/faults/conflict.png`;
    await s3().send(
      new PutObjectCommand({ Bucket: config.bucketName, Key: draft, Body: 'png', ContentType: 'image/png' }),
    );
    const body = { json: { name: 'Copied in a conflict', logo_key: draft } };
    const copies = inject('s3', { commands: /CopyObject/, failing: () => true, kind: 'conflict' });
    const res = await h.call('POST', '/api/v1/brand-kits', body);
    clearFaults();
    assert.equal(res.status, 503, res.text);
    assert.equal(res.headers['retry-after'], '1');
    assert.equal(copies.attempts(), 2);
    const retry = await h.call('POST', '/api/v1/brand-kits', body);
    assert.equal(retry.status, 201, retry.text);
  });

  it('POST /brand-kits: an upload’s type check failing is a 503; the draft logo’s copy stays, and the retry copies only the upload', async () => {
    const draft = `drafts/${h.owner.id}/faults/logo.png`;
    const upload = `uploads/${h.owner.id}/faults/mark.png`;
    for (const Key of [draft, upload])
      await s3().send(
        new PutObjectCommand({ Bucket: config.bucketName, Key, Body: 'png', ContentType: 'image/png' }),
      );
    const kitLogos = async () =>
      (
        await s3().send(
          new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: `brand-kits/${h.owner.id}/` }),
        )
      ).Contents?.map((o) => o.Key) ?? [];
    const before = await kitLogos();
    const body = { json: { name: 'Faulty logos', logo_key: draft, logo_icon_key: upload } };
    inject('s3', { commands: /HeadObject/, about: upload, failing: () => true, kind: 'server' });
    const res = await h.call('POST', '/api/v1/brand-kits', body);
    clearFaults();
    assert.equal(res.status, 503, res.text);
    // The draft's copy, made beside the failing read, stays: no kit names it yet, the retry will.
    const [draftCopy, ...others] = (await kitLogos()).filter((key) => !before.includes(key));
    assert.deepEqual(others, []);
    const copies = inject('s3', { commands: /CopyObject/, failing: () => false, kind: 'server' });
    const retry = await h.call('POST', '/api/v1/brand-kits', body);
    clearFaults();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.logo_key, draftCopy);
    assert.equal(copies.attempts(), 1);
    assert.deepEqual(
      (await kitLogos()).filter((key) => !before.includes(key)).sort(),
      [retry.body.logo_key, retry.body.logo_icon_key].sort(),
    );
  });

  it('a workspace whose second write fails is nowhere: not listed, no member item without it', async () => {
    // The workspace item is written, then the creator's member item fails throughout: 503.
    inject('dynamo', { commands: /Put/, failing: (a) => a >= 2, kind: 'server' });
    const res = await h.call('POST', '/api/v1/workspaces', { json: { name: 'Half made' } });
    clearFaults();
    assert.equal(res.status, 503, res.text);
    const listed = (await h.call('GET', '/api/v1/workspaces?limit=100')).body;
    assert.deepEqual(
      listed.filter((w: { name: string }) => w.name === 'Half made'),
      [],
    );
    // Every member item (what routes and lists go by) has its workspace item.
    const items = await scanTable();
    const workspaces = new Set(items.filter((i) => i.kind === 'workspace').map((i) => i.id));
    const members = items.filter((i) => i.kind === 'workspace_member');
    assert.ok(members.length > 0);
    for (const member of members) assert.ok(workspaces.has(member.workspace_id), String(member.workspace_id));
  });

  /** Every stored item whose strings hold this label (a workspace item, or a member item's summary). */
  const itemsHolding = async (label: string) =>
    (await scanTable()).filter((item) => strings(item).includes(label)).map((item) => item.sk);

  it('a workspace whose member write fails, without a key, leaves no item behind (503)', async () => {
    const name = `stray ${newId()}`;
    inject('dynamo', { commands: /Put/, failing: (a) => a >= 2, kind: 'server' });
    const res = await h.call('POST', '/api/v1/workspaces', { json: { name } });
    clearFaults();
    assert.equal(res.status, 503, res.text);
    assert.deepEqual(await itemsHolding(name), []);
  });

  it('a workspace whose member write lands with its answer lost, its resends failing: both items go (503)', async () => {
    const name = `landed ${newId()}`;
    // The member item lands, its answer is lost, and every resend fails: the outcome is unknown. (The
    // first fault added is the outer one: it sends the second PutItem through the inner, which fails
    // the third on.)
    inject('dynamo', { commands: /Put/, failing: (a) => a === 2, kind: 'timeout', afterSend: true });
    inject('dynamo', { commands: /Put/, failing: (a) => a >= 3, kind: 'server' });
    const res = await h.call('POST', '/api/v1/workspaces', { json: { name } });
    clearFaults();
    assert.equal(res.status, 503, res.text);
    assert.deepEqual(await itemsHolding(name), []);
    const listed = (await h.call('GET', '/api/v1/workspaces?limit=100')).body as { name: string }[];
    assert.deepEqual(
      listed.filter((w) => w.name === name),
      [],
    );
  });

  it('a keyed workspace create whose member write fails gives its key back and leaves no item; the retry makes it, once', async () => {
    const name = `keyed ${newId()}`;
    const headers = { 'idempotency-key': `keyed-${newId()}` };
    // The claim and the workspace item land (either first); the member item fails throughout.
    inject('dynamo', { commands: /^Put/, failing: (a) => a >= 3, kind: 'server' });
    const first = await h.call('POST', '/api/v1/workspaces', { json: { name }, headers });
    clearFaults();
    assert.equal(first.status, 503, first.text);
    assert.deepEqual(await itemsHolding(name), []);
    const retry = await h.call('POST', '/api/v1/workspaces', { json: { name }, headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal((await h.call('GET', `/api/v1/workspaces/${retry.body.id}`)).status, 200);
    const listed = (await h.call('GET', '/api/v1/workspaces?limit=100')).body as {
      id: string;
      name: string;
    }[];
    assert.deepEqual(
      listed.filter((w) => w.name === name).map((w) => w.id),
      [retry.body.id],
    );
    assert.deepEqual((await itemsHolding(name)).sort(), [`MEMBER#${h.owner.id}`, 'WS']);
  });

  it('a keyed project create whose item write fails gives its key back and leaves none of its tasks', async () => {
    const title = `keyed project ${newId()}`;
    const headers = { 'idempotency-key': `keyed-${newId()}` };
    const tasks = Array.from({ length: 3 }, (_, i) => ({ title: `${title} #${i}` }));
    // The claim (a PutItem) lands beside the tasks' BatchWriteItem; the project's PutItem fails throughout.
    inject('dynamo', { commands: /^Put/, failing: (a) => a >= 2, kind: 'server' });
    const first = await h.call('POST', '/api/v1/projects', { json: { title, tasks }, headers });
    clearFaults();
    assert.equal(first.status, 503, first.text);
    assert.deepEqual(await itemsNamed(title), []);
    const retry = await h.call('POST', '/api/v1/projects', { json: { title, tasks }, headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.task_count, 3);
  });

  // The project item lands with its answer lost (its resends fail) and its take-back (the delete) fails
  // too: the project stays. The key must lead the retry to it, not to a second project.
  it('a keyed project create whose item and take-back both fail: the retry answers the project that stayed', async () => {
    const title = `stayed project ${newId()}`;
    const headers = { 'idempotency-key': `stayed-${newId()}` };
    const tasks = Array.from({ length: 3 }, (_, i) => ({ title: `${title} #${i}` }));
    const project = '"PROJECT"';
    inject('dynamo', {
      commands: /^Put/,
      failing: (a) => a === 1,
      kind: 'timeout',
      afterSend: true,
      about: project,
    });
    inject('dynamo', { commands: /^Put/, failing: (a) => a >= 2, kind: 'server', about: project });
    inject('dynamo', { commands: /^Delete/, failing: () => true, kind: 'server', about: project });
    const first = await h.call('POST', '/api/v1/projects', { json: { title, tasks }, headers });
    clearFaults();
    assert.equal(first.status, 503, first.text);
    const retry = await h.call('POST', '/api/v1/projects', { json: { title, tasks }, headers });
    assert.equal(retry.status, 201, retry.text);
    const listed = (await h.call('GET', '/api/v1/projects?limit=100')).body as {
      id: string;
      title: string;
    }[];
    assert.deepEqual(
      listed.filter((p) => p.title === title).map((p) => p.id),
      [retry.body.id],
    );
    assert.equal(retry.body.task_count, 3);
  });

  it('a project whose item write fails, without a key, leaves none of its tasks behind (503)', async () => {
    const title = `stray tasks ${newId()}`;
    const tasks = Array.from({ length: 30 }, (_, i) => ({ title: `${title} #${i}` }));
    // The tasks' BatchWriteItem lands; the project item's PutItem fails throughout.
    inject('dynamo', { commands: /^Put/, failing: () => true, kind: 'server' });
    const res = await h.call('POST', '/api/v1/projects', { json: { title, tasks } });
    clearFaults();
    assert.equal(res.status, 503, res.text);
    assert.deepEqual(await itemsNamed(title), []);
  });

  it('a project whose item lands with its answer lost, its resends failing: neither it nor its tasks stay (503)', async () => {
    const title = `landed project ${newId()}`;
    const tasks = Array.from({ length: 3 }, (_, i) => ({ title: `${title} #${i}` }));
    inject('dynamo', { commands: /^Put/, failing: (a) => a === 1, kind: 'timeout', afterSend: true });
    inject('dynamo', { commands: /^Put/, failing: (a) => a >= 2, kind: 'server' });
    const res = await h.call('POST', '/api/v1/projects', { json: { title, tasks } });
    clearFaults();
    assert.equal(res.status, 503, res.text);
    assert.deepEqual(await itemsNamed(title), []);
  });

  it('a lost answer on a credentials save (the SDK resends it): revision counts the save once', async () => {
    const keys = workspaceKeys.integration(ids.workspace_id!, ADS_PROVIDER);
    const before = (await getItem<{ revision: number }>(keys))!.revision;
    inject('dynamo', { commands: /Update/, failing: (n) => n === 1, kind: 'timeout', afterSend: true });
    const url = `/api/v1/workspaces/${ids.workspace_id}/integrations/ads-provider/credentials`;
    const res = await h.call('PUT', url, {
      json: { client_id: 'lost-answer', client_secret: 'lost-answer-s' },
    });
    clearFaults();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.has_oauth_credentials, true);
    assert.equal((await getItem<{ revision: number }>(keys))!.revision - before, 1);
    assert.deepEqual(await readAdsCredentials(ids.workspace_id!), {
      client_id: 'lost-answer',
      client_secret: 'lost-answer-s',
    });
  });

  it('a lost answer on the OAuth callback write: revision counts the connection once', async () => {
    const keys = workspaceKeys.integration(ids.workspace_id!, ADS_PROVIDER);
    const before = (await getItem<{ revision: number }>(keys))!.revision;
    inject('dynamo', { commands: /Update/, failing: (n) => n === 1, kind: 'timeout', afterSend: true });
    const status = await connectAdsAccount(ids.workspace_id!, {
      account_id: 'act_lost',
      account_name: 'Lost answer',
      scopes: [],
      token_expires_at: null,
      social_user_id: null,
      user_access_token: 'lost-answer-token',
      pages: [],
    });
    clearFaults();
    assert.equal(status.account_id, 'act_lost');
    assert.equal((await getItem<{ revision: number }>(keys))!.revision - before, 1);
  });

  it('chat: a POST retried with its Idempotency-Key after a 503 stores one message', async () => {
    const url = `/api/v1/chat/sessions/${ids.chat_session_id}/messages`;
    const before = (await h.call('GET', `${url}?limit=100`)).body;
    const headers = { 'idempotency-key': 'faults-retry-1' };
    // The first attempt claims the key, then the message write fails throughout: 503.
    inject('dynamo', { commands: /Put/, failing: (n) => n >= 2, kind: 'server' });
    const first = await h.call('POST', url, { json: { content: 'Once only, please' }, headers });
    clearFaults();
    assert.equal(first.status, 503, first.text);
    // The client retries twice (same key, same message): one message, the same both times.
    const second = await h.call('POST', url, { json: { content: 'Once only, please' }, headers });
    const third = await h.call('POST', url, { json: { content: 'Once only, please' }, headers });
    assert.equal(second.status, 201);
    assert.deepEqual(third.body, second.body);
    const after = (await h.call('GET', `${url}?limit=100`)).body;
    const count = (list: unknown) => JSON.stringify(list).split('Once only, please').length - 1;
    assert.equal(count(after) - count(before), 1);
    results.chat_idempotent_retry_messages = count(after) - count(before);
  });

  it('chat: a send without a key whose message write fails throughout gives its document names back; the retry takes them', async () => {
    type Names = { document_names?: Set<string> };
    const namesOf = async (chat: string) =>
      [...((await getItem<Names>(chatKeys.documentNames(chat)))?.document_names ?? [])].sort();
    const json = { content: 'With the brief', attachments: [{ key: ids.chat_upload_key! }] };
    /** A session holding `held` names already; one send of the brief whose PutItem fails throughout
     * (its names' claim lands beside it), then the client's retry. */
    const failThenRetry = async (held: number, headers?: Record<string, string>) => {
      const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Names' } })).body.id;
      const names = new Set(Array.from({ length: held }, (_, i) => `held ${i}`));
      if (held > 0) await updateItem(chatKeys.documentNames(chat), { add: { document_names: names } });
      const url = `/api/v1/chat/sessions/${chat}/messages`;
      inject('dynamo', { commands: /^Put/, failing: () => true, kind: 'server', about: 'MSG#' });
      const failed = await h.call('POST', url, { json, headers });
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      assert.deepEqual((await h.call('GET', url)).body.messages, []);
      const left = await namesOf(chat);
      const retry = await h.call('POST', url, { json, headers });
      assert.equal(retry.status, 201, retry.text);
      return { left, name: retry.body.content[1].document.name, names: await namesOf(chat) };
    };
    // Before, the names item kept the brief's name for a message never written: the retry answered
    // `launch-brief (2)`, and at the session's last place 409 (full).
    assert.deepEqual(await failThenRetry(0), { left: [], name: 'launch-brief', names: ['launch-brief'] });
    const last = await failThenRetry(CHAT_LIMITS.sessionDocuments - 1);
    assert.deepEqual([last.left.length, last.name], [CHAT_LIMITS.sessionDocuments - 1, 'launch-brief']);
    // With a key the name stays held by the claim's message id, whose retry writes it: the same name.
    const keyed = await failThenRetry(0, { 'idempotency-key': `names-${newId()}` });
    assert.deepEqual(keyed, { left: ['launch-brief'], name: 'launch-brief', names: ['launch-brief'] });
  });

  it('a lost response on a create (the SDK retries a write that happened): one record, 201', async () => {
    const list = async () => (await h.call('GET', '/api/v1/brands?limit=100')).body as unknown[];
    const before = (await list()).length;
    inject('dynamo', { commands: /Put/, failing: (n) => n === 1, kind: 'timeout', afterSend: true });
    const res = await h.call('POST', '/api/v1/brands', { json: { name: 'Lost response brand' } });
    clearFaults();
    assert.equal(res.status, 201, res.text);
    assert.equal((await list()).length, before + 1);
  });

  /** A new team cancelled through the API, with what the cancellation stored on the side. */
  async function cancelTeam(...faults: Fault[]) {
    const team = (
      await h.call('POST', '/api/v1/teams', {
        json: { team_type: 'content', tier: 'pro', operation_mode: 'auto', display_name: 'Leaving' },
      })
    ).body;
    const url = `/api/v1/teams/${team.id}/unsubscribe`;
    for (const fault of faults) inject('dynamo', fault);
    const first = await h.call('POST', url);
    clearFaults();
    const retry = await h.call('POST', url);
    const stored = (await scanTable()).filter((item) => item.pk === `TEAM#${team.id}`);
    const teamItem = stored.find((item) => item.sk === 'TEAM')!;
    const entries = stored.filter((item) => item.action_type === 'team_unsubscribed');
    return { first, retry, teamItem, entries };
  }

  it('a lost response on the cancelling update: the end date and activity entry are still written once', async () => {
    const { first, retry, teamItem, entries } = await cancelTeam({
      commands: /Update/,
      failing: (n) => n === 1,
      kind: 'timeout',
      afterSend: true,
    });
    // The SDK's resend found the team cancelled: before, that call stopped there.
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(retry.body, first.body);
    assert.equal(teamItem.subscription_ends_at, first.body.subscription_ends_at);
    assert.deepEqual([teamItem.activity_count, entries.length], [1, 1]);
  });

  it('a failed second wave of unsubscribe is completed by the retry, once', async () => {
    // The cancelling update lands; the end date's update fails throughout (503); the client retries.
    const { first, retry, teamItem, entries } = await cancelTeam({
      commands: /Update/,
      failing: (n) => n >= 2,
      kind: 'server',
    });
    assert.equal(first.status, 503, first.text);
    assert.equal(retry.status, 200, retry.text);
    assert.ok(retry.body.subscription_ends_at, retry.text);
    assert.equal(teamItem.subscription_ends_at, retry.body.subscription_ends_at);
    assert.deepEqual([teamItem.activity_count, entries.length], [1, 1]);
  });

  it('a failed activity entry of unsubscribe is written by the retry, once, and counted once', async () => {
    // The cancelling update and the end date land; the entry's PutItem fails throughout (503).
    const { first, retry, teamItem, entries } = await cancelTeam({
      commands: /^Put/,
      failing: () => true,
      kind: 'server',
    });
    assert.equal(first.status, 503, first.text);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(teamItem.subscription_ends_at, retry.body.subscription_ends_at);
    assert.deepEqual([teamItem.activity_count, entries.length], [1, 1]);
  });

  it('a failed activity entry of unsubscribe beside an end date that landed unanswered is still written by the retry', async () => {
    // The entry's PutItem fails throughout; the end date's update lands, its answer lost, and the
    // SDK's resends fail. Before, the stored end told the retry the cancellation was complete:
    // activity_count 1 and no entry, for good.
    const { first, retry, teamItem, entries } = await cancelTeam(
      { commands: /^Put/, failing: () => true, kind: 'server' },
      {
        commands: /^Update/,
        about: 'subscription_ends_at',
        failing: (n) => n === 2 || n === 3,
        kind: 'server',
      },
      {
        commands: /^Update/,
        about: 'subscription_ends_at',
        failing: (n) => n === 1,
        kind: 'timeout',
        afterSend: true,
      },
    );
    assert.equal(first.status, 503, first.text);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(teamItem.subscription_ends_at, retry.body.subscription_ends_at);
    assert.deepEqual([teamItem.activity_count, entries.length], [1, 1]);
  });

  it('without an idempotency key, a client retry of a create makes a second record (documented)', async () => {
    const list = async () => (await h.call('GET', '/api/v1/brands?limit=100')).body as unknown[];
    const before = (await list()).length;
    await h.call('POST', '/api/v1/brands', { json: { name: 'Retried by the client' } });
    await h.call('POST', '/api/v1/brands', { json: { name: 'Retried by the client' } });
    results.brand_create_client_retry_records = (await list()).length - before;
    assert.equal((await list()).length - before, 2);
  });

  // The create routes that take an Idempotency-Key (shared/idempotency.ts): the claim is their first
  // PutItem, the record their second (a workspace's item and its claim go side by side, either first;
  // a project's tasks are a BatchWriteItem).
  const keyedCreates = [
    {
      name: 'brand',
      url: () => '/api/v1/brands',
      list: () => '/api/v1/brands',
      body: (t: string) => ({ name: t }),
    },
    {
      name: 'team',
      url: () => '/api/v1/teams',
      list: () => '/api/v1/teams',
      body: (t: string) => ({ team_type: 'content', tier: 'pro', operation_mode: 'auto', display_name: t }),
    },
    {
      name: 'chat session',
      url: () => '/api/v1/chat/sessions',
      list: () => '/api/v1/chat/sessions',
      body: (t: string) => ({ title: t }),
    },
    {
      name: 'shopping session',
      url: () => '/api/v1/shopping/sessions',
      list: () => '/api/v1/shopping/sessions',
      body: (t: string) => ({ title: t }),
    },
    {
      name: 'project',
      url: () => '/api/v1/projects',
      list: () => '/api/v1/projects',
      body: (t: string) => ({ title: t, tasks: [{ title: `${t}: first task` }] }),
    },
    {
      name: 'workspace',
      url: () => '/api/v1/workspaces',
      list: () => '/api/v1/workspaces',
      body: (t: string) => ({ name: t }),
    },
    {
      name: 'brand kit',
      url: () => '/api/v1/brand-kits',
      body: (t: string) => ({ name: t }),
      // No list route (only a read by id): the stored kits.
      records: async (label: string) =>
        (await scanTable())
          .filter((item) => item.kind === 'brand-kit' && item.name === label)
          .map((item) => item.id),
    },
    {
      name: 'workspace task',
      url: () => `/api/v1/workspaces/${ids.workspace_id}/tasks`,
      list: () => `/api/v1/workspaces/${ids.workspace_id}/tasks`,
      body: (t: string) => ({
        skill_slug: 'post',
        title: t,
        hired_agent_id: '0190a1b2-0000-7000-8000-000000000001',
      }),
    },
  ];
  /** The caller's records under this label: those the create's list holds, or the stored kits. */
  const recordsNamed = async (create: (typeof keyedCreates)[number], label: string) => {
    if (!create.list) return create.records(label);
    const listed = (await h.call('GET', `${create.list()}?limit=100`)).body as Record<string, unknown>[];
    return listed.filter((entry) => Object.values(entry).includes(label)).map((entry) => entry.id);
  };
  for (const create of keyedCreates) {
    it(`${create.name}: a lost response on the record's PutItem, with an Idempotency-Key: 201, one record, the retry answers it`, async () => {
      const label = `lost response ${newId()}`;
      const headers = { 'idempotency-key': `lost-${newId()}` };
      // The record's write lands, its answer is lost, the SDK resends it and the resend fails its condition.
      inject('dynamo', { commands: /^Put/, failing: (n) => n === 2, kind: 'timeout', afterSend: true });
      const first = await h.call('POST', create.url(), { json: create.body(label), headers });
      clearFaults();
      assert.equal(first.status, 201, first.text);
      const retry = await h.call('POST', create.url(), { json: create.body(label), headers });
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.body.id, first.body.id);
      assert.deepEqual(await recordsNamed(create, label), [first.body.id]);
    });

    it(`${create.name}: the record's write failing after the claim (503): the client's retry writes it, once`, async () => {
      const label = `after the claim ${newId()}`;
      const headers = { 'idempotency-key': `claimed-${newId()}` };
      inject('dynamo', { commands: /^Put/, failing: (n) => n >= 2, kind: 'server' });
      const first = await h.call('POST', create.url(), { json: create.body(label), headers });
      clearFaults();
      assert.equal(first.status, 503, first.text);
      const second = await h.call('POST', create.url(), { json: create.body(label), headers });
      const third = await h.call('POST', create.url(), { json: create.body(label), headers });
      assert.equal(second.status, 201, second.text);
      assert.deepEqual(third.body, second.body);
      const records = await recordsNamed(create, label);
      assert.deepEqual(records, [second.body.id]);
      results[`${create.name.replace(' ', '_')}_idempotent_retry_records`] = records.length;
    });
  }

  // The first attempt's claim lands, its answer is lost, and the SDK's resends of it fail (500): the
  // attempt cannot tell whether the key is its own. A twin (the client's retry) arriving meanwhile finds
  // the claim, and completes the create under the first attempt's identity, with the items it staged.
  for (const create of keyedCreates.filter((c) => c.name === 'project' || c.name === 'workspace'))
    it(`${create.name}: a lost response on the claim, its resends failing while a twin completes the create: the record keeps its parts`, async () => {
      const label = `unknown claim ${newId()}`;
      const headers = { 'idempotency-key': `unknown-${newId()}` };
      let landed!: () => void;
      let twinAnswered!: () => void;
      const claimLanded = new Promise<void>((resolve) => {
        landed = resolve;
      });
      const twinDone = new Promise<void>((resolve) => {
        twinAnswered = resolve;
      });
      let firstClaim: string | undefined;
      intercept(
        'dynamo',
        // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
        (next: any, context: any) => async (args: any) => {
          const claim =
            /^Put/.test(String(context.commandName)) && JSON.stringify(args.input).includes('IDEMPOTENCY#');
          if (!claim) return next(args);
          const id = args.input.Item.id.S as string;
          if (firstClaim === undefined) {
            // The first attempt's claim lands; its answer is lost once the twin has answered.
            firstClaim = id;
            await next(args);
            landed();
            await twinDone;
            throw sdkError('timeout');
          }
          if (id === firstClaim) throw sdkError('server');
          return next(args);
        },
      );
      const first = h.call('POST', create.url(), { json: create.body(label), headers });
      await claimLanded;
      const twin = await h.call('POST', create.url(), { json: create.body(label), headers });
      twinAnswered();
      const failed = await first;
      clearFaults();
      assert.equal(twin.status, 201, twin.text);
      assert.equal(failed.status, 503, failed.text);
      assert.deepEqual(await recordsNamed(create, label), [twin.body.id]);
      // The record the twin answered is there whole: read by its id, and a project's tasks all listed.
      const read = await h.call('GET', `${create.url()}/${twin.body.id}`);
      assert.equal(read.status, 200, read.text);
      if (create.name === 'project') {
        const tasks = (await h.call('GET', `${create.url()}/${twin.body.id}/tasks?limit=100`)).body.tasks;
        assert.deepEqual([read.body.task_count, tasks.length], [1, 1]);
      }
      const retry = await h.call('POST', create.url(), { json: create.body(label), headers });
      assert.deepEqual(retry.body, read.body);
    });

  it("a refused create whose claim's read fails gives its claim back: the corrected request may use the key", async () => {
    const headers = { 'idempotency-key': `refused-${newId()}` };
    const title = `corrected ${newId()}`;
    // The claim's PutItem lands; the consistent read beside it fails throughout; the create refuses
    // the request itself (a team that is not there: 404).
    inject('dynamo', { commands: /^Get/, failing: () => true, kind: 'server', about: 'IDEMPOTENCY#' });
    const refused = await h.call('POST', '/api/v1/chat/sessions', {
      json: { title, team_id: newId() },
      headers,
    });
    clearFaults();
    assert.equal(refused.status, 404, refused.text);
    const corrected = await h.call('POST', '/api/v1/chat/sessions', { json: { title }, headers });
    assert.equal(corrected.status, 201, corrected.text);
  });

  it("a refused create's give-back, its answer lost and resent, never deletes the corrected request's claim", async () => {
    const headers = { 'idempotency-key': `give-back-${newId()}` };
    const title = `given back ${newId()}`;
    let corrected: Awaited<ReturnType<Harness['call']>> | undefined;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const giveBack =
          /^Delete/.test(String(context.commandName)) && JSON.stringify(args.input).includes('IDEMPOTENCY#');
        if (!giveBack || corrected) return next(args);
        // The give-back lands; before the SDK resends it (its answer lost), the corrected request
        // claims the key afresh and makes its session.
        await next(args);
        corrected = await h.call('POST', '/api/v1/chat/sessions', { json: { title }, headers });
        throw sdkError('timeout');
      },
    );
    const refused = await h.call('POST', '/api/v1/chat/sessions', {
      json: { title, team_id: newId() },
      headers,
    });
    clearFaults();
    assert.equal(refused.status, 404, refused.text);
    assert.equal(corrected?.status, 201, corrected?.text);
    // The resent give-back found another request's claim and left it: the retry answers that session.
    const retry = await h.call('POST', '/api/v1/chat/sessions', { json: { title }, headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.id, corrected?.body.id);
  });

  it('a keyed create whose claim is given back and taken again every round answers 503 after CLAIM_ROUNDS rounds', async () => {
    const key = `contested-${newId()}`;
    const headers = { 'idempotency-key': key };
    const json = { title: `contested ${newId()}` };
    const claim = accountKeys.idempotencyClaim(h.owner.id, 'chat-session', key);
    assert.equal((await h.call('POST', '/api/v1/chat/sessions', { json, headers })).status, 201);
    // Before each seal, another request has taken the key afresh (its claim under another id), so the
    // seal fails and the retry finds the claim given back. Bounded (a few rounds more), so a request
    // that never stopped trying answers 201 instead of hanging.
    let seals = 0;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const seal =
          /^Update/.test(String(context.commandName)) && JSON.stringify(args.input).includes('sealed');
        if (seal && ++seals <= CLAIM_ROUNDS + 2) await updateItem(claim, { set: { id: newId() } });
        return next(args);
      },
    );
    const retry = await h.call('POST', '/api/v1/chat/sessions', { json, headers });
    clearFaults();
    assert.equal(retry.status, 503, retry.text);
    assert.equal(retry.headers['retry-after'], '1');
    assert.equal(seals, CLAIM_ROUNDS);
  });

  it('a lost response on a counter update (brand_kit_count) does not count the kit twice', async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Counted brand' } })).body;
    inject('dynamo', { commands: /Update/, failing: (n) => n === 1, kind: 'timeout', afterSend: true });
    const spec = sampleRequest(authenticatedRoutes.find((r) => r.entry === 'brand-kits/create-brand-kit')!, {
      ...ids,
      brand_id: brand.id,
    });
    const kit = await h.call('POST', spec.url, { ...spec.options });
    clearFaults();
    assert.equal(kit.status, 201, kit.text);
    const counted = (await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count;
    // The SDK retries an update whose response was lost; the kit's id in `counted_kits` refuses the
    // second application (shared/db/store.ts addToCounters `once`).
    results.brand_kit_count_after_lost_response = counted;
    assert.equal(counted, 1);
  });

  for (const [failing, commands, keyed] of [
    ['the brand count', /Update/, false],
    ['the kit write', /Put/, false],
    // With a key, the failed save gives its claim back and takes back what it wrote: a retry that
    // found the claim would answer a kit never counted.
    ['the brand count', /Update/, true],
  ] as const)
    it(`POST /brand-kits: when ${failing} fails${keyed ? ' (with an Idempotency-Key)' : ''}, neither the kit nor its count is left behind`, async () => {
      const brand = (await h.call('POST', '/api/v1/brands', { json: { name: `Undone: ${failing}` } })).body;
      const spec = sampleRequest(
        authenticatedRoutes.find((r) => r.entry === 'brand-kits/create-brand-kit')!,
        {
          ...ids,
          brand_id: brand.id,
        },
      );
      if (keyed) spec.options.headers = { ...spec.options.headers, 'idempotency-key': `undone-${newId()}` };
      inject('dynamo', { commands, failing: () => true, kind: 'server' });
      const kit = await h.call('POST', spec.url, { ...spec.options });
      clearFaults();
      assert.equal(kit.status, 503, kit.text);
      const kits = await kitsOfBrand(brand.id);
      assert.deepEqual(kits, []);
      const stored = (await h.call('GET', `/api/v1/brands/${brand.id}`)).body;
      assert.equal(stored.brand_kit_count, 0);
      // The brand is not spoilt for the next save: it counts again.
      assert.equal((await h.call('POST', spec.url, { ...spec.options })).status, 201);
      assert.equal((await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count, 1);
    });

  // The first attempt's kit lands and its count fails; the client's retry (a twin) reads that kit before
  // the first attempt gives its claim back and takes the kit back. Its seal, held until after the
  // give-back, fails: the twin must not answer the kit it read (gone a moment later) but make its own.
  it('POST /brand-kits: a twin that read a kit being taken back answers a kit that stays', {
    timeout: 30_000,
  }, async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Raced' } })).body;
    const headers = { 'idempotency-key': `raced-${newId()}` };
    const json = { brand_id: brand.id, name: `raced ${newId()}` };
    const [kitWritten, twinRead, gaveBack] = [signal(), signal(), signal()];
    let firstCount: string | undefined;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const command = String(context.commandName);
        const input = JSON.stringify(args.input);
        if (/^Put/.test(command) && input.includes('"KIT#')) {
          const answer = await next(args);
          kitWritten.done();
          return answer;
        }
        if (/^Update/.test(command) && input.includes('NOT contains')) {
          firstCount ??= input;
          if (input !== firstCount) return next(args);
          // The first attempt's count (each of the SDK's attempts) fails once the twin has read the kit.
          await twinRead.landed;
          throw sdkError('server');
        }
        if (/^Get/.test(command) && input.includes('"KIT#')) {
          const answer = await next(args);
          twinRead.done();
          return answer;
        }
        if (/^Update/.test(command) && input.includes('sealed')) await gaveBack.landed;
        if (/^Delete/.test(command) && input.includes('IDEMPOTENCY#')) {
          const answer = await next(args);
          gaveBack.done();
          return answer;
        }
        return next(args);
      },
    );
    const first = h.call('POST', '/api/v1/brand-kits', { json, headers });
    await kitWritten.landed;
    const twin = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    const failed = await first;
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    assert.equal(twin.status, 201, twin.text);
    const read = await h.call('GET', `/api/v1/brand-kits/${twin.body.id}`);
    assert.equal(read.status, 200, read.text);
    const kits = await kitsOfBrand(brand.id);
    assert.deepEqual(
      kits.map((kit) => kit.id),
      [twin.body.id],
    );
    assert.equal((await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count, 1);
    const retry = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    assert.equal(retry.body.id, twin.body.id);
  });

  it('POST /brand-kits: a kit whose undoing fails too keeps its logo copies (never points at nothing)', async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Undo fails' } })).body;
    const upload = `uploads/${h.owner.id}/${brand.id}/logo.png`;
    await s3().send(
      new PutObjectCommand({
        Bucket: config.bucketName,
        Key: upload,
        Body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        ContentType: 'image/png',
      }),
    );
    // The count fails, and so does the kit's delete meant to undo the kit written beside it.
    inject('dynamo', { commands: /Update|Delete/, failing: () => true, kind: 'server' });
    const kit = await h.call('POST', '/api/v1/brand-kits', {
      json: { brand_id: brand.id, name: 'Left behind', logo_key: upload },
    });
    clearFaults();
    assert.equal(kit.status, 503, kit.text);
    const left = await kitsOfBrand(brand.id);
    assert.equal(left.length, 1);
    const copy = String(left[0]!.logo_key);
    assert.match(copy, /^brand-kits\//);
    await s3().send(new HeadObjectCommand({ Bucket: config.bucketName, Key: copy })); // throws when gone
    await assertNoDanglingObjectReferences();
  });

  // A failed save gives its claim back, and the give-back lands with its answer lost: the SDK's resend
  // fails its condition (the claim is gone). The save must still take its kit back, or the kit stays,
  // uncounted, and the client's retry (the key free) saves a second one.
  it('POST /brand-kits: a failed save whose give-back lands with its answer lost still takes the kit back', async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Lost give-back' } })).body;
    const headers = { 'idempotency-key': `lost-give-back-${newId()}` };
    const json = { brand_id: brand.id, name: `lost give-back ${newId()}` };
    inject('dynamo', { commands: /^Update/, failing: () => true, kind: 'server', about: 'NOT contains' });
    inject('dynamo', {
      commands: /^Delete/,
      failing: (n) => n === 1,
      kind: 'timeout',
      afterSend: true,
      about: 'IDEMPOTENCY#',
    });
    const failed = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    assert.deepEqual(await kitsOfBrand(brand.id), []);
    const retry = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    assert.equal(retry.status, 201, retry.text);
    assert.deepEqual(
      (await kitsOfBrand(brand.id)).map((kit) => kit.id),
      [retry.body.id],
    );
    assert.equal((await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count, 1);
  });

  // The first attempt's kit lands and its count fails; the twin's seal lands first, so the give-back
  // fails and the first attempt leaves the save to the twin. The twin must answer a counted kit.
  it('POST /brand-kits: a twin that sealed the claim of a save whose count fails answers a counted kit', {
    timeout: 30_000,
  }, async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Sealed first' } })).body;
    const headers = { 'idempotency-key': `sealed-${newId()}` };
    const json = { brand_id: brand.id, name: `sealed ${newId()}` };
    let written!: () => void;
    let sealedIt!: () => void;
    const kitWritten = new Promise<void>((resolve) => (written = resolve));
    const twinSealed = new Promise<void>((resolve) => (sealedIt = resolve));
    let firstCount: string | undefined;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const command = String(context.commandName);
        const input = JSON.stringify(args.input);
        if (/^Put/.test(command) && input.includes('"KIT#')) {
          const answer = await next(args);
          written();
          return answer;
        }
        // The first attempt's count (each of the SDK's resends of it, told by their invocation id: the
        // twin's count is the same request) fails once the twin has sealed.
        if (/^Update/.test(command) && input.includes('NOT contains')) {
          const invocation = args.request?.headers?.['amz-sdk-invocation-id'];
          assert.ok(invocation);
          firstCount ??= invocation;
          if (invocation !== firstCount) return next(args);
          await twinSealed;
          throw sdkError('server');
        }
        if (/^Update/.test(command) && input.includes('sealed')) {
          const answer = await next(args);
          sealedIt();
          return answer;
        }
        return next(args);
      },
    );
    const first = h.call('POST', '/api/v1/brand-kits', { json, headers });
    await kitWritten;
    const twin = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    const failed = await first;
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    assert.equal(twin.status, 201, twin.text);
    const kits = await kitsOfBrand(brand.id);
    assert.deepEqual(
      kits.map((kit) => kit.id),
      [twin.body.id],
    );
    assert.equal((await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count, 1);
  });

  // Twins of a refused save (a logo that is not there: 404): the twin seals the first attempt's claim
  // before that attempt gives it back, then is refused itself. Nothing may hold the key: the corrected
  // request uses it.
  it('POST /brand-kits: twins of a refused save leave the key free for the corrected request', {
    timeout: 30_000,
  }, async () => {
    const headers = { 'idempotency-key': `refused-twins-${newId()}` };
    const name = `refused twins ${newId()}`;
    const refused = { name, logo_key: `uploads/${h.owner.id}/${newId()}/missing.png` };
    let answered!: () => void;
    const twinAnswered = new Promise<void>((resolve) => (answered = resolve));
    let held = false;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const giveBack =
          /^Delete/.test(String(context.commandName)) && JSON.stringify(args.input).includes('IDEMPOTENCY#');
        if (giveBack && !held) {
          // The first attempt's give-back waits for the twin's answer.
          held = true;
          await twinAnswered;
        }
        return next(args);
      },
    );
    const first = h.call('POST', '/api/v1/brand-kits', { json: refused, headers });
    while (!held) await new Promise((resolve) => setImmediate(resolve));
    const twin = await h.call('POST', '/api/v1/brand-kits', { json: refused, headers });
    answered();
    const failed = await first;
    clearFaults();
    assert.equal(failed.status, 404, failed.text);
    assert.equal(twin.status, 404, twin.text);
    const corrected = await h.call('POST', '/api/v1/brand-kits', { json: { name }, headers });
    assert.equal(corrected.status, 201, corrected.text);
  });

  // The kit's write fails and so does the take-back of the count written beside it (the uncount): the
  // count holds a kit that is not there. With a key, the key is claimed again for that kit, so the
  // retry completes it (counted once); without one, the count left without its kit is logged with the
  // brand's and the kit's ids.
  for (const keyed of [true, false])
    it(`POST /brand-kits: a save whose kit write and uncount both fail${keyed ? ' (with an Idempotency-Key): the retry saves it, counted once' : ': the count left without its kit is logged'}`, async () => {
      const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Uncount fails' } })).body;
      const headers: Record<string, string> = keyed ? { 'idempotency-key': `uncount-${newId()}` } : {};
      const json = { brand_id: brand.id, name: `uncount fails ${newId()}` };
      inject('dynamo', { commands: /^Put/, failing: () => true, kind: 'server', about: '"KIT#' });
      inject('dynamo', { commands: /^Update/, failing: () => true, kind: 'server', about: 'DELETE #' });
      const logged = scan.texts.length;
      const failed = await h.call('POST', '/api/v1/brand-kits', { json, headers });
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      const countOf = async () => (await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count;
      if (!keyed) {
        const line = scan.texts.slice(logged).find((text) => text.includes('brand kit uncount failed'));
        assert.ok(line, 'the count left without its kit is logged');
        assert.deepEqual(JSON.parse(line).brand_id, brand.id);
        assert.deepEqual([(await kitsOfBrand(brand.id)).length, await countOf()], [0, 1]);
        return;
      }
      const retry = await h.call('POST', '/api/v1/brand-kits', { json, headers });
      assert.equal(retry.status, 201, retry.text);
      assert.deepEqual(
        (await kitsOfBrand(brand.id)).map((kit) => kit.id),
        [retry.body.id],
      );
      assert.equal(await countOf(), 1);
    });

  // The mirror case: the kit lands and its count fails, and so does the kit's take-back. The key is
  // claimed again for the kit that stayed, which its brand does not count: the keyed retry must count
  // it (completing the save), not answer it as found.
  it('POST /brand-kits: a save whose count and kit take-back both fail (with an Idempotency-Key): the retry counts the kit it answers, once', async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Take-back fails' } })).body;
    const headers = { 'idempotency-key': `take-back-${newId()}` };
    const json = { brand_id: brand.id, name: `take-back fails ${newId()}` };
    inject('dynamo', { commands: /^Update/, failing: () => true, kind: 'server', about: 'NOT contains' });
    inject('dynamo', { commands: /^Delete/, failing: () => true, kind: 'server', about: '"KIT#' });
    const failed = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    const countOf = async () => (await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count;
    const [left] = await kitsOfBrand(brand.id);
    assert.ok(left, 'the kit whose take-back failed stayed');
    assert.equal(await countOf(), 0);
    const retry = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.id, left.id);
    assert.deepEqual(
      (await kitsOfBrand(brand.id)).map((kit) => kit.id),
      [left.id],
    );
    assert.equal(await countOf(), 1);
    // Counted once: a further retry answers the same kit and counts nothing more.
    assert.equal((await h.call('POST', '/api/v1/brand-kits', { json, headers })).body.id, left.id);
    assert.equal(await countOf(), 1);
  });

  // POST /uploads with an Idempotency-Key claims the key, then counts the upload (its id into the day's
  // counted_ids); signing makes no request, so what fails after the claim is the count. A count that
  // failed may have landed: it is taken back by its id and the key given back. Here that take-back fails
  // on every attempt of the SDK's too.
  describe('a keyed upload whose count fails and whose take-back fails throughout', () => {
    const DAY = '2026-11-21';
    const body = { filename: 'clip.mp4', content_type: 'video/mp4', size: 5000 };
    const upload = (token: string, key: string) =>
      h.call('POST', '/api/v1/uploads', { json: body, token, headers: { 'idempotency-key': key } });
    const allowanceOf = (user: string) =>
      getItem<{ bytes?: number; uploads?: number; counted_ids?: Set<string> }>(
        accountKeys.uploadAllowance(user, DAY),
      );
    const claimOf = (user: string, key: string) =>
      getItem<{ id: string }>(accountKeys.idempotencyClaim(user, 'upload', key));
    /** The take-back (`ADD … DELETE counted_ids`) failing on each attempt. */
    const failingTakeBack = () =>
      inject('dynamo', { commands: /^Update/, failing: () => true, kind: 'server', about: 'DELETE #' });
    const notTakenBack = (from: number) =>
      scan.texts.slice(from).filter((line) => line.includes('upload count not taken back'));
    const asUser = async () => {
      const user = newId();
      return { user, token: await h.tokenFor(user) };
    };
    before(() => setClock(new Date(`${DAY}T10:00:00.000Z`)));
    after(() => setClock(undefined));

    it('the count landed, the signing after it failing: 503; it stays counted (logged) and the key answers it', async () => {
      const { user, token } = await asUser();
      // Signing makes no request (a fault inside the SDK's retry loop never reaches it): it is failed
      // in the S3 client's first step instead, with a server error.
      let signing = 0;
      intercept(
        's3',
        // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
        (next: any, context: any) => async (args: any) => {
          if (context.commandName !== 'PutObjectCommand') return next(args);
          signing++;
          throw sdkError('server');
        },
        'initialize',
      );
      const takeBack = failingTakeBack();
      const logged = scan.texts.length;
      const failed = await upload(token, 'signing-failed');
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      assert.deepEqual([signing, takeBack.attempts()], [1, 3]);
      const day = await allowanceOf(user);
      assert.deepEqual([day?.bytes, day?.uploads, day?.counted_ids?.size], [body.size, 1, 1]);
      const [uploadId] = day!.counted_ids!;
      assert.deepEqual(
        notTakenBack(logged).map((line) => JSON.parse(line).upload_id),
        [uploadId],
      );
      assert.equal((await claimOf(user, 'signing-failed'))?.id, uploadId);
      const retry = await upload(token, 'signing-failed');
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.body.key, `uploads/${user}/${uploadId}/${body.filename}`);
      assert.deepEqual(await allowanceOf(user).then((d) => [d?.bytes, d?.uploads]), [body.size, 1]);
    });

    it('the count landed, its answers lost: 503; it stays counted (logged) and the key answers it, counted once', async () => {
      const { user, token } = await asUser();
      // The count lands and its answer is lost; the SDK's resends fail.
      inject('dynamo', {
        commands: /^Update/,
        failing: (n) => n === 1,
        kind: 'server',
        afterSend: true,
        about: 'NOT contains',
      });
      inject('dynamo', { commands: /^Update/, failing: (n) => n > 1, kind: 'server', about: 'NOT contains' });
      const takeBack = failingTakeBack();
      const logged = scan.texts.length;
      const failed = await upload(token, 'count-landed');
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      assert.equal(takeBack.attempts(), 3, 'the take-back failed on each of the SDK’s attempts');
      // The allowance errs on the strict side: the upload stays counted, and the log says which.
      const day = await allowanceOf(user);
      assert.deepEqual([day?.bytes, day?.uploads, day?.counted_ids?.size], [body.size, 1, 1]);
      const [uploadId] = day!.counted_ids!;
      assert.deepEqual(
        notTakenBack(logged).map((line) => JSON.parse(line).upload_id),
        [uploadId],
      );
      // The key is claimed again for that upload: the retry answers it, counted once.
      assert.equal((await claimOf(user, 'count-landed'))?.id, uploadId);
      const retry = await upload(token, 'count-landed');
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.body.key, `uploads/${user}/${uploadId}/${body.filename}`);
      assert.equal((await upload(token, 'count-landed')).body.key, retry.body.key);
      const later = await allowanceOf(user);
      assert.deepEqual([later?.bytes, later?.uploads, [...later!.counted_ids!]], [body.size, 1, [uploadId]]);
    });

    it('the count never landed: 503, nothing counted; the key is held for the retry, which counts it once', async () => {
      const { user, token } = await asUser();
      const count = inject('dynamo', {
        commands: /^Update/,
        failing: () => true,
        kind: 'throttle',
        about: 'NOT contains',
      });
      const takeBack = failingTakeBack();
      const logged = scan.texts.length;
      const failed = await upload(token, 'count-lost');
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      assert.deepEqual([count.attempts(), takeBack.attempts()], [3, 3]);
      assert.equal(await allowanceOf(user), undefined, 'nothing counted');
      // Not known to have landed: logged as not taken back, the key claimed again all the same.
      const claim = await claimOf(user, 'count-lost');
      assert.deepEqual(
        notTakenBack(logged).map((line) => JSON.parse(line).upload_id),
        [claim?.id],
      );
      const retry = await upload(token, 'count-lost');
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.body.key, `uploads/${user}/${claim?.id}/${body.filename}`);
      const day = await allowanceOf(user);
      assert.deepEqual([day?.bytes, day?.uploads, [...day!.counted_ids!]], [body.size, 1, [claim?.id]]);
    });

    it('the count landed, its take-back and the key’s re-claim both failing: the retry counts it again (documented)', async () => {
      const { user, token } = await asUser();
      inject('dynamo', {
        commands: /^Update/,
        failing: (n) => n === 1,
        kind: 'server',
        afterSend: true,
        about: 'NOT contains',
      });
      inject('dynamo', { commands: /^Update/, failing: (n) => n > 1, kind: 'server', about: 'NOT contains' });
      failingTakeBack();
      // The claim lands; claiming the key again for the counted upload fails.
      inject('dynamo', { commands: /^Put/, failing: (n) => n > 1, kind: 'server', about: 'IDEMPOTENCY#' });
      const logged = scan.texts.length;
      const failed = await upload(token, 'claim-lost');
      clearFaults();
      assert.equal(failed.status, 503, failed.text);
      const [uploadId] = (await allowanceOf(user))!.counted_ids!;
      assert.equal(await claimOf(user, 'claim-lost'), undefined, 'the key was given back');
      // Nothing ties the key to the counted upload any more: the retry is another upload, counted too
      // (the strict side); the log names the first one's id, the operator's to give back.
      const retry = await upload(token, 'claim-lost');
      assert.equal(retry.status, 200, retry.text);
      assert.notEqual(retry.body.key, `uploads/${user}/${uploadId}/${body.filename}`);
      const day = await allowanceOf(user);
      assert.deepEqual([day?.bytes, day?.uploads, day?.counted_ids?.size], [2 * body.size, 2, 2]);
      assert.deepEqual(
        notTakenBack(logged).map((line) => JSON.parse(line).upload_id),
        [uploadId],
      );
    });

    it('the count refused (429): nothing to take back, none tried; the key is given back', async () => {
      const { user, token } = await asUser();
      await useDailyAllowance(user, UPLOAD_LIMITS.daily.bytes, new Date(`${DAY}T09:00:00.000Z`));
      const takeBack = failingTakeBack();
      const logged = scan.texts.length;
      const refused = await upload(token, 'count-refused');
      clearFaults();
      assert.equal(refused.status, 429, refused.text);
      // The 429 is sure: the update's condition refused it and the read found no id of it counted.
      assert.equal(takeBack.attempts(), 0, 'no take-back sent for a count refused');
      assert.deepEqual(notTakenBack(logged), []);
      assert.equal(await claimOf(user, 'count-refused'), undefined, 'the key is given back');
      const day = await allowanceOf(user);
      assert.deepEqual(
        [day?.bytes, day?.uploads, day?.counted_ids],
        [UPLOAD_LIMITS.daily.bytes, 1, undefined],
      );
      assert.equal((await upload(token, 'count-refused')).status, 429);
    });
  });

  // A three-way race for a brand's last place: the first attempt (A) writes its kit and its count is
  // held; its twin (B, the client's retry) reads the brand with a place left, seals A's claim, reads A's
  // kit uncounted and completes it, its count held too; a third save (C, another request) takes the last
  // place. Both counts are refused (409): A leaves the kit to B (its give-back fails: sealed), so B must
  // take it back, or it stays uncounted past the brand's limit.
  it("POST /brand-kits: a twin completing a save that the brand's last place then refuses takes the kit back", {
    timeout: 30_000,
  }, async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Last place, three ways' } })).body;
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: brandKeys.brand(brand.id),
        UpdateExpression: 'SET brand_kit_count = :n',
        ExpressionAttributeValues: { ':n': BRAND_KIT_LIMITS.perBrand - 1 },
      }),
    );
    const headers = { 'idempotency-key': `three-ways-${newId()}` };
    const json = { brand_id: brand.id, name: `three ways ${newId()}` };
    const [kitWritten, twinCounting, lastPlaceTaken] = [signal(), signal(), signal()];
    let kitOfA: string | undefined;
    let countOfA: string | undefined;
    intercept(
      'dynamo',
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const command = String(context.commandName);
        const input = JSON.stringify(args.input);
        if (/^Put/.test(command) && input.includes('"KIT#') && !kitOfA) {
          kitOfA = args.input.Item.id.S as string;
          const answer = await next(args);
          kitWritten.done();
          return answer;
        }
        // A's count, then B's (the same kit's, told by their invocation ids): held until C has taken
        // the last place.
        if (/^Update/.test(command) && input.includes('NOT contains') && kitOfA && input.includes(kitOfA)) {
          const invocation = args.request?.headers?.['amz-sdk-invocation-id'];
          assert.ok(invocation);
          countOfA ??= invocation;
          if (invocation !== countOfA) twinCounting.done();
          await lastPlaceTaken.landed;
        }
        return next(args);
      },
    );
    const first = h.call('POST', '/api/v1/brand-kits', { json, headers });
    await kitWritten.landed;
    const twin = h.call('POST', '/api/v1/brand-kits', { json, headers });
    await twinCounting.landed;
    const third = await h.call('POST', '/api/v1/brand-kits', { json: { brand_id: brand.id, name: 'third' } });
    lastPlaceTaken.done();
    const [failed, twinAnswer] = await Promise.all([first, twin]);
    clearFaults();
    assert.equal(third.status, 201, third.text);
    assert.deepEqual([failed.status, twinAnswer.status], [409, 409], `${failed.text} ${twinAnswer.text}`);
    const kits = await kitsOfBrand(brand.id);
    assert.deepEqual(
      kits.map((kit) => kit.id),
      [third.body.id],
    );
    const stored = (await h.call('GET', `/api/v1/brands/${brand.id}`)).body;
    assert.equal(stored.brand_kit_count, BRAND_KIT_LIMITS.perBrand);
    // The key's retry is refused as the brand is full, and finds no kit of A's to answer.
    const retry = await h.call('POST', '/api/v1/brand-kits', { json, headers });
    assert.equal(retry.status, 409, retry.text);
  });

  it('no response or log line carries a secret', () => {
    const hits = scan.occurrences({
      client_secret: WORKSPACE_SECRETS.clientSecret,
      page_token: WORKSPACE_SECRETS.pageAccessToken,
      owner_bearer: h.owner.token,
      signing_secret: h.secret,
    });
    assert.ok(
      Object.values(hits).every((n) => n === 0),
      JSON.stringify(hits),
    );
  });
});
