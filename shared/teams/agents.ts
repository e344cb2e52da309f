// The team's internal writers: the agents (and the seed, and the tests) add members, tasks,
// activity, strategy cycles and briefs, loop instances and the canvas through these functions only,
// so the counters on the team item and the task fields copied onto loop instances stay in step.
// Each write is a single-item write (DESIGN §4); the record first, the team item after it
// (writeWithTeam).
import type * as v from 'valibot';
import { now, nowIso } from '../clock.ts';
import { itemBytes, refuseStoredPast } from '../db/item-size.ts';
import {
  addToCounters,
  deleteMany,
  existingKeys,
  getItem,
  keyText,
  put,
  putMany,
  putNew,
  queryPartition,
  removeListEntries,
  updateItem,
} from '../db/store.ts';
import type { Keys } from '../db/table.ts';
import { refuseInvalid, refuseUnstorable } from '../http/fields.ts';
import { newId, newIdAt, timeOfId } from '../ids.ts';
import { sentBytes } from '../lambda-response.ts';
import { log } from '../log.ts';
import { TEAM_PREFIX, teamKeys } from './keys.ts';
import {
  CANCELLED,
  ContentCadenceInput,
  CyclePhasesInput,
  LoopFieldsInput,
  TaskFieldsInput,
  TEAM_BYTES,
  TEAM_LIMITS,
  TEAM_RECORD_STORED_BYTES,
  TeamChangesInput,
  type TeamMember,
  type TeamTask,
} from './schemas.ts';
import {
  type ActivityItem,
  type BriefItem,
  type CycleItem,
  type CyclePhase,
  type MemberItem,
  readCycles,
  type TaskItem,
  type TeamItem,
  toActivity,
  toCadenceEntry,
  toMember,
  toTask,
} from './store.ts';
import { loopIndexKeys } from './today.ts';

type Json = Record<string, unknown>;

const iso = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);

/** An id that sorts like its timestamp (records written for the past, as the seed does). */
const idFor = (at: string | undefined) => (at ? newIdAt(new Date(at)) : newId());

async function requireTeam(teamId: string): Promise<TeamItem> {
  const team = await getItem<TeamItem>(teamKeys.team(teamId));
  if (!team) throw new Error(`No team ${teamId}`);
  return team;
}

/**
 * Writes records (`write`), then their change to the team item: `counters` added (the totals of the
 * task and activity lists), and `updated_at` moved when the team read shows the record (`shown`:
 * members and recent activity, not tasks; docs/decisions.md). When the team cannot follow, or the
 * records' own write fails (it may have landed, its answer lost), the records go again before the
 * error is thrown, so no list holds what the totals leave out (the agent's retry
 * writes them anew). An ADD the SDK resends after a lost answer counts once (`addToCounters`' own
 * update id), unless another count lands on the team between the two; one whose every answer is lost
 * is read back by that id, and the records stay where it landed.
 */
async function writeWithTeam(
  teamId: string,
  written: Keys[],
  write: () => Promise<unknown>,
  change: {
    counters?: Record<string, number>;
    shown?: boolean;
    /** Counters that must stay below these numbers, else `refused` is thrown (nothing kept). */
    below?: Record<string, number>;
    refused?: string;
  },
): Promise<void> {
  const team = teamKeys.team(teamId);
  const touched = change.shown ? nowIso() : undefined;
  try {
    // A record whose own write failed may have landed (its answer lost): it goes again too.
    await write();
    if (change.counters) {
      if (!(await addToCounters(team, change.counters, { touched, below: change.below })))
        throw new Error(change.refused);
    } else if (touched) await setFields(team, { updated_at: touched });
  } catch (error) {
    await deleteMany(written).catch(() => undefined);
    throw error;
  }
}

/**
 * Refuses a record that would weigh more than its share of the dashboard as Lambda sends it
 * (TEAM_BYTES; measured like a page, on the stored record), before anything is written: a page ends
 * before its budget but always holds its first entry, so one record past it would pass it.
 */
function checkBytes(what: string, record: unknown, maxBytes: number): void {
  refusePast(what, sentBytes(JSON.stringify(record)), maxBytes);
}

function refusePast(what: string, bytes: number, maxBytes: number): void {
  if (bytes > maxBytes)
    throw new Error(`Invalid ${what}: ${bytes} bytes as sent, more than the ${maxBytes} it may weigh`);
}

/**
 * A list's record: within its page's share as sent, and within its DynamoDB item as stored
 * (TEAM_RECORD_STORED_BYTES, counted as AWS counts it: dynalite counts strings in UTF-16 units, so
 * locally a Thai record passed that AWS refuses, and one of plain text past 400 KB failed as the
 * store's error).
 */
function checkRecord(what: string, record: object, maxBytes: number): void {
  checkBytes(what, record, maxBytes);
  refuseStoredPast(what, itemBytes(record), TEAM_RECORD_STORED_BYTES);
}

/** Sets fields on an existing item (a missing one is an error: the agents name what they change). */
async function setFields(keys: { pk: string; sk: string }, fields: Json): Promise<void> {
  if (!(await updateItem(keys, { set: fields, exists: ['pk'] })))
    throw new Error(`No item ${keys.pk} ${keys.sk}`);
}

// ---- members ------------------------------------------------------------------------------

export type MemberInput = Omit<TeamMember, 'id' | 'hired_agent_id' | 'current_activity' | 'agent_classes'> & {
  hired_agent_id?: string;
  agent_classes?: string[];
  current_activity?: Json;
};

export async function addMember(teamId: string, input: MemberInput): Promise<TeamMember> {
  const id = newId();
  const item: MemberItem = {
    kind: 'team_member',
    team_id: teamId,
    id,
    role: input.role,
    agent_slug: input.agent_slug,
    display_name: input.display_name,
    capabilities: input.capabilities,
    hired_agent_id: input.hired_agent_id ?? newId(),
    persona_name: input.persona_name,
    agent_classes: input.agent_classes ?? [],
    current_activity: input.current_activity ?? {},
  };
  refuseUnstorable('member', { current_activity: item.current_activity });
  // The team read carries up to 100 members: each has its share of the dashboard, and a member past
  // the 100th is refused (the team read would never show it).
  checkBytes('member', toMember(item), TEAM_BYTES.member);
  const team = await requireTeam(teamId);
  if (team.member_count === undefined) await countMembers(teamId);
  await writeWithTeam(
    teamId,
    [teamKeys.member(teamId, id)],
    () => putNew({ ...teamKeys.member(teamId, id), ...item }),
    {
      counters: { member_count: 1 },
      below: { member_count: TEAM_LIMITS.members },
      refused: `Invalid member: the team has ${TEAM_LIMITS.members} members, the most the team read shows`,
      shown: true,
    },
  );
  return toMember(item);
}

/** A team written before its members were counted: counted once, where no count is yet (a member
 * added meanwhile may be counted twice, which refuses a member early, never one too many). */
async function countMembers(teamId: string): Promise<void> {
  const members = await queryPartition<MemberItem>(teamKeys.partition(teamId), {
    prefix: TEAM_PREFIX.member,
    limit: TEAM_LIMITS.members + 1,
  });
  await updateItem(teamKeys.team(teamId), { setIfAbsent: { member_count: members.length }, exists: ['pk'] });
}

// ---- tasks --------------------------------------------------------------------------------

export interface TaskInput {
  task_type: string;
  title: string;
  description?: string | null;
  status?: string;
  priority?: string;
  platform?: string | null;
  publish_url?: string | null;
  evaluation_notes?: string | null;
  quality_score?: number | null;
  revision_count?: number;
  max_revisions?: number;
  scheduled_for?: string | null;
  published_at?: string | null;
  started_at?: string | null;
  completed_at?: string | null;
  /** When the task was created (the seed backdates history); now by default. */
  created_at?: string;
  assigned_member_id?: string | null;
  input_data?: Json;
  output_data?: Json;
}

export const TASK_DEFAULTS = { status: 'pending', priority: 'medium', max_revisions: 3 } as const;

/** A task less what its sizes leave out: its loop keys (addLoopInstance appends them, and they have
 * their own room in the item) and the sizes themselves, which no read shows either. */
const weighed = (record: Json): Json => {
  const { loop_keys: _loops, sent_bytes: _sent, stored_bytes: _stored, ...rest } = record;
  return rest;
};

/** What a stored task weighs as its page measures it, and as its item does (`sent_bytes`,
 * `stored_bytes`). The task read shows a part of the rest, so a task within its page's budget by this
 * measure is shown within it. */
const taskSizes = (record: Json) => ({
  sent_bytes: sentBytes(JSON.stringify(weighed(record))),
  stored_bytes: itemBytes(weighed(record)),
});

/** Scheduled tasks are also on gsi1 by `scheduled_for`, where the calendar reads a period
 * (updateTask keeps the keys in step). The record carries its sizes, which an update checks without
 * reading the task (updateTask). */
const taskRecord = (teamId: string, task: TaskItem) => {
  const record = {
    ...task,
    ...teamKeys.task(teamId, task.id),
    ...(task.scheduled_for ? teamKeys.taskSchedule(teamId, task.scheduled_for, task.id) : {}),
  };
  return { ...record, ...taskSizes(record) };
};

/** A task within its page's share as sent and within its item as stored, less its loop keys and
 * sizes, which have their own room there (TEAM_RECORD_STORED_BYTES). */
function checkTask(sizes: { sent_bytes: number; stored_bytes: number }): void {
  refusePast('task', sizes.sent_bytes, TEAM_BYTES.tasks);
  refuseStoredPast('task', sizes.stored_bytes, TEAM_RECORD_STORED_BYTES);
}

const newTaskItem = (teamId: string, input: TaskInput): TaskItem => {
  const createdAt = iso(input.created_at) ?? nowIso();
  return {
    kind: 'team_task',
    team_id: teamId,
    id: idFor(input.created_at),
    task_type: input.task_type,
    title: input.title,
    description: input.description ?? null,
    status: input.status ?? TASK_DEFAULTS.status,
    priority: input.priority ?? TASK_DEFAULTS.priority,
    platform: input.platform ?? null,
    publish_url: input.publish_url ?? null,
    evaluation_notes: input.evaluation_notes ?? null,
    quality_score: input.quality_score ?? null,
    revision_count: input.revision_count ?? 0,
    max_revisions: input.max_revisions ?? TASK_DEFAULTS.max_revisions,
    scheduled_for: iso(input.scheduled_for),
    published_at: iso(input.published_at),
    started_at: iso(input.started_at),
    completed_at: iso(input.completed_at),
    created_at: createdAt,
    assigned_member_id: input.assigned_member_id ?? null,
    input_data: input.input_data ?? {},
    output_data: input.output_data ?? {},
    loop_keys: [],
  };
};

export async function addTask(teamId: string, input: TaskInput): Promise<TeamTask> {
  refuseInvalid('task', TaskFieldsInput, input);
  refuseUnstorable('task', { input_data: input.input_data, output_data: input.output_data });
  // The id first: tasks added in parallel keep the order of the calls.
  const item = newTaskItem(teamId, input);
  const record = taskRecord(teamId, item);
  checkTask(record);
  await requireTeam(teamId);
  await writeWithTeam(teamId, [teamKeys.task(teamId, item.id)], () => putNew(record), {
    counters: { task_count: 1 },
  });
  return toTask(item);
}

/** Many tasks at once (imports, backfills, the growth benchmark): batch writes, then the counter once. */
export async function addTasks(teamId: string, inputs: TaskInput[]): Promise<void> {
  for (const input of inputs) {
    refuseInvalid('task', TaskFieldsInput, input);
    refuseUnstorable('task', { input_data: input.input_data, output_data: input.output_data });
  }
  const records = inputs.map((input) => taskRecord(teamId, newTaskItem(teamId, input)));
  for (const record of records) checkTask(record);
  await requireTeam(teamId);
  const keys = records.map((record) => teamKeys.task(teamId, record.id));
  // Every batch settles before a failure is thrown, so the take-back finds none still in flight.
  await writeWithTeam(teamId, keys, () => putMany(records), { counters: { task_count: inputs.length } });
}

export type TaskChanges = Partial<
  Pick<
    TaskInput,
    | 'status'
    | 'title'
    | 'platform'
    | 'scheduled_for'
    | 'published_at'
    | 'publish_url'
    | 'started_at'
    | 'completed_at'
    | 'quality_score'
    | 'evaluation_notes'
    | 'revision_count'
    | 'assigned_member_id'
    | 'output_data'
  >
>;

const TIME_FIELDS = new Set(['scheduled_for', 'published_at', 'started_at', 'completed_at']);

/**
 * Changes a task and the copies of its fields on the loop instances that run it. One UpdateItem of
 * the changed fields only, so a loop instance's key appended meanwhile, or another writer's change to
 * other fields, survives; `version` goes up by one, so copies land newest-wins.
 *
 * A task may not grow past its page's budget (TEAM_BYTES.tasks) or its item (TEAM_RECORD_STORED_BYTES),
 * and the update does not read it first: the item keeps an upper bound of each size (`sent_bytes`,
 * `stored_bytes`), and the update, conditional on both leaving room for everything it writes, adds
 * what it writes to them. Replaced values are not taken off, so the bounds only grow; when one leaves
 * no room (or the task predates them), the task is read and measured with the changes, and written on
 * the condition that no other update landed meanwhile, its bounds made exact (docs/teams.md "Reads
 * are bounded").
 */
export async function updateTask(teamId: string, taskId: string, changes: TaskChanges): Promise<TeamTask> {
  refuseInvalid('task changes', TaskFieldsInput, changes);
  refuseUnstorable('task changes', { output_data: changes.output_data });
  const set: Json = Object.fromEntries(
    Object.entries(changes)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, TIME_FIELDS.has(name) ? iso(value as string | null) : value]),
  );
  // The index keys follow `scheduled_for`: a rescheduled task moves, an unscheduled one leaves the
  // (sparse) index, and a change that leaves the schedule alone leaves the keys alone.
  const remove: string[] = [];
  if ('scheduled_for' in set) {
    if (set.scheduled_for)
      Object.assign(set, teamKeys.taskSchedule(teamId, set.scheduled_for as string, taskId));
    else remove.push('gsi1pk', 'gsi1sk');
  }
  const keys = teamKeys.task(teamId, taskId);
  // At most what the task grows by: the fields written, and its version with the most digits it takes.
  const written = { ...set, version: Number.MAX_SAFE_INTEGER };
  const growth = { sent_bytes: sentBytes(JSON.stringify(written)), stored_bytes: itemBytes(written) };
  const next =
    (await updateItem<TaskItem>(keys, {
      set,
      remove,
      add: { version: 1, ...growth },
      exists: ['pk', 'sent_bytes', 'stored_bytes'],
      below: {
        sent_bytes: TEAM_BYTES.tasks - growth.sent_bytes + 1,
        stored_bytes: TEAM_RECORD_STORED_BYTES - growth.stored_bytes + 1,
      },
    })) ?? (await updateMeasured(teamId, taskId, set, remove));
  // Only a change to a copied field is worth a write per loop instance.
  if (COPIED_FIELDS.some((name) => name in set)) await copyTaskToLoops(teamId, next, next.loop_keys ?? []);
  return toTask(next);
}

/** updateTask where the task's bounds leave no room for the changes: the task read, the changes
 * measured on it, and written only over the version read (else read again). */
async function updateMeasured(
  teamId: string,
  taskId: string,
  set: Json,
  remove: string[],
): Promise<TaskItem> {
  const keys = teamKeys.task(teamId, taskId);
  for (;;) {
    const current = await getItem<TaskItem>(keys);
    if (!current) throw new Error(`No task ${taskId} in team ${teamId}`);
    const changed: Json = { ...current, ...set, version: (current.version ?? 0) + 1 };
    for (const name of remove) delete changed[name];
    const sizes = taskSizes(changed);
    checkTask(sizes);
    const next = await updateItem<TaskItem>(keys, {
      set: { ...set, ...sizes },
      remove,
      add: { version: 1 },
      exists: ['pk'],
      ...(current.version === undefined ? { absent: ['version'] } : { expect: { version: current.version } }),
    });
    if (next) return next;
  }
}

// ---- activity -----------------------------------------------------------------------------

export interface ActivityInput {
  action_type: string;
  description: string;
  source?: string;
  severity?: string;
  details?: Json;
  member_id?: string | null;
  team_task_id?: string | null;
  created_at?: string;
}

export const activityItem = (teamId: string, input: ActivityInput): ActivityItem => ({
  kind: 'team_activity',
  team_id: teamId,
  id: idFor(input.created_at),
  action_type: input.action_type,
  description: input.description,
  source: input.source ?? 'agent',
  severity: input.severity ?? 'info',
  details: input.details ?? {},
  member_id: input.member_id ?? null,
  team_task_id: input.team_task_id ?? null,
  created_at: iso(input.created_at) ?? nowIso(),
});

export async function addActivity(teamId: string, input: ActivityInput) {
  const item = activityItem(teamId, input);
  refuseUnstorable('activity entry', { details: item.details });
  const record = { ...teamKeys.activity(teamId, item.id), ...item };
  checkRecord('activity entry', record, TEAM_BYTES.activity);
  await requireTeam(teamId);
  await writeWithTeam(teamId, [teamKeys.activity(teamId, item.id)], () => putNew(record), {
    counters: { activity_count: 1 },
    shown: true,
  });
  return toActivity(item);
}

// ---- strategy cycles, briefs, canvas, cadence ------------------------------------------------

export interface CycleInput {
  start_date: string;
  end_date: string;
  strategy_status?: string;
  strategy_revision_count?: number;
  content_strategy?: Json;
  /** Named phases of the cycle by first day; the today view reports the one in force. */
  phases?: CyclePhase[];
}

/** Starts the next strategy cycle (instance numbers count up from 1; a racing writer retries). */
export async function addCycle(teamId: string, input: CycleInput): Promise<CycleItem> {
  refuseInvalid('strategy cycle phases', CyclePhasesInput, input.phases ?? []);
  refuseUnstorable('strategy cycle', { content_strategy: input.content_strategy });
  await requireTeam(teamId);
  for (;;) {
    const [latest] = await readCycles(teamId, 1);
    const number = (latest?.instance_number ?? 0) + 1;
    const item: CycleItem = {
      kind: 'strategy_cycle',
      team_id: teamId,
      cycle_instance_id: newId(),
      instance_number: number,
      strategy_status: input.strategy_status ?? 'active',
      start_date: new Date(input.start_date).toISOString(),
      end_date: new Date(input.end_date).toISOString(),
      strategy_revision_count: input.strategy_revision_count ?? 0,
      content_strategy: input.content_strategy ?? {},
      phases: [...(input.phases ?? [])].sort((a, b) => a.start_day - b.start_day),
      created_at: nowIso(),
    };
    const record = {
      ...teamKeys.cycle(teamId, number),
      ...teamKeys.cycleByStart(teamId, item.start_date, number),
      ...item,
    };
    checkRecord('strategy cycle', record, TEAM_BYTES.strategies);
    // Refused, or failed outright (a 500, a timeout after the SDK's resends), the put may be our own,
    // landed with its answer lost: read back, the cycle there is ours by its id. Not ours, a racing
    // writer took the number (the next one is tried); failed and not ours, the failure stands.
    const ours = async () =>
      (await getItem<CycleItem>(teamKeys.cycle(teamId, number)))?.cycle_instance_id ===
      item.cycle_instance_id;
    const written = await putNew(record).catch(async (failure: unknown) => {
      if (await ours().catch(() => false)) return true;
      throw failure;
    });
    if (written || (await ours())) return item;
  }
}

/** Refused (nothing written) where the new status would take the cycle past its share of the dashboard,
 * as addCycle refuses a cycle: a page always holds its first cycle, whatever it weighs. Only the status
 * changes after addCycle, so the cycle as read with the new status is what the write leaves. */
export async function updateCycleStatus(teamId: string, instanceNumber: number, status: string) {
  const keys = teamKeys.cycle(teamId, instanceNumber);
  const cycle = await getItem<CycleItem & Keys>(keys);
  // A missing cycle is setFields' error.
  if (cycle) checkRecord('strategy cycle', { ...cycle, strategy_status: status }, TEAM_BYTES.strategies);
  await setFields(keys, { strategy_status: status });
}

export async function addBrief(
  teamId: string,
  input: { cycle_instance_id: string; content: string; created_at?: string },
): Promise<BriefItem> {
  // The brief lists read the 50 newest whole: bounded so that they stay one Query page.
  const bytes = Buffer.byteLength(input.content);
  if (bytes > TEAM_LIMITS.briefBytes)
    throw new Error(
      `Invalid strategy brief: its content is ${bytes} bytes, more than the ${TEAM_LIMITS.briefBytes} it may hold`,
    );
  await requireTeam(teamId);
  const item: BriefItem = {
    kind: 'strategy_brief',
    team_id: teamId,
    id: idFor(input.created_at),
    cycle_instance_id: input.cycle_instance_id,
    content: input.content,
    created_at: iso(input.created_at) ?? nowIso(),
  };
  await putNew({ ...teamKeys.brief(teamId, item.id), ...item });
  return item;
}

export async function setCanvasLayout(teamId: string, layout: Json): Promise<void> {
  refuseUnstorable('canvas layout', { layout });
  checkBytes('canvas layout', layout, TEAM_BYTES.canvas);
  await requireTeam(teamId);
  await put({ ...teamKeys.canvas(teamId), kind: 'canvas_layout', layout, updated_at: nowIso() });
}

/** Replaces the team's content cadence; refused (nothing written) unless the create body's rules hold. */
export async function setContentCadence(
  teamId: string,
  cadence: v.InferInput<typeof ContentCadenceInput>,
): Promise<void> {
  const lines = refuseInvalid('content cadence', ContentCadenceInput, cadence);
  await setFields(teamKeys.team(teamId), {
    content_cadence: lines.map(toCadenceEntry),
    updated_at: nowIso(),
  });
}

/** The team's fields the orchestration and billing agents own (phase, subscription, accounts…). */
export type TeamChanges = Partial<
  Pick<
    TeamItem,
    | 'status'
    | 'workflow_phase'
    | 'workflow_phase_label'
    | 'trigger_mode'
    | 'onboarding_step'
    | 'auto_config'
    | 'payments_subscription_id'
    | 'connected_accounts'
    | 'hired_at'
    | 'paused_at'
  >
>;

/** Refused (nothing written) when a field breaks its rule (TeamChangesInput: bounded like the create
 * body's fields, so the team read stays within its share of the dashboard). */
export async function updateTeam(teamId: string, changes: TeamChanges): Promise<void> {
  refuseInvalid('team changes', TeamChangesInput, changes);
  const normalised = { ...changes } as Json;
  for (const name of ['hired_at', 'paused_at'] as const)
    if (changes[name] !== undefined) normalised[name] = iso(changes[name]);
  const keys = teamKeys.team(teamId);
  // A cancelled team stays cancelled (its cancelled_at and paid period's end stay with it, and the
  // calendar stops there): its other fields may change, its status may not.
  const updated = await updateItem(keys, {
    set: { ...normalised, updated_at: nowIso() },
    exists: ['pk'],
    differ: changes.status === undefined ? {} : { status: CANCELLED },
  });
  if (!updated)
    throw new Error(
      (await getItem(keys))
        ? `Invalid team changes: status: a ${CANCELLED} team stays ${CANCELLED}`
        : `No item ${keys.pk} ${keys.sk}`,
    );
}

// ---- loop instances -----------------------------------------------------------------------

export interface LoopInstanceItem {
  kind: 'loop_instance';
  team_id: string;
  id: string;
  loop_id: string;
  cycle_instance_id: string;
  occurrence_day: number;
  status: string;
  task_id: string | null;
  task_status: string | null;
  task_title: string | null;
  task_platform: string | null;
  task_scheduled_for: string | null;
  /** The task's `version` these copies come from. */
  task_version: number;
  scheduled_at: string;
  publish_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  signals_emitted: string[];
  /** State updates so far (updateLoopInstance; absent until the first): each is written over the
   * state it read, so the gsi1 keys follow the state. */
  revision?: number;
}

export interface LoopInstanceInput {
  loop_id: string;
  cycle_instance_id: string;
  occurrence_day: number;
  scheduled_at: string;
  status?: string;
  task_id?: string | null;
  publish_at?: string | null;
  started_at?: string | null;
  completed_at?: string | null;
  signals_emitted?: string[];
}

/** The task fields a loop instance carries (as task_<name>), copied at write time so "today" is one read. */
const COPIED_FIELDS = ['status', 'title', 'platform', 'scheduled_for'] as const;
const loopCopyOfTask = (task: TaskItem | undefined) => ({
  task_status: task?.status ?? null,
  task_title: task?.title ?? null,
  task_platform: task?.platform ?? null,
  task_scheduled_for: task?.scheduled_for ?? null,
});

/**
 * Writes a task's fields onto loop instances, each copy marked with the task's `version`: a copy
 * from an older version never overwrites a newer one, whatever order concurrent writers land in.
 */
async function copyTaskToLoops(teamId: string, task: TaskItem, loopKeys: string[]): Promise<void> {
  const version = task.version ?? 0;
  // A refused write (a newer copy is there, or the instance is gone) needs nothing more.
  await Promise.all(
    loopKeys.map((sk) =>
      updateItem(
        { pk: teamKeys.partition(teamId), sk },
        {
          set: { ...loopCopyOfTask(task), task_version: version },
          exists: ['pk'],
          below: { task_version: version },
        },
      ),
    ),
  );
}

/** A loop instance made `at`, its id's time (newIdAt). */
const loopInstanceItem = (
  teamId: string,
  id: string,
  at: Date,
  input: LoopInstanceInput,
  task: TaskItem | undefined,
): LoopInstanceItem => ({
  kind: 'loop_instance',
  team_id: teamId,
  id,
  loop_id: input.loop_id,
  cycle_instance_id: input.cycle_instance_id,
  occurrence_day: input.occurrence_day,
  status: input.status ?? 'scheduled',
  task_id: input.task_id ?? null,
  ...loopCopyOfTask(task),
  task_version: task?.version ?? 0,
  scheduled_at: new Date(input.scheduled_at).toISOString(),
  publish_at: iso(input.publish_at),
  started_at: iso(input.started_at),
  completed_at: iso(input.completed_at),
  created_at: at.toISOString(),
  signals_emitted: input.signals_emitted ?? [],
});

export async function addLoopInstance(teamId: string, input: LoopInstanceInput): Promise<LoopInstanceItem> {
  refuseInvalid('loop instance', LoopFieldsInput, input);
  // The id's time is its created_at: how old a key left to nothing is (releaseLeftLoopKeys).
  const at = now();
  const id = newIdAt(at);
  const scheduled_at = new Date(input.scheduled_at).toISOString();
  const keys = teamKeys.loop(teamId, scheduled_at, id);
  // The task remembers its loop instances, so a task update refreshes their copies. It learns of
  // this one before it exists: a crash between the two writes leaves a key to nothing (a copy to it
  // is refused), never an instance whose copy no task update refreshes. Their number is bounded, as
  // their keys share the task's item.
  const task = input.task_id ? await appendLoopKey(teamId, input.task_id, keys.sk) : undefined;
  const item = loopInstanceItem(teamId, id, at, input, task);
  await putNew({ ...keys, ...loopIndexKeys(teamId, item), ...item });
  // An update between the append and this put found no instance to copy to: copy it again then.
  if (task) {
    const current = await getItem<TaskItem>(teamKeys.task(teamId, task.id));
    if (current && (current.version ?? 0) > item.task_version)
      await copyTaskToLoops(teamId, current, [keys.sk]);
  }
  return item;
}

/** The task with a loop instance's key appended, once. A full task first gives back the keys of
 * instances left unwritten, if it holds any. */
async function appendLoopKey(teamId: string, taskId: string, sk: string): Promise<TaskItem> {
  const keys = teamKeys.task(teamId, taskId);
  const append = async (): Promise<{ task: TaskItem } | { full: TaskItem }> => {
    const appended = await updateItem<TaskItem>(keys, {
      append: { loop_keys: [sk] },
      exists: ['pk'], // a missing task is not written as a stub
      fewer: { loop_keys: TEAM_LIMITS.loopsPerTask },
      // The SDK's resend of an append that landed (its answer lost) is refused by its own key, so a
      // key never takes two of the task's slots, whatever other append landed between the two.
      lacks: { loop_keys: sk },
    });
    if (appended) return { task: appended };
    const current = await getItem<TaskItem>(keys);
    if (!current) throw new Error(`No task ${taskId} in team ${teamId}`);
    return current.loop_keys?.includes(sk) ? { task: current } : { full: current };
  };
  const first = await append();
  if ('task' in first) return first.task;
  // Room again (another add gave keys back since this one was refused), or keys it can give back.
  const room = (first.full.loop_keys?.length ?? 0) < TEAM_LIMITS.loopsPerTask;
  const retried = room || (await releaseLeftLoopKeys(teamId, first.full)) ? await append() : undefined;
  if (retried && 'task' in retried) return retried.task;
  throw new Error(
    `Invalid loop instance: task ${taskId} is already run by ${TEAM_LIMITS.loopsPerTask} loop instances, the most one task may be`,
  );
}

/** No call writes an instance longer than Lambda runs one (15 minutes at most): a key this much older
 * than now with no instance was left by a crash between addLoopInstance's two writes. */
const LOOP_KEY_SETTLED_MS = 20 * 60_000;
const LOOP_KEYS_RELEASED = 50;

/** Takes off a full task the keys to instances that will never exist, where it still holds them as
 * read (else a concurrent change decided first): whether it found any. A younger key may be a call's
 * in flight, its instance about to be written. */
async function releaseLeftLoopKeys(teamId: string, task: TaskItem): Promise<boolean> {
  const held = task.loop_keys ?? [];
  const partition = teamKeys.partition(teamId);
  const settledBefore = now().getTime() - LOOP_KEY_SETTLED_MS;
  const settled = held.filter((sk) => timeOfId(teamKeys.loopInstanceIdOf(sk)) < settledBefore);
  if (!settled.length) return false;
  const found = await existingKeys(settled.map((sk) => ({ pk: partition, sk })));
  const left = new Set(settled.filter((sk) => !found.has(keyText({ pk: partition, sk }))));
  const released = held
    .flatMap((value, index) => (left.has(value) ? [{ index, value }] : []))
    // At most LOOP_KEYS_RELEASED at once: each is a condition of the one update (DynamoDB's 4 KB).
    .slice(0, LOOP_KEYS_RELEASED);
  if (!released.length) return false;
  // Refused where the list moved since it was read: another add released keys first, so slots may
  // be free all the same, and the append is tried again either way.
  if (await removeListEntries(teamKeys.task(teamId, task.id), 'loop_keys', released))
    log.warn('loop keys to no instance released', {
      team_id: teamId,
      task_id: task.id,
      released: released.length,
    });
  return true;
}

/** Many loop instances that run no task at once (a day's schedule, backfills): batch writes. */
export async function addLoopInstances(teamId: string, inputs: LoopInstanceInput[]): Promise<void> {
  if (inputs.some((input) => input.task_id)) throw new Error('addLoopInstances takes no task_id');
  for (const input of inputs) refuseInvalid('loop instance', LoopFieldsInput, input);
  await requireTeam(teamId);
  await putMany(
    inputs.map((input) => {
      const at = now();
      const item = loopInstanceItem(teamId, newIdAt(at), at, input, undefined);
      return {
        ...teamKeys.loop(teamId, item.scheduled_at, item.id),
        ...loopIndexKeys(teamId, item),
        ...item,
      };
    }),
  );
}

export type LoopChanges = Partial<
  Pick<LoopInstanceItem, 'status' | 'started_at' | 'completed_at' | 'signals_emitted'>
>;

/** Reads and conditional writes an update tries: each refusal means another update landed, and an
 * instance's state has one runner, so more is a writer gone wrong, not a race to wait out. */
const LOOP_UPDATE_ROUNDS = 10;

/**
 * Changes a loop instance's state, and its gsi1 keys with it (`loopIndexKeys`), which follow the state
 * the changes leave: they may set status, started_at and completed_at in part, so the instance is
 * read and the keys computed from it with the changes. The write is conditional on the instance's
 * `revision` (its state updates so far) as read: a concurrent update that landed between, or the SDK's
 * resend of this write after it landed with its answer lost, is refused, and the instance read again
 * (LOOP_UPDATE_ROUNDS times at most, then an Error). So the keys always match the state they are
 * stored with; the changes land once more over what is there (the last update wins, as before).
 */
export async function updateLoopInstance(
  teamId: string,
  loop: Pick<LoopInstanceItem, 'id' | 'scheduled_at'>,
  changes: LoopChanges,
): Promise<void> {
  refuseInvalid('loop instance changes', LoopFieldsInput, changes);
  // An undefined change changes nothing, in the state the keys are computed from too.
  const normalised = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  for (const name of ['started_at', 'completed_at'] as const)
    if (changes[name] !== undefined) normalised[name] = iso(changes[name]);
  const keys = teamKeys.loop(teamId, loop.scheduled_at, loop.id);
  for (let round = 1; round <= LOOP_UPDATE_ROUNDS; round++) {
    const current = await getItem<LoopInstanceItem>(keys);
    if (!current) throw new Error(`No item ${keys.pk} ${keys.sk}`);
    const indexKeys = loopIndexKeys(teamId, { ...current, ...normalised });
    const revision = current.revision;
    const written = await updateItem(keys, {
      set: { ...normalised, ...indexKeys },
      remove: indexKeys ? undefined : ['gsi1pk', 'gsi1sk'],
      add: { revision: 1 },
      exists: ['pk'],
      ...(revision === undefined ? { absent: ['revision'] } : { expect: { revision } }),
    });
    if (written) return;
  }
  throw new Error(
    `Loop instance ${loop.id} not updated: other updates landed first ${LOOP_UPDATE_ROUNDS} times running`,
  );
}
