// Spec endpoint 6 (and the task create route): every field, newest first with ties by id, limit and
// offset windows, the status filter served by gsi1, FastAPI's bounds errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { setClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { advanceWorkspaceTask, type TaskProgress } from '../../shared/workspaces/progress.ts';
import type { WorkspaceTaskStatus } from '../../shared/workspaces/schemas.ts';
import { createWorkspaceTask, createWorkspaceTasks } from '../../shared/workspaces/tasks.ts';
import { recordDynamoRequests, shortDynamoPages } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let workspaceId: string;
/** Every task of the big workspace, in the expected order (newest first, ties by id, descending). */
let expected: { id: string; status: string; created_at: string }[];
const agent = newId();

const descending = (x: string, y: string) => (x < y ? 1 : x > y ? -1 : 0);
const byNewest = (a: { id: string; created_at: string }, b: { id: string; created_at: string }) =>
  descending(a.created_at, b.created_at) || descending(a.id, b.id);

/** Compares id lists without assert's diff, which is very slow on long arrays in Node 20. */
const sameIds = (actual: { id: string }[], wanted: { id: string }[], label = '') => {
  const [a, b] = [actual.map((t) => t.id).join('\n'), wanted.map((t) => t.id).join('\n')];
  assert.ok(a === b, `${label} ids differ:\n${a}\n-- expected --\n${b}`);
};

const STATUS_OF = (i: number): WorkspaceTaskStatus =>
  i % 5 === 0 ? 'completed' : i % 5 === 1 ? 'in_progress' : i % 7 === 2 ? 'cancelled' : 'pending';
const TASKS = 60;
/** A task as the seed's agent would create it, every field given. */
const taskInput = (title: string) => ({
  skill_slug: 'ad-copy',
  title,
  description: null,
  schedule_type: 'once' as const,
  priority: 'normal' as const,
  approval_level: 'auto' as const,
  trigger: {},
  hired_agent_id: agent,
});

before(async () => {
  h = await startHarness();
  const res = await h.call('POST', '/api/v1/workspaces', { json: { name: 'Task list' } });
  workspaceId = res.body.id;
  // Groups of tasks share a created_at (the clock pinned), so ties must be broken by id.
  const created = [];
  for (let group = 0; group < TASKS / 15; group++) {
    setClock(new Date(Date.UTC(2026, 10, 1, 9, group)));
    created.push(
      ...(await Promise.all(
        Array.from({ length: 15 }, (_, j) =>
          createWorkspaceTask(h.owner.id, workspaceId, taskInput(`task ${group * 15 + j}`)),
        ),
      )),
    );
  }
  setClock(undefined);
  await Promise.all(
    created.map(async (task, i) => {
      const status = STATUS_OF(i);
      if (status === 'completed') {
        await advanceWorkspaceTask(workspaceId, task.id, 'pending', { status: 'in_progress' });
        await advanceWorkspaceTask(workspaceId, task.id, 'in_progress', { status, cost_usd: 1.25 });
      } else if (status !== 'pending')
        await advanceWorkspaceTask(workspaceId, task.id, 'pending', { status });
    }),
  );
  expected = created.map((task, i) => ({ ...task, status: STATUS_OF(i) })).sort(byNewest);
});
after(() => h.close());

const list = (query = '', token?: string) =>
  h.call('GET', `/api/v1/workspaces/${workspaceId}/tasks${query}`, { token });

describe('POST /api/v1/workspaces/{workspace_id}/tasks', () => {
  it('creates a pending task with every spec field, nulls present and cost_usd a number', async () => {
    const res = await h.call('POST', `/api/v1/workspaces/${workspaceId}/tasks`, {
      json: {
        skill_slug: 'audience-research',
        title: 'Find lookalike audiences',
        schedule_type: 'recurring',
        priority: 'high',
        approval_level: 'approve',
        trigger: { cron: '0 9 * * MON' },
        hired_agent_id: agent.toUpperCase(),
      },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined },
      {
        id: undefined,
        workspace_id: workspaceId,
        hired_agent_id: agent,
        skill_slug: 'audience-research',
        title: 'Find lookalike audiences',
        schedule_type: 'recurring',
        status: 'pending',
        priority: 'high',
        approval_level: 'approve',
        description: null,
        trigger: { cron: '0 9 * * MON' },
        output_data: {},
        proposed_actions: {},
        approved_by: null,
        approved_at: null,
        started_at: null,
        completed_at: null,
        cost_usd: 0,
        created_at: undefined,
      },
    );
    assert.equal(res.text.includes('"cost_usd":0'), true);
    // The id's time part is the created_at, so the list's id order is its created_at order.
    const idMs = Number.parseInt(res.body.id.replace(/-/g, '').slice(0, 12), 16);
    assert.equal(new Date(idMs).toISOString(), res.body.created_at);
    const first = (await list('?limit=1')).body[0];
    assert.deepEqual(first, res.body);
    expected.unshift(res.body);
  });

  it('applies the defaults for schedule_type, priority, approval_level and trigger', async () => {
    const other = await h.call('POST', '/api/v1/workspaces', { json: { name: 'defaults' } });
    const res = await h.call('POST', `/api/v1/workspaces/${other.body.id}/tasks`, {
      json: { skill_slug: 's', title: 't', hired_agent_id: agent },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(
      [res.body.schedule_type, res.body.priority, res.body.approval_level, res.body.trigger],
      ['once', 'normal', 'review', {}],
    );
  });

  it('refuses a batch create by a non-member with 404 and writes none of it', async () => {
    // createWorkspaceTasks (imports) has no route in front of it: its own member check is the only one.
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'not yours' } });
    await assert.rejects(createWorkspaceTasks(h.other.id, ws.body.id, [taskInput('a'), taskInput('b')]), {
      status: 404,
      detail: 'Workspace not found',
    });
    assert.deepEqual((await h.call('GET', `/api/v1/workspaces/${ws.body.id}/tasks`)).body, []);
  });

  it('422 for a missing hired_agent_id, an unknown priority and an oversized trigger', async () => {
    const res = await h.call('POST', `/api/v1/workspaces/${workspaceId}/tasks`, {
      json: { skill_slug: 's', title: 't', priority: 'asap', trigger: { blob: 'x'.repeat(16 * 1024) } },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'literal_error',
        loc: ['body', 'priority'],
        msg: "Input should be 'low', 'normal', 'high' or 'urgent'",
        input: 'asap',
        ctx: { expected: "'low', 'normal', 'high' or 'urgent'" },
      },
      {
        type: 'value_error',
        loc: ['body', 'trigger'],
        msg: 'Value error, trigger must be at most 16384 bytes as JSON',
        input: { blob: 'x'.repeat(16 * 1024) },
        ctx: { error: {} },
      },
      {
        type: 'missing',
        loc: ['body', 'hired_agent_id'],
        msg: 'Field required',
        input: { skill_slug: 's', title: 't', priority: 'asap', trigger: { blob: 'x'.repeat(16 * 1024) } },
      },
    ]);
  });
});

describe('GET /api/v1/workspaces/{workspace_id}/tasks', () => {
  it('lists tasks made in the same millisecond newest first too: the later one first', async () => {
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'same millisecond' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const input = (title: string) => ({ skill_slug: 's', title, hired_agent_id: agent });
    setClock(new Date(Date.UTC(2026, 10, 2, 9, 0, 0, 123)));
    try {
      // One after another through the route, then an import of several at once.
      for (const title of ['a1', 'a2', 'a3', 'a4', 'a5'])
        assert.equal((await h.call('POST', url, { json: input(title) })).status, 201);
      await createWorkspaceTasks(
        h.owner.id,
        ws.body.id,
        ['b1', 'b2', 'b3', 'b4', 'b5'].map((title) => ({
          ...input(title),
          description: null,
          schedule_type: 'once' as const,
          priority: 'normal' as const,
          approval_level: 'review' as const,
          trigger: {},
        })),
      );
    } finally {
      setClock(undefined);
    }
    const listed = (await h.call('GET', url)).body as { title: string; created_at: string }[];
    assert.deepEqual(new Set(listed.map((t) => t.created_at)), new Set(['2026-11-02T09:00:00.123Z']));
    assert.deepEqual(
      listed.map((t) => t.title),
      ['b5', 'b4', 'b3', 'b2', 'b1', 'a5', 'a4', 'a3', 'a2', 'a1'],
    );
  });

  it('answers a bare array of the newest 50 by default, newest first and ties by id', async () => {
    const res = await list();
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body), 'a bare array');
    assert.equal(res.body.length, 50);
    sameIds(res.body, expected.slice(0, 50));
    for (const task of res.body) assert.equal(typeof task.cost_usd, 'number');
  });

  it('limit/offset windows cover every task exactly once, in order', async () => {
    const seen: { id: string }[] = [];
    for (let offset = 0; offset < expected.length + 7; offset += 7) {
      const res = await list(`?limit=7&offset=${offset}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.length, Math.max(0, Math.min(7, expected.length - offset)));
      seen.push(...res.body);
    }
    sameIds(seen, expected);
    assert.deepEqual((await list(`?offset=${expected.length}`)).body, []);
    assert.deepEqual((await list('?offset=10000&limit=100')).body, []);
  });

  it('`before` windows cover every task exactly once, in order, from one Query each', async () => {
    const recorder = recordDynamoRequests();
    try {
      for (const status of [null, 'completed', 'pending']) {
        const wanted = status === null ? expected : expected.filter((t) => t.status === status);
        const seen: { id: string }[] = [];
        let last: string | undefined;
        // Bounded: a cursor that moved nothing would page forever.
        for (let pages = 0; pages <= wanted.length / 7 + 1; pages++) {
          recorder.clear();
          const res = await list(
            `?limit=7${status ? `&status=${status}` : ''}${last ? `&before=${last}` : ''}`,
          );
          assert.equal(res.status, 200);
          assert.equal(recorder.commands().filter((c) => c === 'QueryCommand').length, 1);
          seen.push(...res.body);
          last = res.body.at(-1)?.id;
          if (!last) break;
        }
        sameIds(seen, wanted, `status ${status}`);
      }
    } finally {
      recorder.stop();
    }
    // `offset` counts from the cursor.
    const skipped = await list(`?limit=3&offset=2&before=${expected[10]!.id}`);
    sameIds(skipped.body, expected.slice(13, 16));
  });

  it('counts an offset exactly at every depth, merged across the status partitions, from the start or a cursor', async () => {
    // Past the first page, the whole list's offset is walked on gsi1's slim view, each status
    // partition page by page (pages of 3 here), merged newest first: every offset lands on the task
    // it names.
    const undoShortPages = shortDynamoPages(3);
    try {
      for (let offset = 0; offset <= expected.length; offset++) {
        const res = await list(`?limit=2&offset=${offset}`);
        sameIds(res.body, expected.slice(offset, offset + 2), `offset ${offset}`);
      }
      for (const offset of [1, 5, 17, 40]) {
        const cursor = expected[7]!.id;
        const res = await list(`?limit=3&offset=${offset}&before=${cursor}`);
        sameIds(res.body, expected.slice(8 + offset, 11 + offset), `offset ${offset} before the 8th`);
        const done = expected.filter((t) => t.status === 'completed');
        const byStatus = await list(`?status=completed&limit=2&offset=${offset % 9}&before=${done[1]!.id}`);
        sameIds(
          byStatus.body,
          done.slice(2 + (offset % 9), 4 + (offset % 9)),
          `completed, offset ${offset % 9}`,
        );
      }
    } finally {
      undoShortPages();
    }
  });

  it('reads on past a page that comes back empty with a key to go on from', async () => {
    // DynamoDB may end a page early with no items (it documents LastEvaluatedKey, not a count): the
    // merge took the next entry of another partition first, an older one. Six pending tasks over one
    // older task in progress, pages of 2, the pending partition's second page empty once.
    const ws = (await h.call('POST', '/api/v1/workspaces', { json: { name: 'Empty page' } })).body;
    const made = [];
    for (let i = 0; i < 7; i++) made.push(await createWorkspaceTask(h.owner.id, ws.id, taskInput(`t${i}`)));
    await advanceWorkspaceTask(ws.id, made[0]!.id, 'pending', { status: 'in_progress' });
    const undoShortPages = shortDynamoPages(2);
    let emptied = 0;
    const client = dynamo();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as QueryCommandInput;
        if (
          context.commandName === 'QueryCommand' &&
          input.IndexName === 'gsi1_calendar' &&
          input.ExclusiveStartKey &&
          String(input.ExpressionAttributeValues?.[':pk']).endsWith('#STATUS#pending') &&
          emptied++ === 0
        )
          return { output: { Items: [], LastEvaluatedKey: input.ExclusiveStartKey, $metadata: {} } } as never;
        return next(args);
      },
      { step: 'initialize', name: 'emptyPage' },
    );
    try {
      // The first page (t6, t5), then the walk: the pending partition's second page comes back empty.
      const res = await h.call('GET', `/api/v1/workspaces/${ws.id}/tasks?limit=2&offset=5`);
      assert.deepEqual(
        res.body.map((t: { title: string }) => t.title),
        ['t1', 't0'],
      );
      assert.ok(emptied >= 2, `${emptied} later pages of pending`);
    } finally {
      client.middlewareStack.remove('emptyPage');
      undoShortPages();
    }
  });

  it('pages on from `before` without repeating a task while others are created', async () => {
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'cursor' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const create = async (title: string) =>
      h.call('POST', url, { json: { skill_slug: 's', title, hired_agent_id: agent } });
    for (const title of ['t1', 't2', 't3']) await create(title);
    const titles = (res: { body: { title: string }[] }) => res.body.map((t) => t.title);
    const first = await h.call('GET', `${url}?limit=2`);
    assert.deepEqual(titles(first), ['t3', 't2']);
    await create('t4');
    for (const status of ['', '&status=pending'])
      assert.deepEqual(titles(await h.call('GET', `${url}?limit=2${status}&before=${first.body[1].id}`)), [
        't1',
      ]);
    // Nor skips one when a task of an earlier page leaves the status (by offset, t2 would be on no page).
    const pending = await h.call('GET', `${url}?status=pending&limit=2`);
    assert.deepEqual(titles(pending), ['t4', 't3']);
    await advanceWorkspaceTask(ws.body.id, pending.body[0].id, 'pending', { status: 'in_progress' });
    assert.deepEqual(titles(await h.call('GET', `${url}?status=pending&limit=2&offset=2`)), ['t1']);
    const next = await h.call('GET', `${url}?status=pending&limit=2&before=${pending.body[1].id}`);
    assert.deepEqual(titles(next), ['t2', 't1']);
  });

  it('still covers every task when DynamoDB ends pages early (the 1 MB page limit)', async () => {
    const undoShortPages = shortDynamoPages(4);
    try {
      const res = await list('?limit=9&offset=20');
      sameIds(res.body, expected.slice(20, 29));
      const done = await list('?status=completed&limit=6&offset=3');
      sameIds(done.body, expected.filter((t) => t.status === 'completed').slice(3, 9));
    } finally {
      undoShortPages();
    }
  });

  it("reads one page for a non-member's deep offset before its 404, not the whole window", async () => {
    // Pages of 4 tasks, as DynamoDB's 1 MB page ends them over large tasks.
    const undoShortPages = shortDynamoPages(4);
    const recorder = recordDynamoRequests();
    const queried = () =>
      recorder.requests.filter((r) => r.command === 'QueryCommand').map((r) => r.input.IndexName ?? 'table');
    try {
      // The first page runs beside the member check; nothing after it before the check passes.
      for (const [query, index] of [
        ['?offset=40&limit=10', 'table'],
        ['?offset=40&limit=10&status=pending', 'gsi1'],
        ['?offset=2&limit=3', 'table'],
        ['?offset=2&limit=3&status=pending', 'gsi1'],
      ] as const) {
        recorder.clear();
        const res = await list(query, h.other.token);
        assert.equal(res.status, 404);
        assert.deepEqual(queried(), [index], query);
      }
      // A member's window reads on: slim entries up to the offset, then only the window's 10 tasks.
      recorder.clear();
      const res = await list('?offset=40&limit=10');
      sameIds(res.body, expected.slice(40, 50));
      // The first page (4 of the 40 skipped), the slim entries of the other 36, the window's 10.
      const reads = queried();
      const slim = reads.filter((index) => index === 'gsi1_calendar').length;
      assert.ok(slim >= 7, `${slim} slim pages`);
      assert.deepEqual(reads, ['table', ...Array(slim).fill('gsi1_calendar'), 'table', 'table', 'table']);
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });

  it('filters by status exactly, from gsi1 with no Scan and no FilterExpression', async () => {
    const commands: { name: string; input: Record<string, unknown> }[] = [];
    const client = dynamo();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push({ name: context.commandName!, input: args.input as Record<string, unknown> });
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
    try {
      for (const status of ['pending', 'in_progress', 'completed', 'cancelled']) {
        const res = await list(`?status=${status}&limit=100`);
        sameIds(
          res.body,
          expected.filter((t) => t.status === status),
          status,
        );
        assert.ok(res.body.length > 0, status);
        assert.ok(
          res.body.every((t: { status: string }) => t.status === status),
          status,
        );
      }
      assert.deepEqual((await list('?status=Completed')).body, []);
      assert.deepEqual((await list('?status=no-such-status')).body, []);
    } finally {
      client.middlewareStack.remove('recordCommands');
    }
    const queries = commands.filter((c) => c.name === 'QueryCommand');
    assert.deepEqual([...new Set(commands.map((c) => c.name))].sort(), ['GetItemCommand', 'QueryCommand']);
    for (const { input } of queries)
      assert.deepEqual(
        [input.IndexName, input.FilterExpression, input.ScanIndexForward],
        ['gsi1', undefined, false],
      );
  });

  it('moves a task between status lists when its status changes', async () => {
    const task = expected.find((t) => t.status === 'pending')!;
    await advanceWorkspaceTask(workspaceId, task.id, 'pending', { status: 'awaiting_approval' });
    const waiting = await list('?status=awaiting_approval');
    sameIds(waiting.body, [task]);
    const pending = await list('?status=pending&limit=100');
    assert.ok(!pending.body.some((t: { id: string }) => t.id === task.id), 'still pending');
    await assert.rejects(advanceWorkspaceTask(workspaceId, task.id, 'pending', { status: 'in_progress' }), {
      status: 409,
    });
    await advanceWorkspaceTask(workspaceId, task.id, 'awaiting_approval', {
      status: 'pending',
    });
  });

  it('refuses progress whose free JSON the table cannot store, leaving the task as it was', async () => {
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'unstorable' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const created = await h.call('POST', url, {
      json: { skill_slug: 's', title: 't', hired_agent_id: agent },
    });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { deep };
    // DynamoDB refuses an empty key and nesting past 32 levels ("Empty attribute name"; dynalite stores both).
    await assert.rejects(
      advanceWorkspaceTask(ws.body.id, created.body.id, 'pending', {
        status: 'completed',
        output_data: { columns: { '': 1 } },
      }),
      /Invalid task progress: output_data: keys must not be empty/,
    );
    await assert.rejects(
      advanceWorkspaceTask(ws.body.id, created.body.id, 'pending', {
        status: 'awaiting_approval',
        proposed_actions: deep,
      }),
      /Invalid task progress: proposed_actions: object nests deeper than 16 levels/,
    );
    assert.deepEqual((await h.call('GET', url)).body, [created.body]);
  });

  it('refuses progress its read would answer against its own schema, leaving the task as it was', async () => {
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'invalid progress' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const created = await h.call('POST', url, {
      json: { skill_slug: 's', title: 't', hired_agent_id: agent },
    });
    const advance = (progress: Record<string, unknown>, from = 'pending') =>
      advanceWorkspaceTask(
        ws.body.id,
        created.body.id,
        from as WorkspaceTaskStatus,
        {
          status: 'completed',
          ...progress,
        } as TaskProgress,
      );
    // Each was written as given, and a read answered what its document says it never does (a NaN or
    // infinite cost failed in the SDK's marshaller; one under 1e-130 DynamoDB refuses).
    for (const [progress, rule] of [
      [{ status: 'done' }, /Invalid task progress: status: should be one of pending, awaiting_approval/],
      [{ approved_by: 'the reviewer' }, /Invalid task progress: approved_by: Input should be a valid UUID/],
      [{ cost_usd: Number.NaN }, /Invalid task progress: cost_usd: should be a number/],
      [{ cost_usd: Number.POSITIVE_INFINITY }, /Invalid task progress: cost_usd: should be finite/],
      [{ cost_usd: -0.01 }, /Invalid task progress: cost_usd: should be at least 0/],
      [{ cost_usd: 1_000_000_000.01 }, /Invalid task progress: cost_usd: should be at most 1000000000/],
      [{ cost_usd: '1.25' }, /Invalid task progress: cost_usd: should be a number/],
      [{ cost_usd: 1e-200 }, /Invalid task progress: cost_usd: numbers must be between/],
      [{ output_data: 'done' }, /Invalid task progress: output_data: should be an object/],
      [{ proposed_actions: [1, 2] }, /Invalid task progress: proposed_actions: should be an object/],
    ] as const)
      await assert.rejects(advance(progress), rule, JSON.stringify(progress));
    await assert.rejects(advance({}, 'started'), /Invalid status to move from: should be one of pending/);
    assert.deepEqual((await h.call('GET', url)).body, [created.body]);
    // At the bounds, written.
    const done = await advance({ approved_by: agent.toUpperCase(), cost_usd: 1_000_000_000 });
    assert.deepEqual([done.status, done.approved_by, done.cost_usd], ['completed', agent, 1_000_000_000]);
  });

  it('refuses progress past its share of the item as DynamoDB counts it, leaving the task as it was', async () => {
    // 140,000 Thai letters are 420,000 bytes in UTF-8 (AWS's count, past its 400 KB) and 140,000 units
    // in dynalite's: written here before, refused on AWS (the tests' guard stood in for it).
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'heavy' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const created = await h.call('POST', url, {
      json: { skill_slug: 's', title: 't', hired_agent_id: agent, description: 'ก'.repeat(5000) },
    });
    const thai = (n: number) => ({ text: 'ก'.repeat(n) });
    for (const [progress, rule] of [
      [{ output_data: thai(140_000) }, /output_data: 420\d{3} bytes as stored, more than the 163840/],
      [{ proposed_actions: thai(54_620) }, /proposed_actions: 16\d{4} bytes as stored, more than the 163840/],
    ] as const)
      await assert.rejects(
        advanceWorkspaceTask(ws.body.id, created.body.id, 'pending', { status: 'completed', ...progress }),
        rule,
      );
    assert.deepEqual((await h.call('GET', url)).body, [created.body]);
    // Each at its share, one after the other: the item holds both.
    await advanceWorkspaceTask(ws.body.id, created.body.id, 'pending', {
      status: 'in_progress',
      output_data: thai(54_600),
    });
    const done = await advanceWorkspaceTask(ws.body.id, created.body.id, 'in_progress', {
      status: 'completed',
      proposed_actions: thai(54_600),
    });
    assert.equal(
      (done.output_data.text as string).length + (done.proposed_actions.text as string).length,
      109_200,
    );
  });

  it('takes progress fields of exactly 160 KiB as stored and refuses one byte more (docs/workspaces.md)', async () => {
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'edge' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const created = await h.call('POST', url, {
      json: { skill_slug: 's', title: 't', hired_agent_id: agent },
    });
    const progress = (field: 'output_data' | 'proposed_actions', n: number) => ({
      [field]: { text: 'a'.repeat(n) },
    });
    const atLimit: Record<string, number> = {};
    for (const field of ['output_data', 'proposed_actions'] as const) {
      const advance = (n: number) =>
        advanceWorkspaceTask(ws.body.id, created.body.id, 'pending', {
          status: 'in_progress',
          ...progress(field, n),
        });
      // A first try past it names the field's size; an ASCII letter is one byte as stored.
      const refused = await advance(170_000).then(
        () => assert.fail('written past its share'),
        (error: Error) => error.message,
      );
      const bytes = Number(
        new RegExp(`${field}: (\\d+) bytes as stored, more than the 163840 `).exec(refused)?.[1],
      );
      atLimit[field] = 170_000 - (bytes - 163_840);
      await assert.rejects(advance(atLimit[field] + 1), new RegExp(`${field}: 163841 bytes as stored`));
    }
    assert.deepEqual((await h.call('GET', url)).body, [created.body]);
    // Each at its share, one after the other: the item holds both.
    await advanceWorkspaceTask(ws.body.id, created.body.id, 'pending', {
      status: 'in_progress',
      ...progress('output_data', atLimit.output_data!),
    });
    const done = await advanceWorkspaceTask(ws.body.id, created.body.id, 'in_progress', {
      status: 'completed',
      ...progress('proposed_actions', atLimit.proposed_actions!),
    });
    assert.deepEqual(
      [(done.output_data.text as string).length, (done.proposed_actions.text as string).length],
      [atLimit.output_data, atLimit.proposed_actions],
    );
  });

  it('a task moved back to an earlier status answers no stamp of the states it left', async () => {
    const ws = await h.call('POST', '/api/v1/workspaces', { json: { name: 'retries' } });
    const url = `/api/v1/workspaces/${ws.body.id}/tasks`;
    const created = await h.call('POST', url, {
      json: { skill_slug: 's', title: 'retried', hired_agent_id: agent },
    });
    const id = created.body.id as string;
    const reviewer = newId();
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 3, 9, minute)).toISOString();
    const move = async (minute: number, from: WorkspaceTaskStatus, progress: TaskProgress) => {
      setClock(new Date(at(minute)));
      try {
        await advanceWorkspaceTask(ws.body.id, id, from, progress);
      } finally {
        setClock(undefined);
      }
      const [task] = (await h.call('GET', url)).body;
      return [task.status, task.approved_by, task.approved_at, task.started_at, task.completed_at];
    };
    await move(1, 'pending', { status: 'awaiting_approval' });
    await move(2, 'awaiting_approval', { status: 'approved', approved_by: reviewer });
    await move(3, 'approved', { status: 'in_progress' });
    assert.deepEqual(await move(4, 'in_progress', { status: 'failed' }), [
      'failed',
      reviewer,
      at(2),
      at(3),
      at(4),
    ]);
    // Retried: running again, so not completed (the failure's time is not its completion).
    assert.deepEqual(await move(5, 'failed', { status: 'in_progress' }), [
      'in_progress',
      reviewer,
      at(2),
      at(5),
      null,
    ]);
    // Failed again and approved afresh: neither started nor completed (the failure's time is gone).
    await move(6, 'in_progress', { status: 'failed' });
    assert.deepEqual(await move(7, 'failed', { status: 'approved', approved_by: reviewer }), [
      'approved',
      reviewer,
      at(7),
      null,
      null,
    ]);
    await move(8, 'approved', { status: 'in_progress' });
    // Sent back for review: neither approved nor started any more.
    assert.deepEqual(await move(9, 'in_progress', { status: 'awaiting_approval' }), [
      'awaiting_approval',
      null,
      null,
      null,
      null,
    ]);
    assert.deepEqual(await move(10, 'awaiting_approval', { status: 'cancelled' }), [
      'cancelled',
      null,
      null,
      null,
      at(10),
    ]);
  });

  const bound = (loc: string, type: string, msg: string, input: string, ctx?: object) => ({
    detail: [{ type, loc: ['query', loc], msg, input, ...(ctx ? { ctx } : {}) }],
  });
  const bounds: [string, object][] = [
    [
      'limit=0',
      bound('limit', 'greater_than_equal', 'Input should be greater than or equal to 1', '0', { ge: 1 }),
    ],
    [
      'limit=101',
      bound('limit', 'less_than_equal', 'Input should be less than or equal to 100', '101', { le: 100 }),
    ],
    [
      'offset=-1',
      bound('offset', 'greater_than_equal', 'Input should be greater than or equal to 0', '-1', { ge: 0 }),
    ],
    [
      'offset=10001',
      bound('offset', 'less_than_equal', 'Input should be less than or equal to 10000', '10001', {
        le: 10000,
      }),
    ],
    [
      'limit=ten',
      bound(
        'limit',
        'int_parsing',
        'Input should be a valid integer, unable to parse string as an integer',
        'ten',
      ),
    ],
    [
      'before=t1',
      bound(
        'before',
        'uuid_parsing',
        'Input should be a valid UUID, invalid character: found `t` at 1',
        't1',
        {
          error: 'invalid character: found `t` at 1',
        },
      ),
    ],
    [
      'offset=1.5',
      bound(
        'offset',
        'int_parsing',
        'Input should be a valid integer, unable to parse string as an integer',
        '1.5',
      ),
    ],
  ];
  for (const [query, body] of bounds) {
    it(`422 for ${query}`, async () => {
      const res = await list(`?${query}`);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body, body);
    });
  }

  it('accepts the bounds themselves', async () => {
    assert.equal((await list('?limit=1&offset=0')).body.length, 1);
    assert.equal((await list('?limit=100')).body.length, Math.min(100, expected.length));
  });
});
