// Workspaces: the workspace item, with its integrations nested in its details.
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import { deleteItem, getItem, putNew } from '../db/store.ts';
import { createOnce, type Identity, ownClaim } from '../idempotency.ts';
import { type IntegrationItem, queryIntegrations, toIntegrationStatus } from './integrations.ts';
import { workspaceKeys } from './keys.ts';
import {
  addMember,
  getMember,
  type MemberItem,
  type WorkspaceSummary,
  workspaceNotFound,
} from './members.ts';
import type { CreateWorkspaceInput, Workspace, WorkspaceListEntry } from './schemas.ts';

interface WorkspaceItem extends WorkspaceSummary {
  kind: 'workspace';
  id: string;
}

const toSummary = (id: string, workspace: WorkspaceSummary): WorkspaceListEntry => ({
  id,
  name: workspace.name,
  owner_id: workspace.owner,
  created_at: workspace.created_at,
  updated_at: workspace.updated_at,
});

const toWorkspace = (item: WorkspaceItem, integrations: IntegrationItem[]): Workspace => ({
  ...toSummary(item.id, item),
  integrations: integrations.map(toIntegrationStatus),
});

/**
 * POST /workspaces: the workspace item first (staged), the creator's member item last: every route (and
 * the list) needs the member item, so until it exists the workspace is nowhere. With an Idempotency-Key,
 * claimed beside the workspace item, a retry answers the workspace the first attempt made
 * (shared/idempotency.ts).
 */
export const createWorkspace = (
  userId: string,
  input: CreateWorkspaceInput,
  key?: string,
): Promise<Workspace> =>
  createOnce({
    claimAt: ownClaim(userId, 'workspace', key),
    request: input,
    stage: {
      write: (identity) => {
        const item = workspaceOf(userId, input, identity);
        return putNew({ ...workspaceKeys.workspace(item.id), ...item });
      },
      undo: ({ id }) => deleteItem(workspaceKeys.workspace(id)),
    },
    write: async (identity) => {
      const item = workspaceOf(userId, input, identity);
      const { kind, id, ...summary } = item;
      await addMember(id, summary, userId, 'owner', item.created_at);
      return toWorkspace(item, []);
    },
    // A failed member write may have landed (its answer lost): deleted, then the staged item goes,
    // so a failed create leaves nothing (and no member item outlives its workspace).
    unwrite: ({ id }) => deleteItem(workspaceKeys.member(id, userId)),
    read: (id) => readWorkspace(userId, id),
  });

const workspaceOf = (
  userId: string,
  input: CreateWorkspaceInput,
  { id, created_at }: Identity,
): WorkspaceItem => ({
  kind: 'workspace',
  id,
  name: input.name,
  owner: userId,
  created_at,
  updated_at: created_at,
});

/**
 * The workspaces the caller is a member of, newest first, from the summaries on its member items. A
 * member item written before they carried one (`f7cd29b`) is answered from its workspace item, read in
 * a second wave that only such items cost; one whose workspace item is missing is left out.
 */
export async function listWorkspaces(userId: string, page: OwnerPage): Promise<WorkspaceListEntry[]> {
  const members = await listOwned(
    { partition: workspaceKeys.memberPartition(userId), prefix: workspaceKeys.memberPrefix },
    page,
    (m: MemberItem) => m,
  );
  const summaries = await Promise.all(
    members.map((m) => m.workspace ?? getItem<WorkspaceItem>(workspaceKeys.workspace(m.workspace_id))),
  );
  return members.flatMap((m, i) => {
    const summary = summaries[i];
    return summary ? [toSummary(m.workspace_id, summary)] : [];
  });
}

/** One wave: the caller's member item, the workspace item and its integrations; undefined unless the
 * caller is a member of a workspace that is there. */
async function readWorkspace(userId: string, workspaceId: string): Promise<Workspace | undefined> {
  const [member, workspace, integrations] = await Promise.all([
    getMember(userId, workspaceId),
    getItem<WorkspaceItem>(workspaceKeys.workspace(workspaceId)),
    queryIntegrations(workspaceId),
  ]);
  return member && workspace ? toWorkspace(workspace, integrations) : undefined;
}

export async function getWorkspace(userId: string, workspaceId: string): Promise<Workspace> {
  const workspace = await readWorkspace(userId, workspaceId);
  if (!workspace) throw workspaceNotFound();
  return workspace;
}
