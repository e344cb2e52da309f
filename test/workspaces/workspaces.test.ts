// Workspaces and membership: the creator is the owner member; anyone else gets the same 404 a
// missing workspace gives, on every workspace route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pathParameterNames, routes } from '../../infra/routes.ts';
import { put } from '../../shared/db/store.ts';
import { newId } from '../../shared/ids.ts';
import { workspaceKeys } from '../../shared/workspaces/keys.ts';
import { addMember, getMember } from '../../shared/workspaces/members.ts';
import { recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { lagReplica } from '../support/lagging-replica.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const create = (json: unknown, token?: string) => h.call('POST', '/api/v1/workspaces', { json, token });

/** A valid request for each workspace route (the body matters only to get past validation). */
const validBody: Record<string, unknown> = {
  'workspaces/save-ads-credentials': { client_id: 'id', client_secret: 'secret' },
  'workspaces/create-workspace-task': {
    skill_slug: 'ad-copy',
    title: 'Ad',
    hired_agent_id: '01a1fc6e-0000-7000-8000-000000000001',
  },
};
const workspaceRoutes = routes.filter((route) => pathParameterNames(route).includes('workspace_id'));

describe('POST /api/v1/workspaces and GET /api/v1/workspaces/{workspace_id}', () => {
  it('creates a workspace owned by the caller, with no integrations yet', async () => {
    const res = await create({ name: 'Growth' });
    assert.equal(res.status, 201);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        name: 'Growth',
        owner_id: h.owner.id,
        created_at: undefined,
        updated_at: undefined,
        integrations: [],
      },
    );
    const read = await h.call('GET', `/api/v1/workspaces/${res.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, res.body);
    // No route answers the role, but the stored membership must say who owns the workspace.
    assert.equal((await getMember(h.owner.id, res.body.id))?.role, 'owner');
  });

  it('nests the integrations in the details, in the integration-status shape', async () => {
    const { body: ws } = await create({ name: 'With ads' });
    const saved = await h.call('PUT', `/api/v1/workspaces/${ws.id}/integrations/ads-provider/credentials`, {
      json: { client_id: 'id', client_secret: 'secret' },
    });
    const read = await h.call('GET', `/api/v1/workspaces/${ws.id}`);
    assert.deepEqual(read.body.integrations, [saved.body]);
    const listing = await h.call('GET', `/api/v1/workspaces/${ws.id}/integrations`);
    assert.deepEqual(listing.body, [saved.body]);
  });

  it('shows at most 25 integrations, the first in provider order, in the details and the list', async () => {
    const { body: ws } = await create({ name: 'Many providers' });
    // Only ads-provider can be saved through the API: the others are written as a provider would be.
    const providers = Array.from({ length: 26 }, (_, i) => `provider-${String(i).padStart(2, '0')}`);
    for (const provider of providers)
      await put({
        ...workspaceKeys.integration(ws.id, provider),
        kind: 'integration',
        id: newId(),
        workspace_id: ws.id,
        provider,
        status: 'connected',
        created_at: ws.created_at,
        updated_at: ws.created_at,
        revision: 1,
      });
    const shown = providers.slice(0, 25);
    const read = await h.call('GET', `/api/v1/workspaces/${ws.id}`);
    assert.deepEqual(
      read.body.integrations.map((i: { provider: string }) => i.provider),
      shown,
    );
    const listing = await h.call('GET', `/api/v1/workspaces/${ws.id}/integrations`);
    assert.deepEqual(
      listing.body.map((i: { provider: string }) => i.provider),
      shown,
    );
  });

  it('answers its creator’s next requests at once, even from a replica behind the writes', async () => {
    // On AWS an eventually consistent read may come from a replica that has not applied a write of a
    // moment ago: the member check then called a workspace created the request before missing (404).
    const replica = await lagReplica();
    try {
      const { body: ws } = await create({ name: 'Just made' });
      const url = `/api/v1/workspaces/${ws.id}`;
      const saved = await h.call('PUT', `${url}/integrations/ads-provider/credentials`, {
        json: { client_id: 'lagging-id', client_secret: 'lagging-replica-client-secret' },
      });
      const task = await h.call('POST', `${url}/tasks`, {
        json: validBody['workspaces/create-workspace-task'],
      });
      const [read, integrations, tasks] = await Promise.all([
        h.call('GET', url),
        h.call('GET', `${url}/integrations`),
        h.call('GET', `${url}/tasks`),
      ]);
      assert.deepEqual(
        [saved.status, task.status, read.status, integrations.status, tasks.status],
        [200, 201, 200, 200, 200],
        [saved, task, read, integrations, tasks].map((res) => res.text).join('\n'),
      );
      assert.deepEqual(read.body.integrations, [saved.body]);
      assert.deepEqual(integrations.body, [saved.body]);
      assert.deepEqual(tasks.body, [task.body]);
    } finally {
      await replica.stop();
    }
  });

  it('422 for an empty, missing or too long name', async () => {
    assert.deepEqual((await create({ name: '' })).body, {
      detail: [
        {
          type: 'string_too_short',
          loc: ['body', 'name'],
          msg: 'String should have at least 1 character',
          input: '',
          ctx: { min_length: 1 },
        },
      ],
    });
    assert.deepEqual((await create({})).body, {
      detail: [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: {} }],
    });
    assert.equal((await create({ name: 'x'.repeat(201) })).body.detail[0].type, 'string_too_long');
    assert.equal((await create({ name: '😀'.repeat(200) })).status, 201);
  });

  it('a non-UUID workspace id gives uuid_parsing at ["path","workspace_id"]', async () => {
    const res = await h.call('GET', '/api/v1/workspaces/nope/tasks');
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail[0].loc, ['path', 'workspace_id']);
    assert.equal(res.body.detail[0].type, 'uuid_parsing');
  });
});

describe('membership', () => {
  it('covers every workspace route of the route table', () => {
    assert.deepEqual(workspaceRoutes.map((r) => r.entry).sort(), [
      'workspaces/create-workspace-task',
      'workspaces/get-workspace',
      'workspaces/list-integrations',
      'workspaces/list-workspace-tasks',
      'workspaces/save-ads-credentials',
    ]);
  });

  it('answers a non-member on every workspace route exactly like a missing workspace', async () => {
    const { body: ws } = await create({ name: 'Private' });
    await h.call('PUT', `/api/v1/workspaces/${ws.id}/integrations/ads-provider/credentials`, {
      json: { client_id: 'id', client_secret: 'secret' },
    });
    const missing = '01a1fc6e-0000-7000-8000-0000000000ff';
    for (const route of workspaceRoutes) {
      const url = (id: string) => route.path.replace('{workspace_id}', id);
      const json = validBody[route.entry];
      const theirs = await h.call(route.method, url(ws.id), { json, token: h.other.token });
      const none = await h.call(route.method, url(missing), { json, token: h.other.token });
      assert.equal(theirs.status, 404, route.entry);
      assert.deepEqual(theirs.body, { detail: 'Workspace not found' }, route.entry);
      assert.equal(theirs.text, none.text, route.entry);
    }
    // Nothing was written by the refused calls.
    const tasks = await h.call('GET', `/api/v1/workspaces/${ws.id}/tasks`);
    assert.deepEqual(tasks.body, []);
  });

  it('lets an added member in, lists the workspace for it, and still nobody else', async () => {
    const { body: ws } = await create({ name: 'Shared' });
    const member = '01a1fc6e-0000-7000-8000-0000000000aa';
    const { integrations: _, owner_id, ...summary } = ws;
    await addMember(ws.id, { ...summary, owner: owner_id }, member, 'member');
    const token = await h.tokenFor(member);
    assert.equal((await h.call('GET', `/api/v1/workspaces/${ws.id}`, { token })).status, 200);
    assert.equal((await h.call('GET', `/api/v1/workspaces/${ws.id}/tasks`, { token })).status, 200);
    assert.equal((await h.call('GET', `/api/v1/workspaces/${ws.id}`, { token: h.other.token })).status, 404);
    // A member's list holds the workspace it was added to, owned by its creator.
    const listed = await h.call('GET', '/api/v1/workspaces', { token });
    assert.deepEqual(listed.body, [{ ...summary, owner_id }]);
    assert.equal(listed.body[0].owner_id, h.owner.id);
  });
});

describe('GET /api/v1/workspaces over member items written before they carried the summary', () => {
  it('answers them from the workspace item, and leaves out one whose workspace item is missing', async () => {
    const user = newId();
    const token = await h.tokenFor(user);
    const { body: ws } = await create({ name: 'Older' }, token);
    // As createWorkspace wrote the creator's member item before f7cd29b: no `workspace` copy.
    const older = await getMember(user, ws.id);
    const { workspace: _, ...withoutCopy } = older!;
    await put({
      ...withoutCopy,
      ...workspaceKeys.member(ws.id, user),
      ...workspaceKeys.byMember(user, ws.id),
    });
    const orphan = newId();
    await put({
      ...withoutCopy,
      ...workspaceKeys.member(orphan, user),
      ...workspaceKeys.byMember(user, orphan),
      workspace_id: orphan,
    });
    const listed = await h.call('GET', '/api/v1/workspaces', { token });
    assert.equal(listed.status, 200, listed.text);
    const { integrations: __, ...entry } = ws;
    assert.deepEqual(listed.body, [entry]);
  });

  it('answers member items that carry the summary from them alone: one query, no workspace read', async () => {
    const token = await h.tokenFor(newId());
    for (const name of ['One', 'Two']) assert.equal((await create({ name }, token)).status, 201);
    const recorder = recordDynamoRequests();
    try {
      const listed = await h.call('GET', '/api/v1/workspaces', { token });
      assert.deepEqual(listed.body.map((w: { name: string }) => w.name).sort(), ['One', 'Two']);
      assert.deepEqual(recorder.commands(), ['QueryCommand']);
    } finally {
      recorder.stop();
    }
  });
});
