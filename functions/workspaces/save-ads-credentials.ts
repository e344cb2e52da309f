// PUT /api/v1/workspaces/{workspace_id}/integrations/ads-provider/credentials (spec 2): save the
// user's own OAuth application credentials, sealed at rest; answers the integration status.
import { httpRoute } from '#shared/http/route';
import { saveAdsCredentials } from '#shared/workspaces/credentials';
import { IntegrationStatus, SaveCredentialsBody, WorkspacePath } from '#shared/workspaces/schemas';

export const handler = httpRoute(
  {
    path: WorkspacePath,
    body: SaveCredentialsBody,
    response: IntegrationStatus,
    summary: 'Save ads integration OAuth credentials',
    secretFields: ['client_secret'],
  },
  ({ caller, path, body }) => saveAdsCredentials(caller.userId, path.workspace_id, body),
);
