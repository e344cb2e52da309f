// POST /api/v1/workspaces: create a workspace; the caller becomes its owner member.
import { httpRoute } from '#shared/http/route';
import { CreateWorkspaceBody, Workspace } from '#shared/workspaces/schemas';
import { createWorkspace } from '#shared/workspaces/store';

export const handler = httpRoute(
  { body: CreateWorkspaceBody, status: 201, response: Workspace, summary: 'Create a workspace' },
  ({ caller, body }) => createWorkspace(caller.userId, body),
);
