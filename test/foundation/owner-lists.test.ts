// The lists of what a caller owns (brands, teams, projects, workspaces, chat and shopping sessions): only the
// caller's, newest first, paged by limit/offset, each entry what the resource's own read answers minus
// the parts a list leaves out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../shared/ids.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

interface OwnerList {
  path: string;
  /** A create body whose entry in the list is told apart by `name`. */
  body: (name: string) => Record<string, unknown>;
  name: (entry: Record<string, unknown>) => unknown;
  /** The single read of one entry (none for a chat session), and the keys the list leaves out of it. */
  read?: (id: string) => string;
  omitted: string[];
}

const lists: OwnerList[] = [
  {
    path: '/api/v1/brands',
    body: (name) => ({ name }),
    name: (entry) => entry.name,
    read: (id) => `/api/v1/brands/${id}`,
    omitted: [],
  },
  {
    path: '/api/v1/teams',
    body: (name) => ({ team_type: 'content', display_name: name, tier: 'starter', operation_mode: 'auto' }),
    name: (entry) => entry.display_name,
    read: (id) => `/api/v1/teams/${id}`,
    omitted: ['members', 'recent_activity', 'content_cadence'],
  },
  {
    path: '/api/v1/projects',
    body: (name) => ({ title: name, tasks: [{ title: 'first', budget_usd: 12.5 }] }),
    name: (entry) => entry.title,
    read: (id) => `/api/v1/projects/${id}`,
    omitted: ['project_tasks'],
  },
  {
    path: '/api/v1/chat/sessions',
    body: (name) => ({ title: name }),
    name: (entry) => entry.title,
    omitted: [],
  },
  {
    path: '/api/v1/workspaces',
    body: (name) => ({ name }),
    name: (entry) => entry.name,
    read: (id) => `/api/v1/workspaces/${id}`,
    omitted: ['integrations'],
  },
  {
    path: '/api/v1/shopping/sessions',
    body: (name) => ({ title: name }),
    name: (entry) => entry.title,
    read: (id) => `/api/v1/shopping/sessions/${id}`,
    omitted: ['recent_searches'],
  },
];

for (const list of lists)
  describe(`GET ${list.path}`, () => {
    it("lists only the caller's, newest first, paged by limit and offset", async () => {
      const token = await h.tokenFor(newId());
      const stranger = await h.tokenFor(newId());
      const names = ['one', 'two', 'three'];
      for (const name of names)
        assert.equal((await h.call('POST', list.path, { json: list.body(name), token })).status, 201);
      assert.equal(
        (await h.call('POST', list.path, { json: list.body('theirs'), token: stranger })).status,
        201,
      );

      const all = await h.call('GET', list.path, { token });
      assert.equal(all.status, 200);
      assert.deepEqual(all.body.map(list.name), ['three', 'two', 'one']);
      const page = await h.call('GET', `${list.path}?limit=1&offset=1`, { token });
      assert.deepEqual(page.body.map(list.name), ['two']);
      const past = await h.call('GET', `${list.path}?offset=3`, { token });
      assert.deepEqual(past.body, []);
      const theirs = await h.call('GET', list.path, { token: stranger });
      assert.deepEqual(theirs.body.map(list.name), ['theirs']);
      assert.deepEqual((await h.call('GET', list.path, { token: await h.tokenFor(newId()) })).body, []);
    });

    it('answers each entry as its own read does, without the parts a list leaves out', async () => {
      const token = await h.tokenFor(newId());
      const created = await h.call('POST', list.path, { json: list.body('alone'), token });
      const [entry] = (await h.call('GET', list.path, { token })).body;
      assert.equal(entry.id, created.body.id);
      for (const key of list.omitted) assert.equal(key in entry, false, `${key} is left out`);
      if (!list.read) {
        // No single read: the list entry is what the create answered.
        assert.deepEqual(entry, created.body);
        return;
      }
      const read = await h.call('GET', list.read(entry.id), { token });
      assert.equal(read.status, 200);
      const expected = Object.fromEntries(
        Object.entries(read.body).filter(([key]) => !list.omitted.includes(key)),
      );
      assert.deepEqual(entry, expected);
    });

    it("refuses a limit or offset out of bounds with FastAPI's 422, and needs a token", async () => {
      const over = await h.call('GET', `${list.path}?limit=101`);
      assert.equal(over.status, 422);
      assert.deepEqual(over.body.detail[0], {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 100',
        input: '101',
        ctx: { le: 100 },
      });
      const zero = await h.call('GET', `${list.path}?limit=0`);
      assert.equal(zero.body.detail[0].type, 'greater_than_equal');
      const far = await h.call('GET', `${list.path}?offset=10001`);
      assert.deepEqual(far.body.detail[0].loc, ['query', 'offset']);
      assert.equal((await h.call('GET', list.path, { token: null })).status, 401);
    });
  });
