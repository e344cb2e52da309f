// The lists of what a caller owns (brands, teams, projects, workspaces, chat and shopping sessions): only the
// caller's, newest first, paged by limit/offset, each entry what the resource's own read answers minus
// the parts a list leaves out; `before` (the last id received) pages on without repeats or skipped reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { newId } from '../../shared/ids.ts';
import { addTask } from '../../shared/teams/agents.ts';
import { recordDynamoRequests, shortDynamoPages } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { createTeam } from '../teams/fixtures.ts';

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

    it('pages on from `before` (the last id received) without repeating an entry while others are created', async () => {
      const token = await h.tokenFor(newId());
      const create = async (name: string) =>
        (await h.call('POST', list.path, { json: list.body(name), token })).body.id as string;
      for (const name of ['s1', 's2', 's3']) await create(name);
      const first = await h.call('GET', `${list.path}?limit=2`, { token });
      assert.deepEqual(first.body.map(list.name), ['s3', 's2']);
      await create('s4');
      // By offset, the next page starts one entry later than it did: s2 again (the defect measured).
      const byOffset = await h.call('GET', `${list.path}?limit=2&offset=2`, { token });
      assert.deepEqual(byOffset.body.map(list.name), ['s2', 's1']);
      const last = first.body.at(-1).id;
      const next = await h.call('GET', `${list.path}?limit=2&before=${last}`, { token });
      assert.equal(next.status, 200);
      assert.deepEqual(next.body.map(list.name), ['s1']);
      assert.deepEqual((await h.call('GET', `${list.path}?before=${next.body[0].id}`, { token })).body, []);
      // `offset` counts from the cursor; any form of UUID pydantic reads is the same place.
      const s4 = (await h.call('GET', `${list.path}?limit=1`, { token })).body[0].id;
      const skipped = await h.call('GET', `${list.path}?limit=1&offset=1&before=${s4.toUpperCase()}`, {
        token,
      });
      assert.deepEqual(skipped.body.map(list.name), ['s2']);
    });

    it("takes another user's id as `before` as a place in the caller's own list, revealing nothing", async () => {
      const token = await h.tokenFor(newId());
      const stranger = await h.tokenFor(newId());
      for (const name of ['one', 'two'])
        assert.equal((await h.call('POST', list.path, { json: list.body(name), token })).status, 201);
      const theirs = await h.call('POST', list.path, { json: list.body('theirs'), token: stranger });
      assert.equal((await h.call('POST', list.path, { json: list.body('three'), token })).status, 201);
      const page = await h.call('GET', `${list.path}?before=${theirs.body.id}`, { token });
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.map(list.name), ['two', 'one']);
      // And the stranger's own id in its own list: nothing older.
      assert.deepEqual(
        (await h.call('GET', `${list.path}?before=${theirs.body.id}`, { token: stranger })).body,
        [],
      );
    });

    it("refuses a malformed `before` with FastAPI's 422", async () => {
      const token = await h.tokenFor(newId());
      const bad = await h.call('GET', `${list.path}?before=not-an-id`, { token });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body, {
        detail: [
          {
            type: 'uuid_parsing',
            loc: ['query', 'before'],
            msg: 'Input should be a valid UUID, invalid character: found `n` at 1',
            input: 'not-an-id',
            ctx: { error: 'invalid character: found `n` at 1' },
          },
        ],
      });
      const empty = await h.call('GET', `${list.path}?before=&limit=0`, { token });
      assert.deepEqual(
        empty.body.detail.map((d: { loc: string[]; type: string }) => [d.loc[1], d.type]),
        [
          ['limit', 'greater_than_equal'],
          ['before', 'uuid_parsing'],
        ],
      );
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

    it('takes the bounds themselves: limit 1 and 100, offset 0 and 10,000 (docs/decisions.md); offset −1 is 422', async () => {
      const token = await h.tokenFor(newId());
      assert.equal((await h.call('POST', list.path, { json: list.body('only'), token })).status, 201);
      for (const [query, length] of [
        ['limit=1&offset=0', 1],
        ['limit=100', 1],
        ['offset=10000', 0],
      ] as const) {
        const res = await h.call('GET', `${list.path}?${query}`, { token });
        assert.deepEqual([res.status, res.body.length], [200, length], query);
      }
      const negative = await h.call('GET', `${list.path}?offset=-1`, { token });
      assert.equal(negative.status, 422);
      assert.deepEqual(negative.body.detail, [
        {
          type: 'greater_than_equal',
          loc: ['query', 'offset'],
          msg: 'Input should be greater than or equal to 0',
          input: '-1',
          ctx: { ge: 0 },
        },
      ]);
    });
  });

describe('the default page', () => {
  it('holds 50 entries (docs/decisions.md: limit 1–100, default 50): 51 brands answer 50, the newest', async () => {
    const token = await h.tokenFor(newId());
    for (let i = 0; i < 51; i++)
      assert.equal((await h.call('POST', '/api/v1/brands', { json: { name: `b${i}` }, token })).status, 201);
    const page = await h.call('GET', '/api/v1/brands', { token });
    assert.equal(page.body.length, 50);
    assert.deepEqual([page.body[0].name, page.body.at(-1).name], ['b50', 'b1']);
  });
});

describe('a deep page', () => {
  it('is one Query from `before`; by offset, the entries past its first page are read from the slim view', async () => {
    // Brands of 200 KB: DynamoDB ends a page at 1 MB, so an offset of 10 read about 3 pages of them
    // (2.4 MB); now the first page, then the slim entries of the rest (gsi1_calendar), then the window.
    const token = await h.tokenFor(newId());
    const description = 'd'.repeat(200_000);
    for (let i = 0; i < 12; i++) {
      const res = await h.call('POST', '/api/v1/brands', { json: { name: `b${i}`, description }, token });
      assert.equal(res.status, 201);
    }
    const names = (body: { name: string }[]) => body.map((b) => b.name);
    const recorder = recordDynamoRequests();
    try {
      const byOffset = await h.call('GET', '/api/v1/brands?limit=2&offset=10', { token });
      assert.deepEqual(names(byOffset.body), ['b1', 'b0']);
      assert.deepEqual(
        recorder.requests.map(({ input }) => [input.IndexName, input.Limit]),
        [
          ['gsi1', 12],
          ['gsi1_calendar', 5],
          ['gsi1', 2],
        ],
      );
      // The first page (6 brands: DynamoDB stops once it passes 1 MB), the slim entries from its last
      // (which the walk starts after) to the 10th, the window's two brands: 8 of the 12 read whole,
      // where all 12 were.
      const whole = recorder.requests.flatMap((r) => r.items ?? []).filter((item) => 'description' in item);
      assert.equal(whole.length, 8);
      for (const offset of [0, 1, 9, 11, 12])
        assert.deepEqual(
          names((await h.call('GET', `/api/v1/brands?limit=2&offset=${offset}`, { token })).body),
          ['b11', 'b10', 'b9', 'b8', 'b7', 'b6', 'b5', 'b4', 'b3', 'b2', 'b1', 'b0'].slice(
            offset,
            offset + 2,
          ),
          `offset ${offset}`,
        );
      const tenth = (await h.call('GET', '/api/v1/brands?limit=1&offset=9', { token })).body[0];
      recorder.clear();
      const byCursor = await h.call('GET', `/api/v1/brands?limit=2&before=${tenth.id}`, { token });
      assert.deepEqual(names(byCursor.body), ['b1', 'b0']);
      assert.deepEqual(recorder.commands(), ['QueryCommand']);
      // Nothing skipped is read: the page, and one more for the cursor's own entry.
      assert.equal(recorder.requests[0]?.input.Limit, 3);
      // An offset from the cursor: the cursor's own entry is not counted.
      const fromCursor = await h.call('GET', `/api/v1/brands?limit=2&offset=1&before=${tenth.id}`, { token });
      assert.deepEqual(names(fromCursor.body), ['b0']);
    } finally {
      recorder.stop();
    }
  });
  it('counts what its first page keeps towards the byte budget before it reads on', async () => {
    // 40 brands of 200 KB in pages of 5: `offset=1` keeps 4 of the first page (0.8 MB), and the page
    // ends within its 5 MiB. The window read after that page counted only its own bytes, so it read
    // 30 brands more (6 Queries) where 25 pass what is left of the budget.
    const token = await h.tokenFor(newId());
    const description = 'd'.repeat(200_000);
    for (let i = 0; i < 40; i++) {
      const res = await h.call('POST', '/api/v1/brands', { json: { name: `b${i}`, description }, token });
      assert.equal(res.status, 201);
    }
    const undoShortPages = shortDynamoPages(5);
    const recorder = recordDynamoRequests();
    try {
      const page = await h.call('GET', '/api/v1/brands?limit=100&offset=1', { token });
      assert.equal(page.status, 200);
      const answered = page.body.map((b: { name: string }) => b.name);
      assert.deepEqual(
        answered,
        Array.from({ length: answered.length }, (_, i) => `b${38 - i}`),
      );
      assert.equal(answered.length, 26); // as before: 5 MiB of them
      const read = recorder.requests.flatMap((r) => r.items ?? []);
      assert.equal(read.length, 30);
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });
  it('keeps none of the entries an offset skips while it reads on (a window with no slim view)', async () => {
    // OWASP API4: a deep offset over big records read page after page. The entries it skips were all
    // held until the window was complete (measured: 400 brands of 262 KB at offset 390, 100 Queries,
    // RSS +168 MB; offset 10,000 passes a 512 MB Lambda's memory well before its 10 s). Now only the
    // window is kept. Checked by a collection before the last page: the first page's entries (all
    // skipped) must be gone. gsi1's windows walk its slim view instead (above); a team's task list
    // reads its own partition, and the agents' tasks may be big.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const team = await createTeam(h);
    const output_data = { text: 'o'.repeat(200_000) };
    for (let i = 0; i < 12; i++)
      await addTask(team.id, { task_type: 'social_post', title: `t${i}`, output_data });
    const pages: WeakRef<object>[][] = [];
    const alive: number[] = [];
    const stack = dynamo().middlewareStack as unknown as {
      add(middleware: unknown, options: { step: 'initialize'; name: string }): void;
      remove(name: string): unknown;
    };
    const name = 'skipped-entries-watch';
    stack.add(
      (
        next: (args: unknown) => Promise<{ output?: { Items?: object[] } }>,
        context: { commandName?: string },
      ) =>
        async (args: unknown) => {
          if (context.commandName === 'QueryCommand' && pages.length > 0) {
            // A WeakRef's target is held until the turn that made it ends: the next page is sent in it.
            await new Promise((resolve) => setImmediate(resolve));
            gc();
            alive.push(pages[0]?.filter((ref) => ref.deref() !== undefined).length ?? 0);
          }
          const result = await next(args);
          if (context.commandName === 'QueryCommand')
            pages.push((result.output?.Items ?? []).map((item) => new WeakRef(item)));
          return result;
        },
      { step: 'initialize', name },
    );
    try {
      const res = await h.call('GET', `/api/v1/teams/${team.id}/tasks?limit=2&offset=10`);
      assert.deepEqual(
        res.body.tasks.map((t: { title: string }) => t.title),
        ['t1', 't0'],
      );
      assert.ok(pages.length > 1, `${pages.length} Queries`);
      assert.ok((pages[0]?.length ?? 0) > 0);
      // Before each page after the first: none of the first page's (skipped) entries is still held.
      assert.deepEqual(
        alive,
        alive.map(() => 0),
      );
    } finally {
      stack.remove(name);
    }
  });
});
