// POST /api/v1/workspaces/{workspace_id}/tasks: members and their agents add a task (`pending`); an
// Idempotency-Key header makes a retry answer the first task.
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';
import { CreateWorkspaceTaskBody, WorkspacePath, WorkspaceTask } from '#shared/workspaces/schemas';
import { createWorkspaceTask } from '#shared/workspaces/tasks';

export const handler = httpRoute(
  {
    path: WorkspacePath,
    header: IdempotencyHeader,
    body: CreateWorkspaceTaskBody,
    status: 201,
    response: WorkspaceTask,
    summary: 'Create a workspace task',
    errors: [409],
  },
  ({ caller, path, header, body }) =>
    createWorkspaceTask(caller.userId, path.workspace_id, body, header['idempotency-key']),
);
