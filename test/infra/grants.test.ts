// The route table's grant declarations against what the handlers really send. Every route is called on
// the embedded stores (its sample request, then the object paths: direct uploads, draft and kit logos,
// avatar videos and consent, attachments, the catalogue, a rolled-back avatar) while each DynamoDB and
// S3 request is recorded, presigned URLs included; each must be allowed by its route's declarations,
// a missing object included (S3 answers 404 only to a caller that may list the key). And the key
// grant's encryption context is the one shared/crypto/kms.ts sends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as importCatalogFeed } from '../../functions/shopping/import-catalog-feed.ts';
import { type Grants, tableOperationOf, tableRefusal } from '../../infra/grants.ts';
import { buildEvent } from '../../infra/local/events.ts';
import { invoke } from '../../infra/local/handlers.ts';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import {
  CATALOG_IMPORT_ENTRY,
  CATALOG_IMPORT_GRANTS,
  type Route,
  routeKey,
  routes,
} from '../../infra/routes.ts';
import { avatarObjects } from '../../shared/avatars/keys.ts';
import { signProviderMessage } from '../../shared/avatars/signature.ts';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { brandKitLogoKey, draftLogoKey } from '../../shared/brand-kits/keys.ts';
import { config } from '../../shared/config.ts';
import { SECRETS_ENCRYPTION_CONTEXT } from '../../shared/crypto/encryption-context.ts';
import { decryptDataKey, generateDataKey, kms, resetKms } from '../../shared/crypto/kms.ts';
import { newId } from '../../shared/ids.ts';
import { CATALOG_KEYS } from '../../shared/shopping/keys.ts';
import { KEPT_SNAPSHOTS } from '../../shared/shopping/snapshots.ts';
import { setContentCadence } from '../../shared/teams/agents.ts';
import { userUploadPrefix } from '../../shared/uploads/keys.ts';
import { UPLOAD_LIMITS, UPLOAD_MAX_BYTES } from '../../shared/uploads/schemas.ts';
import { workspaceKeys } from '../../shared/workspaces/keys.ts';
import { avatarTeam, CONSENT_SIZE, mp4, multipart, SECRET, unixNow, videoPart } from '../avatars/support.ts';
import { guidelinePdf, logoPng } from '../brand-kits/fixtures.ts';
import { sampleRequest, seedResourcesFor } from '../hardening/support.ts';
import { shortDynamoPages } from '../support/aws-requests.ts';
import { type CallOptions, type Harness, startHarness } from '../support/harness.ts';

interface Sent {
  client: 'dynamodb' | 's3';
  command: string;
  input: Record<string, unknown>;
  status?: number;
}

interface MiddlewareStack {
  add(middleware: unknown, options: { step: string; name: string; priority?: string }): void;
  remove(name: string): boolean;
}

let h: Harness;
let ids: SeedIds;
/** Requests by route (the one being called when they were sent). */
const sent = new Map<Route, Sent[]>();
let current: Route | undefined;
/** Fail the next request of this command with a server error (a rolled-back write), other than the
 * upload allowance's UpdateItem (the avatar upload counts its consent URL before anything is written). */
let failNext: 'UpdateItemCommand' | 'PutItemCommand' | undefined;

const stacks = () => ({
  dynamodb: dynamo().middlewareStack as unknown as MiddlewareStack,
  s3: s3().middlewareStack as unknown as MiddlewareStack,
});

before(async () => {
  process.env.AVATAR_PROVIDER_SECRET = SECRET;
  h = await startHarness();
  ids = await seedResourcesFor(h.owner.id);
  for (const [client, stack] of Object.entries(stacks()) as ['dynamodb' | 's3', MiddlewareStack][])
    stack.add(
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (next: any, context: any) => async (args: any) => {
        const request: Sent = { client, command: String(context.commandName), input: args.input ?? {} };
        if (current) sent.get(current)?.push(request);
        if (
          client === 'dynamodb' &&
          failNext === request.command &&
          !JSON.stringify(request.input).includes('UPLOADS#')
        ) {
          failNext = undefined;
          throw Object.assign(new Error('injected'), {
            name: 'InternalServerError',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        }
        try {
          const result = await next(args);
          // The bucket is versioned on AWS (s3rver keeps no versions): a ranged GET reports the version.
          if (
            client === 's3' &&
            request.command === 'GetObjectCommand' &&
            request.input.Range &&
            result?.output
          )
            result.output.VersionId ??= 'version-checked';
          return result;
        } catch (error) {
          request.status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          throw error;
        }
      },
      { step: 'initialize', name: 'grants-recorder' },
    );
});
after(async () => {
  for (const stack of Object.values(stacks())) stack.remove('grants-recorder');
  delete process.env.AVATAR_PROVIDER_SECRET;
  await h.close();
});

const routeOf = (entry: string) => routes.find((r) => r.entry === entry)!;

/** The catalogue import, which no route reaches, checked like one: its declarations, its requests. */
const catalogImport: Route = {
  method: 'POST',
  path: `(S3 Object Created under ${CATALOG_KEYS.feedsPrefix})`,
  entry: CATALOG_IMPORT_ENTRY,
  auth: false,
  ...CATALOG_IMPORT_GRANTS,
};

/** Calls `entry`'s route as the owner, recording what its handler sends. */
async function call(entry: string, url: string, options: CallOptions = {}) {
  const route = routeOf(entry);
  if (!sent.has(route)) sent.set(route, []);
  current = route;
  try {
    return await h.call(route.method, url, options);
  } finally {
    current = undefined;
  }
}

/** Puts an object under the owner's uploads, outside any route (the browser's PUT). */
async function upload(name: string, body: Uint8Array, type: string) {
  const key = `${userUploadPrefix(h.owner.id)}${newId()}/${name}`;
  await s3().send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, ContentType: type }),
  );
  return key;
}

const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
const allows = (patterns: readonly string[] | undefined, key: string) =>
  (patterns ?? []).some((pattern) => glob(pattern).test(key));

/** Why `request` would be refused under a function's declarations, or undefined when it is allowed. */
function refusal(grants: Grants, request: Sent): string | undefined {
  const { command, input } = request;
  if (request.client === 'dynamodb') return tableRefusal(grants, command, input);
  const bucket = grants.bucket ?? {};
  const key = String(input.Key ?? '');
  const missing = request.status === 404;
  const need = (patterns: readonly string[] | undefined, what: string, k: string) =>
    allows(patterns, k) ? undefined : `${command} needs ${what} on ${k}`;
  const listed = (k: string) =>
    missing && !allows(bucket.list, k) ? `${command} of a missing ${k} needs list` : undefined;
  switch (command) {
    case 'GetObjectCommand':
    case 'HeadObjectCommand':
      if (input.VersionId !== undefined) return need(bucket.readVersions, 'readVersions', key);
      return need(bucket.read, 'read', key) ?? listed(key);
    case 'PutObjectCommand':
      return need(bucket.write, 'write', key);
    case 'DeleteObjectCommand':
      return need(bucket.delete, 'delete', key);
    case 'ListObjectsV2Command':
      return need(bucket.list, 'list', String(input.Prefix ?? ''));
    case 'CopyObjectCommand': {
      const source = decodeURIComponent(String(input.CopySource).slice(`${config.bucketName}/`.length));
      return need(bucket.write, 'write', key) ?? need(bucket.read, 'read', source) ?? listed(source);
    }
    default:
      return `${command} is granted to no route`;
  }
}

describe('the route table grants what the handlers send', () => {
  it('calls every route, then the paths that touch objects', async () => {
    for (const route of routes) {
      const spec = sampleRequest(route, ids);
      await call(route.entry, spec.url, spec.options);
    }
    // Every list again past an offset its first page does not reach (pages of one): gsi1's windows
    // walk its slim view (the workspace task list's whole list, its status partitions').
    const undoShortPages = shortDynamoPages(1);
    try {
      for (const route of routes.filter((r) => r.method === 'GET')) {
        const spec = sampleRequest(route, ids);
        const offset = `${spec.url}${spec.url.includes('?') ? '&' : '?'}offset=2`;
        await call(route.entry, offset, spec.options);
      }
      const statusOffset = `/api/v1/workspaces/${ids.workspace_id}/tasks?status=pending&offset=2`;
      assert.equal((await call('workspaces/list-workspace-tasks', statusOffset)).status, 200);
    } finally {
      undoShortPages();
    }
    // A second unsubscribe reads the team it finds cancelled already.
    const unsubscribe = sampleRequest(routeOf('teams/unsubscribe-team'), ids);
    assert.equal((await call('teams/unsubscribe-team', unsubscribe.url, unsubscribe.options)).status, 200);
    // Direct uploads: a presigned PUT.
    assert.equal(
      (
        await call('uploads/create-upload', '/api/v1/uploads', {
          json: {
            filename: 'guidelines.pdf',
            content_type: 'application/pdf',
            size: 1000,
          },
        })
      ).status,
      200,
    );
    // One past a user's daily allowance: the refused update is read back (its own resend, or the limit).
    const spender = await h.tokenFor(newId());
    const largest = { filename: 'v.mp4', content_type: 'video/mp4', size: UPLOAD_MAX_BYTES['video/mp4'] };
    const statuses: number[] = [];
    for (let i = 0; i <= UPLOAD_LIMITS.daily.bytes / largest.size; i++)
      statuses.push(
        (await call('uploads/create-upload', '/api/v1/uploads', { json: largest, token: spender })).status,
      );
    assert.equal(statuses.at(-1), 429);
    // With an Idempotency-Key: an upload and its retry (the claim sealed, the allowance read), and one
    // past the allowance (its claim given back).
    const uploadKeyed = { 'idempotency-key': `grants-${newId()}` };
    const keyedUpload = { filename: 'notes.txt', content_type: 'text/plain', size: 10 };
    const slots = [];
    for (let i = 0; i < 2; i++)
      slots.push(
        await call('uploads/create-upload', '/api/v1/uploads', { json: keyedUpload, headers: uploadKeyed }),
      );
    assert.deepEqual(
      slots.map((slot) => slot.status),
      [200, 200],
    );
    assert.equal(slots[1]!.body.key, slots[0]!.body.key);
    const refusedUpload = await call('uploads/create-upload', '/api/v1/uploads', {
      json: largest,
      token: spender,
      headers: { 'idempotency-key': `grants-${newId()}` },
    });
    assert.equal(refusedUpload.status, 429, refusedUpload.text);

    // A draft from a direct upload (HeadObject, GetObject; logos put and presigned), and from none.
    const pdf = await upload('guidelines.pdf', await guidelinePdf(), 'application/pdf');
    const draft = await call('brand-kits/generate-from-upload', '/api/v1/brand-kits/generate-from-upload', {
      json: { upload_key: pdf },
    });
    assert.equal(draft.status, 200, draft.text);
    assert.ok(draft.body.logo_key, 'the document has a logo');
    const missingUpload = `${userUploadPrefix(h.owner.id)}${newId()}/gone.pdf`;
    const gone = await call('brand-kits/generate-from-upload', '/api/v1/brand-kits/generate-from-upload', {
      json: { upload_key: missingUpload },
    });
    assert.equal(gone.status, 404);

    // Saving kits: logos copied from a draft, an upload and a kit; a missing logo; a refused brand.
    const png = await upload('logo.png', logoPng(), 'image/png');
    const kit = await call('brand-kits/create-brand-kit', '/api/v1/brand-kits', {
      json: { name: 'Grants', brand_id: ids.brand_id, logo_key: draft.body.logo_key, logo_icon_key: png },
    });
    assert.equal(kit.status, 201, kit.text);
    const again = await call('brand-kits/create-brand-kit', '/api/v1/brand-kits', {
      json: { name: 'Again', logo_key: kit.body.logo_key },
    });
    assert.equal(again.status, 201, again.text);
    // Each missing source is a 404 of its own prefix (the copies run side by side).
    const noLogo = await call('brand-kits/create-brand-kit', '/api/v1/brand-kits', {
      json: {
        name: 'Missing',
        logo_key: png,
        logo_icon_key: `${userUploadPrefix(h.owner.id)}${newId()}/x.png`,
        logo_dark_key: draftLogoKey(h.owner.id, newId(), 'dark'),
        logo_square_key: brandKitLogoKey(h.owner.id, newId()),
      },
    });
    assert.equal(noLogo.status, 404);
    const noBrand = await call('brand-kits/create-brand-kit', '/api/v1/brand-kits', {
      json: { name: 'Stranger', brand_id: newId(), logo_key: png },
    });
    assert.equal(noBrand.status, 404);
    assert.equal((await call('brand-kits/get-brand-kit', `/api/v1/brand-kits/${kit.body.id}`)).status, 200);

    // Avatars: a direct upload used (and one missing), a multipart upload rolled back, status
    // without and with consent, the provider's callback.
    const team = await avatarTeam(h.owner.id);
    const video = await upload('me.mp4', mp4(), 'video/mp4');
    const missingVideo = await call('teams/avatar-upload', `/api/v1/teams/${team}/avatar/upload`, {
      json: {
        upload_key: `${userUploadPrefix(h.owner.id)}${newId()}/gone.mp4`,
        consent_attestation: true,
        consent_size: CONSENT_SIZE,
      },
    });
    assert.equal(missingVideo.status, 404);
    failNext = 'UpdateItemCommand';
    const rolledBack = await call('teams/avatar-upload', `/api/v1/teams/${team}/avatar/upload`, {
      ...multipart({ video: videoPart(), consent_attestation: 'true', consent_size: String(CONSENT_SIZE) }),
    });
    assert.equal(rolledBack.status, 503, rolledBack.text);
    const avatar = await call('teams/avatar-upload', `/api/v1/teams/${team}/avatar/upload`, {
      json: { upload_key: video, consent_attestation: true, consent_size: CONSENT_SIZE },
    });
    assert.equal(avatar.status, 202, avatar.text);
    assert.equal((await call('teams/avatar-status', `/api/v1/teams/${team}/avatar/status`)).status, 200);
    const consent = avatarObjects.consent(team, avatar.body.avatar_id, 'mp4');
    await s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key: consent, Body: mp4() }));
    const status = await call('teams/avatar-status', `/api/v1/teams/${team}/avatar/status`);
    assert.equal(status.body.consent_received, true, status.text);
    const report = (avatarId: string) => {
      const body = JSON.stringify({ event_id: newId(), team_id: team, avatar_id: avatarId, status: 'ready' });
      return call('avatar-provider/callback', '/api/v1/avatar-provider/callback', {
        token: null,
        body,
        headers: {
          'content-type': 'application/json',
          'x-avatar-signature': signProviderMessage(SECRET, unixNow(), body),
        },
      });
    };
    assert.equal((await report(avatar.body.avatar_id)).body.status, 'ready');
    // A second avatar, reported ready before its consent arrived: it fails.
    const second = await call('teams/avatar-upload', `/api/v1/teams/${team}/avatar/upload`, {
      ...multipart({ video: videoPart(), consent_attestation: 'true', consent_size: String(CONSENT_SIZE) }),
    });
    assert.equal(second.status, 202, second.text);
    assert.equal((await report(second.body.avatar_id)).body.status, 'failed');

    // Chat: an attachment that exists and one that does not.
    const session = ids.chat_session_id!;
    const attached = await call('chat/send-message', `/api/v1/chat/sessions/${session}/messages`, {
      json: { content: 'See attached', attachments: [{ key: png }] },
    });
    assert.equal(attached.status, 201, attached.text);
    const unattached = await call('chat/send-message', `/api/v1/chat/sessions/${session}/messages`, {
      json: { content: 'See attached', attachments: [{ key: missingUpload }] },
    });
    assert.equal(unattached.status, 422, unattached.text);
    // With an Idempotency-Key: a send and its retry (which seals the claim), and a refused send (its
    // claim given back).
    const messages = `/api/v1/chat/sessions/${session}/messages`;
    const keyed = { 'idempotency-key': `grants-${newId()}` };
    const once = await call('chat/send-message', messages, { json: { content: 'Once' }, headers: keyed });
    assert.equal(once.status, 201, once.text);
    const retried = await call('chat/send-message', messages, { json: { content: 'Once' }, headers: keyed });
    assert.equal(retried.body.id, once.body.id);
    const refusedKeyed = await call('chat/send-message', messages, {
      json: { content: 'See attached', attachments: [{ key: missingUpload }] },
      headers: { 'idempotency-key': `grants-${newId()}` },
    });
    assert.equal(refusedKeyed.status, 422, refusedKeyed.text);
    // The creates with an Idempotency-Key: each and its retry (sealing the claim, reading the record),
    // and, where the create refuses a valid body, a refused one (its claim given back).
    const strangersBrand = await h.call('POST', '/api/v1/brands', {
      json: { name: 'Not yours' },
      token: h.other.token,
    });
    const keyedTeam = { team_type: 'content', tier: 'pro', operation_mode: 'auto', display_name: 'Keyed' };
    const task = { skill_slug: 'post', title: 'Keyed', hired_agent_id: newId() };
    const keyedCreates: [
      entry: string,
      url: string,
      json: object,
      refusal?: { url?: string; json: object },
    ][] = [
      ['brands/create-brand', '/api/v1/brands', { name: 'Keyed' }],
      ['shopping/create-session', '/api/v1/shopping/sessions', { title: 'Keyed' }],
      ['projects/create-project', '/api/v1/projects', { title: 'Keyed', tasks: [{ title: 'Staged' }] }],
      ['workspaces/create-workspace', '/api/v1/workspaces', { name: 'Keyed' }],
      [
        'teams/create-team',
        '/api/v1/teams',
        keyedTeam,
        { json: { ...keyedTeam, brand_id: strangersBrand.body.id } },
      ],
      [
        'chat/create-session',
        '/api/v1/chat/sessions',
        { title: 'Keyed' },
        { json: { title: 'Keyed', team_id: newId() } },
      ],
      [
        'workspaces/create-workspace-task',
        `/api/v1/workspaces/${ids.workspace_id}/tasks`,
        task,
        { url: `/api/v1/workspaces/${newId()}/tasks`, json: task },
      ],
    ];
    for (const [entry, url, json, refusal] of keyedCreates) {
      const headers = { 'idempotency-key': `grants-${newId()}` };
      const first = await call(entry, url, { json, headers });
      assert.equal(first.status, 201, first.text);
      const again = await call(entry, url, { json, headers });
      assert.equal(again.body.id, first.body.id, again.text);
      if (!refusal) continue;
      const refused = await call(entry, refusal.url ?? url, {
        json: refusal.json,
        headers: { 'idempotency-key': `grants-${newId()}` },
      });
      assert.equal(refused.status, 404, refused.text);
    }

    // A project whose item write fails, without a key: the project item and its tasks are deleted.
    failNext = 'PutItemCommand';
    const failedProject = await call('projects/create-project', '/api/v1/projects', {
      json: { title: 'Undone', tasks: [{ title: 'Staged' }] },
    });
    assert.equal(failedProject.status, 503, failedProject.text);

    // A kit save whose brand count fails: the kit is deleted again and the count taken back.
    const undoneBrand = await call('brands/create-brand', '/api/v1/brands', { json: { name: 'Undone' } });
    failNext = 'UpdateItemCommand';
    const undone = await call('brand-kits/create-brand-kit', '/api/v1/brand-kits', {
      json: { name: 'Undone', brand_id: undoneBrand.body.id },
    });
    assert.equal(undone.status, 503, undone.text);

    // A calendar planned again after the team's cadence was emptied: the slots it no longer plans go.
    // A team of its own, planned next week: the sample's team was created a moment ago and is
    // cancelled (the unsubscribe above), so it has no slot to store (none before its creation, none
    // after its end).
    const creation = sampleRequest(routeOf('teams/create-team'), ids);
    const planner = await call('teams/create-team', creation.url, creation.options);
    assert.equal(planner.status, 201, planner.text);
    const nextWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const calendar = `/api/v1/teams/${planner.body.id}/calendar/generate?start=${nextWeek}`;
    const planned = await call('teams/generate-calendar', calendar);
    assert.ok(planned.body.entries?.length > 0, planned.text);
    await setContentCadence(planner.body.id, []);
    const replanned = await call('teams/generate-calendar', calendar);
    assert.deepEqual([replanned.status, replanned.body.entries], [200, []], replanned.text);

    // Workspace tasks without a status filter (the workspace's own partition, not the status index).
    const tasks = sampleRequest(routeOf('workspaces/list-workspace-tasks'), ids);
    const allTasks = await call('workspaces/list-workspace-tasks', tasks.url.split('?')[0]!);
    assert.equal(allTasks.status, 200, allTasks.text);
    // A member item from before member items carried the workspace's summary: read from the workspace.
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: workspaceKeys.member(ids.workspace_id!, h.owner.id),
        UpdateExpression: 'REMOVE workspace',
      }),
    );
    const workspaces = await call('workspaces/list-workspaces', '/api/v1/workspaces');
    assert.ok(
      workspaces.body.some((w: { id: string }) => w.id === ids.workspace_id),
      workspaces.text,
    );

    // The catalogue import, past the snapshots it keeps: it reads a feed, reads and writes the
    // catalogue, lists the snapshots and deletes the oldest.
    sent.set(catalogImport, []);
    const feed = `${CATALOG_KEYS.feedsPrefix}ucp/grants.example/feed.tsv`;
    await s3().send(
      new PutObjectCommand({
        Bucket: config.bucketName,
        Key: feed,
        Body: 'id\ttitle\tlink\tprice\ng1\tLamp\thttps://grants.example/g1\t5.00 USD\n',
      }),
    );
    for (let i = 0; i <= KEPT_SNAPSHOTS; i++) {
      current = catalogImport;
      try {
        const [report] = await importCatalogFeed({ detail: { object: { key: feed } } });
        assert.equal((report as { imported?: number }).imported, 1, JSON.stringify(report));
      } finally {
        current = undefined;
      }
    }

    for (const route of [...routes, catalogImport])
      if (route.table || route.bucket)
        assert.ok((sent.get(route) ?? []).length > 0, `${route.entry} sent nothing`);
  });

  it('each request is allowed by its route, a missing object included', () => {
    const refused = [...sent].flatMap(([route, requests]) =>
      requests.flatMap((request) => {
        const why = refusal(route, request);
        return why ? [`${routeKey(route)}: ${why}`] : [];
      }),
    );
    assert.deepEqual([...new Set(refused)], []);
  });

  it('no route declares an object grant the calls above never use', () => {
    const used = new Set<string>();
    for (const [route, requests] of sent)
      for (const request of requests.filter((r) => r.client === 's3')) {
        const bucket = route.bucket ?? {};
        const key = String(request.input.Key ?? '');
        const mark = (kind: keyof typeof bucket, k: string) => {
          for (const pattern of bucket[kind] ?? [])
            if (glob(pattern).test(k)) used.add(`${route.entry} ${kind} ${pattern}`);
        };
        if (request.command === 'CopyObjectCommand') {
          const source = decodeURIComponent(
            String(request.input.CopySource).slice(`${config.bucketName}/`.length),
          );
          mark('read', source);
          if (request.status === 404) mark('list', source);
          mark('write', key);
        } else if (request.command === 'PutObjectCommand') mark('write', key);
        else if (request.command === 'DeleteObjectCommand') mark('delete', key);
        else if (request.command === 'ListObjectsV2Command') mark('list', String(request.input.Prefix));
        else if (request.input.VersionId !== undefined) mark('readVersions', key);
        else {
          mark('read', key);
          if (request.status === 404) mark('list', key);
        }
      }
    const declared = [...routes, catalogImport].flatMap((route) =>
      (['read', 'write', 'delete', 'list'] as const).flatMap((kind) =>
        (route.bucket?.[kind] ?? []).map((pattern) => `${route.entry} ${kind} ${pattern}`),
      ),
    );
    assert.deepEqual(
      declared.filter((d) => !used.has(d)),
      [],
    );
  });

  it('no route is granted a table operation the calls above never make', () => {
    const unused = routes.flatMap((route) => {
      const used = new Set(
        (sent.get(route) ?? []).flatMap((r) =>
          r.client === 'dynamodb' && !r.input.IndexName ? [tableOperationOf(r.command)] : [],
        ),
      );
      return (route.table ?? [])
        .filter((operation) => !used.has(operation))
        .map((op) => `${route.entry} ${op}`);
    });
    assert.deepEqual(unused, []);
  });

  it('every route that queries an index declares it, and no other', () => {
    for (const route of routes) {
      const queried = new Set(
        (sent.get(route) ?? []).flatMap((r) => (r.input.IndexName ? [String(r.input.IndexName)] : [])),
      );
      assert.deepEqual([...queried].sort(), [...(route.indexes ?? [])].sort(), route.entry);
    }
  });
});

describe('the local runtime', () => {
  it('refuses a table request its route does not declare, as IAM would on AWS (a 500, nothing written)', async () => {
    const route = routeOf('brands/create-brand');
    const name = `Ungranted ${newId()}`;
    const event = (declared: Route) =>
      buildEvent(
        declared,
        {},
        {
          method: 'POST',
          url: '/api/v1/brands',
          headers: { authorization: `Bearer ${h.owner.token}`, 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ name })),
        },
      );
    const refused = await invoke({ ...route, table: ['GetItem'] }, event({ ...route, table: ['GetItem'] }));
    assert.equal(refused.statusCode, 500);
    const listed = await h.call('GET', '/api/v1/brands?limit=100');
    assert.ok(!listed.body.some((brand: { name: string }) => brand.name === name), 'nothing written');
    // Its own declarations allow it.
    assert.equal((await invoke(route, event(route))).statusCode, 201);
  });
});

describe('the secrets key grant', () => {
  it('holds under the encryption context shared/crypto/kms.ts sends, for sealing and opening', async () => {
    const seen: Record<string, unknown> = {};
    const client = await kms();
    (client.middlewareStack as unknown as MiddlewareStack).add(
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
      (_next: any, context: any) => async (args: any) => {
        seen[String(context.commandName)] = args.input.EncryptionContext;
        const bytes = new Uint8Array(32);
        return { output: { Plaintext: bytes, CiphertextBlob: bytes, $metadata: {} } };
      },
      { step: 'initialize', name: 'kms-context' },
    );
    try {
      await generateDataKey('key-id');
      await decryptDataKey(Buffer.alloc(32), 'key-id');
    } finally {
      resetKms();
    }
    assert.deepEqual(seen, {
      GenerateDataKeyCommand: SECRETS_ENCRYPTION_CONTEXT,
      DecryptCommand: SECRETS_ENCRYPTION_CONTEXT,
    });
  });
});
