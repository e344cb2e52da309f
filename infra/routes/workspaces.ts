import type { Route } from '../routes.ts';

const WORKSPACE = '/api/v1/workspaces/{workspace_id}';

export const workspaceRoutes: Route[] = [
  { method: 'POST', path: '/api/v1/workspaces', entry: 'workspaces/create-workspace', table: 'write' },
  { method: 'GET', path: WORKSPACE, entry: 'workspaces/get-workspace', table: 'read' },
  { method: 'GET', path: `${WORKSPACE}/integrations`, entry: 'workspaces/list-integrations', table: 'read' },
  {
    method: 'PUT',
    path: `${WORKSPACE}/integrations/ads-provider/credentials`,
    entry: 'workspaces/save-ads-credentials',
    table: 'readWrite',
    secrets: true,
  },
  { method: 'GET', path: `${WORKSPACE}/tasks`, entry: 'workspaces/list-workspace-tasks', table: 'read' },
  {
    method: 'POST',
    path: `${WORKSPACE}/tasks`,
    entry: 'workspaces/create-workspace-task',
    table: 'readWrite',
  },
];
