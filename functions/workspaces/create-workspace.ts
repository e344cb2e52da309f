// POST /api/v1/workspaces: create a workspace; the caller becomes its owner member. An Idempotency-Key
// header makes a retry answer the first workspace.
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';
import { CreateWorkspaceBody, Workspace } from '#shared/workspaces/schemas';
import { createWorkspace } from '#shared/workspaces/store';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateWorkspaceBody,
    status: 201,
    response: Workspace,
    summary: 'Create a workspace',
    errors: [409],
  },
  ({ caller, header, body }) => createWorkspace(caller.userId, body, header['idempotency-key']),
);
