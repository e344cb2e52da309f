// Teams: the team item and the reads every team endpoint shares. Each sub-resource has exactly one
// read function and one presenter, used both by its own endpoint and by the dashboard, so the two
// answer byte-for-byte alike. Totals are counters on the team item; every read is bounded by a Limit.
import { brandKitKeys } from '../brand-kits/keys.ts';
import type { Brand } from '../brands/schemas.ts';
import { getBrand } from '../brands/store.ts';
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import { getItem, ownedBy, putNew, queryPartition, queryWindow } from '../db/store.ts';
import { createOnce, type Identity, ownClaim } from '../idempotency.ts';
import { TEAM_PREFIX, teamKeys } from './keys.ts';
import {
  type ActivityEntry,
  type ActivityList,
  type BriefHistory,
  type CadenceEntry,
  type CadenceEntryInput,
  type CreateTeamInput,
  DASHBOARD_PAGE,
  type Dashboard,
  type Page,
  type StrategyHistory,
  TEAM_BYTES,
  TEAM_DEFAULTS,
  TEAM_LIMITS,
  type TeamDetail,
  type TeamMember,
  type TeamTask,
  type TeamTaskList,
  type TeamWithMembers,
} from './schemas.ts';
import { paidPeriodEnd } from './time.ts';

type Json = Record<string, unknown>;

export interface TeamItem {
  kind: 'team';
  id: string;
  owner: string;
  team_type: string;
  display_name: string;
  status: string;
  tier: string;
  operation_mode: string;
  created_at: string;
  updated_at: string;
  workflow_phase: string;
  workflow_phase_label: string;
  trigger_mode: string;
  default_currency: string;
  onboarding_step: string;
  auto_config: Json;
  orchestrator_cadence: Json;
  content_strategy: Json;
  config: Json & { timezone: string };
  payments_subscription_id: string | null;
  connected_accounts: string[];
  brand_kit_id: string | null;
  brand_id: string | null;
  brand_name: string | null;
  hired_at: string | null;
  paused_at: string | null;
  cancelled_at: string | null;
  subscription_ends_at: string | null;
  content_cadence: CadenceEntry[];
  /** Counters kept by every task / activity write (ADD), so totals never count history. */
  task_count: number;
  activity_count: number;
  /** Members added (absent on teams written before it was kept): addMember refuses the 101st. */
  member_count?: number;
  /** The studio avatar the team currently uses (set by the avatar upload). */
  current_avatar_id?: string | null;
  /** The avatar the team had before the upload that set `current_avatar_id`: the status's and the
   * next upload's while that one names no record (an upload in flight, or one whose take-back failed). */
  previous_avatar_id?: string | null;
}

export interface MemberItem extends TeamMember {
  kind: 'team_member';
  team_id: string;
}

export interface TaskItem extends TeamTask {
  kind: 'team_task';
  team_id: string;
  /** Sort keys of the loop instances that copy this task's fields (kept in step on task updates). */
  loop_keys?: string[];
  /** Updates so far (absent on a new task): orders the copies on loop instances. */
  version?: number;
  /** At least what the task weighs as sent, loop keys aside (absent on tasks written before it was
   * kept): updateTask checks its changes against it without reading the task. */
  sent_bytes?: number;
  /** The same as its item counts it (AWS's count), loop keys and both sizes aside. */
  stored_bytes?: number;
}

export interface ActivityItem extends ActivityEntry {
  kind: 'team_activity';
  team_id: string;
}

export interface CyclePhase {
  name: string;
  /** First cycle day (1-indexed) of the phase. */
  start_day: number;
}

export interface CycleItem {
  kind: 'strategy_cycle';
  team_id: string;
  cycle_instance_id: string;
  instance_number: number;
  strategy_status: string;
  start_date: string;
  end_date: string;
  strategy_revision_count: number;
  content_strategy: Json;
  phases: CyclePhase[];
  created_at: string;
}

export interface BriefItem {
  kind: 'strategy_brief';
  team_id: string;
  id: string;
  cycle_instance_id: string;
  content: string;
  created_at: string;
}

export interface CanvasItem {
  kind: 'canvas_layout';
  layout: Json;
  updated_at: string;
}

/** The team's IANA zone: every "today", "this week" and "this month" of the team is in it. */
export const teamTimeZone = (team: Pick<TeamItem, 'config'>) =>
  typeof team.config?.timezone === 'string' ? team.config.timezone : TEAM_DEFAULTS.timezone;

/** Monthly from `hired_at`; a team never hired (no subscription) ends when it is cancelled. */
export const subscriptionEnd = (team: Pick<TeamItem, 'hired_at' | 'config'>, cancelledAt: string) =>
  team.hired_at ? paidPeriodEnd(team.hired_at, cancelledAt, teamTimeZone(team)) : cancelledAt;

/**
 * When a cancelled team stops working (null while it is not cancelled): the stored end, or, while the
 * cancelling call has not stored it yet (its second write), the same rule's answer, so that every
 * reader (the team detail, the calendar) agrees.
 */
export const subscriptionEndsAt = (
  team: Pick<TeamItem, 'hired_at' | 'config' | 'cancelled_at' | 'subscription_ends_at'>,
) => team.subscription_ends_at ?? (team.cancelled_at ? subscriptionEnd(team, team.cancelled_at) : null);

// ---- presenters: the spec's fields only, never the item minus some keys ----------------------

export const toTeamDetail = (item: TeamItem): TeamDetail => ({
  id: item.id,
  team_type: item.team_type,
  display_name: item.display_name,
  status: item.status,
  tier: item.tier,
  operation_mode: item.operation_mode,
  created_at: item.created_at,
  updated_at: item.updated_at,
  workflow_phase: item.workflow_phase ?? TEAM_DEFAULTS.workflow_phase,
  workflow_phase_label: item.workflow_phase_label ?? TEAM_DEFAULTS.workflow_phase_label,
  trigger_mode: item.trigger_mode ?? TEAM_DEFAULTS.trigger_mode,
  default_currency: item.default_currency ?? TEAM_DEFAULTS.default_currency,
  onboarding_step: item.onboarding_step ?? TEAM_DEFAULTS.onboarding_step,
  auto_config: item.auto_config ?? {},
  orchestrator_cadence: item.orchestrator_cadence ?? {},
  content_strategy: item.content_strategy ?? {},
  config: item.config ?? { timezone: TEAM_DEFAULTS.timezone },
  payments_subscription_id: item.payments_subscription_id ?? null,
  connected_accounts: item.connected_accounts ?? [],
  brand_kit_id: item.brand_kit_id ?? null,
  brand_id: item.brand_id ?? null,
  brand_name: item.brand_name ?? null,
  hired_at: item.hired_at ?? null,
  paused_at: item.paused_at ?? null,
  cancelled_at: item.cancelled_at ?? null,
  subscription_ends_at: subscriptionEndsAt(item),
});

export const toMember = (item: MemberItem): TeamMember => ({
  id: item.id,
  role: item.role,
  agent_slug: item.agent_slug,
  display_name: item.display_name,
  capabilities: item.capabilities,
  hired_agent_id: item.hired_agent_id,
  persona_name: item.persona_name,
  agent_classes: item.agent_classes,
  current_activity: item.current_activity,
});

export const toCadenceEntry = (entry: CadenceEntryInput | CadenceEntry): CadenceEntry => ({
  platform: entry.platform,
  task_type: entry.task_type,
  per_week: entry.per_week,
  preferred_days: entry.preferred_days,
  preferred_times: entry.preferred_times,
  title: entry.title ?? null,
});

export const toTask = (item: TaskItem): TeamTask => ({
  id: item.id,
  task_type: item.task_type,
  title: item.title,
  description: item.description,
  status: item.status,
  priority: item.priority,
  platform: item.platform,
  publish_url: item.publish_url,
  evaluation_notes: item.evaluation_notes,
  quality_score: item.quality_score,
  revision_count: item.revision_count,
  max_revisions: item.max_revisions,
  scheduled_for: item.scheduled_for,
  published_at: item.published_at,
  started_at: item.started_at,
  completed_at: item.completed_at,
  created_at: item.created_at,
  assigned_member_id: item.assigned_member_id,
  input_data: item.input_data,
  output_data: item.output_data,
});

export const toActivity = (item: ActivityItem): ActivityEntry => ({
  id: item.id,
  action_type: item.action_type,
  description: item.description,
  source: item.source,
  severity: item.severity,
  details: item.details,
  member_id: item.member_id,
  team_task_id: item.team_task_id,
  created_at: item.created_at,
});

const toTeamWithMembers = (
  team: TeamItem,
  members: MemberItem[],
  recentActivity: ActivityItem[],
): TeamWithMembers => ({
  ...toTeamDetail(team),
  members: members.map(toMember),
  recent_activity: recentActivity.slice(0, TEAM_LIMITS.recentActivity).map(toActivity),
  content_cadence: (team.content_cadence ?? []).map(toCadenceEntry),
});

const toTaskList = (team: TeamItem, tasks: TaskItem[]): TeamTaskList => ({
  tasks: tasks.map(toTask),
  total: team.task_count ?? 0,
});

const toActivityList = (team: TeamItem, activity: ActivityItem[]): ActivityList => ({
  activity: activity.map(toActivity),
  total: team.activity_count ?? 0,
});

const toStrategyHistory = (cycles: CycleItem[]): StrategyHistory => ({
  strategies: cycles.map((cycle) => ({
    cycle_instance_id: cycle.cycle_instance_id,
    instance_number: cycle.instance_number,
    strategy_status: cycle.strategy_status,
    start_date: cycle.start_date,
    end_date: cycle.end_date,
    strategy_revision_count: cycle.strategy_revision_count ?? 0,
    content_strategy: cycle.content_strategy ?? {},
  })),
});

/** The preview is the brief's first characters (code points), cut at a word when one is near. */
export const briefPreview = (content: string): string => {
  const chars = [...content.trim()];
  if (chars.length <= TEAM_LIMITS.briefPreview) return chars.join('');
  const cut = chars.slice(0, TEAM_LIMITS.briefPreview);
  // The space's place in code points, as the cut counts (an emoji is two UTF-16 units).
  const space = cut.lastIndexOf(' ');
  return `${(space > TEAM_LIMITS.briefPreview * 0.6 ? cut.slice(0, space) : cut).join('').trimEnd()}…`;
};

const toBriefHistory = (briefs: BriefItem[]): BriefHistory => ({
  items: briefs.map((brief) => ({
    id: brief.id,
    created_at: brief.created_at,
    brief_preview: briefPreview(brief.content),
    cycle_instance_id: brief.cycle_instance_id,
  })),
});

// ---- reads: one single-partition request each, all bounded ---------------------------------

export const readTeam = (teamId: string) => getItem<TeamItem>(teamKeys.team(teamId));

const readMembers = (teamId: string, checked?: Promise<unknown>) =>
  queryPartition<MemberItem>(teamKeys.partition(teamId), {
    checked,
    prefix: TEAM_PREFIX.member,
    limit: TEAM_LIMITS.members,
  });

/** A page of one kind of team item, newest first, ending before its byte budget (TEAM_BYTES: the
 * dashboard carries the tasks, the activity twice and the strategy history, one budget per list keeps
 * each dashboard key equal to its own read). DynamoDB has no offset: a page reads `offset + limit`
 * keys (offset ≤ 10,000), page after page past 1 MB, so only a deep offset costs more than one request. */
const newestPage =
  <T extends object>(prefix: string, maxBytes: number) =>
  (teamId: string, page: Page, checked?: Promise<unknown>) =>
    queryWindow<T>(teamKeys.partition(teamId), { prefix, ...page, maxBytes, checked });

const readTasks = newestPage<TaskItem>(TEAM_PREFIX.task, TEAM_BYTES.tasks);
const readActivity = newestPage<ActivityItem>(TEAM_PREFIX.activity, TEAM_BYTES.activity);

const RECENT_ACTIVITY_PAGE: Page = { offset: 0, limit: TEAM_LIMITS.recentActivity, before: null };

/** Newest cycle first. */
export const readCycles = (teamId: string, limit: number) =>
  queryPartition<CycleItem>(teamKeys.partition(teamId), {
    prefix: TEAM_PREFIX.cycle,
    newestFirst: true,
    limit,
  });

/** The strategy history: the newest cycles, ending early where their strategies would pass its budget
 * (an agent's content_strategy has no bound of its own). */
const readStrategyHistory = (teamId: string, checked: Promise<unknown>) =>
  queryWindow<CycleItem>(teamKeys.partition(teamId), {
    checked,
    prefix: TEAM_PREFIX.cycle,
    offset: 0,
    limit: TEAM_LIMITS.strategies,
    maxBytes: TEAM_BYTES.strategies,
  });

const readBriefs = (teamId: string, checked: Promise<unknown>) =>
  queryPartition<BriefItem>(teamKeys.partition(teamId), {
    checked,
    prefix: TEAM_PREFIX.brief,
    newestFirst: true,
    limit: TEAM_LIMITS.briefs,
  });

const readCanvas = (teamId: string) => getItem<CanvasItem>(teamKeys.canvas(teamId));

/** The caller's team (the raw item, for other domains: owner check done, `team_type` etc.) or 404. */
export async function getOwnedTeam(userId: string, teamId: string): Promise<TeamItem> {
  return ownedBy(await readTeam(teamId), userId, 'Team');
}

// ---- endpoints ----------------------------------------------------------------------------

/** The caller's teams, newest first: each as unsubscribe answers it (no members or activity). */
export const listTeams = (userId: string, page: OwnerPage): Promise<TeamDetail[]> =>
  listOwned({ partition: teamKeys.ownerPartition(userId), prefix: teamKeys.ownerPrefix }, page, toTeamDetail);

// The owner check runs beside each Query's first page, and the pages after it wait for the check:
// another user's request reads one page of each before its 404, not `offset + limit` items (a deep
// offset) nor the pages a list of large records takes (the dashboard's lists, the strategy history).

/** GET /teams/{id}: the team with its members, latest activity and content cadence (one wave). */
export async function getTeam(userId: string, teamId: string): Promise<TeamWithMembers> {
  const checked = getOwnedTeam(userId, teamId);
  const [team, members, activity] = await Promise.all([
    checked,
    readMembers(teamId, checked),
    readActivity(teamId, RECENT_ACTIVITY_PAGE, checked),
  ]);
  return toTeamWithMembers(team, members, activity);
}

export async function listTeamTasks(userId: string, teamId: string, page: Page): Promise<TeamTaskList> {
  const checked = getOwnedTeam(userId, teamId);
  const [team, tasks] = await Promise.all([checked, readTasks(teamId, page, checked)]);
  return toTaskList(team, tasks);
}

export async function listTeamActivity(userId: string, teamId: string, page: Page): Promise<ActivityList> {
  const checked = getOwnedTeam(userId, teamId);
  const [team, activity] = await Promise.all([checked, readActivity(teamId, page, checked)]);
  return toActivityList(team, activity);
}

export async function getStrategyHistory(userId: string, teamId: string): Promise<StrategyHistory> {
  const checked = getOwnedTeam(userId, teamId);
  const [, cycles] = await Promise.all([checked, readStrategyHistory(teamId, checked)]);
  return toStrategyHistory(cycles);
}

export async function getStrategyBriefs(userId: string, teamId: string): Promise<BriefHistory> {
  const checked = getOwnedTeam(userId, teamId);
  const [, briefs] = await Promise.all([checked, readBriefs(teamId, checked)]);
  return toBriefHistory(briefs);
}

/** Spec 4: every sub-resource read at once, one wave of seven single-partition requests. */
export async function getDashboard(userId: string, teamId: string): Promise<Dashboard> {
  const checked = getOwnedTeam(userId, teamId);
  const [owned, members, tasks, activity, cycles, briefs, canvas] = await Promise.all([
    checked,
    readMembers(teamId, checked),
    readTasks(teamId, DASHBOARD_PAGE, checked),
    // The activity page starts with the team's recent activity: one read serves both.
    readActivity(teamId, DASHBOARD_PAGE, checked),
    readStrategyHistory(teamId, checked),
    readBriefs(teamId, checked),
    readCanvas(teamId),
  ]);
  return {
    team: toTeamWithMembers(owned, members, activity),
    tasks: toTaskList(owned, tasks),
    activity: toActivityList(owned, activity),
    strategy_history: toStrategyHistory(cycles),
    strategy_briefs: toBriefHistory(briefs),
    canvas_layout: canvas?.layout ?? {},
  };
}

// ---- writes -------------------------------------------------------------------------------

/** A brand kit named by a team must be the caller's, as its brand must (else 404 `Brand kit not
 * found`, as for a kit that does not exist). Read here, not through the brand kits' store, which
 * loads S3 and the presigner: the team functions need the kit's owner only. */
async function requireOwnBrandKit(userId: string, kitId: string): Promise<void> {
  ownedBy(await getItem<{ owner?: unknown }>(brandKitKeys.brandKit(kitId)), userId, 'Brand kit');
}

/**
 * POST /teams: the caller owns the new team. A brand or brand kit, when named, must be the caller's
 * (else 404; the brand's answer first where both are not): they are read in the first wave (beside
 * the claim of an Idempotency-Key, whose retry answers the team the first attempt made), the team
 * written in the second.
 */
export const createTeam = (userId: string, input: CreateTeamInput, key?: string): Promise<TeamWithMembers> =>
  createOnce({
    claimAt: ownClaim(userId, 'team', key),
    request: input,
    check: async () => {
      const [brand, kit] = await Promise.allSettled([
        input.brand_id ? getBrand(userId, input.brand_id) : undefined,
        input.brand_kit_id ? requireOwnBrandKit(userId, input.brand_kit_id) : undefined,
      ]);
      if (brand.status === 'rejected') throw brand.reason;
      if (kit.status === 'rejected') throw kit.reason;
      return brand.value;
    },
    write: (identity, brand) => writeTeam(userId, input, identity, brand),
    read: async (id) => {
      const [team, members, activity] = await Promise.all([
        getItem<TeamItem>(teamKeys.team(id)),
        readMembers(id),
        readActivity(id, RECENT_ACTIVITY_PAGE),
      ]);
      return team && toTeamWithMembers(team, members, activity);
    },
  });

async function writeTeam(
  userId: string,
  input: CreateTeamInput,
  { id, created_at }: Identity,
  brand: Brand | undefined,
): Promise<TeamWithMembers> {
  const item: TeamItem = {
    kind: 'team',
    id,
    owner: userId,
    team_type: input.team_type,
    display_name: input.display_name,
    status: TEAM_DEFAULTS.status,
    tier: input.tier,
    operation_mode: input.operation_mode,
    created_at,
    updated_at: created_at,
    workflow_phase: TEAM_DEFAULTS.workflow_phase,
    workflow_phase_label: TEAM_DEFAULTS.workflow_phase_label,
    trigger_mode: TEAM_DEFAULTS.trigger_mode,
    default_currency: TEAM_DEFAULTS.default_currency,
    onboarding_step: TEAM_DEFAULTS.onboarding_step,
    auto_config: {},
    orchestrator_cadence: input.orchestrator_cadence,
    content_strategy: input.content_strategy,
    config: { ...input.config, timezone: (input.config.timezone as string) ?? TEAM_DEFAULTS.timezone },
    payments_subscription_id: null,
    connected_accounts: [],
    brand_kit_id: input.brand_kit_id,
    brand_id: brand?.id ?? null,
    brand_name: brand?.name ?? null,
    hired_at: null,
    paused_at: null,
    cancelled_at: null,
    subscription_ends_at: null,
    content_cadence: input.content_cadence.map(toCadenceEntry),
    task_count: 0,
    activity_count: 0,
    member_count: 0,
  };
  await putNew({ ...teamKeys.team(id), ...teamKeys.byOwner(userId, id), ...item });
  return toTeamWithMembers(item, [], []);
}
