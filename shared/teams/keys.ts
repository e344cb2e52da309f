import { v5 as uuidv5 } from 'uuid';

// A team and everything it owns share one partition, one sort-key prefix per item kind, so each
// read of the dashboard is a single-partition Query (or GetItem) bounded by a Limit.
const partition = (teamId: string) => `TEAM#${teamId}`;

/** Cycle numbers are zero-padded so the sort key orders them numerically. */
const cycleNumber = (n: number) => String(n).padStart(6, '0');

export const TEAM_PREFIX = {
  member: 'MEMBER#',
  task: 'TASK#',
  activity: 'ACT#',
  cycle: 'CYCLE#',
  brief: 'BRIEF#',
  loop: 'LOOP#',
  calendar: 'CAL#',
} as const;

/** gsi1 partition of a team's strategy cycles by start date. */
const cyclesPartition = (teamId: string) => `${partition(teamId)}#CYCLES`;

const loopsRunningPartition = (teamId: string) => `${partition(teamId)}#LOOPS_RUNNING`;
const loopsDonePartition = (teamId: string) => `${partition(teamId)}#LOOPS_DONE`;

/** gsi1 partition of a user's teams. */
const ownerPartition = (userId: string) => `USER#${userId}#TEAMS`;
const ownerPrefix = 'TEAM#';

export const teamKeys = {
  ownerPartition,
  ownerPrefix,
  partition,
  team: (teamId: string) => ({ pk: partition(teamId), sk: 'TEAM' }),
  /** gsi1: a user's teams, newest first. */
  byOwner: (userId: string, teamId: string) => ({
    gsi1pk: ownerPartition(userId),
    gsi1sk: `${ownerPrefix}${teamId}`,
  }),
  member: (teamId: string, memberId: string) => ({ pk: partition(teamId), sk: `MEMBER#${memberId}` }),
  task: (teamId: string, taskId: string) => ({ pk: partition(teamId), sk: `TASK#${taskId}` }),
  /** gsi1 (sparse: only scheduled tasks): a team's tasks by `scheduled_for`, for the calendar. */
  taskSchedule: (teamId: string, scheduledFor: string, taskId: string) => ({
    gsi1pk: `${partition(teamId)}#SCHEDULE`,
    gsi1sk: `${scheduledFor}#${taskId}`,
  }),
  schedulePartition: (teamId: string) => `${partition(teamId)}#SCHEDULE`,
  activity: (teamId: string, activityId: string) => ({ pk: partition(teamId), sk: `ACT#${activityId}` }),
  cycle: (teamId: string, instanceNumber: number) => ({
    pk: partition(teamId),
    sk: `CYCLE#${cycleNumber(instanceNumber)}`,
  }),
  /** gsi1: a team's cycles by `start_date` (ISO UTC), so the cycles begun by an instant are one key
   * range, latest start first: the today view finds the current one whatever is planned after it. */
  cycleByStart: (teamId: string, startDate: string, instanceNumber: number) => ({
    gsi1pk: cyclesPartition(teamId),
    gsi1sk: `${startDate}#${cycleNumber(instanceNumber)}`,
  }),
  cyclesPartition,
  /** The `cycleByStart` sort keys of cycles begun by `instant` (ISO UTC): `~` sorts after the digits,
   * so a cycle that starts at `instant` is in; ' ' sorts before every start date (a year past 9999,
   * `+010000-…`, too). */
  cyclesBegunBy: (instant: string) => [' ', `${instant}#~`] as const,
  brief: (teamId: string, briefId: string) => ({ pk: partition(teamId), sk: `BRIEF#${briefId}` }),
  canvas: (teamId: string) => ({ pk: partition(teamId), sk: 'CANVAS' }),
  /** Loop instances sort by their UTC `scheduled_at`, so "today" in any time zone is one key range. */
  loop: (teamId: string, scheduledAt: string, loopInstanceId: string) => ({
    pk: partition(teamId),
    sk: `LOOP#${scheduledAt}#${loopInstanceId}`,
  }),
  loopAt: (instant: string) => `LOOP#${instant}`,
  /** gsi1 (sparse) of the loop instances running, by their start: the today view reads them whenever
   * they were scheduled. */
  loopRunning: (teamId: string, startedAt: string, loopInstanceId: string) => ({
    gsi1pk: loopsRunningPartition(teamId),
    gsi1sk: `${startedAt}#${loopInstanceId}`,
  }),
  loopsRunningPartition,
  /** gsi1 (sparse) of the other loop instances that have fired, by the time their signals fired
   * (`completed_at`, else `started_at`): the today view reads today's whenever they were scheduled. */
  loopDone: (teamId: string, firedAt: string, loopInstanceId: string) => ({
    gsi1pk: loopsDonePartition(teamId),
    gsi1sk: `${firedAt}#${loopInstanceId}`,
  }),
  loopsDonePartition,
  /** The loop instance a `loop` sort key names. */
  loopInstanceIdOf: (sk: string) => sk.slice(sk.lastIndexOf('#') + 1),
  /** Calendar entries of one generated period (`weekly#2026-11-16`, `monthly#2026-11-01`). */
  calendarPeriod: (periodKey: string) => `CAL#${periodKey}#`,
  calendarEntry: (teamId: string, periodKey: string, entryId: string) => ({
    pk: partition(teamId),
    sk: `CAL#${periodKey}#${entryId}`,
  }),
};

/** A loop definition ("social", "video", …) is named by its agents; its id is a stable UUID of that
 * name, so every instance of one loop carries the same `loop_id` (a UUID, as the spec types it). */
export const loopId = (name: string) => uuidv5(name, LOOP_ID_NAMESPACE);
const LOOP_ID_NAMESPACE = '8f0c2a6e-3b1d-4c5e-9f7a-2d4b6e8a0c13';
