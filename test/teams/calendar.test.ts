import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { now, setClock } from '../../shared/clock.ts';
import { queryPartition, updateItem } from '../../shared/db/store.ts';
import { RESPONSE_BODY_MAX_BYTES, sentBytes } from '../../shared/lambda-response.ts';
import { addMember, addTask, addTasks, setContentCadence, updateTeam } from '../../shared/teams/agents.ts';
import { teamKeys } from '../../shared/teams/keys.ts';
import { dynamoRequestsOf, recordDynamoRequests, shortDynamoPages } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { createTeam } from './fixtures.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  setClock(undefined);
  await h.close();
});

type Entry = {
  id: string;
  title: string;
  platform: string;
  status: string;
  scheduled_for: string;
  assigned_member: { persona_name: string } | null;
};
const summary = (entries: Entry[]) =>
  entries.map((e) => [e.scheduled_for, e.platform, e.status, e.assigned_member?.persona_name ?? null]);

const INSTAGRAM = {
  platform: 'instagram',
  task_type: 'social_post',
  per_week: 3,
  preferred_days: ['monday', 'wednesday', 'friday'],
  preferred_times: ['09:30'],
};

/** Runs `create` with the clock at `at` (what it creates has that `created_at`), then puts the clock back. */
async function createdAt<T>(at: string | undefined, create: () => Promise<T>): Promise<T> {
  if (at === undefined) return create();
  const before = now();
  setClock(new Date(at));
  try {
    return await create();
  } finally {
    setClock(before);
  }
}

/** Before every period the tests of other rules plan: no slot of theirs is before their team existed. */
const LONG_AGO = '2026-10-01T00:00:00Z';

/** A Paris team (UTC+1 in November) with three members and a cadence over three platforms, created
 * now or at `created`. */
async function parisTeam(cadence: unknown[] = [INSTAGRAM], created?: string) {
  const team = await createdAt(created, () =>
    createTeam(h, { config: { timezone: 'Europe/Paris' }, content_cadence: cadence }),
  );
  const leo = await addMember(team.id, {
    role: 'writer',
    agent_slug: 'social-writer',
    display_name: 'Writer',
    persona_name: 'Leo',
    capabilities: ['social_post', 'instagram', 'linkedin'],
  });
  const ana = await addMember(team.id, {
    role: 'writer',
    agent_slug: 'social-writer',
    display_name: 'Writer',
    persona_name: 'Ana',
    capabilities: ['social_post', 'instagram'],
  });
  await addMember(team.id, {
    role: 'producer',
    agent_slug: 'video-producer',
    display_name: 'Producer',
    persona_name: 'Sam',
    capabilities: ['short_video', 'tiktok'],
  });
  return { team, leo, ana };
}

const generate = (teamId: string, query = '') =>
  h.call('POST', `/api/v1/teams/${teamId}/calendar/generate${query}`);

/** Every calendar item stored, the entries runs have dropped (kept a day for cursors) too. */
const storedItems = (teamId: string) =>
  queryPartition<{ id: string; dropped_at?: string }>(teamKeys.partition(teamId), {
    prefix: 'CAL#',
    limit: 1000,
  });
/** The entries the calendar holds. */
const storedEntries = async (teamId: string) =>
  (await storedItems(teamId)).filter((item) => item.dropped_at === undefined);

describe('calendar generation', () => {
  it('stays within the response limit with every entry at its maximum: a week whole, a month cut and read on with after', async () => {
    // Before, neither the copied task fields nor the answer had a bound: a month at the cadence and task
    // limits was a 500. Now each entry is bounded (the task's fields at write, a member 1.5 KiB, a line
    // by the create rules) and the answer ends before 4.75 MiB, which a week at every limit never reaches.
    const ctl = (n: number) => '\u0001'.repeat(n); // 7 bytes each as sent, the most a code point takes
    const taskType = ctl(64);
    setClock(new Date('2026-11-02T00:00:00Z')); // a Monday
    const line = (i: number) => ({
      platform: ctl(63) + String.fromCharCode(65 + i),
      task_type: taskType,
      per_week: 21,
      preferred_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      preferred_times: ['01:00', '02:00', '03:00'],
      title: ctl(200),
    });
    // Created before November, so every slot of the month is planned (none is before the team existed).
    const team = await createdAt(LONG_AGO, () =>
      createTeam(h, { content_cadence: Array.from({ length: 20 }, (_, i) => line(i)) }),
    );
    // One member at its 1.5 KiB (quotes, 4 bytes each as sent), who does every entry.
    const member = (note: string) =>
      addMember(team.id, {
        role: 'writer',
        agent_slug: 'social-writer',
        display_name: 'Writer',
        persona_name: 'Leo',
        capabilities: [taskType],
        current_activity: { note },
      });
    const past = await member('"'.repeat(400)).then(
      () => assert.fail('a member past its share was written'),
      (error: Error) => /(\d+) bytes as sent, more than the (\d+)/.exec(error.message)!,
    );
    const writer = await member('"'.repeat(400 - Math.ceil((Number(past[1]) - Number(past[2])) / 4)));
    // The 500 tasks a period reads, all in the first week, each field at its limit (another kind than
    // the cadence's, so every slot is planned too): the week holds 920 entries, the most it can.
    await addTasks(
      team.id,
      Array.from({ length: 500 }, (_, i) => ({
        task_type: taskType,
        title: ctl(200),
        status: ctl(64),
        platform: ctl(64),
        scheduled_for: new Date(Date.parse('2026-11-02T04:00:00Z') + i * 1_000_000).toISOString(),
        published_at: '2026-11-01T00:00:00Z',
        assigned_member_id: writer.id,
      })),
    );

    const week = await generate(team.id);
    assert.equal(week.status, 200, week.text.slice(0, 200));
    assert.ok(sentBytes(week.text) <= RESPONSE_BODY_MAX_BYTES, `${sentBytes(week.text)} bytes as sent`);
    assert.equal(week.body.entries.length, 500 + 20 * 21);
    assert.ok(week.body.entries.every((entry: Entry) => entry.assigned_member?.persona_name === 'Leo'));

    // November: 500 tasks and 1,800 slots (20 lines, 3 a day for 30 days), all stored; the answer is
    // their first ones, in time order, up to its budget.
    const month = await generate(team.id, '?period=monthly');
    assert.equal(month.status, 200, month.text.slice(0, 200));
    const sent = sentBytes(month.text);
    assert.ok(sent <= RESPONSE_BODY_MAX_BYTES, `${sent} bytes as sent`);
    const { entries } = month.body as { entries: Entry[] };
    assert.ok(entries.length > 1000 && entries.length < 2300, `${entries.length} entries`);
    assert.equal(entries[0]!.scheduled_for, '2026-11-01T01:00:00.000Z');
    const stored = await queryPartition(teamKeys.partition(team.id), { prefix: 'CAL#', limit: 5000 });
    assert.equal(stored.length, 920 + 2300);

    // The answer says it was cut: how many entries the month holds, and where the rest starts. Before,
    // it was `{entries}` alone, a month that looked whole with 1,125 of its entries missing.
    assert.equal(month.body.total, 2300);
    assert.equal(month.body.next_after, entries.at(-1)!.id);
    // `after` reads the rest, each answer within the budget, until next_after is null: every entry
    // once, in time order, and nothing stored twice.
    const all = [...entries];
    for (let after = month.body.next_after; after !== null; ) {
      const next = await generate(team.id, `?period=monthly&after=${after}`);
      assert.equal(next.status, 200, next.text.slice(0, 200));
      assert.ok(sentBytes(next.text) <= RESPONSE_BODY_MAX_BYTES);
      assert.equal(next.body.total, 2300);
      assert.ok(next.body.entries.length > 0);
      all.push(...next.body.entries);
      after = next.body.next_after;
    }
    assert.equal(all.length, 2300);
    assert.equal(new Set(all.map((entry) => entry.id)).size, 2300);
    const order = all.map((entry) => `${entry.scheduled_for} ${entry.id}`);
    assert.deepEqual(order, [...order].sort());
    assert.equal(
      (await queryPartition(teamKeys.partition(team.id), { prefix: 'CAL#', limit: 5000 })).length,
      920 + 2300,
    );
    // A week is whole: nothing after it.
    assert.deepEqual([week.body.total, week.body.next_after], [920, null]);
  });

  it('plans the ISO week in the team’s zone: scheduled tasks plus cadence slots, balanced over members', async () => {
    setClock(new Date('2026-11-18T12:00:00Z')); // Wednesday
    const { team, ana } = await parisTeam(
      [
        INSTAGRAM,
        {
          platform: 'linkedin',
          task_type: 'social_post',
          per_week: 2,
          preferred_days: ['tuesday', 'thursday'],
          preferred_times: ['11:00'],
          title: 'LinkedIn post',
        },
        {
          platform: 'tiktok',
          task_type: 'short_video',
          per_week: 1,
          preferred_days: ['saturday'],
          preferred_times: ['18:00'],
        },
      ],
      LONG_AGO,
    );
    const task = await addTask(team.id, {
      task_type: 'social_post',
      title: 'Trail guide carousel',
      platform: 'instagram',
      status: 'scheduled',
      scheduled_for: '2026-11-18T09:00:00Z',
      assigned_member_id: ana.id,
    });
    await addTask(team.id, {
      task_type: 'social_post',
      title: 'Next week',
      scheduled_for: '2026-11-23T09:00:00Z',
    });
    await addTask(team.id, { task_type: 'social_post', title: 'Unscheduled' });

    const res = await generate(team.id);
    assert.equal(res.status, 200);
    assert.deepEqual(summary(res.body.entries), [
      ['2026-11-16T08:30:00.000Z', 'instagram', 'planned', 'Leo'],
      ['2026-11-17T10:00:00.000Z', 'linkedin', 'planned', 'Leo'],
      ['2026-11-18T09:00:00.000Z', 'instagram', 'scheduled', 'Ana'],
      ['2026-11-19T10:00:00.000Z', 'linkedin', 'planned', 'Leo'],
      ['2026-11-20T08:30:00.000Z', 'instagram', 'planned', 'Ana'],
      ['2026-11-21T17:00:00.000Z', 'tiktok', 'planned', 'Sam'],
    ]);
    const [first, , scheduled, linkedin] = res.body.entries;
    assert.equal(scheduled.id, task.id);
    assert.equal(scheduled.title, 'Trail guide carousel');
    assert.equal(linkedin.title, 'LinkedIn post');
    assert.deepEqual(Object.keys(first), [
      'id',
      'title',
      'task_type',
      'platform',
      'status',
      'scheduled_for',
      'assigned_member',
      'published_at',
    ]);
    assert.equal(first.title, 'social post for instagram');
    assert.deepEqual(Object.keys(first.assigned_member), [
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
  });

  it('is idempotent: a second run answers the same entries and stores nothing twice', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO);
    const first = await generate(team.id, '?period=weekly');
    const second = await generate(team.id);
    assert.equal(second.text, first.text);
    assert.equal((await storedEntries(team.id)).length, 3);
    // A task that now fills Monday replaces that slot; the slot's stored entry goes with it.
    await addTask(team.id, {
      task_type: 'social_post',
      title: 'Monday post',
      platform: 'instagram',
      scheduled_for: '2026-11-16T15:00:00Z',
    });
    const third = await generate(team.id);
    assert.deepEqual(
      third.body.entries.map((e: Entry) => [e.title, e.status]),
      [
        ['Monday post', 'pending'],
        ['social post for instagram', 'planned'],
        ['social post for instagram', 'planned'],
      ],
    );
    const stored = await storedEntries(team.id);
    assert.equal(stored.length, 3);
    assert.deepEqual(
      stored.map((item) => (item as { id: string }).id).sort(),
      third.body.entries.map((e: Entry) => e.id).sort(),
    );
    const { commands, waves } = await dynamoRequestsOf(() => generate(team.id));
    assert.equal(waves, 1); // nothing changed: the read wave only
    assert.ok(!commands.includes('BatchWriteItemCommand'));
  });

  it('answers the entries after `after`, one a task has replaced since too, and refuses an id of no entry', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO); // Mon/Wed/Fri at 09:30 in Paris
    const week = await generate(team.id);
    const [monday, wednesday, friday] = week.body.entries as Entry[];
    assert.deepEqual([week.body.total, week.body.next_after], [3, null]);
    const rest = await generate(team.id, `?after=${monday!.id}`);
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(rest.body, { entries: [wednesday, friday], total: 3, next_after: null });
    assert.deepEqual((await generate(team.id, `?after=${friday!.id}`)).body, {
      entries: [],
      total: 3,
      next_after: null,
    });

    // A task now fills Monday, after the slot: the slot's id still continues after the slot's time.
    await addTask(team.id, {
      task_type: 'social_post',
      title: 'Monday post',
      platform: 'instagram',
      scheduled_for: '2026-11-16T15:00:00Z',
    });
    // An id of no entry of the period (here, another period's) is refused before anything is written.
    const month = await generate(team.id, `?period=monthly&after=${monday!.id}`);
    assert.equal(month.status, 422);
    assert.deepEqual(month.body.detail, [
      {
        type: 'value_error',
        loc: ['query', 'after'],
        msg: 'Value error, after must be the id of an entry of the period asked for: the next_after of an earlier answer',
        input: monday!.id,
        ctx: { error: {} },
      },
    ]);
    const bad = await generate(team.id, '?after=monday');
    assert.deepEqual(
      bad.body.detail.map((item: { type: string; loc: unknown[] }) => [item.type, item.loc]),
      [['uuid_parsing', ['query', 'after']]],
    );
    assert.deepEqual(
      (await storedEntries(team.id)).map((item) => (item as { id: string }).id).sort(),
      [monday!.id, wednesday!.id, friday!.id].sort(),
    );
    const replaced = await generate(team.id, `?after=${monday!.id}`);
    assert.deepEqual(
      replaced.body.entries.map((e: Entry) => e.title),
      ['Monday post', 'social post for instagram', 'social post for instagram'],
    );
    assert.deepEqual([replaced.body.total, replaced.body.next_after], [3, null]);
    // That run dropped the slot's entry; a retry of the same page (its answer lost) still places it:
    // the entry is kept a day, marked dropped (before, the retry was a 422).
    const retried = await generate(team.id, `?after=${monday!.id}`);
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual(retried.body, replaced.body);
    const dropped = (await storedItems(team.id)).filter((item) => item.dropped_at !== undefined);
    assert.deepEqual(
      dropped.map((item) => item.id),
      [monday!.id],
    );
    // A day later it is gone: the cursor is refused, and the run deletes the dropped entry.
    setClock(new Date(Date.parse('2026-11-19T12:00:01Z')));
    assert.equal((await generate(team.id, `?start=2026-11-16&after=${monday!.id}`)).status, 422);
    assert.equal((await generate(team.id, '?start=2026-11-16')).status, 200);
    assert.deepEqual(
      (await storedItems(team.id)).map((item) => item.dropped_at),
      [undefined, undefined, undefined],
    );
  });

  it('plans the calendar month holding the team’s local date, across a month boundary', async () => {
    // 23:30 UTC on 30 November is 00:30 on 1 December in Paris: the team's month is December.
    setClock(new Date('2026-11-30T23:30:00Z'));
    const { team } = await parisTeam();
    await addTask(team.id, {
      task_type: 'social_post',
      title: 'First of December',
      platform: 'instagram',
      scheduled_for: '2026-11-30T23:15:00Z', // 00:15 on 1 December in Paris
    });
    await addTask(team.id, {
      task_type: 'social_post',
      title: 'Last of November',
      platform: 'instagram',
      scheduled_for: '2026-11-30T22:45:00Z', // 23:45 on 30 November in Paris
    });
    const res = await generate(team.id, '?period=monthly');
    assert.equal(res.status, 200);
    const entries: Entry[] = res.body.entries;
    assert.equal(entries[0]!.title, 'First of December');
    assert.ok(!entries.some((e) => e.title === 'Last of November'));
    // Mondays, Wednesdays and Fridays of December 2026 (Wed 2 … Wed 30), 09:30 in Paris = 08:30 UTC;
    // the week of 30 Nov – 6 Dec has both tasks (Monday 30th and Tuesday 1st), so it needs one slot
    // (Wed 2), as the weekly plan below says.
    const slots = entries.filter((e) => e.status === 'planned').map((e) => e.scheduled_for.slice(0, 10));
    assert.deepEqual(slots, [
      '2026-12-02',
      '2026-12-07',
      '2026-12-09',
      '2026-12-11',
      '2026-12-14',
      '2026-12-16',
      '2026-12-18',
      '2026-12-21',
      '2026-12-23',
      '2026-12-25',
      '2026-12-28',
      '2026-12-30',
    ]);
    assert.ok(entries.every((e) => e.status !== 'planned' || e.scheduled_for.endsWith('T08:30:00.000Z')));
    // The weekly plan of the same moment is the ISO week of Monday 30 November … Sunday 6 December:
    // both tasks are in it, so one slot is left to plan, on the first day without one (Wednesday).
    const weekly = await generate(team.id);
    assert.deepEqual(
      weekly.body.entries.map((e: Entry) => [e.title, e.scheduled_for]),
      [
        ['Last of November', '2026-11-30T22:45:00.000Z'],
        ['First of December', '2026-11-30T23:15:00.000Z'],
        ['social post for instagram', '2026-12-02T08:30:00.000Z'],
      ],
    );
    // Each period is stored on its own.
    assert.equal((await storedEntries(team.id)).length, entries.length + 3);
  });

  it('plans two cadence lines of the same platform and task type, with distinct ids, twice alike', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const { team } = await parisTeam(
      [
        { platform: 'instagram', task_type: 'post', per_week: 2, title: 'A' },
        { platform: 'instagram', task_type: 'post', per_week: 1, title: 'B', preferred_times: ['15:00'] },
      ],
      LONG_AGO,
    );
    const first = await generate(team.id);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.entries.map((e: Entry) => [e.title, e.scheduled_for]),
      [
        ['A', '2026-11-17T08:00:00.000Z'],
        ['B', '2026-11-18T14:00:00.000Z'],
        ['A', '2026-11-19T08:00:00.000Z'],
      ],
    );
    assert.equal(new Set(first.body.entries.map((e: Entry) => e.id)).size, 3);
    assert.equal((await generate(team.id)).text, first.text);
    assert.equal((await storedEntries(team.id)).length, 3);
    // A post already scheduled that week stands for one slot of the kind (the first line's), not one per line.
    await addTask(team.id, {
      task_type: 'post',
      title: 'Monday post',
      platform: 'instagram',
      scheduled_for: '2026-11-16T08:00:00Z',
    });
    const third = await generate(team.id);
    assert.deepEqual(
      third.body.entries.map((e: Entry) => e.title),
      ['Monday post', 'A', 'B'],
    );
    assert.equal((await storedEntries(team.id)).length, 3);
  });

  it('plans one slot of a kind per instant: a later line of the kind takes its next day and time', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    // Both lines' usual slot is Wednesday 09:00 (one a week over Monday–Friday); the TikTok line is
    // another kind, which may post at the same time.
    const { team } = await parisTeam(
      [
        { platform: 'instagram', task_type: 'post', per_week: 1, title: 'A' },
        { platform: 'instagram', task_type: 'post', per_week: 1, title: 'B' },
        { platform: 'tiktok', task_type: 'post', per_week: 1, title: 'C' },
      ],
      LONG_AGO,
    );
    const first = await generate(team.id);
    assert.equal(first.status, 200, first.text);
    // At one instant, entries go by id: sorted by title here.
    const byTime = (entries: Entry[]) =>
      entries
        .map((e) => [e.title, e.scheduled_for])
        .sort((a, b) => `${a[1]}${a[0]}`.localeCompare(`${b[1]}${b[0]}`));
    assert.deepEqual(byTime(first.body.entries), [
      ['B', '2026-11-16T08:00:00.000Z'],
      ['A', '2026-11-18T08:00:00.000Z'],
      ['C', '2026-11-18T08:00:00.000Z'],
    ]);
    assert.equal((await generate(team.id)).text, first.text);
    assert.equal((await storedEntries(team.id)).length, 3);
    // The month plans the week as the weekly plan does.
    const month = await generate(team.id, '?period=monthly');
    const inWeek = month.body.entries.filter(
      (e: Entry) => e.scheduled_for >= '2026-11-16' && e.scheduled_for < '2026-11-23',
    );
    assert.deepEqual(byTime(inWeek), byTime(first.body.entries));
  });

  it('keeps lines apart whatever characters their platform and task type hold (`|`, NUL)', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    // `a|b` + `c` and `a` + `b|c` once named one slot: two entries with one id, a BatchWrite DynamoDB
    // refuses (duplicate keys), a 500.
    const { team } = await parisTeam(
      [
        { platform: 'a|b', task_type: 'c', per_week: 1, title: 'pipe 1' },
        { platform: 'a', task_type: 'b|c', per_week: 1, title: 'pipe 2' },
        { platform: 'x\u0000y', task_type: 'z', per_week: 1, title: 'nul 1' },
        { platform: 'x', task_type: 'y\u0000z', per_week: 1, title: 'nul 2' },
      ],
      LONG_AGO,
    );
    // A task of the fourth line's kind covers that line's week, not the third's.
    await addTask(team.id, {
      task_type: 'y\u0000z',
      title: 'Scheduled',
      platform: 'x',
      scheduled_for: '2026-11-16T08:00:00Z',
    });
    const res = await generate(team.id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.entries.map((e: Entry) => e.title).sort(), [
      'Scheduled',
      'nul 1',
      'pipe 1',
      'pipe 2',
    ]);
    assert.equal(new Set(res.body.entries.map((e: Entry) => e.id)).size, 4);
    assert.equal((await generate(team.id)).text, res.text);
    assert.equal((await storedEntries(team.id)).length, 4);
  });

  it('plans a month’s first and last weeks as the weekly plan does: tasks in the next month count', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO); // Mon/Wed/Fri at 09:30 in Paris (08:30 UTC), 3 a week
    // Two posts in each week shared by two months: Mon 30 Nov and Tue 1 Dec, Fri 1 and Sat 2 Jan.
    for (const at of [
      '2026-11-30T10:00:00Z',
      '2026-12-01T10:00:00Z',
      '2027-01-01T10:00:00Z',
      '2027-01-02T10:00:00Z',
    ])
      await addTask(team.id, {
        task_type: 'social_post',
        title: `Post ${at}`,
        platform: 'instagram',
        scheduled_for: at,
      });
    const planned = async (query: string) =>
      ((await generate(team.id, query)).body.entries as Entry[])
        .filter((e) => e.status === 'planned')
        .map((e) => e.scheduled_for.slice(0, 10));
    // Each shared week has two posts, so it needs one slot, on its first Mon/Wed/Fri without a post.
    assert.deepEqual(await planned('?start=2026-11-30'), ['2026-12-02']);
    assert.deepEqual(await planned('?start=2026-12-28'), ['2026-12-28']);
    const months = [
      ...(await planned('?period=monthly&start=2026-11-01')),
      ...(await planned('?period=monthly&start=2026-12-01')),
      ...(await planned('?period=monthly&start=2027-01-01')),
    ];
    // The months hold those two slots and nothing else in the shared weeks (no second Monday post on
    // 30 November, no Friday 4 or Wednesday 30 December).
    const shared = (date: string) =>
      (date >= '2026-11-30' && date <= '2026-12-06') || (date >= '2026-12-28' && date <= '2027-01-03');
    assert.deepEqual(months.filter(shared), ['2026-12-02', '2026-12-28']);
    // The other weeks are whole: 3 slots each (November from the 2nd, December 7–27, January from the 4th).
    assert.equal(months.filter((date) => !shared(date)).length, 3 * 4 + 3 * 3 + 3 * 4);
  });

  it('caps the scheduled tasks read at 500 within the team’s own period, not the neighbouring one', async () => {
    // 23:30 UTC on 30 November is 00:30 on 1 December in Paris; elsewhere it is still November.
    setClock(new Date('2026-11-30T23:30:00Z'));
    const { team } = await parisTeam([]);
    // 500 tasks on Paris's 30 November, in the hours where other zones are already in December.
    await addTasks(
      team.id,
      Array.from({ length: 500 }, (_, i) => ({
        task_type: 'social_post',
        title: `November ${i}`,
        platform: 'instagram',
        scheduled_for: new Date(Date.parse('2026-11-30T10:00:00Z') + i * 60_000).toISOString(),
      })),
    );
    const december = ['2026-12-01T09:00:00.000Z', '2026-12-01T15:00:00.000Z', '2026-12-15T09:00:00.000Z'];
    for (const at of december)
      await addTask(team.id, { task_type: 'social_post', title: `December ${at}`, scheduled_for: at });
    const res = await generate(team.id, '?period=monthly');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.entries.map((e: Entry) => e.scheduled_for),
      december,
    );
    assert.equal((await storedEntries(team.id)).length, 3);
    const { waves } = await dynamoRequestsOf(() => generate(team.id, '?period=monthly'));
    assert.equal(waves, 1);
  });

  it('reads the period’s tasks in one page however much they weigh: their calendar fields only', async () => {
    // A task may weigh DynamoDB's 400 KB (its input and output data); gsi1 holds it whole, two to a
    // page in dynalite, so 30 such tasks were a chain of Query pages, one round trip each. The
    // calendar reads gsi1_calendar, which holds only the fields it plans with.
    setClock(new Date('2026-11-02T00:00:00Z'));
    const { team, leo } = await parisTeam();
    await addTasks(
      team.id,
      Array.from({ length: 30 }, (_, i) => ({
        task_type: 'social_post',
        title: `Heavy ${i}`,
        platform: 'instagram',
        status: 'scheduled',
        scheduled_for: new Date(Date.parse('2026-11-04T08:00:00Z') + i * 600_000).toISOString(),
        assigned_member_id: leo.id,
        published_at: '2026-11-01T00:00:00Z',
        output_data: { text: 'x'.repeat(390_000) },
      })),
    );
    const first = await generate(team.id);
    assert.equal(first.status, 200);
    // The entries carry each task's calendar fields, as read from the whole task before.
    assert.equal(first.body.total, 30);
    const heavy = first.body.entries.find((entry: Entry) => entry.title === 'Heavy 29');
    assert.deepEqual(
      [heavy.status, heavy.platform, heavy.assigned_member?.persona_name, heavy.published_at],
      ['scheduled', 'instagram', 'Leo', '2026-11-01T00:00:00.000Z'],
    );
    // A rerun changes nothing: one wave, each Query of the tasks one page.
    const recorder = recordDynamoRequests();
    const again = await generate(team.id).finally(() => recorder.stop());
    assert.deepEqual(again.body, first.body);
    const taskQueries = recorder.requests.filter((request) => request.input.IndexName !== undefined);
    const ranges = new Set(
      taskQueries.map((request) => JSON.stringify(request.input.ExpressionAttributeValues)),
    );
    // Two periods (every zone's date: 1 or 2 November), two ranges each; before, 14 Queries in 11 waves.
    assert.equal(
      taskQueries.length,
      ranges.size,
      `${taskQueries.length} Queries of the tasks, ${recorder.waves()} waves`,
    );
    assert.equal(recorder.waves(), 1);
  });

  it('reads one page of each Query for another user’s request before its 404; the owner reads on', async () => {
    setClock(new Date('2026-11-02T00:00:00Z'));
    const { team, leo } = await parisTeam();
    await addTasks(
      team.id,
      Array.from({ length: 30 }, (_, i) => ({
        task_type: 'social_post',
        title: `Task ${i}`,
        platform: 'instagram',
        scheduled_for: new Date(Date.parse('2026-11-04T08:00:00Z') + i * 3_600_000).toISOString(),
        assigned_member_id: leo.id,
      })),
    );
    // Pages of 4 items, as DynamoDB's 1 MB page would end them over many more.
    const undoShortPages = shortDynamoPages(4);
    try {
      const queries = async (token?: string) => {
        const recorder = recordDynamoRequests();
        const res = await h
          .call('POST', `/api/v1/teams/${team.id}/calendar/generate?period=monthly`, { token })
          .finally(() => recorder.stop());
        const reads = recorder.requests.filter((request) => request.command === 'QueryCommand');
        const ranges = new Set(
          reads.map((request) => JSON.stringify(request.input.ExpressionAttributeValues)),
        );
        return { status: res.status, queries: reads.length, ranges: ranges.size };
      };
      const refused = await queries(h.other.token);
      assert.equal(refused.status, 404);
      assert.equal(refused.queries, refused.ranges, 'one page per Query');
      const owner = await queries();
      assert.equal(owner.status, 200);
      assert.ok(owner.queries > owner.ranges, `${owner.queries} Queries over ${owner.ranges} ranges`);
    } finally {
      undoShortPages();
    }
  });

  it('plans another period from `start`, and leaves a slot nobody can do unassigned', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const { team } = await parisTeam([
      {
        platform: 'youtube',
        task_type: 'long_video',
        per_week: 1,
        preferred_days: ['sunday'],
        preferred_times: ['20:00'],
      },
    ]);
    const res = await generate(team.id, '?start=2027-01-01');
    assert.deepEqual(summary(res.body.entries), [['2027-01-03T19:00:00.000Z', 'youtube', 'planned', null]]);
  });

  it('plans no slot on a day the team’s zone skipped, so no two slots share an instant', async () => {
    // Samoa crossed the date line: 29 December 2011 23:59:59 (-10) was followed by 31 December (+14).
    setClock(new Date('2011-12-20T00:00:00Z')); // the team existed then: a period before it is refused
    const team = await createTeam(h, {
      config: { timezone: 'Pacific/Apia' },
      content_cadence: [
        {
          platform: 'instagram',
          task_type: 'social_post',
          per_week: 7,
          preferred_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
          preferred_times: ['00:00'],
        },
      ],
    });
    const res = await generate(team.id, '?start=2011-12-28');
    assert.equal(res.status, 200, res.text);
    const times = res.body.entries.map((e: Entry) => e.scheduled_for);
    assert.deepEqual(times, [
      '2011-12-26T10:00:00.000Z',
      '2011-12-27T10:00:00.000Z',
      '2011-12-28T10:00:00.000Z',
      '2011-12-29T10:00:00.000Z',
      '2011-12-30T10:00:00.000Z', // Saturday 31 December, midnight at +14
      '2011-12-31T10:00:00.000Z',
    ]);
  });

  it('plans a cancelled team only until its subscription ends, and drops its later slots on a rerun', async () => {
    setClock(new Date('2026-11-18T12:00:00Z')); // a Wednesday; the slots are Mon/Wed/Fri 09:30 Paris
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO);
    const planned = (res: { body: { entries: Entry[] } }) =>
      res.body.entries.filter((e) => e.status === 'planned').map((e) => e.scheduled_for);
    assert.deepEqual(planned(await generate(team.id)), [
      '2026-11-16T08:30:00.000Z',
      '2026-11-18T08:30:00.000Z',
      '2026-11-20T08:30:00.000Z',
    ]);
    // Never hired: the subscription ends when it is cancelled, now.
    const cancelled = await h.call('POST', `/api/v1/teams/${team.id}/unsubscribe`);
    assert.equal(cancelled.body.subscription_ends_at, '2026-11-18T12:00:00.000Z');
    assert.deepEqual(planned(await generate(team.id)), [
      '2026-11-16T08:30:00.000Z',
      '2026-11-18T08:30:00.000Z',
    ]);
    assert.equal((await storedEntries(team.id)).length, 2, 'the Friday slot stored by the first run is gone');
    assert.deepEqual(planned(await generate(team.id, '?start=2026-11-23')), []);
  });

  it('stops planning a cancelled team whose end date is not stored yet at the end the rule gives', async () => {
    setClock(new Date('2026-11-18T12:00:00Z')); // Wednesday; slots Mon/Wed/Fri 08:30 UTC
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO);
    // What unsubscribe's first wave writes; its second (subscription_ends_at) failed and was not retried.
    await updateItem(teamKeys.team(team.id), {
      set: { status: 'cancelled', cancelled_at: '2026-11-18T12:00:00.000Z' },
      exists: ['pk'],
    });
    const read = await h.call('GET', `/api/v1/teams/${team.id}`);
    assert.equal(read.body.subscription_ends_at, '2026-11-18T12:00:00.000Z'); // never hired: ends now
    const res = await generate(team.id);
    assert.deepEqual(
      res.body.entries.map((e: Entry) => e.scheduled_for),
      ['2026-11-16T08:30:00.000Z', '2026-11-18T08:30:00.000Z'],
    );
  });

  it('refuses a start in a period that ended before the team existed or more than a year ahead, storing nothing', async () => {
    // Before, any date of 1970–2999 was planned and stored: a period for every start a client sent.
    setClock(new Date('2026-11-18T23:30:00Z')); // Thursday 19 November, 00:30 in Paris
    const { team } = await parisTeam();
    const refusal = (start: string, reason: string) => ({
      detail: [
        {
          type: 'value_error',
          loc: ['query', 'start'],
          msg: `Value error, ${reason}`,
          input: start,
          ctx: { error: {} },
        },
      ],
    });
    const before =
      'start must fall in a period that ends on or after 2026-11-19, the day the team was created';
    const ahead = "start must be at most 366 days after the team's today: 2027-11-20 or earlier";
    for (const [query, start, reason] of [
      ['?start=2026-11-15', '2026-11-15', before], // the Sunday before: that week ended first
      ['?start=1970-01-01', '1970-01-01', before],
      ['?period=monthly&start=2026-10-31', '2026-10-31', before],
      ['?start=2027-11-21', '2027-11-21', ahead],
      ['?start=2999-12-31T00:00:00Z', '2999-12-31', ahead],
      ['?period=monthly&start=2027-11-21', '2027-11-21', ahead],
    ] as const) {
      const res = await generate(team.id, query);
      assert.equal(res.status, 422, `${query}: ${res.text}`);
      assert.deepEqual(res.body, refusal(start, reason), query);
    }
    assert.equal((await storedEntries(team.id)).length, 0);
    // The edges are plannable: the week and month the team was created in, and a year and a day on.
    for (const query of ['?start=2026-11-16', '?period=monthly&start=2026-11-01', '?start=2027-11-20'])
      assert.equal((await generate(team.id, query)).status, 200, query);
    // Another user's team is a 404 before any of this.
    const other = await h.call('POST', `/api/v1/teams/${team.id}/calendar/generate?start=1970-01-01`, {
      token: h.other.token,
    });
    assert.equal(other.status, 404);
  });

  it('refuses the week that ended the day before the team was created', async () => {
    setClock(new Date('2026-11-16T00:30:00Z')); // Monday 16 November, 01:30 in Paris
    const { team } = await parisTeam();
    // The week of 9–15 November ends as the team's first day begins: nothing of it is the team's.
    const res = await generate(team.id, '?start=2026-11-15');
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.body.detail[0].msg,
      'Value error, start must fall in a period that ends on or after 2026-11-16, the day the team was created',
    );
    assert.equal((await storedEntries(team.id)).length, 0);
    assert.equal((await generate(team.id, '?start=2026-11-16')).status, 200);
  });

  it('plans no slot while the team is paused, drops its later slots on a rerun, and plans again once resumed', async () => {
    setClock(new Date('2026-11-18T12:00:00Z')); // a Wednesday; the slots are Mon/Wed/Fri 09:30 Paris
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO);
    const planned = async (query = '') =>
      (await generate(team.id, query)).body.entries
        .filter((e: Entry) => e.status === 'planned')
        .map((e: Entry) => e.scheduled_for);
    const week = ['2026-11-16T08:30:00.000Z', '2026-11-18T08:30:00.000Z', '2026-11-20T08:30:00.000Z'];
    assert.deepEqual(await planned(), week);
    // Paused on Wednesday at 10:00 Paris: Friday's slot, and the next week's, would never be worked.
    const friday = (await generate(team.id)).body.entries[2] as Entry;
    await updateTeam(team.id, { status: 'paused', paused_at: '2026-11-18T09:00:00Z' });
    assert.deepEqual(await planned(), week.slice(0, 2));
    assert.equal((await storedEntries(team.id)).length, 2, 'the Friday slot stored by the first run is gone');
    // A client that had Friday's id as its cursor before another's run dropped it pages on from it,
    // as often as it asks (the entry is kept a day, marked dropped).
    for (let i = 0; i < 2; i++)
      assert.deepEqual((await generate(team.id, `?after=${friday.id}`)).body, {
        entries: [],
        total: 2,
        next_after: null,
      });
    assert.deepEqual(await planned('?start=2026-11-23'), []);
    // Resumed (the agents clear paused_at): planned again, Friday's entry no longer marked dropped.
    await updateTeam(team.id, { status: 'active', paused_at: null });
    assert.deepEqual(await planned(), week);
    assert.deepEqual(
      (await storedItems(team.id)).filter((item) => item.id === friday.id).map((item) => item.dropped_at),
      [undefined],
    );
    assert.equal((await planned('?start=2026-11-23')).length, 3);
  });

  it('an entry planned again over a day after it was dropped is stored, and its id still places a cursor', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const { team } = await parisTeam([INSTAGRAM], LONG_AGO);
    const friday = (await generate(team.id)).body.entries[2] as Entry;
    await updateTeam(team.id, { status: 'paused', paused_at: '2026-11-18T09:00:00Z' });
    assert.equal((await generate(team.id)).body.entries.length, 2);
    // Resumed 25 h later: Friday's entry, dropped past its day of grace, is planned again. Its put
    // and its deletion as an expired drop went out in parallel batches, and the delete won.
    setClock(new Date('2026-11-19T13:00:00Z'));
    await updateTeam(team.id, { status: 'active', paused_at: null });
    assert.equal((await generate(team.id)).body.entries.length, 3);
    assert.deepEqual(
      (await storedItems(team.id)).filter((item) => item.id === friday.id).map((item) => item.dropped_at),
      [undefined],
    );
    // Paused again: a client holding Friday's id pages on from it (it was refused with 422).
    await updateTeam(team.id, { status: 'paused', paused_at: '2026-11-19T14:00:00Z' });
    assert.equal((await generate(team.id)).body.entries.length, 2);
    assert.deepEqual((await generate(team.id, `?after=${friday.id}`)).body, {
      entries: [],
      total: 2,
      next_after: null,
    });
  });

  it('drops a paused month’s stored slots in batches of 25, not one request each', async () => {
    setClock(new Date('2026-11-02T06:00:00Z')); // Monday 07:00 in Paris, before the day's slots
    const daily = {
      platform: 'instagram',
      task_type: 'social_post',
      per_week: 14,
      preferred_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      preferred_times: ['09:30', '17:00'],
    };
    const { team } = await parisTeam([daily], LONG_AGO);
    const first = await generate(team.id, '?period=monthly');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.total, 60); // two a day through November
    await updateTeam(team.id, { status: 'paused', paused_at: '2026-11-02T06:00:00Z' });
    const recorder = recordDynamoRequests();
    const rerun = await generate(team.id, '?period=monthly').finally(() => recorder.stop());
    assert.equal(rerun.status, 200, rerun.text);
    // The 1st's two slots stay; the other 58 go (marked dropped) in three batch writes (before, 58
    // DeleteItems).
    assert.equal(rerun.body.total, 2);
    assert.equal((await storedEntries(team.id)).length, 2);
    const writes = recorder
      .commands()
      .filter((command) => command !== 'QueryCommand' && command !== 'GetItemCommand');
    assert.deepEqual(writes, ['BatchWriteItemCommand', 'BatchWriteItemCommand', 'BatchWriteItemCommand']);
  });

  it('keeps at most one full plan of dropped entries in a period, the oldest deleted first', async () => {
    // A period stores its plan (3,020 entries at most) and the entries runs dropped in the last day,
    // which only place cursors: as many as a plan at most, or a cadence changed again and again would
    // grow what every run of the period reads. 1,800 slots a month, replaced twice within the day.
    setClock(new Date('2026-11-02T06:00:00Z'));
    const lines = (platform: string) =>
      Array.from({ length: 20 }, (_, i) => ({
        platform: `${platform}${i}`,
        task_type: 'social_post',
        per_week: 21,
        preferred_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
        preferred_times: ['01:00', '09:00', '17:00'],
      }));
    const { team } = await parisTeam(lines('a'), LONG_AGO);
    for (const platform of ['a', 'b', 'c']) {
      if (platform !== 'a') await setContentCadence(team.id, lines(platform));
      const month = await generate(team.id, '?period=monthly&start=2026-11-01');
      assert.equal(month.body.total, 1800, platform);
      setClock(new Date(now().getTime() + 60_000));
    }
    const items = await queryPartition<{ platform: string; dropped_at?: string }>(
      teamKeys.partition(team.id),
      {
        prefix: 'CAL#',
        limit: 10_000,
      },
    );
    const count = (platform: string, dropped: boolean) =>
      items.filter(
        (item) => item.platform.startsWith(platform) && (item.dropped_at !== undefined) === dropped,
      ).length;
    // c planned; b dropped by the last run, all kept; of a, dropped a minute earlier, 3,020 − 1,800.
    assert.deepEqual(
      [count('c', false), count('b', true), count('a', true), items.length],
      [1800, 1800, 1220, 1800 + 3020],
    );
  });

  it('plans no slot before the team was created, and a month agrees with the week on the days they share', async () => {
    // Before, a team created on a Wednesday afternoon got Monday's and Wednesday morning's slots too:
    // work planned for days nobody could do it.
    setClock(new Date('2026-11-18T12:00:00Z')); // Wednesday, 13:00 in Paris: the team is created now
    const weeklyVideo = { platform: 'tiktok', task_type: 'short_video', per_week: 1, title: 'Weekly video' };
    const { team } = await parisTeam([INSTAGRAM, weeklyVideo]); // Mon/Wed/Fri 09:30; Wednesday 09:00
    // A task an agent scheduled before the team existed stays: it is the team's own record.
    await addTask(team.id, {
      task_type: 'social_post',
      title: 'Tuesday post',
      platform: 'linkedin',
      scheduled_for: '2026-11-17T10:00:00Z',
    });
    const week = await generate(team.id);
    assert.equal(week.status, 200, week.text);
    const rows = (entries: Entry[]) => entries.map((e) => [e.title, e.status, e.scheduled_for]);
    // Friday alone of the week's plan is after the creation; the video's Wednesday slot goes without
    // a later day taking its place (the week's plan is the same whichever period asks).
    assert.deepEqual(rows(week.body.entries), [
      ['Tuesday post', 'pending', '2026-11-17T10:00:00.000Z'],
      ['social post for instagram', 'planned', '2026-11-20T08:30:00.000Z'],
    ]);
    assert.equal((await storedEntries(team.id)).length, 2);

    const month = await generate(team.id, '?period=monthly');
    assert.equal(month.status, 200, month.text);
    const planned = (month.body.entries as Entry[]).filter((e) => e.status === 'planned');
    assert.deepEqual(
      planned.map((e) => [e.platform, e.scheduled_for.slice(0, 10)]),
      [
        ['instagram', '2026-11-20'],
        ['instagram', '2026-11-23'],
        ['tiktok', '2026-11-25'],
        ['instagram', '2026-11-25'],
        ['instagram', '2026-11-27'],
        ['instagram', '2026-11-30'],
      ],
    );
    const inWeek = (month.body.entries as Entry[]).filter(
      (e) => e.scheduled_for >= '2026-11-16' && e.scheduled_for < '2026-11-23',
    );
    assert.deepEqual(rows(inWeek), rows(week.body.entries));
  });

  it('compares the creation instant with the slots’ instants: a slot at the very instant stays', async () => {
    // 20:30 UTC on Tuesday 17 November is Wednesday 09:30 in Auckland (UTC+13), the instant of the
    // team's Wednesday slot: the team created then gets it, one created a millisecond later does not.
    const planned = async (created: string, query = '') => {
      setClock(new Date(created));
      const team = await createTeam(h, {
        config: { timezone: 'Pacific/Auckland' },
        content_cadence: [INSTAGRAM],
      });
      const res = await generate(team.id, query);
      assert.equal(res.status, 200, res.text);
      return (res.body.entries as Entry[]).map((e) => e.scheduled_for);
    };
    assert.deepEqual(await planned('2026-11-17T20:30:00.000Z'), [
      '2026-11-17T20:30:00.000Z',
      '2026-11-19T20:30:00.000Z',
    ]);
    assert.deepEqual(await planned('2026-11-17T20:30:00.001Z'), ['2026-11-19T20:30:00.000Z']);
    // The month (Auckland's November) starts at the same slot.
    const month = await planned('2026-11-17T20:30:00.001Z', '?period=monthly');
    assert.deepEqual(month.slice(0, 2), ['2026-11-19T20:30:00.000Z', '2026-11-22T20:30:00.000Z']);
  });

  it('refuses another period or a bad start date with FastAPI 422 bodies', async () => {
    const { team } = await parisTeam();
    const daily = await generate(team.id, '?period=daily');
    assert.equal(daily.status, 422);
    assert.deepEqual(daily.body, {
      detail: [
        {
          type: 'literal_error',
          loc: ['query', 'period'],
          msg: "Input should be 'weekly' or 'monthly'",
          input: 'daily',
          ctx: { expected: "'weekly' or 'monthly'" },
        },
      ],
    });
    const badDay = await generate(team.id, '?start=2026-02-30');
    assert.deepEqual(badDay.body.detail, [
      {
        type: 'date_from_datetime_parsing',
        loc: ['query', 'start'],
        msg: 'Input should be a valid date or datetime, day value is outside expected range',
        input: '2026-02-30',
        ctx: { error: 'day value is outside expected range' },
      },
    ]);
    const short = await generate(team.id, '?start=abc');
    assert.equal(short.body.detail[0].msg, 'Input should be a valid date or datetime, input is too short');
    const inexact = await generate(team.id, '?start=2026-11-20T10:00:00');
    assert.deepEqual(inexact.body.detail, [
      {
        type: 'date_from_datetime_inexact',
        loc: ['query', 'start'],
        msg: 'Datetimes provided to dates should have zero time - e.g. be exact dates',
        input: '2026-11-20T10:00:00',
      },
    ]);
    const midnight = await generate(team.id, '?start=2026-11-20T00:00:00Z');
    assert.equal(midnight.status, 200);
  });

  it('reads a start datetime as pydantic 2.13 does: its zone, fraction and error texts', async () => {
    const { team } = await parisTeam();
    // Each answer as pydantic's TypeAdapter(date).validate_python gives it (null: accepted).
    const parsing = (error: string) => ['date_from_datetime_parsing', error];
    const cases: [string, (string | null)[]][] = [
      // Accepted: digits past microseconds are dropped, `,` separates a fraction, U+2212 is a minus.
      ['2026-11-20T00:00:00.0000001', [null]],
      ['2026-11-20T00:00:00,000', [null]],
      ['2026-11-20T00:00:00\u221205:00', [null]],
      // Refused: a zone offset of a day or more, or minutes past 59.
      ['2026-11-20T00:00:00+24:00', parsing('timezone offset must be less than 24 hours')],
      ['2026-11-20T00:00:00+01:60', parsing('timezone minute value is outside expected range of 0-59')],
      // speedate's own words for what is wrong.
      ['2026-11-20T', parsing('input is too short')],
      ['2026-11-20 ', parsing('input is too short')],
      ['2026-11-20T10', parsing('input is too short')],
      ['2026-11-20Tab:00', parsing('invalid character in hour')],
      ['2026-11-20T10-00', parsing('invalid time separator, expected `:`')],
      ['2026-11-20T10:00:', parsing('invalid character in second')],
      ['2026-11-20T00:00:00.', parsing('second fraction digits missing after `.`')],
      ['2026-11-20T00:00:00 ', parsing('invalid timezone sign')],
      ['2026-11-20T00:00:00+1', parsing('invalid timezone hour')],
      ['2026-11-20T00:00:00+01', parsing('invalid timezone minute')],
      ['2026-11-20T90:0:0', parsing('invalid character in minute')],
      ['0000-01-01', ['date_parsing', 'year 0 is out of range']],
    ];
    for (const [start, [type, error]] of cases) {
      const res = await generate(team.id, `?start=${encodeURIComponent(start)}`);
      if (type === null) {
        assert.equal(res.status, 200, `${start}: ${res.text}`);
        continue;
      }
      const [detail] = res.body.detail;
      assert.deepEqual([detail.type, detail.ctx?.error], [type, error], start);
      assert.equal(
        detail.msg,
        type === 'date_parsing'
          ? `Input should be a valid date in the format YYYY-MM-DD, ${error}`
          : `Input should be a valid date or datetime, ${error}`,
      );
    }
  });
});
