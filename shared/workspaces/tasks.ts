import { getItem, putMany, putNew, queryWindow } from '../db/store.ts';
import { createOnce, type Identity, newIdentity, ownClaim } from '../idempotency.ts';
import { workspaceKeys } from './keys.ts';
import { requireMember } from './members.ts';
import {
  type CreateWorkspaceTaskInput,
  type ListWorkspaceTasksInput,
  WORKSPACE_TASK_STATUSES,
  type WorkspaceTask,
} from './schemas.ts';

export interface WorkspaceTaskItem extends WorkspaceTask {
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
 * read), newest first. An offset (capped) that the first page does not reach is walked on gsi1's slim
 * view, the window read after it (queryWindow); what follows the first page waits for the check: a
 * non-member's request reads one page, then 404.
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
      ? queryWindow<WorkspaceTaskItem>(workspaceKeys.partition(workspaceId), {
          ...window,
          // A task is in one status partition of gsi1, under its own sort key: their slim entries,
          // merged, count an offset of the whole list.
          walk: {
            index: 'gsi1_calendar',
            partitions: WORKSPACE_TASK_STATUSES.map((each) =>
              workspaceKeys.statusPartition(workspaceId, each),
            ),
          },
        })
      : queryWindow<WorkspaceTaskItem>(workspaceKeys.statusPartition(workspaceId, status), {
          ...window,
          index: 'gsi1',
        }),
  ]);
  return items.map(toWorkspaceTask);
}
