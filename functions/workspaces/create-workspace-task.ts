// POST /api/v1/workspaces/{workspace_id}/tasks: members and their agents add a task (`pending`).
import { httpRoute } from '#shared/http/route';
import { CreateWorkspaceTaskBody, WorkspacePath, WorkspaceTask } from '#shared/workspaces/schemas';
import { createWorkspaceTask } from '#shared/workspaces/tasks';

export const handler = httpRoute(
  {
    path: WorkspacePath,
    body: CreateWorkspaceTaskBody,
    status: 201,
    response: WorkspaceTask,
    summary: 'Create a workspace task',
  },
  ({ caller, path, body }) => createWorkspaceTask(caller.userId, path.workspace_id, body),
);
