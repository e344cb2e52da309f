// Concurrent writers against the embedded store: parallel creates, unsubscribes, credential saves and
// chat sends end in a state some serial order would have produced, with nothing lost or doubled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import { getItem } from '../../shared/db/store.ts';
import { readAdsCredentials } from '../../shared/workspaces/credentials.ts';
import { workspaceKeys } from '../../shared/workspaces/keys.ts';
import { ADS_PROVIDER } from '../../shared/workspaces/schemas.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import {
  authenticatedRoutes,
  figure,
  pathSeedKeys,
  routeKey,
  sampleRequest,
  seedResourcesFor,
  startExposureScan,
} from './support.ts';

const PARALLEL = 20;
let h: Harness;
let ids: SeedIds;
let scan: ReturnType<typeof startExposureScan>;
const results: Record<string, unknown> = {};

before(async () => {
  h = await startHarness();
  scan = startExposureScan();
  ids = await seedResourcesFor(h.owner.id);
});
after(async () => {
  scan.stop();
  figure('concurrency', results);
  await h.close();
});

const parallel = <T>(n: number, make: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => make(i)));

describe('concurrent writers', () => {
  // Every create route (a POST whose path names no parent id... or whose parent is the caller's).
  const creates = authenticatedRoutes.filter(
    (r) =>
      r.method === 'POST' && /\/(brands|projects|teams|workspaces|sessions|brand-kits|tasks)$/.test(r.path),
  );

  for (const route of creates)
    it(`${routeKey(route)}: ${PARALLEL} parallel creates, ${PARALLEL} distinct records`, async () => {
      const answers = await parallel(PARALLEL, () => {
        const spec = sampleRequest(route, ids);
        return h.call(spec.method, spec.url, spec.options);
      });
      for (const res of answers) assert.equal(res.status, 201, `${routeKey(route)}: ${res.text}`);
      const created = new Set(answers.map((res) => res.body.id));
      assert.equal(created.size, PARALLEL);
      results[`creates ${routeKey(route)}`] = created.size;
      assert.ok(Object.keys(pathSeedKeys(route)).length <= 1);
    });

  it('brand kits: parallel saves for one brand are all counted on it', async () => {
    const brand = (await h.call('POST', '/api/v1/brands', { json: { name: 'Kit counter brand' } })).body;
    const route = authenticatedRoutes.find((r) => r.entry === 'brand-kits/create-brand-kit')!;
    await parallel(PARALLEL, () => {
      const spec = sampleRequest(route, { ...ids, brand_id: brand.id });
      return h.call(spec.method, spec.url, spec.options);
    });
    const counted = (await h.call('GET', `/api/v1/brands/${brand.id}`)).body.brand_kit_count;
    assert.equal(counted, PARALLEL);
    results.brand_kit_count_after_parallel_saves = counted;
  });

  it('brands: a list after parallel creates shows every one of them', async () => {
    const count = async () => ((await h.call('GET', '/api/v1/brands?limit=100')).body as unknown[]).length;
    const before = await count();
    await parallel(PARALLEL, (i) =>
      h.call('POST', '/api/v1/brands', { json: { name: `Parallel brand ${i}` } }),
    );
    assert.equal(await count(), before + PARALLEL);
  });

  it('workspace tasks: a list after parallel creates shows every one of them', async () => {
    const url = `/api/v1/workspaces/${ids.workspace_id}/tasks`;
    const count = async () =>
      JSON.stringify((await h.call('GET', `${url}?limit=100`)).body).split('"id"').length;
    const before = await count();
    const spec = sampleRequest(
      authenticatedRoutes.find((r) => r.entry === 'workspaces/create-workspace-task')!,
      ids,
    );
    await parallel(PARALLEL, () => h.call('POST', url, spec.options));
    assert.equal(await count(), before + PARALLEL);
  });

  it(`unsubscribe: ${PARALLEL} parallel calls agree on one cancellation and one activity entry`, async () => {
    const url = `/api/v1/teams/${ids.team_id}`;
    const answers = await parallel(PARALLEL, () => h.call('POST', `${url}/unsubscribe`, { json: {} }));
    for (const res of answers) assert.equal(res.status, 200, res.text);
    const cancelledAt = new Set(answers.map((res) => res.body.cancelled_at));
    assert.equal(cancelledAt.size, 1, [...cancelledAt].join(', '));
    assert.equal(new Set(answers.map((res) => res.body.status)).size, 1);
    const activity = (await h.call('GET', `${url}/activity?limit=100`)).text;
    assert.equal(activity.split('team_unsubscribed').length - 1, 1);
    // A serial call afterwards changes nothing either.
    const again = await h.call('POST', `${url}/unsubscribe`, { json: {} });
    assert.equal(again.body.cancelled_at, [...cancelledAt][0]);
    results.unsubscribe = { calls: PARALLEL + 1, cancelled_at_values: cancelledAt.size, activity_entries: 1 };
  });

  it(`credential saves: ${PARALLEL} parallel PUTs, the last write wins whole, every save counted`, async () => {
    const keys = workspaceKeys.integration(ids.workspace_id!, ADS_PROVIDER);
    const revisionBefore = (await getItem<{ revision: number }>(keys))?.revision ?? 0;
    const url = `/api/v1/workspaces/${ids.workspace_id}/integrations/ads-provider/credentials`;
    const answers = await parallel(PARALLEL, (i) =>
      h.call('PUT', url, {
        json: {
          client_id: `${1_000_000_000_000_000 + i}`,
          client_secret: `parallel-secret-${i}-never-shown`,
        },
      }),
    );
    for (const res of answers) assert.equal(res.status, 200, res.text);
    const stored = await readAdsCredentials(ids.workspace_id!);
    // Id and secret come from the same request: no torn write mixing two of them.
    const i = Number(stored!.client_id) - 1_000_000_000_000_000;
    assert.ok(i >= 0 && i < PARALLEL);
    assert.equal(stored!.client_secret, `parallel-secret-${i}-never-shown`);
    const revision = (await getItem<{ revision: number }>(keys))!.revision;
    assert.equal(revision - revisionBefore, PARALLEL);
    results.credential_saves = { saves: PARALLEL, revisions_counted: revision - revisionBefore };
    const hits = scan.occurrences({ secret: 'never-shown' });
    assert.equal(hits.secret, 0, 'a saved client secret appeared in a response or a log line');
  });

  it(`chat: ${PARALLEL} parallel sends are all stored once; ${PARALLEL} sends with one Idempotency-Key store one`, async () => {
    const url = `/api/v1/chat/sessions/${ids.chat_session_id}/messages`;
    const list = async () => (await h.call('GET', `${url}?limit=100`)).text;
    const sent = await parallel(PARALLEL, (i) =>
      h.call('POST', url, { json: { content: `parallel message ${i}.` } }),
    );
    for (const res of sent) assert.equal(res.status, 201, res.text);
    const afterSends = await list();
    for (let i = 0; i < PARALLEL; i++) assert.equal(afterSends.split(`parallel message ${i}.`).length - 1, 1);
    const same = await parallel(PARALLEL, () =>
      h.call('POST', url, {
        json: { content: 'only once.' },
        headers: { 'idempotency-key': 'concurrency-1' },
      }),
    );
    for (const res of same) assert.equal(res.status, 201, res.text);
    assert.equal(new Set(same.map((res) => res.body.id)).size, 1);
    assert.equal((await list()).split('only once.').length - 1, 1);
    results.chat = { parallel_sends: PARALLEL, same_key_sends: PARALLEL, messages_stored_for_key: 1 };
  });
});
