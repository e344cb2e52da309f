// GET /api/v1/workspaces/{workspace_id}/tasks (spec 6): a bare array, newest first, by status.
import { httpRoute } from '#shared/http/route';
import { ListWorkspaceTasksQuery, WorkspacePath, WorkspaceTaskList } from '#shared/workspaces/schemas';
import { listWorkspaceTasks } from '#shared/workspaces/tasks';

export const handler = httpRoute(
  {
    path: WorkspacePath,
    query: ListWorkspaceTasksQuery,
    response: WorkspaceTaskList,
    summary: 'List workspace tasks',
  },
  ({ caller, path, query }) => listWorkspaceTasks(caller.userId, path.workspace_id, query),
);
