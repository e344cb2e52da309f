import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { teamRoutes } from '../../infra/routes/teams.ts';
import { createBrand } from '../../shared/brands/store.ts';
import { DICT_MAX_BYTES } from '../../shared/http/fields.ts';
import { RESPONSE_BODY_MAX_BYTES, sentBytes } from '../../shared/lambda-response.ts';
import {
  addActivity,
  addBrief,
  addCycle,
  addMember,
  addTask,
  setCanvasLayout,
  updateCycleStatus,
  updateTeam,
} from '../../shared/teams/agents.ts';
import { TEAM_BYTES } from '../../shared/teams/schemas.ts';
import { dynamoRequestsOf, recordDynamoRequests, shortDynamoPages } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { createBusyTeam, createTeam, TEAM_BODY } from './fixtures.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const teamPath = (id: string, rest = '') => `/api/v1/teams/${id}${rest}`;

describe('team creation and detail', () => {
  it('creates a team with every optional field at its default', async () => {
    const team = await createTeam(h);
    assert.match(team.id, /^[0-9a-f-]{36}$/);
    assert.equal(team.created_at, team.updated_at);
    const { id: _id, created_at: _c, updated_at: _u, ...rest } = team;
    assert.deepEqual(rest, {
      ...TEAM_BODY,
      status: 'active',
      workflow_phase: 'onboarding',
      workflow_phase_label: 'Setting Up',
      trigger_mode: 'strategy-driven',
      default_currency: 'USD',
      onboarding_step: 'pending',
      auto_config: {},
      orchestrator_cadence: {},
      content_strategy: {},
      config: { timezone: 'UTC' },
      payments_subscription_id: null,
      connected_accounts: [],
      brand_kit_id: null,
      brand_id: null,
      brand_name: null,
      hired_at: null,
      paused_at: null,
      cancelled_at: null,
      subscription_ends_at: null,
      members: [],
      recent_activity: [],
      content_cadence: [],
    });
    const read = await h.call('GET', teamPath(team.id));
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, team);
  });

  it('keeps the given objects, time zone, cadence defaults and the caller’s brand name', async () => {
    const brand = await createBrand(h.owner.id, {
      name: 'Trail Co.',
      website_url: null,
      logo_url: null,
      industry: null,
      description: null,
    });
    const kit = await h.call('POST', '/api/v1/brand-kits', { json: { name: 'Trail Co. kit' } });
    assert.equal(kit.status, 201, kit.text);
    const team = await createTeam(h, {
      brand_id: brand.id.toUpperCase(),
      brand_kit_id: kit.body.id.toUpperCase(),
      content_strategy: { pillars: ['guides'] },
      orchestrator_cadence: { planning: 'weekly' },
      config: { timezone: 'Pacific/Auckland', approval: true },
      content_cadence: [{ platform: 'instagram', task_type: 'social_post', per_week: 3 }],
    });
    assert.equal(team.brand_id, brand.id);
    assert.equal(team.brand_name, 'Trail Co.');
    assert.equal(team.brand_kit_id, kit.body.id);
    assert.deepEqual(team.config, { timezone: 'Pacific/Auckland', approval: true });
    assert.deepEqual(team.content_strategy, { pillars: ['guides'] });
    assert.deepEqual(team.orchestrator_cadence, { planning: 'weekly' });
    assert.deepEqual(team.content_cadence, [
      {
        platform: 'instagram',
        task_type: 'social_post',
        per_week: 3,
        preferred_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        preferred_times: ['09:00'],
        title: null,
      },
    ]);
  });

  it('stores a time zone as the time-zone database spells it, aliases as sent', async () => {
    for (const [sent, stored] of [
      ['utc', 'UTC'],
      ['europe/paris', 'Europe/Paris'],
      ['AMERICA/LOS_ANGELES', 'America/Los_Angeles'],
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['US/Pacific', 'US/Pacific'],
    ]) {
      const team = await createTeam(h, { config: { timezone: sent } });
      assert.deepEqual(team.config, { timezone: stored }, sent);
      const read = await h.call('GET', `/api/v1/teams/${team.id}`);
      assert.equal(read.body.config.timezone, stored, sent);
    }
  });

  it('refuses another user’s brand as a missing one', async () => {
    const brand = await createBrand(h.other.id, {
      name: 'Not yours',
      website_url: null,
      logo_url: null,
      industry: null,
      description: null,
    });
    const res = await h.call('POST', '/api/v1/teams', { json: { ...TEAM_BODY, brand_id: brand.id } });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Brand not found' });
  });

  it('refuses another user’s brand kit as a missing one, writing no team', async () => {
    // Before, any kit id was stored as given: a team could name another user's kit.
    const theirs = await h.call('POST', '/api/v1/brand-kits', {
      json: { name: 'Not yours' },
      token: h.other.token,
    });
    assert.equal(theirs.status, 201, theirs.text);
    const teams = async () => (await h.call('GET', '/api/v1/teams?limit=100')).body;
    const before = await teams();
    for (const brand_kit_id of [theirs.body.id, '0193a0a0-0000-7000-8000-000000000001']) {
      const res = await h.call('POST', '/api/v1/teams', { json: { ...TEAM_BODY, brand_kit_id } });
      assert.equal(res.status, 404, brand_kit_id);
      assert.deepEqual(res.body, { detail: 'Brand kit not found' });
    }
    // Neither the brand nor the kit is the caller's: the brand's answer.
    const both = await h.call('POST', '/api/v1/teams', {
      json: { ...TEAM_BODY, brand_id: theirs.body.id, brand_kit_id: theirs.body.id },
    });
    assert.deepEqual([both.status, both.body], [404, { detail: 'Brand not found' }]);
    assert.deepEqual(await teams(), before);
  });

  it('validates the body in FastAPI format', async () => {
    const res = await h.call('POST', '/api/v1/teams', {
      json: {
        team_type: '',
        tier: 'growth',
        operation_mode: 'autopilot',
        config: { timezone: 'Mars/Olympus' },
        content_cadence: [{ platform: 'x', task_type: 'post', per_week: 0, preferred_days: ['someday'] }],
      },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'string_too_short',
        loc: ['body', 'team_type'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
      {
        type: 'missing',
        loc: ['body', 'display_name'],
        msg: 'Field required',
        input: {
          team_type: '',
          tier: 'growth',
          operation_mode: 'autopilot',
          config: { timezone: 'Mars/Olympus' },
          content_cadence: [{ platform: 'x', task_type: 'post', per_week: 0, preferred_days: ['someday'] }],
        },
      },
      {
        type: 'value_error',
        loc: ['body', 'config'],
        msg: 'Value error, timezone must be an IANA time zone name such as Europe/Paris',
        input: { timezone: 'Mars/Olympus' },
        ctx: { error: {} },
      },
      {
        type: 'greater_than_equal',
        loc: ['body', 'content_cadence', 0, 'per_week'],
        msg: 'Input should be greater than or equal to 1',
        input: 0,
        ctx: { ge: 1 },
      },
      {
        type: 'literal_error',
        loc: ['body', 'content_cadence', 0, 'preferred_days', 0],
        msg: "Input should be 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday' or 'sunday'",
        input: 'someday',
        ctx: {
          expected: "'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday' or 'sunday'",
        },
      },
    ]);
  });
});

describe('content cadence', () => {
  const line = { platform: 'instagram', task_type: 'social_post', per_week: 2 };
  const create = (content_cadence: unknown[]) =>
    h.call('POST', '/api/v1/teams', { json: { ...TEAM_BODY, content_cadence } });

  it('refuses empty preferred days or times: a line that could never be planned', async () => {
    const res = await create([{ ...line, preferred_days: [], preferred_times: [] }]);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'too_short',
        loc: ['body', 'content_cadence', 0, 'preferred_days'],
        msg: 'List should have at least 1 item after validation, not 0',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
      {
        type: 'too_short',
        loc: ['body', 'content_cadence', 0, 'preferred_times'],
        msg: 'List should have at least 1 item after validation, not 0',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it('refuses more per week than its distinct days × times, at the line, with the line as sent', async () => {
    const tooMany = {
      ...line,
      per_week: 3,
      preferred_days: ['monday', 'monday'],
      preferred_times: ['09:00'],
    };
    const res = await create([line, tooMany]);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'value_error',
        loc: ['body', 'content_cadence', 1],
        msg: 'Value error, per_week must be at most the number of distinct preferred_days times the number of distinct preferred_times',
        input: tooMany,
        ctx: { error: {} },
      },
    ]);
    // Field errors come first, as pydantic runs a model's own rule only on valid fields.
    const both = await create([{ ...tooMany, platform: '' }]);
    assert.deepEqual(
      both.body.detail.map((item: { type: string; loc: unknown[] }) => [item.type, item.loc]),
      [['string_too_short', ['body', 'content_cadence', 0, 'platform']]],
    );
    // Up to the default days × times (Monday–Friday at 09:00: five) is accepted.
    assert.equal((await create([{ ...line, per_week: 5 }])).status, 201);
    assert.equal((await create([{ ...line, per_week: 6 }])).status, 422);
  });

  it('refuses lines of one platform and task type asking for more slots than the days and times they name', async () => {
    const monday = { ...line, per_week: 1, preferred_days: ['monday'], preferred_times: ['09:00'] };
    const second = { ...monday, title: 'Second' };
    // Another kind at the same day and time is no clash: it is another post.
    const res = await create([monday, { ...monday, platform: 'tiktok' }, second]);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'value_error',
        loc: ['body', 'content_cadence', 2],
        msg: 'Value error, the lines of one platform and task_type must each find per_week distinct day and time pairs among their own preferred_days and preferred_times, no pair taken by two of them',
        input: second,
        ctx: { error: {} },
      },
    ]);
    // Each line's own rule first, as pydantic runs the list's rule only on valid lines.
    const both = await create([monday, { ...second, per_week: 2 }]);
    assert.deepEqual(
      both.body.detail.map((item: { msg: string; loc: unknown[] }) => [item.msg.slice(0, 30), item.loc]),
      [['Value error, per_week must be ', ['body', 'content_cadence', 1]]],
    );
    // Room for both: one more day or time between them.
    assert.equal((await create([monday, { ...second, preferred_times: ['09:00', '18:00'] }])).status, 201);
    assert.equal((await create([monday, { ...monday, platform: 'tiktok' }])).status, 201);
    // The pairs must be the lines' own: two Monday-only lines after a Monday–Friday one name five pairs
    // between them for three slots, but both want Monday 09:00 (accepted before, and the third line never
    // planned). A wide line before one narrow line is fine: it takes another of its days.
    const wide = { ...line, per_week: 1 };
    const late = await create([wide, monday, second]);
    assert.equal(late.status, 422);
    assert.deepEqual(late.body.detail[0].loc, ['body', 'content_cadence', 2]);
    assert.equal((await create([{ ...wide, per_week: 4 }, monday])).status, 201);
    assert.equal((await create([{ ...wide, per_week: 5 }, monday])).status, 422);
  });

  it('takes preferred times as 24-hour HH:MM only: 00:00 to 23:59', async () => {
    const at = (times: string[]) => create([{ ...line, per_week: 1, preferred_times: times }]);
    assert.equal((await at(['00:00', '23:59'])).status, 201);
    for (const time of ['24:00', '23:60', '9:00', '09:00:00']) {
      const res = await at([time]);
      assert.equal(res.status, 422, time);
      assert.deepEqual(res.body.detail, [
        {
          type: 'value_error',
          loc: ['body', 'content_cadence', 0, 'preferred_times', 0],
          msg: 'Value error, time must be HH:MM (24-hour)',
          input: time,
          ctx: { error: {} },
        },
      ]);
    }
  });

  it('accepts two lines of the same platform and task type', async () => {
    const res = await create([
      { ...line, title: 'A' },
      { ...line, per_week: 1, title: 'B', preferred_times: ['15:00'] },
    ]);
    assert.equal(res.status, 201);
    assert.deepEqual(
      res.body.content_cadence.map((entry: { title: string }) => entry.title),
      ['A', 'B'],
    );
  });
});

describe('per-resource reads', () => {
  it('lists tasks newest first with the counter total, paged by limit and offset', async () => {
    const { team, tasks } = await createBusyTeam(h, { tasks: 12, activity: 3 });
    const all = await h.call('GET', teamPath(team.id, '/tasks'));
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 12);
    assert.deepEqual(
      all.body.tasks.map((t: { id: string }) => t.id),
      tasks.map((t) => t.id).reverse(),
    );
    assert.deepEqual(all.body.tasks.at(-1), tasks[0]);
    assert.deepEqual(Object.keys(all.body.tasks[0]), [
      'id',
      'task_type',
      'title',
      'description',
      'status',
      'priority',
      'platform',
      'publish_url',
      'evaluation_notes',
      'quality_score',
      'revision_count',
      'max_revisions',
      'scheduled_for',
      'published_at',
      'started_at',
      'completed_at',
      'created_at',
      'assigned_member_id',
      'input_data',
      'output_data',
    ]);
    const page = await h.call('GET', teamPath(team.id, '/tasks?limit=5&offset=10'));
    assert.deepEqual(
      page.body.tasks.map((t: { title: string }) => t.title),
      ['Task 1', 'Task 0'],
    );
    assert.equal(page.body.total, 12);
    const bad = await h.call('GET', teamPath(team.id, '/tasks?limit=0&offset=-1'));
    assert.equal(bad.status, 422);
    assert.deepEqual(
      bad.body.detail.map((d: { loc: unknown; type: string }) => [d.loc, d.type]),
      [
        [['query', 'limit'], 'greater_than_equal'],
        [['query', 'offset'], 'greater_than_equal'],
      ],
    );
  });

  it('pages tasks and activity by limit 1–100 and offset 0–10,000: the bounds taken, one past refused', async () => {
    const team = await createTeam(h);
    for (const list of ['/tasks', '/activity']) {
      for (const query of ['limit=1&offset=0', 'limit=100&offset=10000']) {
        const res = await h.call('GET', teamPath(team.id, `${list}?${query}`));
        assert.equal(res.status, 200, `${list}?${query}: ${res.text}`);
      }
      const past = await h.call('GET', teamPath(team.id, `${list}?limit=101&offset=10001`));
      assert.equal(past.status, 422);
      assert.deepEqual(past.body.detail, [
        {
          type: 'less_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be less than or equal to 100',
          input: '101',
          ctx: { le: 100 },
        },
        {
          type: 'less_than_equal',
          loc: ['query', 'offset'],
          msg: 'Input should be less than or equal to 10000',
          input: '10001',
          ctx: { le: 10000 },
        },
      ]);
    }
  });

  it('reads limit and offset as pydantic reads an int from text', async () => {
    const team = await createTeam(h);
    // pydantic 2.13: `1.` is no integer; Rust's whitespace is trimmed (U+0085 too), a BOM is not.
    for (const [query, status] of [
      ['limit=1.', 422],
      ['limit=1.0', 200],
      ['limit=%EF%BB%BF5', 422],
      ['limit=%C2%855', 200],
      ['offset=%C2%A00', 200],
    ] as const) {
      const res = await h.call('GET', teamPath(team.id, `/tasks?${query}`));
      assert.equal(res.status, status, `${query}: ${res.text}`);
      if (status === 422) assert.equal(res.body.detail[0].type, 'int_parsing', query);
    }
  });

  it('ends a page of big tasks before its byte budget; the next starts where it ended', async () => {
    // Tasks written by the agents may carry large outputs: 22 of 250 KB would be a 5.5 MB page of 50.
    // A page of tasks stops before 1.5 MiB (the dashboard's share of Lambda's 6 MB): 6 of them.
    const team = await createTeam(h);
    const output_data = { text: 'o'.repeat(250_000) };
    for (let i = 0; i < 22; i++)
      await addTask(team.id, { task_type: 'social_post', title: `big ${i}`, output_data });
    const titles: string[] = [];
    for (let offset = 0; offset <= 22; ) {
      const page = await h.call('GET', `/api/v1/teams/${team.id}/tasks?limit=50&offset=${offset}`);
      assert.equal(page.status, 200);
      assert.equal(page.body.total, 22);
      assert.ok(page.body.tasks.length <= 6, `${page.body.tasks.length} tasks at ${offset}`);
      if (page.body.tasks.length === 0) break;
      titles.push(...page.body.tasks.map((t: { title: string }) => t.title));
      offset += page.body.tasks.length;
    }
    assert.deepEqual(
      titles,
      Array.from({ length: 22 }, (_, i) => `big ${21 - i}`),
    );
  });

  it('stops reading a page of big tasks once its byte budget is passed, rather than read what it leaves out', async () => {
    // 22 tasks of 250 KB, pages of 4 (as DynamoDB's 1 MB page ends them): a page holds 6 of them
    // (TEAM_BYTES.tasks). Before, `limit=50` read all 22 (6 Queries, 5.5 MB) to answer 6.
    const team = await createTeam(h);
    const output_data = { text: 'o'.repeat(250_000) };
    for (let i = 0; i < 22; i++)
      await addTask(team.id, { task_type: 'social_post', title: `big ${i}`, output_data });
    const undoShortPages = shortDynamoPages(4);
    const recorder = recordDynamoRequests();
    try {
      for (const query of ['limit=50', 'limit=50&offset=3']) {
        recorder.clear();
        const page = await h.call('GET', `/api/v1/teams/${team.id}/tasks?${query}`);
        assert.equal(page.body.tasks.length, 6, query);
        // The first page of 4, then the one that passes the budget: 8 tasks (12 past an offset of 3).
        const tasksRead = recorder.requests
          .filter((r) => r.command === 'QueryCommand')
          .flatMap((r) => r.items ?? []);
        assert.equal(tasksRead.length, query.includes('offset') ? 12 : 8, query);
      }
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });

  it('keeps the dashboard, with its two lists, the activity twice and the strategy history, within Lambda’s response limit', async () => {
    // At 5 MiB a list, the two lists together (the activity twice: page and recent_activity) would pass
    // 6 MB, which Lambda refuses (the local runtime refuses it too: a 500): each has its own share.
    const team = await createTeam(h);
    const output_data = { text: 'o'.repeat(250_000) };
    for (let i = 0; i < 20; i++)
      await addTask(team.id, { task_type: 'social_post', title: `big ${i}`, output_data });
    for (let i = 0; i < 8; i++)
      await addActivity(team.id, {
        action_type: 'x',
        description: `a${i}`,
        details: { text: 'd'.repeat(150_000) },
      });
    // The strategy history too: 50 cycles of 60 KB strategies (an agent's, unbounded) were 3 MB more,
    // a 6.3 MB dashboard.
    for (let i = 0; i < 50; i++)
      await addCycle(team.id, {
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2026-01-15T00:00:00Z',
        strategy_status: 'completed',
        content_strategy: { plan: `${i} ${'p'.repeat(60_000)}` },
      });
    const dashboard = await h.call('GET', `/api/v1/teams/${team.id}/dashboard`);
    assert.equal(dashboard.status, 200, dashboard.text.slice(0, 200));
    const { tasks, activity, strategy_history } = dashboard.body;
    // The newest cycles, as many as fit its share.
    assert.ok(strategy_history.strategies.length < 50, `${strategy_history.strategies.length} strategies`);
    assert.deepEqual(
      strategy_history.strategies.map((s: { instance_number: number }) => s.instance_number),
      Array.from({ length: strategy_history.strategies.length }, (_, i) => 50 - i),
    );
    assert.deepEqual([tasks.total, activity.total], [20, 8]);
    // Both pages end early, newest first; the rest is one offset away, as on the list itself.
    assert.ok(activity.activity.length < 8, `${activity.activity.length} activities`);
    assert.ok(tasks.tasks.length < 20, `${tasks.tasks.length} tasks`);
    assert.equal(tasks.tasks[0].title, 'big 19');
    const rest = await h.call('GET', `/api/v1/teams/${team.id}/tasks?offset=${tasks.tasks.length}`);
    assert.equal(rest.body.tasks[0].title, `big ${19 - tasks.tasks.length}`);
    // Each key is still its own read, byte for byte, at this size too (spec 4).
    const reads = {
      team: await h.call('GET', teamPath(team.id)),
      tasks: await h.call('GET', teamPath(team.id, '/tasks')),
      activity: await h.call('GET', teamPath(team.id, '/activity')),
      strategy_history: await h.call('GET', teamPath(team.id, '/strategy-history')),
    };
    for (const [key, read] of Object.entries(reads))
      assert.ok(JSON.stringify(dashboard.body[key]) === read.text, `${key} differs from its read`);
  });

  it('answers the 50 newest cycles and briefs of 51, and the 10 newest activity entries of 11 in the team (docs/teams.md)', async () => {
    const team = await createTeam(h);
    for (let i = 0; i < 51; i++) {
      const cycle = await addCycle(team.id, {
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2026-01-15T00:00:00Z',
        strategy_status: 'completed',
      });
      await addBrief(team.id, { cycle_instance_id: cycle.cycle_instance_id, content: `Brief ${i}` });
    }
    for (let i = 0; i < 11; i++)
      await addActivity(team.id, { action_type: 'a', description: `Activity ${i}` });
    const history = (await h.call('GET', teamPath(team.id, '/strategy-history'))).body.strategies;
    assert.deepEqual(
      [history.length, history[0].instance_number, history.at(-1).instance_number],
      [50, 51, 2],
    );
    const briefs = (await h.call('GET', teamPath(team.id, '/strategy-briefs'))).body.items;
    assert.deepEqual(
      [briefs.length, briefs[0].brief_preview, briefs.at(-1).brief_preview],
      [50, 'Brief 50', 'Brief 1'],
    );
    const recent = (await h.call('GET', teamPath(team.id))).body.recent_activity;
    assert.deepEqual(
      [recent.length, recent[0].description, recent.at(-1).description],
      [10, 'Activity 10', 'Activity 1'],
    );
  });

  it('lists activity, strategy history and briefs newest first', async () => {
    const { team } = await createBusyTeam(h, { tasks: 1, activity: 14 });
    const activity = await h.call('GET', teamPath(team.id, '/activity?limit=3'));
    assert.equal(activity.body.total, 14);
    assert.deepEqual(
      activity.body.activity.map((a: { description: string }) => a.description),
      ['Activity 13', 'Activity 12', 'Activity 11'],
    );
    const history = await h.call('GET', teamPath(team.id, '/strategy-history'));
    assert.deepEqual(
      history.body.strategies.map((s: { instance_number: number; strategy_status: string }) => [
        s.instance_number,
        s.strategy_status,
      ]),
      [
        [2, 'active'],
        [1, 'completed'],
      ],
    );
    assert.deepEqual(history.body.strategies[1], {
      cycle_instance_id: history.body.strategies[1].cycle_instance_id,
      instance_number: 1,
      strategy_status: 'completed',
      start_date: '2026-10-01T00:00:00.000Z',
      end_date: '2026-10-15T00:00:00.000Z',
      strategy_revision_count: 0,
      content_strategy: { focus: 'autumn' },
    });
    const briefs = await h.call('GET', teamPath(team.id, '/strategy-briefs'));
    const [long, short] = briefs.body.items;
    assert.equal(short.brief_preview, 'Short brief.');
    assert.ok(long.brief_preview.endsWith('…'));
    assert.ok([...long.brief_preview].length <= 281);
    assert.equal(short.cycle_instance_id, history.body.strategies[1].cycle_instance_id);
  });

  it('pages tasks and activity on from `before` without repeats while agents add more, one Query a page', async () => {
    const { team } = await createBusyTeam(h, { tasks: 5, activity: 5 });
    const lists = [
      {
        path: '/tasks',
        key: 'tasks',
        label: 'title',
        add: () => addTask(team.id, { task_type: 't', title: 'new' }),
      },
      {
        path: '/activity',
        key: 'activity',
        label: 'description',
        add: () => addActivity(team.id, { action_type: 'a', description: 'new' }),
      },
    ] as const;
    for (const list of lists) {
      const labels = (res: { body: Record<string, Record<string, string>[]> }) =>
        (res.body[list.key] ?? []).map((entry) => entry[list.label]);
      const first = await h.call('GET', teamPath(team.id, `${list.path}?limit=2`));
      const older = labels(await h.call('GET', teamPath(team.id, `${list.path}?limit=4&offset=2`)));
      await list.add();
      const last = first.body[list.key].at(-1).id;
      const { result: next, commands } = await dynamoRequestsOf(() =>
        h.call('GET', teamPath(team.id, `${list.path}?limit=4&before=${last}`)),
      );
      assert.deepEqual(labels(next), older, list.path);
      assert.deepEqual(commands.sort(), ['GetItemCommand', 'QueryCommand'], list.path);
      assert.equal(next.body.total, 6, list.path);
      const bad = await h.call('GET', teamPath(team.id, `${list.path}?before=1234`));
      assert.equal(bad.status, 422);
      assert.deepEqual(
        bad.body.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type]),
        [[['query', 'before'], 'uuid_parsing']],
      );
    }
  });

  it('cuts a brief’s preview back to a space only in its last 40 %, counting code points', async () => {
    const team = await createTeam(h);
    const cycle = '0193a0a0-0000-7000-8000-000000000000';
    // 100 emoji (200 UTF-16 units), a space, then one long word: the space is at code point 100, in
    // the first 40 % of 280, so the cut stays at 280 (it was cut back there, read as UTF-16 unit 200).
    const emoji = `${'🌲'.repeat(100)} ${'a'.repeat(300)}`;
    // A space at code point 200 (in the last 40 %): cut back to it.
    const words = `${'b'.repeat(200)} ${'c'.repeat(300)}`;
    await addBrief(team.id, { cycle_instance_id: cycle, content: emoji });
    await addBrief(team.id, { cycle_instance_id: cycle, content: words });
    const res = await h.call('GET', teamPath(team.id, '/strategy-briefs'));
    assert.deepEqual(
      res.body.items.map((item: { brief_preview: string }) => item.brief_preview),
      [`${'b'.repeat(200)}…`, `${[...emoji].slice(0, 280).join('')}…`],
    );
  });

  it('keeps a brief of exactly the preview’s 280 code points whole, and cuts one of 281', async () => {
    const team = await createTeam(h);
    const cycle = '0193a0a0-0000-7000-8000-000000000000';
    // Emoji are two UTF-16 units each: 420 units, 280 code points.
    const whole = `${'🌲'.repeat(140)}${'a'.repeat(140)}`;
    const longer = `🌲${whole}`;
    await addBrief(team.id, { cycle_instance_id: cycle, content: whole });
    await addBrief(team.id, { cycle_instance_id: cycle, content: longer });
    const res = await h.call('GET', teamPath(team.id, '/strategy-briefs'));
    assert.deepEqual(
      res.body.items.map((item: { brief_preview: string }) => item.brief_preview),
      [`${[...longer].slice(0, 280).join('')}…`, whole],
    );
  });

  it('the team detail carries members and the ten latest activity entries', async () => {
    const { team } = await createBusyTeam(h, { tasks: 1, activity: 14 });
    const read = await h.call('GET', teamPath(team.id));
    assert.deepEqual(
      read.body.members.map((m: { persona_name: string }) => m.persona_name),
      ['Leo', 'Sam'],
    );
    assert.deepEqual(Object.keys(read.body.members[0]), [
      'id',
      'role',
      'agent_slug',
      'display_name',
      'capabilities',
      'hired_agent_id',
      'persona_name',
      'agent_classes',
      'current_activity',
    ]);
    assert.equal(read.body.recent_activity.length, 10);
    assert.equal(read.body.recent_activity[0].description, 'Activity 13');
  });
});

describe('dashboard', () => {
  it('has every key, each byte-equal to the per-resource read with its defaults (lists: the first page of 20)', async () => {
    const { team } = await createBusyTeam(h, { tasks: 55, activity: 25 });
    const dashboard = await h.call('GET', teamPath(team.id, '/dashboard'));
    assert.equal(dashboard.status, 200);
    assert.deepEqual(Object.keys(dashboard.body), [
      'team',
      'tasks',
      'activity',
      'strategy_history',
      'strategy_briefs',
      'canvas_layout',
    ]);
    const reads = {
      team: await h.call('GET', teamPath(team.id)),
      tasks: await h.call('GET', teamPath(team.id, '/tasks')),
      activity: await h.call('GET', teamPath(team.id, '/activity')),
      strategy_history: await h.call('GET', teamPath(team.id, '/strategy-history')),
      strategy_briefs: await h.call('GET', teamPath(team.id, '/strategy-briefs')),
    };
    for (const [key, read] of Object.entries(reads)) {
      assert.equal(read.status, 200);
      assert.equal(JSON.stringify(dashboard.body[key]), read.text, key);
    }
    assert.equal(dashboard.body.tasks.tasks.length, 20);
    assert.equal(dashboard.body.tasks.total, 55);
    assert.equal(dashboard.body.activity.activity.length, 20);
    assert.equal(dashboard.body.activity.total, 25);
    assert.deepEqual(dashboard.body.canvas_layout, {
      nodes: [{ id: dashboard.body.team.members[0].id, x: 1, y: 2 }],
    });
  });

  it('stays within the response limit with every part at its maximum, and the agents refuse a record past its share', async () => {
    // Measured before: 20 members of 380 KB made GET /teams/{id} and the dashboard 7.6 MB (a 500, as
    // Lambda answers a response past 6 MB); a 380 KB canvas or connected_accounts of control characters
    // was 2.7 MB beside lists of 4.5 MiB; one task and one activity entry of them, 8.0 MB (a page always
    // holds its first entry). Now each is refused past its share (TEAM_BYTES), and at every maximum at
    // once, with the worst escaping, the dashboard fits.
    const ctl = (n: number) => '\u0001'.repeat(n); // 7 bytes each as sent, the most a code point takes
    // A free-form object at 16 KiB as JSON, of quotes: 2 bytes each as JSON, 4 as sent.
    const object = (rest: Record<string, unknown> = {}) => {
      const base = Buffer.byteLength(JSON.stringify({ ...rest, k: '' }));
      return { ...rest, k: '"'.repeat((DICT_MAX_BYTES - base) / 2) };
    };
    const brand = await createBrand(h.owner.id, {
      name: ctl(200),
      website_url: null,
      logo_url: null,
      industry: null,
      description: null,
    });
    const line = (i: number) => ({
      platform: ctl(63) + String.fromCharCode(65 + i),
      task_type: ctl(64),
      per_week: 21,
      preferred_days: [
        'wednesday',
        'wednesday',
        'wednesday',
        'wednesday',
        'wednesday',
        'wednesday',
        'saturday',
      ],
      preferred_times: Array.from({ length: 24 }, (_, i) => `${String(i).padStart(2, '0')}:00`),
      title: ctl(200),
    });
    const team = await createTeam(h, {
      team_type: ctl(64),
      display_name: ctl(200),
      tier: ctl(64),
      operation_mode: ctl(64),
      brand_id: brand.id,
      content_strategy: object(),
      orchestrator_cadence: object(),
      config: object({ timezone: 'UTC' }),
      content_cadence: Array.from({ length: 20 }, (_, i) => line(i)),
    });
    const changes = {
      status: ctl(64),
      workflow_phase: ctl(64),
      workflow_phase_label: ctl(200),
      trigger_mode: ctl(64),
      onboarding_step: ctl(64),
      auto_config: object(),
      payments_subscription_id: ctl(200),
      connected_accounts: Array.from({ length: 20 }, () => ctl(100)),
    };
    await assert.rejects(updateTeam(team.id, { ...changes, connected_accounts: [ctl(101)] }), /at most 100/);
    await assert.rejects(updateTeam(team.id, { auto_config: { k: 'x'.repeat(DICT_MAX_BYTES) } }), /16384/);
    await updateTeam(team.id, changes);

    /** Writes a record at the most its share allows: a first try past it is refused, naming its size
     * (nothing written), the second is that much smaller. `per` is what a filler character weighs. */
    const atMost = async <T>(
      write: (filler: string) => Promise<T>,
      char: string,
      per: number,
      guess: number,
    ) => {
      const refused = await write(char.repeat(guess)).then(
        () => undefined,
        (error: Error) => error.message,
      );
      const sizes = /(\d+) bytes as sent, more than the (\d+)/.exec(refused ?? '');
      assert.ok(sizes, `past its share, yet written (${refused})`);
      return write(char.repeat(guess - Math.ceil((Number(sizes[1]) - Number(sizes[2])) / per)));
    };
    for (let i = 0; i < 100; i++)
      await atMost(
        (note) =>
          addMember(team.id, {
            role: 'writer',
            agent_slug: 'social-writer',
            display_name: `Writer ${i}`,
            persona_name: 'Leo',
            capabilities: ['social_post', 'instagram'],
            current_activity: { note },
          }),
        '"',
        4,
        400,
      );
    await atMost((k) => setCanvasLayout(team.id, { k }), '"', 4, 9_000);
    // One record per list, as large as its page's budget (quotes: a DynamoDB item under 400 KB).
    await atMost(
      (text) => addTask(team.id, { task_type: 't', title: 't', output_data: { text } }),
      '"',
      4,
      400_000,
    );
    await atMost(
      (text) => addActivity(team.id, { action_type: 'a', description: 'd', details: { text } }),
      '"',
      4,
      300_000,
    );
    await atMost(
      (plan) =>
        addCycle(team.id, { start_date: '2026-01-01', end_date: '2026-01-15', content_strategy: { plan } }),
      '"',
      4,
      300_000,
    );
    const cycle = '0193a0a0-0000-7000-8000-000000000000';
    for (let i = 0; i < 50; i++) await addBrief(team.id, { cycle_instance_id: cycle, content: ctl(1_000) });

    const dashboard = await h.call('GET', teamPath(team.id, '/dashboard'));
    assert.equal(dashboard.status, 200, dashboard.text.slice(0, 200));
    const sent = sentBytes(dashboard.text);
    assert.ok(sent <= RESPONSE_BODY_MAX_BYTES, `${sent} bytes as sent`);
    // Nothing was cut to fit: every part is whole.
    const {
      team: detail,
      tasks,
      activity,
      strategy_history,
      strategy_briefs,
      canvas_layout,
    } = dashboard.body;
    assert.deepEqual(
      [detail.members.length, detail.recent_activity.length, detail.content_cadence.length],
      [100, 1, 20],
    );
    assert.deepEqual(
      [
        tasks.tasks.length,
        activity.activity.length,
        strategy_history.strategies.length,
        strategy_briefs.items.length,
      ],
      [1, 1, 1, 50],
    );
    assert.deepEqual(detail.connected_accounts, changes.connected_accounts);
    assert.ok(canvas_layout.k.length > 8_000);
  });

  it('a new team’s dashboard has every key, empty', async () => {
    const team = await createTeam(h);
    const dashboard = await h.call('GET', teamPath(team.id, '/dashboard'));
    assert.deepEqual(dashboard.body, {
      team,
      tasks: { tasks: [], total: 0 },
      activity: { activity: [], total: 0 },
      strategy_history: { strategies: [] },
      strategy_briefs: { items: [] },
      canvas_layout: {},
    });
  });

  it('is one wave of bounded single-partition requests, totals from the team item', async () => {
    const { team } = await createBusyTeam(h, { tasks: 3, activity: 3 });
    await addTask(team.id, { task_type: 'social_post', title: 'late' });
    const { result, commands, waves } = await dynamoRequestsOf(() =>
      h.call('GET', teamPath(team.id, '/dashboard')),
    );
    assert.equal(result.body.tasks.total, 4);
    assert.equal(waves, 1);
    assert.deepEqual(commands.sort(), [
      'GetItemCommand',
      'GetItemCommand',
      'QueryCommand',
      'QueryCommand',
      'QueryCommand',
      'QueryCommand',
      'QueryCommand',
    ]);
  });

  it('reads the 50 newest briefs in one request: a brief past 16 KiB is refused', async () => {
    // Before, a brief had no bound but DynamoDB's 400 KB: the previews' reads paged through up to 20 MB,
    // one 1 MB page after another, for 50 previews of 281 code points.
    const team = await createTeam(h);
    const cycle = '0193a0a0-0000-7000-8000-000000000000';
    // In UTF-8 bytes, as DynamoDB weighs it: 5,461 euro signs of 3 bytes and one letter is 16,384.
    const content = `${'€'.repeat(5_461)}x`;
    await assert.rejects(
      addBrief(team.id, { cycle_instance_id: cycle, content: `${content}x` }),
      /^Error: Invalid strategy brief: its content is 16385 bytes, more than the 16384 it may hold$/,
    );
    for (let i = 0; i < 50; i++) await addBrief(team.id, { cycle_instance_id: cycle, content });
    const { result, commands, waves } = await dynamoRequestsOf(() =>
      h.call('GET', teamPath(team.id, '/strategy-briefs')),
    );
    assert.equal(result.body.items.length, 50);
    assert.equal(waves, 1);
    assert.deepEqual(commands, ['GetItemCommand', 'QueryCommand']);
  });

  it('refuses a cycle status that would take the cycle past its share of the dashboard, writing nothing', async () => {
    const team = await createTeam(h);
    await addCycle(team.id, { start_date: '2026-01-01', end_date: '2026-01-15' });
    // 300,000 control characters: a DynamoDB item under 400 KB, 2.1 MB as sent (7 bytes each), past the
    // strategy history's 1 MiB alone (a page always holds its first cycle).
    await assert.rejects(
      updateCycleStatus(team.id, 1, '\u0001'.repeat(300_000)),
      /Invalid strategy cycle: \d+ bytes as sent, more than the 1048576 it may weigh/,
    );
    const history = await h.call('GET', teamPath(team.id, '/strategy-history'));
    assert.ok(sentBytes(history.text) <= TEAM_BYTES.strategies, `${sentBytes(history.text)} bytes as sent`);
    assert.equal(history.body.strategies[0].strategy_status, 'active');
    await updateCycleStatus(team.id, 1, 'completed');
    const updated = await h.call('GET', teamPath(team.id, '/strategy-history'));
    assert.equal(updated.body.strategies[0].strategy_status, 'completed');
    await assert.rejects(updateCycleStatus(team.id, 2, 'completed'), /No item/);
  });

  it('every Query of the team reads carries a Limit and no filter', async () => {
    const { team } = await createBusyTeam(h, { tasks: 2, activity: 2 });
    const recorder = recordDynamoRequests();
    for (const rest of [
      '',
      '/dashboard',
      '/tasks',
      '/activity',
      '/strategy-history',
      '/strategy-briefs',
      '/today',
    ])
      assert.equal((await h.call('GET', teamPath(team.id, rest))).status, 200);
    recorder.stop();
    const queries = recorder.requests.filter((r) => r.command === 'QueryCommand');
    assert.ok(queries.length >= 8);
    for (const query of queries) {
      assert.equal(typeof query.input.Limit, 'number');
      assert.equal(query.input.FilterExpression, undefined);
      assert.match(
        String((query.input.ExpressionAttributeValues as Record<string, string>)[':pk']),
        /^TEAM#/,
      );
    }
    assert.ok(!recorder.commands().includes('ScanCommand'));
  });
});

describe('access', () => {
  const teamScoped = teamRoutes.filter((route) => route.path.includes('{team_id}'));

  it('answers 404 for another user’s team on every team route', async () => {
    const team = await createTeam(h);
    for (const route of teamScoped) {
      const res = await h.call(route.method, route.path.replace('{team_id}', team.id), {
        token: h.other.token,
      });
      assert.equal(res.status, 404, route.path);
      assert.deepEqual(res.body, { detail: 'Team not found' }, route.path);
    }
    // Nothing was changed by the refused calls.
    const read = await h.call('GET', teamPath(team.id));
    assert.equal(read.body.status, 'active');
    assert.equal(read.body.cancelled_at, null);
  });

  it("reads one page for another user's deep offset on the task and activity lists before its 404", async () => {
    const { team } = await createBusyTeam(h, { tasks: 30, activity: 30 });
    // Pages of 4 items, as DynamoDB's 1 MB page ends them over large tasks.
    const undoShortPages = shortDynamoPages(4);
    const recorder = recordDynamoRequests();
    const queries = () => recorder.commands().filter((command) => command === 'QueryCommand').length;
    try {
      for (const list of ['/tasks', '/activity']) {
        recorder.clear();
        const refused = await h.call('GET', teamPath(team.id, `${list}?offset=20&limit=10`), {
          token: h.other.token,
        });
        assert.equal(refused.status, 404, list);
        assert.equal(queries(), 1, `${list}: one page, then 404`);
        // The owner's window reads on, page after page.
        recorder.clear();
        const read = await h.call('GET', teamPath(team.id, `${list}?offset=20&limit=10`));
        assert.equal(read.status, 200, list);
        assert.ok(queries() > 5, `${list}: ${queries()} Queries for the owner`);
      }
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });

  it("reads one page of each Query for another user's dashboard, team, strategy history and briefs before its 404", async () => {
    const { team } = await createBusyTeam(h, { tasks: 30, activity: 30 });
    for (let i = 0; i < 12; i++)
      await addCycle(team.id, { start_date: '2026-01-01', end_date: '2026-01-15', content_strategy: { i } });
    for (let i = 0; i < 12; i++)
      await addBrief(team.id, { cycle_instance_id: team.id, content: `Brief ${i}` });
    // Pages of 4 items, as DynamoDB's 1 MB page ends them over large tasks, entries or strategies.
    const undoShortPages = shortDynamoPages(4);
    const recorder = recordDynamoRequests();
    const queries = () => recorder.commands().filter((command) => command === 'QueryCommand').length;
    try {
      // The Queries each read makes: one page each for another user.
      const reads: [string, number][] = [
        ['/dashboard', 5], // members, tasks, activity, strategy history, briefs
        ['', 2], // members, recent activity
        ['/strategy-history', 1],
        ['/strategy-briefs', 1],
      ];
      for (const [read, pages] of reads) {
        recorder.clear();
        const refused = await h.call('GET', teamPath(team.id, read), { token: h.other.token });
        assert.equal(refused.status, 404, read);
        assert.deepEqual(refused.body, { detail: 'Team not found' }, read);
        assert.equal(queries(), pages, `${read}: one page a Query, then 404`);
        // The owner's reads page on.
        recorder.clear();
        const owned = await h.call('GET', teamPath(team.id, read));
        assert.equal(owned.status, 200, read);
        assert.ok(queries() > pages, `${read}: ${queries()} Queries for the owner`);
      }
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });

  it('answers 404 for an unknown team on every team route', async () => {
    for (const route of teamScoped) {
      const res = await h.call(
        route.method,
        route.path.replace('{team_id}', '0193a0a0-0000-7000-8000-00000000abcd'),
      );
      assert.equal(res.status, 404, route.path);
      assert.deepEqual(res.body, { detail: 'Team not found' });
    }
  });

  it('answers 422 uuid_parsing for a non-UUID team id on every team route', async () => {
    for (const route of teamScoped) {
      const res = await h.call(route.method, route.path.replace('{team_id}', 'not-a-valid-uuid'));
      assert.equal(res.status, 422, route.path);
      assert.deepEqual(res.body, {
        detail: [
          {
            type: 'uuid_parsing',
            loc: ['path', 'team_id'],
            msg: 'Input should be a valid UUID, invalid character: found `n` at 1',
            input: 'not-a-valid-uuid',
            ctx: { error: 'invalid character: found `n` at 1' },
          },
        ],
      });
    }
  });

  it('answers 401 without a token', async () => {
    const res = await h.call('POST', '/api/v1/teams', { json: TEAM_BODY, token: null });
    assert.equal(res.status, 401);
  });
});
