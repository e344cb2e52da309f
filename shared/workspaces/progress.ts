// The agents' write path for workspace tasks (no HTTP route changes a status yet): a move from the
// status the writer last saw to another, with what the agent produced. Apart from tasks.ts, so the
// handlers' bundles do not carry its schema.
import * as v from 'valibot';
import { now } from '../clock.ts';
import { itemBytes, refuseStoredPast } from '../db/item-size.ts';
import { updateItem } from '../db/store.ts';
import { ConflictError } from '../http/errors.ts';
import { isObject, refuseInvalid, refuseUnstorable, uuid } from '../http/fields.ts';
import { workspaceKeys } from './keys.ts';
import {
  WORKSPACE_TASK_LIMITS,
  WORKSPACE_TASK_STATUSES,
  type WorkspaceTask,
  type WorkspaceTaskStatus,
} from './schemas.ts';
import { toWorkspaceTask, type WorkspaceTaskItem } from './tasks.ts';

const progressObject = v.custom<Record<string, unknown>>(isObject, 'should be an object');

/** What an agent writes as it moves a task (advanceWorkspaceTask): values the task's read documents
 * (a status of the set, a UUID, objects, a cost in dollars), so a read never answers what its schema
 * refuses. Their storability and size are checked beside (refuseUnstorable, refuseStoredPast). */
export const TaskProgressInput = v.object({
  status: v.picklist(WORKSPACE_TASK_STATUSES, `should be one of ${WORKSPACE_TASK_STATUSES.join(', ')}`),
  approved_by: v.optional(uuid()), // normalised, as every UUID the API takes
  output_data: v.optional(progressObject),
  proposed_actions: v.optional(progressObject),
  cost_usd: v.optional(
    v.pipe(
      v.number('should be a number'),
      v.finite('should be finite'),
      v.minValue(
        WORKSPACE_TASK_LIMITS.costUsd.min,
        `should be at least ${WORKSPACE_TASK_LIMITS.costUsd.min}`,
      ),
      v.maxValue(WORKSPACE_TASK_LIMITS.costUsd.max, `should be at most ${WORKSPACE_TASK_LIMITS.costUsd.max}`),
    ),
  ),
});

export type TaskProgress = v.InferOutput<typeof TaskProgressInput>;

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
  const { status, ...fields } = refuseInvalid('task progress', TaskProgressInput, progress);
  refuseInvalid('status to move from', TaskProgressInput.entries.status, from);
  // Free JSON the table cannot store is refused before the write, by the rules of the create body's
  // `trigger` but its size: an empty key (DynamoDB refuses it, dynalite stores it), past 16 levels
  // (well inside DynamoDB's 32), a `__proto__` key, numbers it cannot hold (the cost's too).
  const free = { output_data: fields.output_data, proposed_actions: fields.proposed_actions };
  refuseUnstorable('task progress', { ...free, cost_usd: fields.cost_usd });
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
    // The SDK's resend of a move that landed (its answer lost) finds the new status: without its own
    // write id it would be refused as a stale writer's.
    once: true,
  });
  if (!item) throw new ConflictError(`Task is not ${from}`);
  return toWorkspaceTask(item);
}
