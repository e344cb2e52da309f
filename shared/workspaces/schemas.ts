// Spec §"Integration status", §"Workspace task", endpoints 2 and 6, and the workspace routes around
// them. Values and limits the spec leaves open are decided here (docs/workspaces.md says why).
import * as v from 'valibot';
import { dict, literal, model, offsetPage, optionalNullable, string, uuid } from '../http/fields.ts';
import {
  dateTimeOut,
  nullableDateTime,
  nullableString,
  nullableUuid,
  uuidOut,
  withDefault,
} from '../http/response-fields.ts';

export const WorkspacePath = model({ workspace_id: uuid() });

// ---- workspaces ---------------------------------------------------------------------------------

export const WORKSPACE_LIMITS = {
  name: { min: 1, max: 200 },
  /** Integrations read with a workspace or listed (one per provider; few providers exist). */
  integrationsShown: 25,
} as const;

export const CreateWorkspaceBody = model({ name: string(WORKSPACE_LIMITS.name) });
export type CreateWorkspaceInput = v.InferOutput<typeof CreateWorkspaceBody>;

// ---- integrations -------------------------------------------------------------------------------

export const ADS_PROVIDER = 'ads-provider';

/** `pending_authorization` after the first credentials save; the OAuth callback makes it `connected`. */
export const INTEGRATION_STATUSES = ['pending_authorization', 'connected', 'expired', 'revoked'] as const;
export type IntegrationState = (typeof INTEGRATION_STATUSES)[number];

export const CREDENTIAL_LIMITS = {
  clientId: { min: 1, max: 512 },
  clientSecret: { min: 1, max: 2048 },
} as const;

export const SaveCredentialsBody = model({
  client_id: string(CREDENTIAL_LIMITS.clientId),
  // Marked as pydantic's SecretStr marks it in FastAPI's document: a password, sent and never answered.
  client_secret: v.pipe(
    string(CREDENTIAL_LIMITS.clientSecret),
    v.metadata({ jsonAnnotations: { format: 'password', writeOnly: true } }),
  ),
});
export type SaveCredentialsInput = v.InferOutput<typeof SaveCredentialsBody>;

/** A page the connected account manages: its public reference only, never its access token. */
export const SocialPage = v.object({ id: v.string(), name: v.string() });
export type SocialPage = v.InferOutput<typeof SocialPage>;

/** The spec's integration status: exactly these keys, built from an allow-list. */
export const IntegrationStatus = v.object({
  id: uuidOut,
  provider: v.string(),
  account_id: nullableString,
  account_name: nullableString,
  status: v.picklist(INTEGRATION_STATUSES),
  scopes: v.array(v.string()),
  last_synced_at: nullableDateTime,
  token_expires_at: nullableDateTime,
  created_at: dateTimeOut,
  has_oauth_credentials: withDefault(v.boolean(), false),
  social_pages: v.array(SocialPage),
  social_user_id: nullableString,
});
export type IntegrationStatus = v.InferOutput<typeof IntegrationStatus>;

export const IntegrationStatusList = v.array(IntegrationStatus);

export const Workspace = v.object({
  id: uuidOut,
  name: v.string(),
  owner_id: v.string(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
  integrations: v.array(IntegrationStatus),
});
export type Workspace = v.InferOutput<typeof Workspace>;

/** A workspace as its member's list shows it: the read without its integrations. */
export const WorkspaceListEntry = v.omit(Workspace, ['integrations']);
export type WorkspaceListEntry = v.InferOutput<typeof WorkspaceListEntry>;
export const WorkspaceList = v.array(WorkspaceListEntry);

// ---- workspace tasks ----------------------------------------------------------------------------

export const WORKSPACE_TASK_STATUSES = [
  'pending',
  'awaiting_approval',
  'approved',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
] as const;
export type WorkspaceTaskStatus = (typeof WORKSPACE_TASK_STATUSES)[number];
export const SCHEDULE_TYPES = ['once', 'recurring', 'on_trigger'] as const;
export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
/** auto: runs unattended; review: a member reviews the output; approve: a member approves first. */
export const APPROVAL_LEVELS = ['auto', 'review', 'approve'] as const;

export const WORKSPACE_TASK_LIMITS = {
  skillSlug: { min: 1, max: 100 },
  title: { min: 1, max: 200 },
  description: { max: 5000 },
  limit: { default: 50, min: 1, max: 100 },
  status: { max: 64 },
  /** What an agent's `output_data` and `proposed_actions` may each take of the task's DynamoDB item as
   * stored (advanceWorkspaceTask): the rest of the task, bounded by the create body (a 16 KiB trigger,
   * a 5,000-character description), stays under 60 KiB, so both at once leave the item within 400 KB. */
  progressFieldBytes: 160 * 1024,
  /** A task's `cost_usd` as an agent reports it (advanceWorkspaceTask), as a project's budget is bounded. */
  costUsd: { min: 0, max: 1_000_000_000 },
} as const;

export const CreateWorkspaceTaskBody = model({
  skill_slug: string(WORKSPACE_TASK_LIMITS.skillSlug),
  title: string(WORKSPACE_TASK_LIMITS.title),
  description: optionalNullable(string(WORKSPACE_TASK_LIMITS.description)),
  schedule_type: v.optional(literal(SCHEDULE_TYPES), 'once'),
  priority: v.optional(literal(TASK_PRIORITIES), 'normal'),
  approval_level: v.optional(literal(APPROVAL_LEVELS), 'review'),
  trigger: v.optional(dict({ name: 'trigger' }), () => ({})),
  hired_agent_id: uuid(),
});
export type CreateWorkspaceTaskInput = v.InferOutput<typeof CreateWorkspaceTaskBody>;

export const ListWorkspaceTasksQuery = model({
  status: v.pipe(
    optionalNullable(string(WORKSPACE_TASK_LIMITS.status)),
    v.description('Only the tasks whose status is exactly this one (case-sensitive).'),
  ),
  ...offsetPage(WORKSPACE_TASK_LIMITS),
});
export type ListWorkspaceTasksInput = v.InferOutput<typeof ListWorkspaceTasksQuery>;

export const WorkspaceTask = v.object({
  id: uuidOut,
  workspace_id: uuidOut,
  hired_agent_id: uuidOut,
  skill_slug: v.string(),
  title: v.string(),
  schedule_type: v.picklist(SCHEDULE_TYPES),
  status: v.picklist(WORKSPACE_TASK_STATUSES),
  priority: v.picklist(TASK_PRIORITIES),
  approval_level: v.picklist(APPROVAL_LEVELS),
  description: nullableString,
  trigger: v.record(v.string(), v.unknown()),
  output_data: v.record(v.string(), v.unknown()),
  proposed_actions: v.record(v.string(), v.unknown()),
  approved_by: nullableUuid,
  approved_at: nullableDateTime,
  started_at: nullableDateTime,
  completed_at: nullableDateTime,
  cost_usd: v.number(),
  created_at: dateTimeOut,
});
export type WorkspaceTask = v.InferOutput<typeof WorkspaceTask>;

export const WorkspaceTaskList = v.array(WorkspaceTask);
