import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addProjectTask } from '../../shared/projects/store.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('projects', () => {
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
