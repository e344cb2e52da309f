// GET /api/v1/workspaces: the workspaces the caller is a member of, newest first (each as the
// workspace read without its integrations).
import { OwnerListQuery } from '#shared/db/owner-lists';
import { httpRoute } from '#shared/http/route';
import { WorkspaceList } from '#shared/workspaces/schemas';
import { listWorkspaces } from '#shared/workspaces/store';

export const handler = httpRoute(
  { query: OwnerListQuery, response: WorkspaceList, summary: 'List the caller’s workspaces, newest first' },
  ({ caller, query }) => listWorkspaces(caller.userId, query),
);
