// Pure logic of the team domain: time-zone arithmetic, paid periods and the calendar's slot spreading.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as v from 'valibot';
import { periodOf, planCalendar, stoppedAt } from '../../shared/teams/calendar.ts';
import { ContentCadenceInput, type TeamMember, WEEKDAYS } from '../../shared/teams/schemas.ts';
import { slotPool } from '../../shared/teams/slot-pool.ts';
import type { TaskItem, TeamItem } from '../../shared/teams/store.ts';
import {
  addDays,
  dayExists,
  daysBetween,
  isoWeekday,
  localDate,
  nextMonthStart,
  paidPeriodEnd,
  startOfDay,
  weekStart,
  zonedInstant,
} from '../../shared/teams/time.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** A cadence line of task type `post` on platform x or y, asking no more slots than its day and time pairs. */
const cadenceLine = (bounds: { maxDays: number; times: string[]; maxTimes: number; maxPerWeek: number }) =>
  fc
    .record({
      platform: fc.constantFrom('x', 'y'),
      days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: bounds.maxDays }),
      times: fc.uniqueArray(fc.constantFrom(...bounds.times), { minLength: 1, maxLength: bounds.maxTimes }),
      per_week: fc.integer({ min: 1, max: bounds.maxPerWeek }),
    })
    .map((l) => ({
      platform: l.platform,
      task_type: 'post',
      per_week: Math.min(l.per_week, l.days.length * l.times.length),
      preferred_days: l.days,
      preferred_times: l.times,
    }));

describe('time zones with Intl', () => {
  it('reads the local date of an instant on both sides of the date line', () => {
    const at = Date.parse('2026-11-20T10:30:00Z');
    assert.equal(localDate(at, 'Pacific/Auckland'), '2026-11-20');
    assert.equal(localDate(at + 3_600_000, 'Pacific/Auckland'), '2026-11-21');
    assert.equal(localDate(Date.parse('2026-11-20T07:59:59Z'), 'America/Los_Angeles'), '2026-11-19');
    assert.equal(localDate(Date.parse('2026-11-20T08:00:00Z'), 'America/Los_Angeles'), '2026-11-20');
  });

  it('resolves local wall times through DST gaps and overlaps', () => {
    assert.equal(iso(startOfDay('2026-11-21', 'Pacific/Auckland')), '2026-11-20T11:00:00.000Z');
    // 02:30 does not exist on 8 March in Los Angeles: it moves forward to 03:30 PDT.
    assert.equal(iso(zonedInstant('2026-03-08', '02:30', 'America/Los_Angeles')), '2026-03-08T10:30:00.000Z');
    // 01:30 happens twice on 1 November: the earlier (PDT) one.
    assert.equal(iso(zonedInstant('2026-11-01', '01:30', 'America/Los_Angeles')), '2026-11-01T08:30:00.000Z');
    // Santiago skips midnight on 6 September 2026: the day starts at 01:00 (-03).
    assert.equal(iso(startOfDay('2026-09-06', 'America/Santiago')), '2026-09-06T04:00:00.000Z');
  });

  it('knows the days a zone skipped', () => {
    assert.equal(dayExists('2011-12-30', 'Pacific/Apia'), false);
    assert.equal(dayExists('2011-12-29', 'Pacific/Apia'), true);
    assert.equal(dayExists('2011-12-31', 'Pacific/Apia'), true);
    assert.equal(dayExists('2026-09-06', 'America/Santiago'), true); // only its midnight is skipped
  });

  it('does calendar-date arithmetic', () => {
    assert.equal(addDays('2026-12-30', 3), '2027-01-02');
    assert.equal(daysBetween('2026-03-07', '2026-03-09'), 2);
    assert.equal(isoWeekday('2026-11-22'), 7);
    assert.equal(weekStart('2026-11-22'), '2026-11-16');
    assert.equal(nextMonthStart('2026-12-15'), '2027-01-01');
    assert.deepEqual(periodOf('monthly', '2026-02-10'), {
      period: 'monthly',
      from: '2026-02-01',
      to: '2026-03-01',
      key: 'monthly#2026-02-01',
    });
  });

  it('ends a monthly subscription at the first anniversary after the cancellation', () => {
    const hired = '2026-01-31T10:00:00.000Z';
    assert.equal(paidPeriodEnd(hired, '2026-02-15T00:00:00Z', 'UTC'), '2026-02-28T10:00:00.000Z');
    assert.equal(paidPeriodEnd(hired, '2026-02-28T10:00:00Z', 'UTC'), '2026-03-31T10:00:00.000Z');
    assert.equal(paidPeriodEnd(hired, hired, 'UTC'), '2026-02-28T10:00:00.000Z');
    assert.equal(
      paidPeriodEnd('2024-01-31T00:00:00Z', '2024-02-10T00:00:00Z', 'UTC'),
      '2024-02-29T00:00:00.000Z',
    );
    assert.equal(
      paidPeriodEnd('2025-01-15T10:00:00Z', '2026-11-20T10:00:00Z', 'UTC'),
      '2026-12-15T10:00:00.000Z',
    );
    assert.equal(
      paidPeriodEnd('2026-11-30T12:00:00Z', '2027-01-05T00:00:00Z', 'UTC'),
      '2027-01-30T12:00:00.000Z',
    );
    // hired_at has milliseconds, and so does the anniversary: at .200 the month is not yet over.
    const hiredHalfPast = '2026-01-15T10:00:00.500Z';
    assert.equal(paidPeriodEnd(hiredHalfPast, '2026-01-20T00:00:00Z', 'UTC'), '2026-02-15T10:00:00.500Z');
    assert.equal(paidPeriodEnd(hiredHalfPast, '2026-02-15T10:00:00.200Z', 'UTC'), '2026-02-15T10:00:00.500Z');
  });

  it('counts the paid months in the team’s zone: its hiring day and time of day', () => {
    // The local reading of an instant, by Intl alone: '2026-02-28 00:30:00'.
    const local = (instant: string, timeZone: string) =>
      new Intl.DateTimeFormat('sv-SE', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(instant));
    const ends = (timeZone: string, hiredLocal: string, hiredAt: string, at: string) => {
      assert.equal(local(hiredAt, timeZone), hiredLocal, 'the test’s own hiring instant');
      return local(paidPeriodEnd(hiredAt, at, timeZone), timeZone);
    };
    // Hired at 00:30 on 31 January in Kolkata (+05:30), the 30th in UTC: the months end on the 28th
    // of February and the 30th of April there (UTC's day gave 1 March and 1 May, 00:30).
    const kolkata = ['Asia/Kolkata', '2026-01-31 00:30:00', '2026-01-30T19:00:00.000Z'] as const;
    assert.equal(ends(...kolkata, '2026-02-10T00:00:00Z'), '2026-02-28 00:30:00');
    assert.equal(ends(...kolkata, '2026-04-10T00:00:00Z'), '2026-04-30 00:30:00');
    // Kiritimati (+14), hired at 10:00 on 31 January (the 30th in UTC).
    assert.equal(
      ends('Pacific/Kiritimati', '2026-01-31 10:00:00', '2026-01-30T20:00:00.000Z', '2026-02-03T00:00:00Z'),
      '2026-02-28 10:00:00',
    );
    // Pago Pago (−11), hired at 20:00 on 30 January (the 31st in UTC: UTC's day ended on 27 February there).
    assert.equal(
      ends('Pacific/Pago_Pago', '2026-01-30 20:00:00', '2026-01-31T07:00:00.000Z', '2026-02-03T00:00:00Z'),
      '2026-02-28 20:00:00',
    );
    // Leap year, and December to January, in Kathmandu (+05:45).
    assert.equal(
      ends('Asia/Kathmandu', '2024-01-31 03:15:00', '2024-01-30T21:30:00.000Z', '2024-02-10T00:00:00Z'),
      '2024-02-29 03:15:00',
    );
    assert.equal(
      ends('Asia/Kathmandu', '2025-12-31 03:15:00', '2025-12-30T21:30:00.000Z', '2026-01-05T00:00:00Z'),
      '2026-01-31 03:15:00',
    );
    // New York keeps 09:00 through DST (UTC's time of day gave 10:00 EDT in summer).
    assert.equal(
      ends('America/New_York', '2026-01-15 09:00:00', '2026-01-15T14:00:00.000Z', '2026-07-01T00:00:00Z'),
      '2026-07-15 09:00:00',
    );
    // Hired at 02:30 on 8 February: 8 March has no 02:30 (02:00 → 03:00), the gap moves it to 03:30.
    assert.equal(
      ends('America/New_York', '2026-02-08 02:30:00', '2026-02-08T07:30:00.000Z', '2026-02-20T00:00:00Z'),
      '2026-03-08 03:30:00',
    );
    // Hired at 01:30 on 1 October: 1 November has two 01:30s, the earlier (EDT) one ends the month.
    const overlap = paidPeriodEnd('2026-10-01T05:30:00.000Z', '2026-10-20T00:00:00Z', 'America/New_York');
    assert.equal(overlap, '2026-11-01T05:30:00.000Z');
    assert.equal(local(overlap, 'America/New_York'), '2026-11-01 01:30:00');
    // Lord Howe's 30-minute shift: 02:15 on 4 October is in the gap (02:00 → 02:30), so 02:45.
    assert.equal(
      ends('Australia/Lord_Howe', '2026-09-04 02:15:00', '2026-09-03T15:45:00.000Z', '2026-09-20T00:00:00Z'),
      '2026-10-04 02:45:00',
    );
    // A cancellation just before the local anniversary still ends on it; just after, a month later.
    assert.equal(ends(...kolkata, '2026-02-27T18:59:59.999Z'), '2026-02-28 00:30:00');
    assert.equal(ends(...kolkata, '2026-02-27T19:00:00.000Z'), '2026-03-31 00:30:00');
  });
});

describe('calendar slots', () => {
  type PlanInput = Parameters<typeof planCalendar>[0];
  /** The UTC week from Monday 16 November 2026 for one line of posts on x, 3 on Mon/Wed/Fri at 09:00
   * unless the line says otherwise. */
  const planWeek = (line: Partial<PlanInput['cadence'][number]> = {}, options: Partial<PlanInput> = {}) =>
    planCalendar({
      teamId: '0193a0a0-0000-7000-8000-000000000001',
      timeZone: 'UTC',
      period: periodOf('weekly', '2026-11-16'),
      cadence: [
        {
          platform: 'x',
          task_type: 'post',
          per_week: 3,
          preferred_days: ['monday', 'wednesday', 'friday'],
          preferred_times: ['09:00'],
          title: null,
          ...line,
        },
      ],
      members: [],
      tasks: [],
      ...options,
    });
  const plan = (per_week: number, preferred_days: string[], preferred_times: string[]) =>
    planWeek({ per_week, preferred_days, preferred_times }).map((entry) => entry.scheduled_for.slice(0, 16));

  const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

  it('spreads fewer slots than days evenly', () => {
    assert.deepEqual(plan(3, weekdays, ['09:00']), [
      '2026-11-16T09:00',
      '2026-11-18T09:00',
      '2026-11-20T09:00',
    ]);
    assert.deepEqual(plan(1, weekdays, ['09:00']), ['2026-11-18T09:00']);
  });

  it('goes round the days again at the next preferred time', () => {
    assert.deepEqual(plan(4, ['friday', 'monday'], ['17:00', '08:00']), [
      '2026-11-16T08:00',
      '2026-11-16T17:00',
      '2026-11-20T08:00',
      '2026-11-20T17:00',
    ]);
  });

  it('gives the same ids every time', () => {
    const run = () =>
      planCalendar({
        teamId: '0193a0a0-0000-7000-8000-000000000001',
        timeZone: 'Europe/Paris',
        period: periodOf('weekly', '2026-11-16'),
        cadence: [
          {
            platform: 'x',
            task_type: 'post',
            per_week: 2,
            preferred_days: weekdays,
            preferred_times: ['09:00'],
            title: null,
          },
        ],
        members: [],
        tasks: [],
      });
    assert.deepEqual(run(), run());
    // Stored entries keep their ids across versions: a kind's only line numbers its slots 0, 1, …
    assert.deepEqual(
      run().map((entry) => entry.id),
      ['5a60c0f9-22e7-5a85-80fa-3df2822ca7c9', '493cab5c-de60-5ca4-a88d-cf940e735dc7'],
    );
  });

  it('plans two lines of one kind: distinct ids, the first line’s unchanged, scheduled tasks counted once', () => {
    const line = { platform: 'x', task_type: 'post', preferred_days: weekdays, title: null };
    const run = (tasks: TaskItem[] = []) =>
      planCalendar({
        teamId: '0193a0a0-0000-7000-8000-000000000001',
        timeZone: 'Europe/Paris',
        period: periodOf('weekly', '2026-11-16'),
        cadence: [
          { ...line, per_week: 2, preferred_times: ['09:00'], title: 'A' },
          { ...line, per_week: 1, preferred_times: ['15:00'], title: 'B' },
        ],
        members: [],
        tasks,
      }).map((entry) => [entry.id, entry.title, entry.scheduled_for.slice(0, 16)]);
    assert.deepEqual(run(), [
      ['5a60c0f9-22e7-5a85-80fa-3df2822ca7c9', 'A', '2026-11-17T08:00'],
      [run()[1]![0], 'B', '2026-11-18T14:00'],
      ['493cab5c-de60-5ca4-a88d-cf940e735dc7', 'A', '2026-11-19T08:00'],
    ]);
    assert.equal(new Set(run().map(([id]) => id)).size, 3);
    // One post already scheduled that week covers one slot of the kind, not one of each line.
    const task = {
      id: '0193a0a0-0000-7000-8000-0000000000aa',
      title: 'Scheduled',
      task_type: 'post',
      platform: 'x',
      status: 'scheduled',
      scheduled_for: '2026-11-16T08:00:00.000Z',
      assigned_member_id: null,
      published_at: null,
    } as TaskItem;
    assert.deepEqual(
      run([task]).map(([, title, at]) => [title, at]),
      [
        ['Scheduled', '2026-11-16T08:00'],
        ['A', '2026-11-17T08:00'],
        ['B', '2026-11-18T14:00'],
      ],
    );
  });

  it('ends a cancelled team’s week where its subscription ends, without moving slots earlier', () => {
    // A post on Monday covers one of Mon/Wed/Fri: the week's plan is Wednesday and Friday. Ending on
    // Thursday leaves Wednesday, not a second Monday post in Friday's place.
    const monday = {
      id: '0193a0a0-0000-7000-8000-0000000000aa',
      title: 'Monday post',
      task_type: 'post',
      platform: 'x',
      status: 'scheduled',
      scheduled_for: '2026-11-16T12:00:00.000Z',
      assigned_member_id: null,
      published_at: null,
    } as TaskItem;
    const entries = planWeek({}, { tasks: [monday], stopsAt: '2026-11-19T00:00:00.000Z' });
    assert.deepEqual(
      entries.map((entry) => entry.scheduled_for.slice(0, 16)),
      ['2026-11-16T12:00', '2026-11-18T09:00'],
    );
  });

  it('starts a week where the team was created: the later slots keep their ids, no slot moves later', () => {
    const week = (startsAt?: string) =>
      planWeek({}, { startsAt }).map((entry) => [entry.id, entry.scheduled_for.slice(0, 16)]);
    const whole = week();
    assert.equal(whole.length, 3);
    // Created on Wednesday at 10:00: Friday's slot only, as the whole week plans it (same id), and
    // no second Friday time or Saturday in place of Monday's and Wednesday's.
    assert.deepEqual(week('2026-11-18T10:00:00.000Z'), whole.slice(2));
    assert.deepEqual(week('2026-11-18T09:00:00.000Z'), whole.slice(1)); // at the slot's instant: kept
  });

  it('takes the preferred times earliest first, in whatever order they were given', () => {
    // Spread: the earliest time, whichever is listed first. Round the days: the earliest time first.
    assert.deepEqual(plan(1, weekdays, ['18:00', '09:00']), ['2026-11-18T09:00']);
    assert.deepEqual(plan(3, ['monday', 'friday'], ['18:00', '09:00']), [
      '2026-11-16T09:00',
      '2026-11-16T18:00',
      '2026-11-20T09:00',
    ]);
  });

  it('plans no slot at the very instant the team stops', () => {
    const week = (stopsAt: string) =>
      planWeek({}, { stopsAt }).map((entry) => entry.scheduled_for.slice(0, 16));
    assert.deepEqual(week('2026-11-18T09:00:00.000Z'), ['2026-11-16T09:00']);
    assert.deepEqual(week('2026-11-18T09:00:00.001Z'), ['2026-11-16T09:00', '2026-11-18T09:00']);
  });

  it('gives each slot to the least-loaded member, their scheduled tasks counted, ties to the earliest', () => {
    const member = (id: string, name: string) =>
      ({ id, persona_name: name, capabilities: ['post', 'x'] }) as TeamMember;
    const [ana, leo] = [
      member('0193a0a0-0000-7000-8000-0000000000a1', 'Ana'),
      member('0193a0a0-0000-7000-8000-0000000000a2', 'Leo'),
    ];
    // The task below is of another kind: it takes none of the line's slots.
    const assignees = (tasks: TaskItem[]) =>
      planWeek({ per_week: 1, preferred_days: ['wednesday'] }, { members: [ana, leo], tasks }).map(
        (entry) => [entry.title, entry.assigned_member?.persona_name ?? null],
      );
    // Nobody loaded: the tie goes to the earliest member.
    assert.deepEqual(assignees([]), [['post for x', 'Ana']]);
    // Ana already has a task that week: Leo gets the slot.
    const task = {
      id: '0193a0a0-0000-7000-8000-0000000000aa',
      title: 'Ana’s video',
      task_type: 'video',
      platform: 'y',
      status: 'scheduled',
      scheduled_for: '2026-11-16T12:00:00.000Z',
      assigned_member_id: ana.id,
      published_at: null,
    } as TaskItem;
    assert.deepEqual(assignees([task]), [
      ['Ana’s video', 'Ana'],
      ['post for x', 'Leo'],
    ]);
  });

  it('stops a cancelled team paused before its subscription ends at the pause, and the other way round', () => {
    const team = (paused_at: string) =>
      ({
        config: {},
        hired_at: null,
        cancelled_at: '2026-11-10T00:00:00.000Z',
        subscription_ends_at: '2026-11-20T00:00:00.000Z',
        paused_at,
      }) as unknown as TeamItem;
    assert.equal(stoppedAt(team('2026-11-18T10:00:00.000Z')), '2026-11-18T10:00:00.000Z');
    assert.equal(stoppedAt(team('2026-11-25T10:00:00.000Z')), '2026-11-20T00:00:00.000Z');
  });

  it('compares instants, not wall clocks, when the team was created in a DST overlap', () => {
    // New York falls back from 02:00 EDT to 01:00 EST on Sunday 1 November 2026: 01:30 happens twice,
    // and a slot at 01:30 is the earlier (05:30 UTC). A team created at 01:00 EST (06:00 UTC), after
    // it though its wall clock reads earlier, does not get it; 09:00 EST (14:00 UTC) it does.
    const sunday = (startsAt?: string) =>
      planCalendar({
        teamId: '0193a0a0-0000-7000-8000-000000000001',
        timeZone: 'America/New_York',
        period: periodOf('weekly', '2026-10-26'),
        cadence: [
          {
            platform: 'x',
            task_type: 'post',
            per_week: 2,
            preferred_days: ['sunday'],
            preferred_times: ['01:30', '09:00'],
            title: null,
          },
        ],
        members: [],
        tasks: [],
        startsAt,
      }).map((entry) => entry.scheduled_for);
    assert.deepEqual(sunday(), ['2026-11-01T05:30:00.000Z', '2026-11-01T14:00:00.000Z']);
    assert.deepEqual(sunday('2026-11-01T06:00:00.000Z'), ['2026-11-01T14:00:00.000Z']);
  });

  it('plans an instant once when a time in a DST gap moves onto another slot of the line', () => {
    // New York springs from 02:00 EST to 03:00 EDT on Sunday 8 March 2026: 02:30 moves forward by the
    // gap to 03:30 EDT, which is the line's other slot (07:30 UTC).
    const sunday = (timeZone: string, monday: string, times: string[]) =>
      planCalendar({
        teamId: '0193a0a0-0000-7000-8000-000000000001',
        timeZone,
        period: periodOf('weekly', monday),
        cadence: [
          {
            platform: 'x',
            task_type: 'post',
            per_week: 2,
            preferred_days: ['sunday'],
            preferred_times: times,
            title: null,
          },
        ],
        members: [],
        tasks: [],
      }).map((entry) => entry.scheduled_for);
    assert.deepEqual(sunday('America/New_York', '2026-03-02', ['02:30', '03:30']), [
      '2026-03-08T07:30:00.000Z',
    ]);
    assert.deepEqual(sunday('America/New_York', '2026-03-09', ['02:30', '03:30']), [
      '2026-03-15T06:30:00.000Z',
      '2026-03-15T07:30:00.000Z',
    ]);
    // Lord Howe moves from 02:00 (+10:30) to 02:30 (+11) on 4 October: 02:00 becomes 02:30, 15:30 UTC the day before.
    assert.deepEqual(sunday('Australia/Lord_Howe', '2026-09-28', ['02:00', '02:30']), [
      '2026-10-03T15:30:00.000Z',
    ]);
  });

  // Local wall clock of an instant, read with Intl alone: ['2026-03-08', 'sunday', minutes since midnight].
  const wallFormats = new Map<string, Intl.DateTimeFormat>();
  const wallOf = (instant: string, timeZone: string) => {
    if (!wallFormats.has(timeZone))
      wallFormats.set(
        timeZone,
        new Intl.DateTimeFormat('en-US', {
          timeZone,
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          weekday: 'long',
          hour: '2-digit',
          minute: '2-digit',
        }),
      );
    const parts = Object.fromEntries(
      wallFormats
        .get(timeZone)!
        .formatToParts(new Date(instant))
        .map((part) => [part.type, part.value]),
    );
    return {
      date: `${parts.year}-${parts.month}-${parts.day}`,
      weekday: parts.weekday!.toLowerCase(),
      minutes: Number(parts.hour) * 60 + Number(parts.minute),
    };
  };
  const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3));

  it('plans each line at distinct instants on its preferred days and times, through DST gaps and overlaps', () => {
    // Zones with the Monday of each week holding one of their 2026 transitions.
    const transitions: [string, string][] = [
      ['America/New_York', '2026-03-02'], // 02:00 → 03:00 on Sunday 8 March
      ['America/New_York', '2026-10-26'], // 02:00 → 01:00 on Sunday 1 November
      ['Europe/London', '2026-03-23'], // 01:00 → 02:00 on 29 March
      ['Europe/London', '2026-10-19'], // 02:00 → 01:00 on 25 October
      ['Australia/Lord_Howe', '2026-03-30'], // 02:00 → 01:30 on 5 April
      ['Australia/Lord_Howe', '2026-09-28'], // 02:00 → 02:30 on 4 October
      ['America/Havana', '2026-03-02'], // 00:00 → 01:00 on 8 March
      ['America/Havana', '2026-10-26'], // 01:00 → 00:00 on 1 November
      ['America/Santiago', '2026-03-30'], // Saturday 4 April 24:00 → 23:00
      ['America/Santiago', '2026-08-31'], // 00:00 → 01:00 on 6 September
      ['Pacific/Chatham', '2026-03-30'], // +13:45 → +12:45: 03:45 → 02:45 on 5 April
      ['Pacific/Chatham', '2026-09-21'], // 02:45 → 03:45 on 27 September
      ['Asia/Kathmandu', '2026-03-02'], // +05:45, no DST
    ];
    const times = [
      '00:00',
      '00:30',
      '01:00',
      '01:30',
      '02:00',
      '02:15',
      '02:30',
      '02:45',
      '03:00',
      '03:30',
      '03:45',
      '09:00',
    ];
    // Weekends always, so most runs meet the transition; per_week often the most the line allows.
    const line = fc
      .record({
        days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS.slice(0, 5)), { maxLength: 3 }),
        times: fc.uniqueArray(fc.constantFrom(...times), { minLength: 1, maxLength: 6 }),
        per_week: fc.oneof(fc.constant(21), fc.integer({ min: 1, max: 21 })),
      })
      .map((l) => {
        const days = [...l.days, 'saturday', 'sunday'] as (typeof WEEKDAYS)[number][];
        return { ...l, days, per_week: Math.min(l.per_week, days.length * l.times.length) };
      });
    fc.assert(
      fc.property(fc.constantFrom(...transitions), line, ([timeZone, monday], l) => {
        const entries = planCalendar({
          teamId: '0193a0a0-0000-7000-8000-000000000001',
          timeZone,
          period: periodOf('weekly', monday),
          cadence: [
            {
              platform: 'x',
              task_type: 'post',
              per_week: l.per_week,
              preferred_days: l.days,
              preferred_times: l.times,
              title: null,
            },
          ],
          members: [],
          tasks: [],
        });
        const instants = entries.map((entry) => entry.scheduled_for);
        assert.equal(new Set(instants).size, instants.length, `two slots at one instant: ${instants}`);
        assert.ok(instants.length <= l.per_week);
        for (const instant of instants) {
          const wall = wallOf(instant, timeZone);
          assert.ok(wall.date >= monday && wall.date <= addDays(monday, 6), `${instant} outside the week`);
          assert.ok(
            l.days.includes(wall.weekday as (typeof WEEKDAYS)[number]),
            `${instant} on ${wall.weekday}`,
          );
          // At a preferred time, or moved forward by a DST gap (an hour at most here).
          assert.ok(
            l.times.some(
              (time) => wall.minutes - minutesOf(time) >= 0 && wall.minutes - minutesOf(time) <= 60,
            ),
            `${instant} is ${wall.minutes} min into the local day`,
          );
        }
      }),
      { numRuns: 100, seed: 20261126 },
    );
  });

  it('plans the lines of one kind at distinct instants, through DST gaps and overlaps', () => {
    // 02:30 moves forward onto 03:30 the morning New York springs forward: one slot of the kind there,
    // whichever line it came from.
    const sunday = (times: string[][]) =>
      planCalendar({
        teamId: '0193a0a0-0000-7000-8000-000000000001',
        timeZone: 'America/New_York',
        period: periodOf('weekly', '2026-03-02'),
        cadence: times.map((preferred_times, i) => ({
          platform: 'x',
          task_type: 'post',
          per_week: 1,
          preferred_days: ['sunday'],
          preferred_times,
          title: `line ${i}`,
        })),
        members: [],
        tasks: [],
      }).map((entry) => [entry.title, entry.scheduled_for]);
    assert.deepEqual(sunday([['02:30'], ['03:30']]), [['line 0', '2026-03-08T07:30:00.000Z']]);
    // A line with another time takes it instead.
    assert.deepEqual(sunday([['02:30'], ['03:30', '10:00']]), [
      ['line 0', '2026-03-08T07:30:00.000Z'],
      ['line 1', '2026-03-08T14:00:00.000Z'],
    ]);
    const transitions: [string, string][] = [
      ['America/New_York', '2026-03-02'],
      ['America/New_York', '2026-10-26'],
      ['Australia/Lord_Howe', '2026-09-28'],
      ['Europe/London', '2026-11-16'],
    ];
    const line = fc.record({
      days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 3 }),
      times: fc.uniqueArray(fc.constantFrom('01:30', '02:00', '02:30', '03:00', '09:00'), {
        minLength: 1,
        maxLength: 3,
      }),
      per_week: fc.integer({ min: 1, max: 9 }),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...transitions),
        fc.array(line, { minLength: 2, maxLength: 4 }),
        ([timeZone, monday], lines) => {
          const cadence = lines.map((l, i) => ({
            platform: 'x',
            task_type: 'post',
            per_week: Math.min(l.per_week, l.days.length * l.times.length),
            preferred_days: l.days,
            preferred_times: l.times,
            title: `line ${i}`,
          }));
          const entries = planCalendar({
            teamId: '0193a0a0-0000-7000-8000-000000000001',
            timeZone,
            period: periodOf('weekly', monday),
            cadence,
            members: [],
            tasks: [],
          });
          const instants = entries.map((entry) => entry.scheduled_for);
          assert.equal(new Set(instants).size, instants.length, `two slots at one instant: ${instants}`);
          assert.equal(new Set(entries.map((entry) => entry.id)).size, entries.length);
          for (const [i, l] of cadence.entries()) {
            const own = entries.filter((entry) => entry.title === `line ${i}`);
            assert.ok(own.length <= l.per_week);
            for (const entry of own) {
              const wall = wallOf(entry.scheduled_for, timeZone);
              assert.ok(l.preferred_days.includes(wall.weekday as (typeof WEEKDAYS)[number]));
              assert.ok(
                l.preferred_times.some(
                  (time) => wall.minutes - minutesOf(time) >= 0 && wall.minutes - minutesOf(time) <= 60,
                ),
              );
            }
          }
        },
      ),
      { numRuns: 200, seed: 20261126 },
    );
  });

  it('plans a narrow line after a wide one of its kind whole: the wide one moves to another of its days', () => {
    // The wide line's one slot a week is Wednesday (the middle of Monday–Friday), the narrow line's
    // only day. Before, the narrow line found Wednesday 09:00 taken and planned nothing, a week short
    // of the cadence the create rules had accepted.
    const run = (cadence: { title: string; per_week: number; preferred_days: string[] }[]) =>
      planCalendar({
        teamId: '0193a0a0-0000-7000-8000-000000000001',
        timeZone: 'UTC',
        period: periodOf('weekly', '2026-11-16'),
        cadence: cadence.map((line) => ({
          platform: 'x',
          task_type: 'post',
          preferred_times: ['09:00'],
          ...line,
        })),
        members: [],
        tasks: [],
      }).map((entry) => [entry.title, entry.scheduled_for.slice(0, 16), entry.id]);
    const wide = { title: 'wide', per_week: 1, preferred_days: weekdays };
    const narrow = { title: 'narrow', per_week: 1, preferred_days: ['wednesday'] };
    const alone = run([wide]);
    const both = run([wide, narrow]);
    assert.deepEqual(
      both.map(([title, at]) => [title, at]),
      [
        ['wide', '2026-11-16T09:00'],
        ['narrow', '2026-11-18T09:00'],
      ],
    );
    // The wide line keeps its slot's id (its number 0), wherever the slot moved.
    assert.equal(both[0]![2], alone[0]![2]);
    // Three a week over Monday–Friday is Mon, Wed, Fri: Wednesday goes to the narrow line, Tuesday to the wide one.
    assert.deepEqual(
      run([{ ...wide, per_week: 3 }, narrow]).map(([title, at]) => [title, at]),
      [
        ['wide', '2026-11-16T09:00'],
        ['wide', '2026-11-17T09:00'],
        ['narrow', '2026-11-18T09:00'],
        ['wide', '2026-11-20T09:00'],
      ],
    );
  });

  it('shares options as bipartite matching does: every line so far whole whenever some sharing allows', () => {
    // The most a set of lines can hold, by brute force over which options each line takes.
    const most = (lines: { options: number[]; count: number }[], used = 0): number => {
      const [line, ...rest] = lines;
      if (!line) return 0;
      const free = line.options.filter((option) => !(used & (1 << option)));
      let best = 0;
      for (let subset = 0; subset < 1 << free.length; subset++) {
        const taken = free.filter((_, k) => subset & (1 << k));
        if (taken.length > line.count) continue;
        const mask = taken.reduce((m, option) => m | (1 << option), used);
        best = Math.max(best, taken.length + most(rest, mask));
      }
      return best;
    };
    const line = fc.record({
      options: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 5 }),
      count: fc.integer({ min: 1, max: 4 }),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const add = slotPool<number>();
        const added = lines.map((l) => ({ ...add(l.options, l.count), options: l.options }));
        // Each line's gain is what it adds to the most the lines so far can hold.
        for (const [i, l] of added.entries())
          assert.equal(l.got, most(lines.slice(0, i + 1)) - most(lines.slice(0, i)), `line ${i}`);
        // And it holds that many of its own options, no option held twice.
        const held = added.flatMap((l) => l.held());
        assert.equal(new Set(held).size, held.length);
        for (const l of added) {
          assert.equal(l.held().length, l.got);
          assert.ok(l.held().every((option) => l.options.includes(option)));
        }
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });

  it('plans every cadence the create rules accept whole in a week without a DST change', () => {
    const line = cadenceLine({ maxDays: 4, times: ['08:00', '09:00', '18:00'], maxTimes: 2, maxPerWeek: 8 });
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('UTC', 'Europe/Paris', 'Asia/Kathmandu'),
        fc.array(line, { minLength: 2, maxLength: 6 }),
        (timeZone, lines) => {
          const checked = v.safeParse(ContentCadenceInput, lines);
          if (!checked.success) return;
          accepted++;
          const entries = planCalendar({
            teamId: '0193a0a0-0000-7000-8000-000000000001',
            timeZone,
            period: periodOf('weekly', '2026-11-16'),
            cadence: checked.output.map((l, i) => ({ ...l, title: `line ${i}` })),
            members: [],
            tasks: [],
          });
          for (const [i, l] of lines.entries())
            assert.equal(
              entries.filter((entry) => entry.title === `line ${i}`).length,
              l.per_week,
              `line ${i} of ${JSON.stringify(lines)}`,
            );
          for (const platform of ['x', 'y']) {
            const instants = entries.filter((e) => e.platform === platform).map((e) => e.scheduled_for);
            assert.equal(new Set(instants).size, instants.length);
          }
        },
      ),
      { numRuns: 400, seed: 20261126 },
    );
    // The property is not vacuous: most generated cadences pass the rules.
    assert.ok(accepted > 100, `${accepted} accepted`);
  });

  it('plans a week two months share as the weekly plan does, half in each month', () => {
    const dateFormats = new Map<string, Intl.DateTimeFormat>();
    const dateIn = (instant: string, timeZone: string) => {
      if (!dateFormats.has(timeZone))
        dateFormats.set(
          timeZone,
          new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
        );
      return dateFormats.get(timeZone)!.format(new Date(instant));
    };
    const line = cadenceLine({
      maxDays: 7,
      times: ['08:00', '12:30', '18:00'],
      maxTimes: 3,
      maxPerWeek: 21,
    }).map((l) => ({ ...l, title: null }));
    // Posts from 11 h after the week's Monday (UTC) to 15 h before its end: inside the week in every zone.
    const post = fc.record({
      minutes: fc.integer({ min: 11 * 60, max: 153 * 60 }),
      platform: fc.constantFrom('x', 'y'),
    });
    fc.assert(
      fc.property(
        fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'),
        fc.integer({ min: 0, max: 23 }),
        fc.array(line, { minLength: 1, maxLength: 2 }),
        fc.array(post, { maxLength: 8 }),
        (timeZone, m, cadence, posts) => {
          const first = `${2026 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}-01`;
          const monday = weekStart(first);
          const tasks = posts.map(
            (p, i) =>
              ({
                id: `0193a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
                title: 'Post',
                task_type: 'post',
                platform: p.platform,
                status: 'scheduled',
                scheduled_for: new Date(Date.parse(`${monday}T00:00:00Z`) + p.minutes * 60_000).toISOString(),
                assigned_member_id: null,
                published_at: null,
              }) as TaskItem,
          );
          const plan = (period: ReturnType<typeof periodOf>) => {
            const mine = (task: TaskItem) => {
              const date = dateIn(task.scheduled_for!, timeZone);
              return date >= period.from && date < period.to;
            };
            return planCalendar({
              teamId: '0193a0a0-0000-7000-8000-000000000001',
              timeZone,
              period,
              cadence,
              members: [],
              tasks: tasks.filter(mine),
              neighbourTasks: tasks.filter((task) => !mine(task)),
            })
              .filter((entry) => entry.status === 'planned')
              .map((entry) => entry.scheduled_for)
              .filter((at) => dateIn(at, timeZone) >= monday && dateIn(at, timeZone) < addDays(monday, 7));
          };
          const months = [
            ...plan(periodOf('monthly', addDays(first, -1))),
            ...plan(periodOf('monthly', first)),
          ];
          assert.deepEqual(months.sort(), plan(periodOf('weekly', monday)).sort());
        },
      ),
      { numRuns: 30, seed: 20261126 },
    );
  });
});
