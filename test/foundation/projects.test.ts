import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { setClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { PROJECT_LIMITS } from '../../shared/projects/schemas.ts';
import { addProjectTask } from '../../shared/projects/store.ts';
import { recordDynamoRequests, shortDynamoPages } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { asciiJson } from '../support/python-json.ts';
import { scanTable } from '../support/table-scan.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('projects', () => {
  it('keeps a budget in the cents it is counted in: a tiny one is 0, not a write DynamoDB refuses (a 500)', async () => {
    const created = await h.call('POST', '/api/v1/projects', {
      json: {
        title: 'Tiny',
        tasks: [
          { title: 'a', budget_usd: 1e-200 },
          { title: 'b', budget_usd: 0.004 },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.body.project_tasks.map((t: { budget_usd: number }) => t.budget_usd),
      [0, 0],
    );
  });

  it('rounds a budget half up on the decimal the client wrote, not on its binary float', async () => {
    // 1.005, 0.285 and 0.145 are just below the half cent as floats (1.00499…); x * 100 rounded them
    // down, while 0.015 and 1.115 (also below it as floats) came out rounded up: no rule a client can
    // follow. Every one is a half cent as written, so each goes up.
    const budgets = [1.005, 0.285, 0.145, 0.015, 1.115, 2.675];
    const rounded = [1.01, 0.29, 0.15, 0.02, 1.12, 2.68];
    const created = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Half cents', tasks: budgets.map((budget_usd, i) => ({ title: `t${i}`, budget_usd })) },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.body.project_tasks.map((t: { budget_usd: number }) => t.budget_usd),
      rounded,
    );
    assert.equal(created.body.total_budget_usd, 5.27);
    // The agents' write path rounds alike.
    const added = await addProjectTask(created.body.id, {
      title: 'late',
      status: 'pending',
      budget_usd: 4.005,
    });
    assert.equal(added.budget_usd, 4.01);
    const read = await h.call('GET', `/api/v1/projects/${created.body.id}`);
    assert.equal(read.body.total_budget_usd, 9.28);
    assert.deepEqual(
      read.body.project_tasks.map((t: { budget_usd: number }) => t.budget_usd),
      [...rounded, 4.01],
    );
  });

  it('a failing batch of tasks leaves none behind (no project item names them yet)', async () => {
    const title = `Batch fails ${newId()}`;
    const tasks = Array.from({ length: 60 }, (_, i) => ({ title: `t${i}` }));
    const client = dynamo();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // The batch holding task t30 (the second of three) fails for good, the SDK's retries included.
        if (context.commandName === 'BatchWriteItemCommand' && JSON.stringify(args.input).includes('"t30"'))
          throw Object.assign(new Error('injected'), {
            name: 'InternalServerError',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'failSecondBatch', priority: 'low' },
    );
    let res: Awaited<ReturnType<typeof h.call>>;
    try {
      res = await h.call('POST', '/api/v1/projects', { json: { title, tasks } });
    } finally {
      client.middlewareStack.remove('failSecondBatch');
    }
    assert.ok(res.status >= 500, res.text);
    const ofKind = (kind: string) =>
      scanTable({ FilterExpression: 'kind = :kind', ExpressionAttributeValues: { ':kind': kind } });
    const [Items, projects] = await Promise.all([ofKind('project_task'), ofKind('project')]);
    const withProject = new Set(projects.map((project) => project.pk));
    assert.deepEqual(
      Items.filter((task) => !withProject.has(task.pk)).map((task) => task.title),
      [],
    );
    assert.ok(!projects.some((project) => project.title === title));
  });

  it('creates a project with tasks and reads back counts and budget derived from them', async () => {
    const created = await h.call('POST', '/api/v1/projects', {
      json: {
        title: 'Launch',
        mode: 'composer',
        composer_prompt: 'Plan it',
        tasks: [
          { title: 'a', status: 'completed', budget_usd: 10.1 },
          { title: 'b', status: 'pending', budget_usd: 0.2 },
          { title: 'c', status: 'completed' },
        ],
      },
    });
    assert.equal(created.status, 201);
    const read = await h.call('GET', `/api/v1/projects/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const project = read.body;
    assert.equal(project.user_id, h.owner.id);
    assert.equal(project.status, 'active');
    assert.equal(project.mode, 'composer');
    assert.equal(project.description, null);
    assert.equal(project.bundle_template, null);
    assert.equal(project.task_count, 3);
    assert.equal(project.completed_count, 2);
    assert.equal(project.total_budget_usd, 10.3); // summed in cents: no 10.299999
    assert.deepEqual(
      project.project_tasks.map((t: { title: string }) => t.title),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(Object.keys(project.project_tasks[0]).sort(), [
      'budget_usd',
      'created_at',
      'id',
      'project_id',
      'status',
      'title',
      'updated_at',
    ]);
  });

  it('defaults: no tasks gives empty list and zero counts, mode manual', async () => {
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Empty' } });
    assert.equal(created.status, 201);
    const { project_tasks, task_count, completed_count, total_budget_usd, mode } = created.body;
    assert.deepEqual(
      { project_tasks, task_count, completed_count, total_budget_usd, mode },
      {
        project_tasks: [],
        task_count: 0,
        completed_count: 0,
        total_budget_usd: 0,
        mode: 'manual',
      },
    );
  });

  it('tasks added later by an agent keep the counters in step', async () => {
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Growing' } });
    await addProjectTask(created.body.id, { title: 'late', status: 'completed', budget_usd: 5 });
    const read = await h.call('GET', `/api/v1/projects/${created.body.id}`);
    assert.equal(read.body.task_count, 1);
    assert.equal(read.body.completed_count, 1);
    assert.equal(read.body.total_budget_usd, 5);
  });

  it('a task added later moves the project’s updated_at, in its read and in the list', async () => {
    const token = await h.tokenFor(newId());
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Touched' }, token });
    const later = new Date(Date.parse(created.body.created_at) + 60_000).toISOString();
    setClock(new Date(later));
    try {
      await addProjectTask(created.body.id, { title: 'late', status: 'pending', budget_usd: 2 });
    } finally {
      setClock(undefined);
    }
    const read = await h.call('GET', `/api/v1/projects/${created.body.id}`, { token });
    // Its counts and budget changed a minute after it was made: that is when it was last updated.
    assert.deepEqual(
      [read.body.created_at, read.body.updated_at, read.body.task_count, read.body.total_budget_usd],
      [created.body.created_at, later, 1, 2],
    );
    const [entry] = (await h.call('GET', '/api/v1/projects', { token })).body;
    assert.equal(entry.updated_at, later);
  });

  it('its updated_at never moves back: a task stamped earlier whose counters land later is counted, the time kept', async () => {
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Racing' } });
    const at = (minutes: number) => new Date(Date.parse(created.body.created_at) + minutes * 60_000);
    try {
      setClock(at(2));
      await addProjectTask(created.body.id, { title: 'landed first', status: 'pending', budget_usd: 1 });
      setClock(at(1));
      await addProjectTask(created.body.id, { title: 'landed second', status: 'completed', budget_usd: 2 });
    } finally {
      setClock(undefined);
    }
    const read = (await h.call('GET', `/api/v1/projects/${created.body.id}`)).body;
    assert.deepEqual(
      [read.updated_at, read.task_count, read.completed_count, read.total_budget_usd],
      [at(2).toISOString(), 2, 1, 3],
    );
    // Listed by id, in creation order: each id is made at its task's created_at.
    assert.deepEqual(
      read.project_tasks.map((task: { title: string }) => task.title),
      ['landed second', 'landed first'],
    );
  });

  it('a task whose counters cannot be written is taken back: no task is listed that the counts leave out', async () => {
    const created = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Counted or not', tasks: [{ title: 'first', budget_usd: 1 }] },
    });
    const id = created.body.id as string;
    const client = dynamo();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // The project's counter update fails for good (the SDK's retries included).
        if (context.commandName === 'UpdateItemCommand' && JSON.stringify(args.input).includes(id))
          throw Object.assign(new Error('injected'), {
            name: 'InternalServerError',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'failCounters', priority: 'low' },
    );
    try {
      await assert.rejects(addProjectTask(id, { title: 'late', status: 'completed', budget_usd: 5 }));
    } finally {
      client.middlewareStack.remove('failCounters');
    }
    const read = (await h.call('GET', `/api/v1/projects/${id}`)).body;
    const listed = (await h.call('GET', tasksUrl(id))).body.tasks;
    assert.deepEqual([read.task_count, read.completed_count, read.total_budget_usd], [1, 0, 1]);
    assert.deepEqual(
      [read.project_tasks, listed].map((tasks) => tasks.map((t: { title: string }) => t.title)),
      [['first'], ['first']],
    );
    // The agent's retry is counted like any add.
    await addProjectTask(id, { title: 'late', status: 'completed', budget_usd: 5 });
    const again = (await h.call('GET', `/api/v1/projects/${id}`)).body;
    assert.deepEqual(
      [again.task_count, again.completed_count, again.total_budget_usd, again.project_tasks.length],
      [2, 1, 6, 2],
    );
  });

  it('validates the body in FastAPI format, nested locations included', async () => {
    const res = await h.call('POST', '/api/v1/projects', {
      json: { title: '', mode: 'auto', tasks: [{ title: 'ok' }, { status: 'done', budget_usd: -1 }] },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'string_too_short',
        loc: ['body', 'title'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
      {
        type: 'literal_error',
        loc: ['body', 'mode'],
        msg: "Input should be 'manual', 'composer' or 'bundle'",
        input: 'auto',
        ctx: { expected: "'manual', 'composer' or 'bundle'" },
      },
      {
        type: 'missing',
        loc: ['body', 'tasks', 1, 'title'],
        msg: 'Field required',
        input: { status: 'done', budget_usd: -1 },
      },
      {
        type: 'literal_error',
        loc: ['body', 'tasks', 1, 'status'],
        msg: "Input should be 'pending', 'in_progress', 'completed' or 'cancelled'",
        input: 'done',
        ctx: { expected: "'pending', 'in_progress', 'completed' or 'cancelled'" },
      },
      {
        type: 'greater_than_equal',
        loc: ['body', 'tasks', 1, 'budget_usd'],
        msg: 'Input should be greater than or equal to 0',
        input: -1,
        ctx: { ge: 0 },
      },
    ]);
  });

  it('reads a budget written as text as pydantic does (each case checked against pydantic 2.13)', async () => {
    // pydantic trims as Rust does (U+0085 and U+3000 are white space, a byte-order mark is not), takes
    // text with `_` untrimmed with `_` anywhere but at the ends or doubled, and Rust's float syntax.
    const read = {
      '\u00852.5': 2.5,
      '\u30002.5': 2.5,
      '1_0.5': 10.5,
      '1_e1': 10,
      '+_5': 5,
      '.5': 0.5,
      '5.': 5,
    };
    const refused = ['\ufeff2.5', ' 1_0', '1_0 ', '_1', '1_', '1__0', 'e5', '.', '1e', '0x10'];
    const tasks = [...Object.keys(read), ...refused].map((budget_usd, i) => ({ title: `t${i}`, budget_usd }));
    const res = await h.call('POST', '/api/v1/projects', { json: { title: 'Text budgets', tasks } });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.detail.map((d: { type: string; loc: unknown[]; input: string }) => [
        d.type,
        d.loc[2],
        d.input,
      ]),
      refused.map((text, i) => ['float_parsing', Object.keys(read).length + i, text]),
    );
    const ok = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Text budgets', tasks: tasks.slice(0, Object.keys(read).length) },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(
      ok.body.project_tasks.map((t: { budget_usd: number }) => t.budget_usd),
      Object.values(read),
    );
  });

  it('takes a body with every field at its maximum however the client escapes it (Python: 428 KB on the wire)', async () => {
    const text = (max: number) => '😀'.repeat(max);
    const L = PROJECT_LIMITS;
    const project = {
      title: text(L.title.max),
      description: text(L.description.max),
      mode: 'composer',
      composer_prompt: text(L.composerPrompt.max),
      bundle_template: text(L.bundleTemplate.max),
      tasks: Array.from({ length: L.initialTasks }, () => ({ title: text(L.taskTitle.max), budget_usd: 1 })),
    };
    const body = asciiJson(project);
    assert.ok(Buffer.byteLength(body) > 400_000); // over the 256 KiB limit as wire bytes
    const created = await h.call('POST', '/api/v1/projects', {
      body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(created.status, 201, created.text.slice(0, 200));
    const read = await h.call('GET', `/api/v1/projects/${created.body.id}`);
    assert.equal(read.body.composer_prompt, project.composer_prompt);
    assert.equal(read.body.task_count, L.initialTasks);
  });

  it('refuses more than 100 initial tasks with too_long', async () => {
    const res = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Big', tasks: Array.from({ length: 101 }, (_, i) => ({ title: `t${i}` })) },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail[0].type, 'too_long');
    assert.deepEqual(res.body.detail[0].ctx, { field_type: 'List', max_length: 100, actual_length: 101 });
  });

  it('a non-UUID id gives uuid_parsing at ["path","project_id"]', async () => {
    const res = await h.call('GET', '/api/v1/projects/1234');
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail[0].loc, ['path', 'project_id']);
    assert.equal(res.body.detail[0].type, 'uuid_parsing');
  });

  it("another user's project answers 404 like a missing one", async () => {
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Mine' } });
    const theirs = await h.call('GET', `/api/v1/projects/${created.body.id}`, { token: h.other.token });
    const missing = await h.call('GET', '/api/v1/projects/01a1fc6e-0000-7000-8000-0000000000ff', {
      token: h.other.token,
    });
    assert.equal(theirs.status, 404);
    assert.deepEqual(theirs.body, { detail: 'Project not found' });
    assert.equal(theirs.text, missing.text);
  });
});

const tasksUrl = (projectId: string) => `/api/v1/projects/${projectId}/tasks`;

/** A project with 45 tasks: 40 created with it (ids t0…t39), 5 added later by an agent (t40…t44). */
async function projectWith45Tasks() {
  const created = await h.call('POST', '/api/v1/projects', {
    json: {
      title: 'Big one',
      tasks: Array.from({ length: 40 }, (_, i) => ({
        title: `t${i}`,
        status: i % 3 === 0 ? 'completed' : 'pending',
        budget_usd: 1.1,
      })),
    },
  });
  assert.equal(created.status, 201);
  const later = [];
  for (let i = 40; i < 45; i++)
    later.push(await addProjectTask(created.body.id, { title: `t${i}`, status: 'pending', budget_usd: 1.1 }));
  return { id: created.body.id as string, created: created.body, later };
}

describe('project task preview and the paged task list', () => {
  it('pages the task list by 50 by default and by up to 100 (docs/decisions.md: limit 1–100, default 50)', async () => {
    const created = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Fifty-one', tasks: Array.from({ length: 51 }, (_, i) => ({ title: `t${i}` })) },
    });
    const byDefault = await h.call('GET', tasksUrl(created.body.id));
    assert.deepEqual(
      [byDefault.body.tasks.length, byDefault.body.tasks.at(-1).title, byDefault.body.next_after],
      [50, 't49', byDefault.body.tasks[49].id],
    );
    const widest = await h.call('GET', `${tasksUrl(created.body.id)}?limit=100`);
    assert.deepEqual([widest.body.tasks.length, widest.body.next_after], [51, null]);
  });

  it('GET /projects/{id} inlines the first 20 tasks in creation order; counts and budget cover all 45', async () => {
    assert.equal(PROJECT_LIMITS.tasksShown, 20);
    const { id, created } = await projectWith45Tasks();
    // The create response follows the same rule.
    assert.equal(created.project_tasks.length, 20);
    assert.equal(created.task_count, 40);
    const read = await h.call('GET', `/api/v1/projects/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(
      read.body.project_tasks.map((t: { title: string }) => t.title),
      Array.from({ length: 20 }, (_, i) => `t${i}`),
    );
    assert.deepEqual(read.body.project_tasks, created.project_tasks);
    assert.equal(read.body.task_count, 45);
    assert.equal(read.body.completed_count, 14); // t0, t3, …, t39
    assert.equal(read.body.total_budget_usd, 49.5);
  });

  it('pages through all 45 tasks oldest first with limit and next_after; the last page says null', async () => {
    const { id } = await projectWith45Tasks();
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const res = await h.call('GET', `${tasksUrl(id)}?limit=20${after ? `&after=${after}` : ''}`);
      assert.equal(res.status, 200);
      pages++;
      sizes.push(res.body.tasks.length);
      seen.push(...res.body.tasks.map((t: { title: string }) => t.title));
      after = res.body.next_after;
      if (after !== null) assert.equal(after, res.body.tasks.at(-1).id);
    } while (after !== null && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(sizes, [20, 20, 5]);
    assert.deepEqual(
      seen,
      Array.from({ length: 45 }, (_, i) => `t${i}`),
    );
    // The whole list under the default limit (50): same tasks, same order, no next page.
    const all = await h.call('GET', tasksUrl(id));
    assert.equal(all.status, 200);
    assert.equal(all.body.tasks.length, 45);
    assert.equal(all.body.next_after, null);
    assert.deepEqual(
      all.body.tasks.map((t: { title: string }) => t.title),
      seen,
    );
    // The first tasks of the list are the project's inline preview, field for field.
    const project = await h.call('GET', `/api/v1/projects/${id}`);
    assert.deepEqual(all.body.tasks.slice(0, 20), project.body.project_tasks);
    // A page that ends exactly at the last task has no next page.
    const exact = await h.call('GET', `${tasksUrl(id)}?limit=45`);
    assert.equal(exact.body.next_after, null);
    const short = await h.call('GET', `${tasksUrl(id)}?limit=44`);
    assert.equal(short.body.next_after, all.body.tasks[43].id);
    const last = await h.call('GET', `${tasksUrl(id)}?limit=44&after=${short.body.next_after}`);
    assert.deepEqual(last.body, { tasks: [all.body.tasks[44]], next_after: null });
  });

  it('a project without tasks lists none', async () => {
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Empty' } });
    const res = await h.call('GET', tasksUrl(created.body.id));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { tasks: [], next_after: null });
  });

  it('validates limit and after in FastAPI format at ["query", …]', async () => {
    const created = await h.call('POST', '/api/v1/projects', { json: { title: 'Checked' } });
    const url = tasksUrl(created.body.id);
    const cases: [string, unknown][] = [
      [
        'limit=0',
        {
          type: 'greater_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be greater than or equal to 1',
          input: '0',
          ctx: { ge: 1 },
        },
      ],
      [
        'limit=101',
        {
          type: 'less_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be less than or equal to 100',
          input: '101',
          ctx: { le: 100 },
        },
      ],
      [
        'limit=x',
        {
          type: 'int_parsing',
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'x',
        },
      ],
      [
        'after=not-a-uuid',
        {
          type: 'uuid_parsing',
          loc: ['query', 'after'],
          msg: 'Input should be a valid UUID, invalid character: found `n` at 1',
          input: 'not-a-uuid',
          ctx: { error: 'invalid character: found `n` at 1' },
        },
      ],
    ];
    for (const [query, item] of cases) {
      const res = await h.call('GET', `${url}?${query}`);
      assert.equal(res.status, 422, query);
      assert.deepEqual(res.body, { detail: [item] }, query);
    }
    const both = await h.call('GET', `${url}?limit=101&after=abc`);
    assert.deepEqual(
      both.body.detail.map((d: { loc: unknown }) => d.loc),
      [
        ['query', 'limit'],
        ['query', 'after'],
      ],
    );
  });

  it("another user's project answers 404 like a missing one; no token answers 401", async () => {
    const { id } = await projectWith45Tasks();
    const theirs = await h.call('GET', tasksUrl(id), { token: h.other.token });
    const missing = await h.call('GET', tasksUrl('01a1fc6e-0000-7000-8000-0000000000ff'), {
      token: h.other.token,
    });
    assert.equal(theirs.status, 404);
    assert.deepEqual(theirs.body, { detail: 'Project not found' });
    assert.equal(theirs.text, missing.text);
    assert.deepEqual(theirs.headers, missing.headers);
    // Paging does not get round it either.
    const paged = await h.call('GET', `${tasksUrl(id)}?limit=1&after=${id}`, { token: h.other.token });
    assert.equal(paged.text, missing.text);
    const anonymous = await h.call('GET', tasksUrl(id), { token: null });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { detail: 'Not authenticated' });
    assert.equal(anonymous.headers['www-authenticate'], 'Bearer');
  });
});

describe("another user's task list", () => {
  it('reads one page of tasks before its 404, not the whole list', async () => {
    // Pages of 4, as DynamoDB's 1 MB page ends them over large tasks: the list read on, page after
    // page (13 Queries for limit=50 over 45 tasks), beside the ownership check that refused it.
    const { id } = await projectWith45Tasks();
    const undoShortPages = shortDynamoPages(4);
    const recorder = recordDynamoRequests();
    try {
      const theirs = await h.call('GET', `${tasksUrl(id)}?limit=50`, { token: h.other.token });
      assert.equal(theirs.status, 404);
      assert.equal(recorder.commands().filter((c) => c === 'QueryCommand').length, 1);
      recorder.clear();
      const mine = await h.call('GET', `${tasksUrl(id)}?limit=50`);
      assert.equal(mine.body.tasks.length, 45);
      assert.equal(recorder.commands().filter((c) => c === 'QueryCommand').length, 12);
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });
});

describe('project reads are bounded', () => {
  it('GET /projects/{id} is one Query of 21 items; the task list is one wave: GetItem ∥ Query of limit + 1 tasks', async () => {
    const { id } = await projectWith45Tasks();
    const recorder = recordDynamoRequests();
    try {
      assert.equal((await h.call('GET', `/api/v1/projects/${id}`)).status, 200);
      assert.deepEqual(recorder.commands(), ['QueryCommand']);
      assert.equal(recorder.requests[0]!.input.Limit, PROJECT_LIMITS.tasksShown + 1);
      recorder.clear();

      const first = await h.call('GET', `${tasksUrl(id)}?limit=20`);
      assert.equal(first.status, 200);
      assert.deepEqual(recorder.commands().sort(), ['GetItemCommand', 'QueryCommand']);
      assert.equal(recorder.waves(), 1);
      const query = recorder.requests.find((r) => r.command === 'QueryCommand')!.input;
      assert.equal(query.Limit, 21);
      assert.match(String(query.KeyConditionExpression), /begins_with/);
      assert.equal((query.ExpressionAttributeValues as Record<string, unknown>)[':prefix'], 'PTASK#');
      assert.equal(query.ExclusiveStartKey, undefined);
      recorder.clear();

      await h.call('GET', `${tasksUrl(id)}?limit=20&after=${first.body.next_after}`);
      const next = recorder.requests.find((r) => r.command === 'QueryCommand')!.input;
      assert.deepEqual(next.ExclusiveStartKey, { pk: `PROJECT#${id}`, sk: `PTASK#${first.body.next_after}` });
    } finally {
      recorder.stop();
    }
  });
});
