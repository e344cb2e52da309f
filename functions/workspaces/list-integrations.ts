// GET /api/v1/workspaces/{workspace_id}/integrations: the status of each integration.
import { httpRoute } from '#shared/http/route';
import { listIntegrations } from '#shared/workspaces/integrations';
import { IntegrationStatusList, WorkspacePath } from '#shared/workspaces/schemas';

export const handler = httpRoute(
  { path: WorkspacePath, response: IntegrationStatusList, summary: "List a workspace's integrations" },
  ({ caller, path }) => listIntegrations(caller.userId, path.workspace_id),
);
