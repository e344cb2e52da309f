import type { Route } from '../routes.ts';

const WORKSPACE = '/api/v1/workspaces/{workspace_id}';

export const workspaceRoutes: Route[] = [
  // The workspace item, then the owner's member item; an Idempotency-Key's claim (PutItem and a
  // consistent GetItem), a retry's read of the workspace (GetItem member and workspace, Query
  // integrations) beside the UpdateItem sealing the claim, and the DeleteItem of the workspace item it
  // staged. A failed member write gives its claim back and deletes the member item (it may have
  // landed), then the workspace item (DeleteItem each).
  {
    method: 'POST',
    path: '/api/v1/workspaces',
    entry: 'workspaces/create-workspace',
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
  },
  // The caller's workspaces, newest first, from gsi1 (the member items; an offset walked on its slim
  // view).
  {
    method: 'GET',
    path: '/api/v1/workspaces',
    entry: 'workspaces/list-workspaces',
    table: ['GetItem'],
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  { method: 'GET', path: WORKSPACE, entry: 'workspaces/get-workspace', table: ['GetItem', 'Query'] },
  {
    method: 'GET',
    path: `${WORKSPACE}/integrations`,
    entry: 'workspaces/list-integrations',
    table: ['GetItem', 'Query'],
  },
  {
    method: 'PUT',
    path: `${WORKSPACE}/integrations/ads-provider/credentials`,
    entry: 'workspaces/save-ads-credentials',
    table: ['GetItem', 'UpdateItem'],
    // Seals the credentials (KMS GenerateDataKey); nothing on an HTTP route opens them.
    secrets: ['seal'],
  },
  // The status filter reads gsi1; an offset is walked on gsi1's slim view (gsi1_calendar), the whole
  // list's merged across the seven status partitions.
  {
    method: 'GET',
    path: `${WORKSPACE}/tasks`,
    entry: 'workspaces/list-workspace-tasks',
    table: ['GetItem', 'Query'],
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  {
    method: 'POST',
    path: `${WORKSPACE}/tasks`,
    entry: 'workspaces/create-workspace-task',
    // With an Idempotency-Key, its claim is sealed by a retry and given back when refused.
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
  },
];
