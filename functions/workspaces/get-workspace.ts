// GET /api/v1/workspaces/{workspace_id}: workspace details with its integrations' status.
import { httpRoute } from '#shared/http/route';
import { Workspace, WorkspacePath } from '#shared/workspaces/schemas';
import { getWorkspace } from '#shared/workspaces/store';

export const handler = httpRoute(
  { path: WorkspacePath, response: Workspace, summary: 'Get a workspace with its integrations' },
  ({ caller, path }) => getWorkspace(caller.userId, path.workspace_id),
);
