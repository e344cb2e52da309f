// Spec 8, the today view: where the team is in its current cycle and what its loops do today, all in
// the team's time zone. One wave: the team, its newest cycles and those begun latest, the loop
// instances of yesterday and today (by their UTC `scheduled_at` sort key), and those running or fired
// today whenever they were scheduled (gsi1), in parallel. The rules are in docs/teams.md.
import { now } from '../clock.ts';
import { queryPartition, withinPageBudget } from '../db/store.ts';
import type { LoopInstanceItem } from './agents.ts';
import { teamKeys } from './keys.ts';
import {
  type LoopInstance,
  type SignalFired,
  TEAM_BYTES,
  TEAM_DEFAULTS,
  TEAM_LIMITS,
  type TodayView,
} from './schemas.ts';
import { type CycleItem, getOwnedTeam, readCycles, type TeamItem, teamTimeZone } from './store.ts';
import { addDays, DAY_MS, daysBetween, localDate, startOfDay } from './time.ts';

export const LOOP_STATUS = {
  upcoming: new Set(['scheduled', 'pending']),
  running: new Set(['running']),
  finished: new Set(['completed', 'failed', 'skipped']),
} as const;

const toLoopInstance = (item: LoopInstanceItem): LoopInstance => ({
  id: item.id,
  loop_id: item.loop_id,
  cycle_instance_id: item.cycle_instance_id,
  occurrence_day: item.occurrence_day,
  status: item.status,
  task_status: item.task_status,
  task_title: item.task_title,
  task_platform: item.task_platform,
  scheduled_at: item.scheduled_at,
  publish_at: item.publish_at,
  started_at: item.started_at,
  completed_at: item.completed_at,
  created_at: item.created_at,
  task_scheduled_for: item.task_scheduled_for,
  signals_emitted: item.signals_emitted,
});

/** The local day as an instant range [from, to). */
export function todayWindow(at: number, timeZone: string) {
  const today = localDate(at, timeZone);
  return { today, from: startOfDay(today, timeZone), to: startOfDay(addDays(today, 1), timeZone) };
}

/**
 * Where a loop instance sits on gsi1 (sparse), so that the view finds every instance a bucket may
 * show whenever it was scheduled: a running one by its start; any other that has fired, by when its
 * signals fired (`completed_at`, else `started_at`, the signals rule below), which holds every
 * finished one completed today; none otherwise (scheduled, pending: `upcoming` takes only those
 * scheduled today, which the window read holds). Written with every state the agents write.
 */
export function loopIndexKeys(
  teamId: string,
  loop: Pick<LoopInstanceItem, 'id' | 'status' | 'scheduled_at' | 'started_at' | 'completed_at'>,
) {
  if (LOOP_STATUS.running.has(loop.status))
    return teamKeys.loopRunning(teamId, loop.started_at ?? loop.scheduled_at, loop.id);
  const firedAt = loop.completed_at ?? loop.started_at;
  return firedAt ? teamKeys.loopDone(teamId, firedAt, loop.id) : undefined;
}

const PROGRESS_DIGITS = 1e4;
const HOUR_MS = 3_600_000;

/** Cycles the today view reads each way: the newest by number (the table, consistent: a cycle just
 * added, and cycles written before they carried gsi1 keys) and the latest begun by now (gsi1: the
 * current one, however many are planned after it). Two, so that a cycle begun after the current one
 * (overlapping it, or not active) does not hide it; two cycles fit one 1 MB page at any size. */
export const CYCLES_READ = 2;

/** Active now: `strategy_status` active and `start_date ≤ at < end_date`. */
const isActiveAt = (cycle: CycleItem, at: number) =>
  cycle.strategy_status === 'active' && Date.parse(cycle.start_date) <= at && at < Date.parse(cycle.end_date);

/** Pure: the view from the team, the cycles read (highest number first; the current one is the first
 * of them active now) and the loop instances read (each once). */
export function buildTodayView(
  team: TeamItem,
  cycles: CycleItem[],
  loops: LoopInstanceItem[],
  at: number,
): TodayView {
  const timeZone = teamTimeZone(team);
  const { today, from, to } = todayWindow(at, timeZone);
  const isToday = (instant: string | null) => {
    if (!instant) return false;
    const ms = Date.parse(instant);
    return ms >= from && ms < to;
  };

  // The current cycle: the highest-numbered of those read that is active now. Without one: no day,
  // progress 0, no phase.
  const cycle = cycles.find((candidate) => isActiveAt(candidate, at));
  let cycleDay: number | null = null;
  let progress = 0;
  let phase: string | null = null;
  if (cycle) {
    const [start, end] = [Date.parse(cycle.start_date), Date.parse(cycle.end_date)];
    // Local dates, capped at the cycle's length in days: a cycle that does not begin at local midnight
    // touches one date more than it has days (a 7-day cycle from 00:00 UTC read day 8 in Tokyo).
    // Rounded, the length keeps whole a cycle with a 23- or 25-hour day in it.
    const length = Math.max(1, Math.round((end - start) / DAY_MS));
    const day = Math.min(daysBetween(localDate(start, timeZone), today) + 1, length);
    cycleDay = day;
    progress = Math.min(1, Math.max(0, (at - start) / (end - start)));
    phase =
      (cycle.phases ?? []).filter((p) => p.start_day <= day).at(-1)?.name ??
      team.workflow_phase ??
      TEAM_DEFAULTS.workflow_phase;
  }

  const byTime = (a: LoopInstanceItem, b: LoopInstanceItem) =>
    a.scheduled_at.localeCompare(b.scheduled_at) || a.id.localeCompare(b.id);
  const sorted = [...loops].sort(byTime);
  const signals: SignalFired[] = sorted
    .flatMap((loop) => {
      const firedAt = loop.completed_at ?? loop.started_at;
      return firedAt && isToday(firedAt)
        ? loop.signals_emitted.map((signal) => ({
            signal,
            fired_at: firedAt,
            loop_instance_id: loop.id,
            loop_id: loop.loop_id,
          }))
        : [];
    })
    .sort((a, b) => a.fired_at.localeCompare(b.fired_at));

  // Each list ends before its share of the response (its rows are bounded at write: agents.ts).
  const list = (keep: (loop: LoopInstanceItem) => boolean) =>
    withinPageBudget(sorted.filter(keep).map(toLoopInstance), TEAM_BYTES.todayList);
  return {
    cycle_day: cycleDay,
    // Truncated: 1 only once the cycle is over, not in its last seconds.
    cycle_progress: Math.floor(progress * PROGRESS_DIGITS) / PROGRESS_DIGITS,
    current_phase: phase,
    running: list((loop) => LOOP_STATUS.running.has(loop.status)),
    upcoming: list((loop) => LOOP_STATUS.upcoming.has(loop.status) && isToday(loop.scheduled_at)),
    completed_today: list((loop) => LOOP_STATUS.finished.has(loop.status) && isToday(loop.completed_at)),
    signals_fired: withinPageBudget(signals, TEAM_BYTES.signalsFired),
  };
}

/** The loop instances scheduled in [from, to): one key range of the team partition. */
const readScheduled = (
  teamId: string,
  from: number,
  to: number,
  newestFirst: boolean,
  checked: Promise<unknown>,
) =>
  queryPartition<LoopInstanceItem>(teamKeys.partition(teamId), {
    checked,
    // `LOOP#<to>` sorts before every `LOOP#<to>#<id>`, so the upper bound is exclusive.
    between: [teamKeys.loopAt(new Date(from).toISOString()), teamKeys.loopAt(new Date(to).toISOString())],
    newestFirst,
    limit: TEAM_LIMITS.loopsRead,
  });

/** The cycles begun by `at`, latest start first (gsi1: eventually consistent). */
const readCyclesBegun = (teamId: string, at: number, checked: Promise<unknown>) =>
  queryPartition<CycleItem>(teamKeys.cyclesPartition(teamId), {
    index: 'gsi1',
    checked,
    between: teamKeys.cyclesBegunBy(new Date(at).toISOString()),
    newestFirst: true,
    limit: CYCLES_READ,
  });

/** Each cycle once, highest number first: the table's copy where both reads hold it (the index may not
 * show a status change yet). */
const highestFirst = (numbered: CycleItem[], begun: CycleItem[]) =>
  [...new Map([...begun, ...numbered].map((cycle) => [cycle.instance_number, cycle])).values()].sort(
    (a, b) => b.instance_number - a.instance_number,
  );

/** The instances of a gsi1 loop partition (`loopIndexKeys`), newest first, in [from, to] where given
 * (eventually consistent). */
const readIndexed = (partition: string, checked: Promise<unknown>, between?: readonly [number, number]) =>
  queryPartition<LoopInstanceItem>(partition, {
    index: 'gsi1',
    checked,
    between: between && [new Date(between[0]).toISOString(), new Date(between[1]).toISOString()],
    newestFirst: true,
    limit: TEAM_LIMITS.loopsRead,
  });

/** Each instance once, the last read given winning: the table's copy where the window read holds it
 * (strongly consistent, it shows a change the index may not show yet), else the index's, the fired
 * one over the running one (an instance moves from running to fired, rarely back). */
const latestCopies = (...reads: LoopInstanceItem[][]) => [
  ...new Map(reads.flat().map((loop) => [loop.id, loop])).values(),
];

export async function getToday(userId: string, teamId: string): Promise<TodayView> {
  const at = now().getTime();
  // The time zone is on the team item, read in the same wave: read the widest window any zone
  // needs. A local day lasts 23 to 25 hours (Antarctica/Troll's 22 and 26 aside), so every zone's
  // yesterday began between now − 50 h and now − 23 h, its today after now − 26 h, and its
  // tomorrow begins before now + 26 h. The scheduled window is two Queries split at now − 23 h, the
  // earlier newest first and the later oldest first: each reaches the team's own instances before
  // another zone's, so those cannot use up the cap. The fired instances, newest first, reach today's
  // first (few fire ahead of now). The bucket rules then keep the team's own day.
  // The pages after each Query's first wait for the owner check: another user's request reads one.
  const checked = getOwnedTeam(userId, teamId);
  const [owned, numbered, begun, earlier, later, running, fired] = await Promise.all([
    checked,
    readCycles(teamId, CYCLES_READ),
    readCyclesBegun(teamId, at, checked),
    readScheduled(teamId, at - 50 * HOUR_MS, at - 23 * HOUR_MS, true, checked),
    readScheduled(teamId, at - 23 * HOUR_MS, at + 26 * HOUR_MS, false, checked),
    readIndexed(teamKeys.loopsRunningPartition(teamId), checked),
    readIndexed(teamKeys.loopsDonePartition(teamId), checked, [at - 26 * HOUR_MS, at + 26 * HOUR_MS]),
  ]);
  const loops = latestCopies(running, fired, earlier, later);
  return buildTodayView(owned, highestFirst(numbered, begun), loops, at);
}
