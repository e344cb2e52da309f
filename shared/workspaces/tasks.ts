// Workspace tasks (spec endpoint 6). Sort keys end in the task id, a UUIDv7 whose time part is the
// task's created_at, so one descending Query lists newest first, ties by id; the status filter
// reads gsi1 (`WS#<id>#STATUS#<status>`), which every status change moves the task along.
import { now } from '../clock.ts';
import { itemBytes, refuseStoredPast } from '../db/item-size.ts';
import { getItem, putMany, putNew, queryWindow, updateItem } from '../db/store.ts';
import { ConflictError } from '../http/errors.ts';
import { refuseUnstorable } from '../http/fields.ts';
import { createOnce, type Identity, newIdentity, ownClaim } from '../idempotency.ts';
import { workspaceKeys } from './keys.ts';
import { requireMember } from './members.ts';
import {
  type CreateWorkspaceTaskInput,
  type ListWorkspaceTasksInput,
  WORKSPACE_TASK_LIMITS,
  type WorkspaceTask,
  type WorkspaceTaskStatus,
} from './schemas.ts';

interface WorkspaceTaskItem extends WorkspaceTask {
  kind: 'workspace_task';
}

export const toWorkspaceTask = (item: WorkspaceTaskItem): WorkspaceTask => ({
  id: item.id,
  workspace_id: item.workspace_id,
  hired_agent_id: item.hired_agent_id,
  skill_slug: item.skill_slug,
  title: item.title,
  schedule_type: item.schedule_type,
  status: item.status,
  priority: item.priority,
  approval_level: item.approval_level,
  description: item.description ?? null,
  trigger: item.trigger ?? {},
  output_data: item.output_data ?? {},
  proposed_actions: item.proposed_actions ?? {},
  approved_by: item.approved_by ?? null,
  approved_at: item.approved_at ?? null,
  started_at: item.started_at ?? null,
  completed_at: item.completed_at ?? null,
  cost_usd: Number(item.cost_usd ?? 0),
  created_at: item.created_at,
});

/**
 * Creates a task in `pending` (members, and agents acting for them). The caller must be a member: its member item is read in the first wave (beside the claim of an
 * Idempotency-Key, whose retry answers the task the first attempt made), the task written in the second.
 */
export const createWorkspaceTask = (
  userId: string,
  workspaceId: string,
  input: CreateWorkspaceTaskInput,
  key?: string,
): Promise<WorkspaceTask> =>
  createOnce({
    claimAt: ownClaim(userId, 'workspace-task', key),
    // The same key for a task in another workspace is another request.
    request: [workspaceId, input],
    check: () => requireMember(userId, workspaceId),
    write: async (identity) => {
      const item = newTaskItem(workspaceId, input, identity);
      await putNew(taskRecord(item));
      return toWorkspaceTask(item);
    },
    read: async (id) => {
      const item = await getItem<WorkspaceTaskItem>(workspaceKeys.task(workspaceId, id));
      return item && toWorkspaceTask(item);
    },
  });

/** Many tasks at once (imports, the growth benchmark): one member check, then batch writes. */
export async function createWorkspaceTasks(
  userId: string,
  workspaceId: string,
  inputs: CreateWorkspaceTaskInput[],
): Promise<void> {
  await requireMember(userId, workspaceId);
  await putMany(inputs.map((input) => taskRecord(newTaskItem(workspaceId, input))));
}

const taskRecord = (item: WorkspaceTaskItem) => ({
  ...workspaceKeys.task(item.workspace_id, item.id),
  ...workspaceKeys.byStatus(item.workspace_id, item.status, item.id),
  ...item,
});

function newTaskItem(
  workspaceId: string,
  input: CreateWorkspaceTaskInput,
  { id, created_at }: Identity = newIdentity(),
): WorkspaceTaskItem {
  return {
    kind: 'workspace_task',
    id,
    workspace_id: workspaceId,
    hired_agent_id: input.hired_agent_id,
    skill_slug: input.skill_slug,
    title: input.title,
    schedule_type: input.schedule_type,
    status: 'pending',
    priority: input.priority,
    approval_level: input.approval_level,
    description: input.description,
    trigger: input.trigger,
    output_data: {},
    proposed_actions: {},
    approved_by: null,
    approved_at: null,
    started_at: null,
    completed_at: null,
    cost_usd: 0,
    created_at,
  };
}

/**
 * One wave: the member check beside the window's first Query (the partition's `WTASK#` items, where a
 * task created a moment ago is listed; or gsi1 for one status, eventually consistent as every index
 * read), newest first. The window reads offset + limit items (offset is capped), its pages after the
 * first only once the check has passed: a non-member's deep offset reads one page, then 404.
 */
export async function listWorkspaceTasks(
  userId: string,
  workspaceId: string,
  query: ListWorkspaceTasksInput,
): Promise<WorkspaceTask[]> {
  const { status, ...page } = query;
  const checked = requireMember(userId, workspaceId);
  const window = { ...page, prefix: workspaceKeys.taskPrefix, checked };
  const [, items] = await Promise.all([
    checked,
    status === null
      ? queryWindow<WorkspaceTaskItem>(workspaceKeys.partition(workspaceId), window)
      : queryWindow<WorkspaceTaskItem>(workspaceKeys.statusPartition(workspaceId, status), {
          ...window,
          index: 'gsi1',
        }),
  ]);
  return items.map(toWorkspaceTask);
}

export interface TaskProgress {
  status: WorkspaceTaskStatus;
  approved_by?: string;
  output_data?: Record<string, unknown>;
  proposed_actions?: Record<string, unknown>;
  cost_usd?: number;
}

/**
 * The stamps a move to `status` writes: its own (now), and null for those of the steps after it, so a
 * task moved back (a failed one retried, a run sent back for review) answers none of the states it
 * left: running again is not completed, awaiting approval again is not approved.
 */
function stampsFor(status: WorkspaceTaskStatus, at: string): Partial<WorkspaceTask> {
  switch (status) {
    case 'pending':
    case 'awaiting_approval':
      return { approved_by: null, approved_at: null, started_at: null, completed_at: null };
    case 'approved':
      return { approved_at: at, started_at: null, completed_at: null };
    case 'in_progress':
      return { started_at: at, completed_at: null };
    default:
      return { completed_at: at };
  }
}

/**
 * The agents' write path: moves a task from the status it is known to be in to another, stamping
 * approved_at / started_at / completed_at (stampsFor). Conditional on the expected status, so a
 * stale writer gets a 409 instead of overwriting a newer state.
 */
export async function advanceWorkspaceTask(
  workspaceId: string,
  taskId: string,
  from: WorkspaceTaskStatus,
  progress: TaskProgress,
): Promise<WorkspaceTask> {
  const { status, ...fields } = progress;
  // Free JSON the table cannot store is refused before the write, by the rules of the create body's
  // `trigger` but its size: an empty key (DynamoDB refuses it, dynalite stores it), past 16 levels
  // (well inside DynamoDB's 32), a `__proto__` key, numbers it cannot hold.
  const free = { output_data: fields.output_data, proposed_actions: fields.proposed_actions };
  refuseUnstorable('task progress', free);
  // An update writes them unread, so each is held to its share of the item (as AWS counts it).
  for (const [name, value] of Object.entries(free))
    refuseStoredPast(
      `task progress: ${name}`,
      itemBytes({ [name]: value }),
      WORKSPACE_TASK_LIMITS.progressFieldBytes,
    );
  const item = await updateItem<WorkspaceTaskItem>(workspaceKeys.task(workspaceId, taskId), {
    set: {
      status,
      gsi1pk: workspaceKeys.statusPartition(workspaceId, status),
      ...stampsFor(status, now().toISOString()),
      // What the writer sends (approved_by, output, cost); one it leaves undefined changes nothing.
      ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    },
    exists: ['pk'],
    expect: { status: from },
  });
  if (!item) throw new ConflictError(`Task is not ${from}`);
  return toWorkspaceTask(item);
}
