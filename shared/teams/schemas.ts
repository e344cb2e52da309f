// Spec §"Team" … §"Calendar entry and result" and endpoints 4, 8, 9, 10, with the values the spec
// leaves open decided here (docs/teams.md says why).
import * as v from 'valibot';
import { ITEM_MAX_BYTES } from '../db/item-size.ts';
import {
  dict,
  dictJsonSchema,
  fastapi,
  integer,
  list,
  listRule,
  literal,
  model,
  modelRule,
  offsetPage,
  optionalNullable,
  string,
  uuid,
  valueError,
} from '../http/fields.ts';
import {
  dateTimeOut,
  intOut,
  nullableDateTime,
  nullableString,
  nullableUuid,
  uuidOut,
  withDefault,
} from '../http/response-fields.ts';
import { slotPool } from './slot-pool.ts';

/** The team kind whose owner may upload studio-avatar videos (spec 3). */
export const AVATAR_VIDEO_TEAM_TYPE = 'avatar-video';
/** The kind of the demo content team. */
export const CONTENT_TEAM_TYPE = 'content';

export const TEAM_DEFAULTS = {
  status: 'active',
  workflow_phase: 'onboarding',
  workflow_phase_label: 'Setting Up',
  trigger_mode: 'strategy-driven',
  default_currency: 'USD',
  onboarding_step: 'pending',
  timezone: 'UTC',
} as const;

export const CANCELLED = 'cancelled';

export const TEAM_LIMITS = {
  teamType: { min: 1, max: 64 },
  displayName: { min: 1, max: 200 },
  tier: { min: 1, max: 64 },
  operationMode: { min: 1, max: 64 },
  cadenceEntries: 20,
  cadencePerWeek: 21,
  /** Fields the agents set with updateTeam, bounded like their siblings in the create body: a state
   * (status, workflow_phase, trigger_mode, onboarding_step) like team_type, a label like display_name. */
  teamState: { min: 1, max: 64 },
  phaseLabel: { min: 1, max: 200 },
  subscriptionId: { min: 1, max: 200 },
  connectedAccounts: 20,
  connectedAccount: { min: 1, max: 100 },
  /** Members read with the team: a team is a handful of agents, this is a safety bound. */
  members: 100,
  /** Activity entries inlined as `team.recent_activity`. */
  recentActivity: 10,
  strategies: 50,
  briefs: 50,
  briefPreview: 280,
  /** Loop instances read by the today view in each of its four loop Queries (the two of the window
   * about three days around now, the running and the fired ones on gsi1). Each Query pages on past
   * DynamoDB's 1 MB: one page up to about 690 bytes a row (a short title, two signals), 8 one after
   * another with every row at its limits (4,898 bytes: docs/teams.md "Today view"). */
  loopsRead: 1500,
  /** Scheduled tasks read for one calendar period. */
  calendarTasks: 500,
  /** How far past the team's today a calendar may be planned: a year, leap day included. */
  calendarDaysAhead: 366,
  /** The task fields the today view and the calendar copy into every row (docs/teams.md "Views are
   * bounded"): a title, task type and platform as a cadence line takes them (CadenceLineFields), a
   * status like the team's. */
  taskTitle: { max: 200 },
  taskStatus: { max: 64 },
  taskKind: { max: 64 },
  /** A loop instance's status and the signals it emitted (rows of the today view and its signals_fired). */
  loopStatus: { max: 64 },
  signals: 10,
  signal: { max: 64 },
  /** A cycle phase's name: the today view's current_phase, in place of the team's workflow_phase. */
  phaseName: { max: 64 },
  /** A strategy brief's content, in UTF-8 bytes as DynamoDB weighs it: the dashboard and the brief list
   * read the 50 newest whole for their previews, and 50 of these fit one 1 MB Query page. */
  briefBytes: 16 * 1024,
  /** The loop instances that may run one task: the task keeps their keys (addLoopInstance) so that its
   * updates reach their copies, 67 bytes each in its item (`LOOP#<instant>#<id>` and its entry). */
  loopsPerTask: 200,
} as const;

/** What a task, an activity entry or a strategy cycle may take of its DynamoDB item as stored: all of
 * it but room for a task's loop keys (TEAM_LIMITS.loopsPerTask) and 1 KiB for what else a task's bound
 * (`stored_bytes`) leaves out: the list's name and its own 3 bytes (12), the two sizes (31 at most)
 * and a loop key's 3 bytes more where its instant is past the year 9999 (600 at most). Its `version`
 * is measured with the task. */
export const TEAM_RECORD_STORED_BYTES = ITEM_MAX_BYTES - TEAM_LIMITS.loopsPerTask * 67 - 1024;

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * What each part of the dashboard may weigh as Lambda sends it (the body escaped once more: sentBytes).
 * The lists' pages end before their budget (the tasks; the activity, carried twice, as the page and as
 * the team's recent_activity; the strategy history), and the agents' writes refuse a record past its
 * share (a page always holds its first entry): a list's record, a member, the canvas. The team's fields
 * and the brief previews are bounded field by field. Together they stay within RESPONSE_BODY_MAX_BYTES
 * (the sum: docs/teams.md "Reads are bounded").
 */
export const TEAM_BYTES = {
  tasks: 1.5 * MiB,
  activity: 1 * MiB,
  strategies: 1 * MiB,
  /** One member as the team read shows it: a role, names, capabilities and a small current_activity. */
  member: 1.5 * KiB,
  canvas: 32 * KiB,
  /** The today view: each of its three lists of loop instances (running, upcoming, completed_today),
   * and its signals_fired. With the cycle fields, 4.75 MiB at most (docs/teams.md "Views are bounded"). */
  todayList: 1.25 * MiB,
  signalsFired: 1 * MiB,
  /** The calendar's entries: a week at every limit is whole within it; a month past it is cut, and its
   * answer says so (next_after, and after= for the rest). */
  calendar: 4.75 * MiB,
} as const;

/**
 * The team's task and activity lists. Their default page is also the dashboard's (spec 4: each
 * sub-key is the payload of the matching read), and it is 20, not the workspace list's 50: the
 * dashboard is an overview whose cost should not follow the team's size (DESIGN.md §6 growth).
 */
export const PAGE_LIMITS = {
  limit: { default: 20, min: 1, max: 100 },
} as const;

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

// ---- requests -----------------------------------------------------------------------------

/** What a time-zone database name is made of (the names themselves are the runtime's ICU's). */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;
const NOT_A_ZONE = 'timezone must be an IANA time zone name such as Europe/Paris';

/** The zone as the time-zone database spells it, or undefined when it names none. Intl accepts any
 * letter case (`utc`, `europe/paris`); ICU's spelling is stored, so clients read back one form. A name
 * ICU knows as an alias keeps the name sent: ICU's are sometimes the older names (`Asia/Kolkata` would
 * become `Asia/Calcutta`), and it has no list of the aliases' own spellings to correct their case. */
const ianaTimeZone = (name: unknown): string | undefined => {
  if (typeof name !== 'string' || !ZONE_NAME.test(name)) return undefined;
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return canonical.toLowerCase() === name.toLowerCase() ? canonical : name;
  } catch {
    return undefined;
  }
};

const TeamConfig = v.pipe(
  dict(),
  v.rawTransform(({ dataset: { value: config }, addIssue, NEVER }) => {
    if (config.timezone === undefined) return config;
    const timezone = ianaTimeZone(config.timezone);
    if (timezone !== undefined) return { ...config, timezone };
    addIssue({ message: valueError(NOT_A_ZONE) });
    return NEVER;
  }),
  // Which names the database holds changes with the runtime: the pattern bounds the spelling, the
  // description (where the 422 points: at config) says the rest.
  v.metadata({
    jsonSchema: {
      ...dictJsonSchema(),
      description: `${dictJsonSchema().description} Its timezone, when given, is one the server's time-zone database knows, else a 422 value_error: ${NOT_A_ZONE}.`,
      properties: {
        timezone: {
          type: 'string',
          pattern: ZONE_NAME.source,
          description: `The team's IANA time zone, in any letter case (${TEAM_DEFAULTS.timezone} when absent).`,
        },
      },
    },
  }),
);

const clockTime = v.pipe(
  string(),
  // A regex (not a custom check): the OpenAPI document carries it as the items' pattern.
  v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, valueError('time must be HH:MM (24-hour)')),
);

/** One line of the content cadence: how many pieces of a kind the team publishes per week. */
const CadenceLineFields = model({
  platform: string({ min: 1, ...TEAM_LIMITS.taskKind }),
  task_type: string({ min: 1, ...TEAM_LIMITS.taskKind }),
  per_week: integer({ ge: 1, le: TEAM_LIMITS.cadencePerWeek }),
  preferred_days: v.optional(list(literal(WEEKDAYS), { min: 1, max: 7 }), [...WEEKDAYS.slice(0, 5)]),
  preferred_times: v.optional(list(clockTime, { min: 1, max: 24 }), ['09:00']),
  title: optionalNullable(string({ min: 1, ...TEAM_LIMITS.taskTitle })),
});

// Each slot of a line is a distinct day and time of the week: more than those would stack slots.
export const CadenceEntryInput = modelRule(
  CadenceLineFields,
  (line) => line.per_week <= new Set(line.preferred_days).size * new Set(line.preferred_times).size,
  'per_week must be at most the number of distinct preferred_days times the number of distinct preferred_times',
);
export type CadenceEntryInput = v.InferOutput<typeof CadenceEntryInput>;

/** A kind of content: its platform and task type (free text, joined unambiguously). */
export const kindOf = (platform: string | null, taskType: string) => JSON.stringify([platform, taskType]);

/** The first line that cannot get all its slots, one slot of a kind per instant: the lines of a kind
 * share the day and time pairs they name, each taking its per_week among its own, in cadence order
 * (slotPool: exactly when some sharing gives every line so far all of its slots). */
const overbookedLine = (lines: CadenceEntryInput[]): number | undefined => {
  const kinds = new Map<string, ReturnType<typeof slotPool<string>>>();
  for (const [i, line] of lines.entries()) {
    const kind = kindOf(line.platform, line.task_type);
    const pool = kinds.get(kind) ?? slotPool<string>();
    kinds.set(kind, pool);
    const dayTimes = line.preferred_days.flatMap((day) =>
      line.preferred_times.map((time) => `${day} ${time}`),
    );
    if (pool([...new Set(dayTimes)], line.per_week).got < line.per_week) return i;
  }
  return undefined;
};

/** A team's whole content cadence: the create body's field, and what the agents may set later. */
export const ContentCadenceInput = listRule(
  list(CadenceEntryInput, { max: TEAM_LIMITS.cadenceEntries }),
  overbookedLine,
  'the lines of one platform and task_type must each find per_week distinct day and time pairs among their own preferred_days and preferred_times, no pair taken by two of them',
);

export const CreateTeamBody = model({
  team_type: string(TEAM_LIMITS.teamType),
  display_name: string(TEAM_LIMITS.displayName),
  tier: string(TEAM_LIMITS.tier),
  operation_mode: string(TEAM_LIMITS.operationMode),
  brand_id: optionalNullable(uuid()),
  brand_kit_id: optionalNullable(uuid()),
  content_strategy: v.optional(dict(), {}),
  orchestrator_cadence: v.optional(dict(), {}),
  config: v.optional(TeamConfig, {}),
  content_cadence: v.optional(ContentCadenceInput, []),
});
export type CreateTeamInput = v.InferOutput<typeof CreateTeamBody>;

/**
 * The team fields the orchestration and billing agents set (agents.ts updateTeam), each bounded like
 * its siblings in the create body (auto_config like config), so the team read has a bound.
 */
export const TeamChangesInput = v.object({
  // Cancelling is unsubscribe's: it records cancelled_at and the paid period's end, where the calendar
  // stops; a status set here alone would leave it planning on.
  status: v.optional(
    v.pipe(
      string(TEAM_LIMITS.teamState),
      v.check((status) => status !== CANCELLED, `a team becomes ${CANCELLED} only through unsubscribeTeam`),
    ),
  ),
  workflow_phase: v.optional(string(TEAM_LIMITS.teamState)),
  workflow_phase_label: v.optional(string(TEAM_LIMITS.phaseLabel)),
  trigger_mode: v.optional(string(TEAM_LIMITS.teamState)),
  onboarding_step: v.optional(string(TEAM_LIMITS.teamState)),
  auto_config: v.optional(dict()),
  payments_subscription_id: v.optional(v.nullable(string(TEAM_LIMITS.subscriptionId))),
  connected_accounts: v.optional(
    list(string(TEAM_LIMITS.connectedAccount), { max: TEAM_LIMITS.connectedAccounts }),
  ),
  hired_at: v.optional(v.nullable(v.string())),
  paused_at: v.optional(v.nullable(v.string())),
});

/** The task fields the agents set that the today view and the calendar copy into rows (agents.ts
 * addTask, addTasks, updateTask): bounded so that a row has a bound. */
export const TaskFieldsInput = v.object({
  task_type: v.optional(string(TEAM_LIMITS.taskKind)),
  title: v.optional(string(TEAM_LIMITS.taskTitle)),
  status: v.optional(string(TEAM_LIMITS.taskStatus)),
  platform: v.optional(v.nullable(string(TEAM_LIMITS.taskKind))),
});

/** A loop instance's fields the today view shows as written (agents.ts addLoopInstance(s),
 * updateLoopInstance). */
export const LoopFieldsInput = v.object({
  // The view's own rules for them (response-fields' uuidOut, intOut): the today view documents UUIDs
  // and an integer. Unchecked, an id was any text: a row of up to DynamoDB's 400 KB, past its list's
  // budget alone, and 1,500 of them a read of hundreds of pages. The message does not echo the value.
  loop_id: v.optional(v.pipe(v.string(), v.uuid('should be a UUID'))),
  cycle_instance_id: v.optional(v.pipe(v.string(), v.uuid('should be a UUID'))),
  occurrence_day: v.optional(intOut),
  status: v.optional(string(TEAM_LIMITS.loopStatus)),
  signals_emitted: v.optional(list(string(TEAM_LIMITS.signal), { max: TEAM_LIMITS.signals })),
});

/** A strategy cycle's phases: their names become the today view's current_phase. */
export const CyclePhasesInput = list(
  v.object({ name: string(TEAM_LIMITS.phaseName), start_day: v.number() }),
);

export const TeamPath = model({ team_id: uuid() });

export const PageQuery = model(offsetPage(PAGE_LIMITS));
export type Page = v.InferOutput<typeof PageQuery>;
/** The dashboard's lists: the default page of each list read. */
export const DASHBOARD_PAGE: Page = { limit: PAGE_LIMITS.limit.default, offset: 0, before: null };

export const CALENDAR_PERIODS = ['weekly', 'monthly'] as const;
export type CalendarPeriod = (typeof CALENDAR_PERIODS)[number];

/** Years a calendar can be planned for. */
export const CALENDAR_YEARS = { min: 1970, max: 2999 } as const;

/** What pydantic makes of a date's text: fine, a parse error (speedate's text), a datetime that is not
 * at midnight, or a date Python cannot hold (year 0). */
type DateProblem = string | { inexact: true } | { yearZero: true } | undefined;

/**
 * pydantic's lax `date` from a string, as speedate reads it (on UTF-8 bytes): a date, or a datetime
 * whose time is zero (its time zone ignored, digits past microseconds dropped), with speedate's error
 * texts. Unix timestamps as text are refused (docs/teams.md).
 */
const dateProblem = (text: string): DateProblem => {
  const bytes = Buffer.from(text, 'utf8');
  const digit = (at: number) => {
    const byte = bytes[at];
    return byte !== undefined && byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : undefined;
  };
  const number = (at: number, length: number) => {
    let value = 0;
    for (let i = 0; i < length; i++) {
      const d = digit(at + i);
      if (d === undefined) return undefined;
      value = value * 10 + d;
    }
    return value;
  };
  const char = (at: number) => (bytes[at] === undefined ? undefined : String.fromCharCode(bytes[at]!));

  if (bytes.length < 10) return 'input is too short';
  const year = number(0, 4);
  if (year === undefined) return 'invalid character in year';
  if (char(4) !== '-') return 'invalid date separator, expected `-`';
  const month = number(5, 2);
  if (month === undefined) return 'invalid character in month';
  if (char(7) !== '-') return 'invalid date separator, expected `-`';
  const day = number(8, 2);
  if (day === undefined) return 'invalid character in day';
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day < 1 || day > days) return 'day value is outside expected range';
  // Only a date speedate read whole reaches Python's `date`, which has no year 0.
  const valid = (problem: { inexact: true } | undefined): DateProblem =>
    problem ?? (year === 0 ? { yearZero: true } : undefined);
  if (bytes.length === 10) return valid(undefined);
  // A datetime: the separator, then HH:MM[:SS[.ffffff]] and an optional zone.
  if (!'Tt_ '.includes(char(10) ?? 'x')) return 'invalid datetime separator, expected `T`, `t`, `_` or space';
  let at = 11;
  if (bytes.length - at < 5) return 'input is too short';
  const hour = number(at, 2);
  if (hour === undefined) return 'invalid character in hour';
  if (char(at + 2) !== ':') return 'invalid time separator, expected `:`';
  const minute = number(at + 3, 2);
  if (minute === undefined) return 'invalid character in minute';
  if (hour > 23) return 'hour value is outside expected range of 0-23';
  if (minute > 59) return 'minute value is outside expected range of 0-59';
  at += 5;
  let second = 0;
  let fraction = 0;
  if (char(at) === ':') {
    const value = number(at + 1, 2);
    if (value === undefined) return 'invalid character in second';
    if (value > 59) return 'second value is outside expected range of 0-59';
    second = value;
    at += 3;
    if (char(at) === '.' || char(at) === ',') {
      at++;
      const from = at;
      for (; digit(at) !== undefined; at++)
        // Digits past microseconds are dropped (pydantic truncates them).
        if (at - from < 6 && digit(at) !== 0) fraction = 1;
      if (at === from) return 'second fraction digits missing after `.`';
    }
  }
  if (char(at) === 'Z' || char(at) === 'z') at++;
  else if (at < bytes.length) {
    // `+`, `-` or U+2212 MINUS SIGN.
    if (char(at) === '+' || char(at) === '-') at++;
    else if (bytes[at] === 0xe2 && bytes[at + 1] === 0x88 && bytes[at + 2] === 0x92) at += 3;
    else return 'invalid timezone sign';
    const zoneHour = number(at, 2);
    if (zoneHour === undefined) return 'invalid timezone hour';
    at += char(at + 2) === ':' ? 3 : 2;
    const zoneMinute = number(at, 2);
    if (zoneMinute === undefined) return 'invalid timezone minute';
    if (zoneMinute > 59) return 'timezone minute value is outside expected range of 0-59';
    if (zoneHour * 60 + zoneMinute >= 24 * 60) return 'timezone offset must be less than 24 hours';
    at += 2;
  }
  if (at < bytes.length) return 'unexpected extra characters at the end of the input';
  return valid(hour || minute || second || fraction ? { inexact: true } : undefined);
};

/** A `start` the team cannot use (checked once the team is read): each period it names is stored. */
export const CALENDAR_START_RULES = {
  beforeTeam: (created: string) =>
    `start must fall in a period that ends on or after ${created}, the day the team was created`,
  tooFarAhead: (latest: string) =>
    `start must be at most ${TEAM_LIMITS.calendarDaysAhead} days after the team's today: ${latest} or earlier`,
};

const OUTSIDE_CALENDAR_YEARS = valueError(
  `start must be a date in the years ${CALENDAR_YEARS.min} to ${CALENDAR_YEARS.max}`,
);

/** A calendar date query parameter (YYYY-MM-DD), failing with pydantic's date errors. */
const calendarDate = () =>
  v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const problem = dateProblem(dataset.value);
      if (problem === undefined) {
        const year = Number(dataset.value.slice(0, 4));
        if (year >= CALENDAR_YEARS.min && year <= CALENDAR_YEARS.max) return dataset.value.slice(0, 10);
        // Checked here, not after the transform: the 422 echoes the text as sent, time and all.
        addIssue({ message: OUTSIDE_CALENDAR_YEARS });
        return NEVER;
      }
      addIssue({
        message:
          typeof problem === 'string'
            ? fastapi('date_from_datetime_parsing', `Input should be a valid date or datetime, ${problem}`, {
                error: problem,
              })
            : 'yearZero' in problem
              ? fastapi(
                  'date_parsing',
                  'Input should be a valid date in the format YYYY-MM-DD, year 0 is out of range',
                  { error: 'year 0 is out of range' },
                )
              : fastapi(
                  'date_from_datetime_inexact',
                  'Datetimes provided to dates should have zero time - e.g. be exact dates',
                ),
      });
      return NEVER;
    }),
    v.metadata({
      jsonSchema: {
        type: 'string',
        format: 'date',
        // The years CALENDAR_YEARS allows (the request-fidelity test probes them).
        pattern: '^(?:19[7-9]\\d|2\\d{3})-',
        description: `A date (YYYY-MM-DD) in the years ${CALENDAR_YEARS.min} to ${CALENDAR_YEARS.max}, in a period that ends on or after the day the team was created and at most ${TEAM_LIMITS.calendarDaysAhead} days after the team's today (both in its time zone), else a 422 value_error.`,
      },
    }),
  );

export const CalendarQuery = model({
  period: v.pipe(
    v.optional(literal(CALENDAR_PERIODS), 'weekly'),
    v.description(
      "The ISO week (Monday to Sunday) or the calendar month holding `start` (else the team's today), in its time zone.",
    ),
  ),
  start: v.optional(calendarDate()),
  after: v.optional(
    v.pipe(
      uuid(),
      v.description(
        'Answer the entries after this one: the next_after of an earlier answer for the same period (else a 422 value_error).',
      ),
    ),
  ),
});

/** An `after` that names no entry of the period (checked once the period's entries are known). */
export const CALENDAR_AFTER_RULE =
  'after must be the id of an entry of the period asked for: the next_after of an earlier answer';

// ---- responses ----------------------------------------------------------------------------

const object = v.record(v.string(), v.unknown());
const nullableInt = v.nullable(intOut);

export const TeamDetail = v.object({
  id: uuidOut,
  team_type: v.string(),
  display_name: v.string(),
  status: v.string(),
  tier: v.string(),
  operation_mode: v.string(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
  workflow_phase: withDefault(v.string(), TEAM_DEFAULTS.workflow_phase),
  workflow_phase_label: withDefault(v.string(), TEAM_DEFAULTS.workflow_phase_label),
  trigger_mode: withDefault(v.string(), TEAM_DEFAULTS.trigger_mode),
  default_currency: withDefault(v.string(), TEAM_DEFAULTS.default_currency),
  onboarding_step: withDefault(v.string(), TEAM_DEFAULTS.onboarding_step),
  auto_config: object,
  orchestrator_cadence: object,
  content_strategy: object,
  config: object,
  payments_subscription_id: nullableString,
  connected_accounts: withDefault(v.array(v.string()), []),
  brand_kit_id: nullableUuid,
  brand_id: nullableUuid,
  brand_name: nullableString,
  hired_at: nullableDateTime,
  paused_at: nullableDateTime,
  cancelled_at: nullableDateTime,
  subscription_ends_at: nullableDateTime,
});
export type TeamDetail = v.InferOutput<typeof TeamDetail>;

export const TeamList = v.array(TeamDetail);

export const TeamMember = v.object({
  id: uuidOut,
  role: v.string(),
  agent_slug: v.string(),
  display_name: v.string(),
  capabilities: v.array(v.string()),
  hired_agent_id: uuidOut,
  persona_name: v.string(),
  agent_classes: v.array(v.string()),
  current_activity: object,
});
export type TeamMember = v.InferOutput<typeof TeamMember>;

export const CadenceEntry = v.object({
  platform: v.string(),
  task_type: v.string(),
  per_week: intOut,
  preferred_days: v.array(v.string()),
  preferred_times: v.array(v.string()),
  title: nullableString,
});
export type CadenceEntry = v.InferOutput<typeof CadenceEntry>;

export const TeamTask = v.object({
  id: uuidOut,
  task_type: v.string(),
  title: v.string(),
  description: nullableString,
  status: v.string(),
  priority: v.string(),
  platform: nullableString,
  publish_url: nullableString,
  evaluation_notes: nullableString,
  quality_score: nullableInt,
  revision_count: intOut,
  max_revisions: intOut,
  scheduled_for: nullableDateTime,
  published_at: nullableDateTime,
  started_at: nullableDateTime,
  completed_at: nullableDateTime,
  created_at: dateTimeOut,
  assigned_member_id: nullableUuid,
  input_data: object,
  output_data: object,
});
export type TeamTask = v.InferOutput<typeof TeamTask>;

export const TeamTaskList = v.object({ tasks: v.array(TeamTask), total: intOut });
export type TeamTaskList = v.InferOutput<typeof TeamTaskList>;

export const ActivityEntry = v.object({
  id: uuidOut,
  action_type: v.string(),
  description: v.string(),
  source: v.string(),
  severity: v.string(),
  details: object,
  member_id: nullableUuid,
  team_task_id: nullableUuid,
  created_at: dateTimeOut,
});
export type ActivityEntry = v.InferOutput<typeof ActivityEntry>;

export const ActivityList = v.object({ activity: v.array(ActivityEntry), total: intOut });
export type ActivityList = v.InferOutput<typeof ActivityList>;

/** The team detail as the dashboard (and GET /teams/{id}) carries it. */
export const TeamWithMembers = v.object({
  ...TeamDetail.entries,
  members: v.array(TeamMember),
  recent_activity: withDefault(v.array(ActivityEntry), []),
  content_cadence: withDefault(v.array(CadenceEntry), []),
});
export type TeamWithMembers = v.InferOutput<typeof TeamWithMembers>;

export const Strategy = v.object({
  cycle_instance_id: uuidOut,
  instance_number: intOut,
  strategy_status: v.string(),
  start_date: dateTimeOut,
  end_date: dateTimeOut,
  strategy_revision_count: withDefault(intOut, 0),
  content_strategy: object,
});
export const StrategyHistory = v.object({ strategies: v.array(Strategy) });
export type StrategyHistory = v.InferOutput<typeof StrategyHistory>;

export const BriefSummary = v.object({
  id: uuidOut,
  created_at: dateTimeOut,
  brief_preview: v.string(),
  cycle_instance_id: uuidOut,
});
export const BriefHistory = v.object({ items: v.array(BriefSummary) });
export type BriefHistory = v.InferOutput<typeof BriefHistory>;

export const Dashboard = v.object({
  team: TeamWithMembers,
  tasks: TeamTaskList,
  activity: ActivityList,
  strategy_history: StrategyHistory,
  strategy_briefs: BriefHistory,
  canvas_layout: object,
});
export type Dashboard = v.InferOutput<typeof Dashboard>;

export const LoopInstance = v.object({
  id: uuidOut,
  loop_id: uuidOut,
  cycle_instance_id: uuidOut,
  occurrence_day: intOut,
  status: v.string(),
  task_status: nullableString,
  task_title: nullableString,
  task_platform: nullableString,
  scheduled_at: dateTimeOut,
  publish_at: nullableDateTime,
  started_at: nullableDateTime,
  completed_at: nullableDateTime,
  created_at: dateTimeOut,
  task_scheduled_for: nullableDateTime,
  signals_emitted: v.array(v.string()),
});
export type LoopInstance = v.InferOutput<typeof LoopInstance>;

/** One entry of `signals_fired` (its shape is ours: the spec shows none). */
export const SignalFired = v.object({
  signal: v.string(),
  fired_at: dateTimeOut,
  loop_instance_id: uuidOut,
  loop_id: uuidOut,
});
export type SignalFired = v.InferOutput<typeof SignalFired>;

export const TodayView = v.object({
  cycle_day: v.nullable(v.pipe(intOut, v.minValue(1))),
  cycle_progress: withDefault(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0),
  current_phase: nullableString,
  running: v.array(LoopInstance),
  upcoming: v.array(LoopInstance),
  completed_today: v.array(LoopInstance),
  signals_fired: v.array(SignalFired),
});
export type TodayView = v.InferOutput<typeof TodayView>;

export const CalendarEntry = v.object({
  id: uuidOut,
  title: v.string(),
  task_type: v.string(),
  platform: nullableString,
  status: v.string(),
  scheduled_for: dateTimeOut,
  assigned_member: v.nullable(TeamMember),
  published_at: nullableDateTime,
});
export type CalendarEntry = v.InferOutput<typeof CalendarEntry>;

export const CalendarResult = v.object({
  entries: v.pipe(
    v.array(CalendarEntry),
    v.description(
      "The period's entries in time order, from its first (or the one after `after`) up to the answer's byte budget.",
    ),
  ),
  total: v.pipe(intOut, v.description('How many entries the period holds in all; every one is stored.')),
  next_after: v.pipe(
    nullableUuid,
    v.description(
      'Pass as `after` for the entries that did not fit in this answer; null when it ends with the period’s last entry.',
    ),
  ),
});
export type CalendarResult = v.InferOutput<typeof CalendarResult>;
