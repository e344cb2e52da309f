// Spec 10, calendar generation: the team's tasks scheduled in the period plus planned slots that
// fill its content cadence, each slot given to the least-loaded member able to do it. Entries have
// deterministic ids and are stored per period, so generating a period again answers the same
// entries and stores nothing twice. The rules are in docs/teams.md.
import { v5 as uuidv5 } from 'uuid';
import { now } from '../clock.ts';
import { deleteMany, putMany, queryPartition, withinPageBudget } from '../db/store.ts';
import { type TABLE_INDEXES, TABLE_TTL_ATTRIBUTE } from '../db/table.ts';
import { valueRefused } from '../http/validation.ts';
import { TEAM_PREFIX, teamKeys } from './keys.ts';
import {
  CALENDAR_AFTER_RULE,
  CALENDAR_START_RULES,
  type CadenceEntry,
  type CalendarEntry,
  type CalendarPeriod,
  type CalendarResult,
  kindOf,
  TEAM_BYTES,
  TEAM_LIMITS,
  type TeamMember,
  WEEKDAYS,
} from './schemas.ts';
import { slotPool } from './slot-pool.ts';
import {
  getOwnedTeam,
  type MemberItem,
  subscriptionEndsAt,
  type TaskItem,
  type TeamItem,
  teamTimeZone,
  toMember,
} from './store.ts';
import {
  addDays,
  dayExists,
  localDate,
  monthStart,
  nextMonthStart,
  startOfDay,
  weekStart,
  zonedInstant,
} from './time.ts';

/** What the calendar reads of a scheduled task: the fields gsi1_calendar holds, not the whole task. */
type ScheduledTask = Pick<TaskItem, (typeof TABLE_INDEXES.gsi1_calendar.projection)[number]>;

/** Namespace of the calendar's name-based (v5) entry ids. */
const CALENDAR_ID_NAMESPACE = '5b0f3c1e-8d2a-4e57-9a61-3c7f0d9e2b14';

export const PLANNED_STATUS = 'planned';

export interface Period {
  period: CalendarPeriod;
  /** First local date of the period and the first date after it. */
  from: string;
  to: string;
  /** The stored entries' sort-key segment: `weekly#2026-11-16`. */
  key: string;
}

/** Weekly: the ISO week (Monday first) holding the date; monthly: its calendar month. */
export function periodOf(period: CalendarPeriod, date: string): Period {
  const from = period === 'weekly' ? weekStart(date) : monthStart(date);
  const to = period === 'weekly' ? addDays(from, 7) : nextMonthStart(date);
  return { period, from, to, key: `${period}#${from}` };
}

/** The whole ISO weeks the period overlaps: a month's first and last weeks reach into its neighbours. */
const weeksOf = (period: Period) => ({
  from: weekStart(period.from),
  to: addDays(weekStart(addDays(period.to, -1)), 7),
});

interface Slot {
  id: string;
  cadence: CadenceEntry;
  date: string;
  scheduledFor: string;
}

/** A slot id's name: its parts joined by `|`, with `|` and `\` escaped inside them (only a platform or
 * task type holds them), so two lines (`a|b` + `c`, `a` + `b|c`) never name one slot; other text keeps
 * the ids it had. */
const slotName = (parts: (string | number)[]) =>
  parts.map((part) => String(part).replaceAll('\\', '\\\\').replaceAll('|', '\\|')).join('|');

/**
 * The cadence's candidate times in one ISO week, in the order the line takes them: its `per_week`
 * usual ones, spread over the preferred days (evenly when there are fewer than days, then round the
 * days again at the next preferred time), then its other days and times (`extra`), taken only in place
 * of a usual one whose instant its kind already has (a DST gap, or an earlier line of the kind).
 */
function weekCandidates(cadence: CadenceEntry, monday: string) {
  const days = [...new Set(cadence.preferred_days)]
    .map((day) => WEEKDAYS.indexOf(day as (typeof WEEKDAYS)[number]))
    .filter((index) => index >= 0)
    .sort((a, b) => a - b);
  const times = [...new Set(cadence.preferred_times)].sort();
  if (days.length === 0 || times.length === 0) return [];
  const usual = Array.from({ length: cadence.per_week }, (_, k) => {
    const spread = cadence.per_week <= days.length;
    // Evenly: each slot takes the day at the middle of its share of the days (3 of Mon–Fri: Mon, Wed, Fri).
    const day =
      days[spread ? Math.floor(((2 * k + 1) * days.length) / (2 * cadence.per_week)) : k % days.length]!;
    const time = times[spread ? 0 : Math.floor(k / days.length) % times.length]!;
    return { index: k, extra: false, day, time };
  });
  const isUsual = new Set(usual.map(({ day, time }) => `${day} ${time}`));
  const extras = times
    .flatMap((time) => days.map((day) => ({ day, time })))
    .filter(({ day, time }) => !isUsual.has(`${day} ${time}`))
    .map((candidate, k) => ({ ...candidate, index: cadence.per_week + k, extra: true }));
  return [...usual, ...extras].map(({ day, ...candidate }) => ({ ...candidate, date: addDays(monday, day) }));
}

/** The calendar's order: by `scheduled_for`, then id. */
const inCalendarOrder = (a: CalendarEntry, b: CalendarEntry) =>
  a.scheduled_for.localeCompare(b.scheduled_for) || a.id.localeCompare(b.id);

/** A candidate at its instant in the team's zone, and whether its day already has a task of the kind. */
type Candidate = ReturnType<typeof weekCandidates>[number] & { at: number; taken: boolean };

/** Pure: the period's entries from the team's cadence, members and the tasks scheduled in it. */
export function planCalendar(input: {
  teamId: string;
  timeZone: string;
  period: Period;
  cadence: CadenceEntry[];
  members: TeamMember[];
  tasks: ScheduledTask[];
  /**
   * The tasks scheduled in the period's weeks outside the period (the ends of a month's first and
   * last weeks): they count towards their week's cadence but are not the period's entries.
   */
  neighbourTasks?: ScheduledTask[];
  /** When the team was created: no slot is planned before it. */
  startsAt?: string | undefined;
  /** When the team stops working (stoppedAt): no slot is planned at or after it. */
  stopsAt?: string | null | undefined;
}): CalendarEntry[] {
  const { teamId, timeZone, period, cadence, members, tasks } = input;
  const inPeriod = (date: string) => date >= period.from && date < period.to;
  const startsAt = input.startsAt ? Date.parse(input.startsAt) : -Infinity;
  const endsAt = input.stopsAt ? Date.parse(input.stopsAt) : Infinity;

  // Tasks already scheduled, by ISO week and kind: they count towards the cadence.
  const scheduled = new Map<string, number>();
  const scheduledDays = new Set<string>();
  for (const task of [...tasks, ...(input.neighbourTasks ?? [])]) {
    const date = localDate(Date.parse(task.scheduled_for!), timeZone);
    const weekKind = `${weekStart(date)}\u0000${kindOf(task.platform, task.task_type)}`;
    scheduled.set(weekKind, (scheduled.get(weekKind) ?? 0) + 1);
    scheduledDays.add(`${date}\u0000${kindOf(task.platform, task.task_type)}`);
  }

  // Lines of one kind number their slots on from the earlier lines' (ids stay distinct; a kind's
  // only line keeps the numbers 0 … per_week − 1, so its stored entries keep their ids).
  const numbered = new Map<string, number>();
  const firstSlot = cadence.map((line) => {
    const kind = kindOf(line.platform, line.task_type);
    const first = numbered.get(kind) ?? 0;
    numbered.set(kind, first + line.per_week);
    return first;
  });

  const slots: Slot[] = [];
  for (let monday = weekStart(period.from); monday < period.to; monday = addDays(monday, 7)) {
    // The week's plan: one slot of a kind per instant, the kind's lines sharing its instants (slotPool:
    // a line takes its own free candidates first; where none is left, earlier lines of the kind move
    // to other candidates of theirs, so every line gets its slots when some sharing gives them).
    const pools = new Map<string, ReturnType<typeof slotPool<number>>>();
    const plans: { i: number; line: CadenceEntry; chosen: () => Candidate[] }[] = [];
    for (const [i, line] of cadence.entries()) {
      const kind = kindOf(line.platform, line.task_type);
      const pool = pools.get(kind) ?? slotPool<number>();
      pools.set(kind, pool);
      // Each scheduled task counts once: the kind's lines take them in cadence order.
      const weekKind = `${monday}\u0000${kind}`;
      const tasksLeft = scheduled.get(weekKind) ?? 0;
      scheduled.set(weekKind, Math.max(0, tasksLeft - line.per_week));
      const needed = line.per_week - tasksLeft;
      if (needed <= 0) continue;
      // The line's candidates in its order: the usual before the extra ones, days that already carry a
      // task of this kind last.
      const candidates = weekCandidates(line, monday)
        .map((candidate) => ({ ...candidate, at: zonedInstant(candidate.date, candidate.time, timeZone) }))
        // A day the zone skipped has no slots: its times would land on the next day's. A time in a
        // DST gap moves forward by the gap, possibly onto another slot's instant: that instant once.
        .filter((candidate) => dayExists(candidate.date, timeZone))
        .filter((candidate, k, all) => all.findIndex((other) => other.at === candidate.at) === k)
        .map((candidate) => ({ ...candidate, taken: scheduledDays.has(`${candidate.date}\u0000${kind}`) }))
        .sort(
          (a, b) =>
            Number(a.extra) - Number(b.extra) || Number(a.taken) - Number(b.taken) || a.index - b.index,
        );
      const { held } = pool(
        candidates.map((candidate) => candidate.at),
        needed,
      );
      const byInstant = new Map(candidates.map((candidate) => [candidate.at, candidate]));
      plans.push({ i, line, chosen: () => held().map((at) => byInstant.get(at)!) });
    }
    // What each line holds once every line of its kind has been added.
    for (const plan of plans) {
      const { i, line } = plan;
      const chosen = plan.chosen();
      // Slot numbers stay below per_week: an extra candidate takes the number of a usual one it replaces.
      const spare = Array.from({ length: line.per_week }, (_, n) => n).filter(
        (n) => !chosen.some((candidate) => candidate.index === n),
      );
      const numbered = chosen.map((candidate) => ({
        ...candidate,
        number: candidate.extra ? spare.shift()! : candidate.index,
      }));
      // The period keeps the part of the week's plan that falls in it while the team works (from its
      // creation until it stops), so a month and the weekly plan agree on the days they share.
      for (const candidate of numbered.filter(
        (candidate) => inPeriod(candidate.date) && candidate.at >= startsAt && candidate.at < endsAt,
      )) {
        const slot = firstSlot[i]! + candidate.number;
        slots.push({
          id: uuidv5(
            slotName([teamId, period.key, monday, line.platform, line.task_type, slot]),
            CALENDAR_ID_NAMESPACE,
          ),
          cadence: line,
          date: candidate.date,
          scheduledFor: new Date(candidate.at).toISOString(),
        });
      }
    }
  }
  slots.sort((a, b) => a.scheduledFor.localeCompare(b.scheduledFor) || a.id.localeCompare(b.id));

  // Balance: each member starts with the tasks already assigned to them in the period.
  const load = new Map(members.map((member) => [member.id, 0]));
  for (const task of tasks)
    if (task.assigned_member_id && load.has(task.assigned_member_id))
      load.set(task.assigned_member_id, load.get(task.assigned_member_id)! + 1);
  const assign = (taskType: string, platform: string): TeamMember | null => {
    const full = members.filter(
      (m) => m.capabilities.includes(taskType) && m.capabilities.includes(platform),
    );
    const eligible = full.length > 0 ? full : members.filter((m) => m.capabilities.includes(taskType));
    let chosen: TeamMember | null = null;
    for (const member of eligible)
      if (!chosen || load.get(member.id)! < load.get(chosen.id)!) chosen = member;
    if (chosen) load.set(chosen.id, load.get(chosen.id)! + 1);
    return chosen;
  };

  const byId = new Map(members.map((member) => [member.id, member]));
  const taskEntries: CalendarEntry[] = tasks.map((task) => ({
    id: task.id,
    title: task.title,
    task_type: task.task_type,
    platform: task.platform,
    status: task.status,
    scheduled_for: task.scheduled_for!,
    assigned_member: (task.assigned_member_id && byId.get(task.assigned_member_id)) || null,
    published_at: task.published_at,
  }));
  const slotEntries: CalendarEntry[] = slots.map((slot) => ({
    id: slot.id,
    title:
      slot.cadence.title ?? `${slot.cadence.task_type.replaceAll('_', ' ')} for ${slot.cadence.platform}`,
    task_type: slot.cadence.task_type,
    platform: slot.cadence.platform,
    status: PLANNED_STATUS,
    scheduled_for: slot.scheduledFor,
    assigned_member: assign(slot.cadence.task_type, slot.cadence.platform),
    published_at: null,
  }));
  return [...taskEntries, ...slotEntries].sort(inCalendarOrder);
}

/**
 * When the team stops working, for the calendar: a cancelled team at the end of its subscription, a
 * paused one when it was paused (until an agent resumes it, clearing `paused_at`), whichever is first.
 */
export const stoppedAt = (team: TeamItem): string | null =>
  [subscriptionEndsAt(team), team.paused_at ? new Date(team.paused_at).toISOString() : null]
    .filter((at): at is string => at !== null)
    .sort()[0] ?? null;

/**
 * Refuses (422 at the query's `start`) a period the team cannot use: one that ended before the team
 * existed, or one more than a year past its today. Each period asked for is stored.
 */
function checkStart(start: string, period: Period, team: TeamItem, at: number, timeZone: string): void {
  const created = localDate(Date.parse(team.created_at), timeZone);
  const latest = addDays(localDate(at, timeZone), TEAM_LIMITS.calendarDaysAhead);
  const problem =
    period.to <= created
      ? CALENDAR_START_RULES.beforeTeam(created)
      : start > latest
        ? CALENDAR_START_RULES.tooFarAhead(latest)
        : undefined;
  if (problem) throw valueRefused(['query', 'start'], start, problem);
}

type CalendarEntryItem = CalendarEntry & {
  kind: 'calendar_entry';
  pk: string;
  sk: string;
  period: string;
  /** Set when a run no longer planned the entry: it is kept, answered by no run, only so that a
   * `next_after` naming it goes on from its place (a retried page, another client's run between two
   * pages) until `expires_at` (the table's TTL attribute, epoch seconds). */
  dropped_at?: string;
  [TABLE_TTL_ATTRIBUTE]?: number;
};

/** How long a dropped entry still places a `next_after` that names it: a day, as an Idempotency-Key. */
const DROPPED_KEPT_SECONDS = 24 * 3600;

const sameEntry = (a: CalendarEntry, b: CalendarEntry) =>
  JSON.stringify(toCalendarEntry(a)) === JSON.stringify(toCalendarEntry(b));

const toCalendarEntry = (item: CalendarEntry): CalendarEntry => ({
  id: item.id,
  title: item.title,
  task_type: item.task_type,
  platform: item.platform,
  status: item.status,
  scheduled_for: item.scheduled_for,
  assigned_member: item.assigned_member ? toMember(item.assigned_member as MemberItem) : null,
  published_at: item.published_at,
});

/** Most entries one period can hold: every scheduled task read plus a full cadence for six weeks. */
const MAX_PLANNED_ENTRIES =
  TEAM_LIMITS.calendarTasks + 6 * TEAM_LIMITS.cadenceEntries * TEAM_LIMITS.cadencePerWeek;
/** The planned entries and as many dropped ones at most (the oldest dropped go first). */
const MAX_STORED_ENTRIES = 2 * MAX_PLANNED_ENTRIES;

/** Time-zone offsets stay within UTC−12 … UTC+14: a margin that holds any zone's local midnight. */
const ZONE_MARGIN_MS = 15 * 3_600_000;
const utcMidnight = (date: string) => Date.parse(`${date}T00:00:00Z`);
const aroundMidnight = (date: string, marginMs: number) =>
  new Date(utcMidnight(date) + marginMs).toISOString();

const readStoredEntries = (teamId: string, period: Period, checked: Promise<unknown>) =>
  queryPartition<CalendarEntryItem>(teamKeys.partition(teamId), {
    checked,
    prefix: teamKeys.calendarPeriod(period.key),
    limit: MAX_STORED_ENTRIES,
  });

/**
 * The tasks scheduled in the period as any zone reads it, before the team's zone is known. Two
 * Queries, so that the cap is spent on the team's own period and not on its neighbours: the hours
 * around the period's first midnight newest first (the zone's period starts somewhere in them, so its
 * tasks come before the previous period's), then the rest oldest first (before the next period's).
 * A month whose first or last week reaches into its neighbours reads the rest of those weeks too
 * (one Query each): their tasks count towards the week's cadence.
 * BETWEEN is inclusive, but the sort keys are `<scheduled_for>#<id>`: the ranges do not overlap.
 */
const readScheduledTasks = (teamId: string, period: Period, checked: Promise<unknown>) => {
  const query = (between: [string, string], newestFirst: boolean) =>
    queryPartition<ScheduledTask>(teamKeys.schedulePartition(teamId), {
      checked,
      // Its fields only: gsi1 holds whole tasks, up to 400 KB each, a page of 1 MB every two or three.
      index: 'gsi1_calendar',
      between,
      newestFirst,
      limit: TEAM_LIMITS.calendarTasks,
    });
  const weeks = weeksOf(period);
  const split = aroundMidnight(period.from, ZONE_MARGIN_MS);
  return Promise.all([
    query([aroundMidnight(period.from, -ZONE_MARGIN_MS), split], true),
    query([split, aroundMidnight(period.to, ZONE_MARGIN_MS)], false),
    weeks.from < period.from
      ? query(
          [aroundMidnight(weeks.from, -ZONE_MARGIN_MS), aroundMidnight(period.from, -ZONE_MARGIN_MS)],
          true,
        )
      : [],
    weeks.to > period.to
      ? query([aroundMidnight(period.to, ZONE_MARGIN_MS), aroundMidnight(weeks.to, ZONE_MARGIN_MS)], false)
      : [],
  ]).then((reads) => reads.flat());
};

export async function generateCalendar(
  userId: string,
  teamId: string,
  request: { period: CalendarPeriod; start?: string | undefined; after?: string | undefined },
): Promise<CalendarResult> {
  const at = now().getTime();
  // The period depends on the team's time zone, which is on the team item: to read everything in
  // one wave, read every period the date could fall in anywhere on Earth (one or two), each one's
  // scheduled tasks and stored entries, then keep the team's own in memory.
  const earliest = request.start ?? localDate(at, 'Etc/GMT+12');
  const latest = request.start ?? localDate(at, 'Etc/GMT-14');
  const candidates = new Map<string, Period>();
  for (let date = earliest; date <= latest; date = addDays(date, 1)) {
    const candidate = periodOf(request.period, date);
    candidates.set(candidate.key, candidate);
  }
  const spans = [...candidates.values()];

  // Wave 1: the team, its members, and per candidate period its scheduled tasks (gsi1) and what
  // earlier runs stored (their pages after the first wait for the owner check: another user's
  // request reads one of each).
  const checked = getOwnedTeam(userId, teamId);
  const [owned, members, byPeriod] = await Promise.all([
    checked,
    queryPartition<MemberItem>(teamKeys.partition(teamId), {
      prefix: TEAM_PREFIX.member,
      limit: TEAM_LIMITS.members,
    }),
    Promise.all(
      spans.map((candidate) =>
        Promise.all([
          readScheduledTasks(teamId, candidate, checked),
          readStoredEntries(teamId, candidate, checked),
        ]),
      ),
    ),
  ]);
  const timeZone = teamTimeZone(owned);
  const period = periodOf(request.period, request.start ?? localDate(at, timeZone));
  if (request.start !== undefined) checkStart(request.start, period, owned, at, timeZone);
  const weeks = weeksOf(period);
  const [fromMs, toMs, weeksFromMs, weeksToMs] = [period.from, period.to, weeks.from, weeks.to].map((date) =>
    startOfDay(date, timeZone),
  ) as [number, number, number, number];
  const [scheduled, stored] = byPeriod[spans.findIndex((candidate) => candidate.key === period.key)] ?? [
    [],
    [],
  ];
  const scheduledMs = (task: ScheduledTask) => Date.parse(task.scheduled_for!);
  const tasks = scheduled
    .filter((task) => scheduledMs(task) >= fromMs && scheduledMs(task) < toMs)
    .sort((a, b) => a.scheduled_for!.localeCompare(b.scheduled_for!) || a.id.localeCompare(b.id))
    .slice(0, TEAM_LIMITS.calendarTasks);
  const neighbourTasks = scheduled.filter(
    (task) =>
      (scheduledMs(task) >= weeksFromMs && scheduledMs(task) < fromMs) ||
      (scheduledMs(task) >= toMs && scheduledMs(task) < weeksToMs),
  );

  const entries = planCalendar({
    teamId,
    timeZone,
    period,
    cadence: owned.content_cadence ?? [],
    members: members.map(toMember),
    tasks,
    neighbourTasks,
    startsAt: owned.created_at,
    stopsAt: stoppedAt(owned),
  });

  const atSeconds = Math.floor(at / 1000);
  const live = stored.filter((item) => item.dropped_at === undefined);
  const inItsDay = (item: CalendarEntryItem) => (item[TABLE_TTL_ATTRIBUTE] ?? 0) > atSeconds;
  const stillDropped = stored.filter((item) => item.dropped_at !== undefined && inItsDay(item));
  // Checked before anything is written: a refused `after` stores nothing.
  const answer = answerOf(entries, [...live, ...stillDropped], request.after);

  // Wave 2: store what changed, mark dropped what a previous run planned and this one does not, and
  // delete the dropped entries past their day (AWS's TTL may not have yet; dynalite has none).
  const previous = new Map(live.map((item) => [item.sk, item]));
  const items: CalendarEntryItem[] = entries.map((entry) => ({
    ...teamKeys.calendarEntry(teamId, period.key, entry.id),
    kind: 'calendar_entry',
    period: period.key,
    ...entry,
  }));
  const changed = items.filter((item) => {
    const before = previous.get(item.sk);
    return !before || !sameEntry(before, item);
  });
  const current = new Set(items.map((item) => item.sk));
  const nowDropped = live
    .filter((item) => !current.has(item.sk))
    .map((item) => ({
      ...item,
      dropped_at: new Date(at).toISOString(),
      [TABLE_TTL_ATTRIBUTE]: atSeconds + DROPPED_KEPT_SECONDS,
    }));
  // A dropped entry planned again is written over as it is planned (in `changed`: not in `previous`).
  const keptDropped = stillDropped
    .filter((item) => !current.has(item.sk))
    .sort((a, b) => a.dropped_at!.localeCompare(b.dropped_at!));
  const overflow = keptDropped.length + nowDropped.length - MAX_PLANNED_ENTRIES;
  // Not one planned again: its put and a delete would race in parallel batches (the delete won).
  const gone = [
    ...stored.filter((item) => item.dropped_at !== undefined && !inItsDay(item) && !current.has(item.sk)),
    ...keptDropped.slice(0, Math.max(0, overflow)),
  ];
  // Batches of 25 each: a rerun after a month's pause drops up to a month of slots.
  await Promise.all([putMany([...changed, ...nowDropped]), deleteMany(gone)]);
  return answer;
}

/**
 * The answer: the period's entries after `after` (or from its first) up to the budget, how many the
 * period holds, and where the next answer starts. A month of entries at every limit passes the budget,
 * a week never does (docs/teams.md "Views are bounded"). `after` is found among the entries, or among
 * those stored before this run, dropped in the last day included (a task may have taken its slot since,
 * the team stopped), else refused.
 */
function answerOf(
  entries: CalendarEntry[],
  stored: CalendarEntry[],
  after: string | undefined,
): CalendarResult {
  let from = 0;
  if (after !== undefined) {
    const last = entries.find((entry) => entry.id === after) ?? stored.find((entry) => entry.id === after);
    if (!last) throw valueRefused(['query', 'after'], after, CALENDAR_AFTER_RULE);
    from = entries.findIndex((entry) => inCalendarOrder(entry, last) > 0);
    if (from < 0) from = entries.length;
  }
  const rest = entries.slice(from);
  const page = withinPageBudget(rest.map(toCalendarEntry), TEAM_BYTES.calendar);
  return {
    entries: page,
    total: entries.length,
    next_after: page.length < rest.length ? page.at(-1)!.id : null,
  };
}
