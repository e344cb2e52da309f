// Workspaces: the workspace item, with its integrations nested in its details.
import { nowIso } from '../clock.ts';
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import { getItem, putNew } from '../db/store.ts';
import { newId } from '../ids.ts';
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
 * The workspace item first, the creator's member item last: every route (and the list) needs the
 * member item, so until it exists the workspace is nowhere, and a failed second write leaves only
 * an item no one reaches.
 */
export async function createWorkspace(userId: string, input: CreateWorkspaceInput): Promise<Workspace> {
  const id = newId();
  const at = nowIso();
  const summary: WorkspaceSummary = { name: input.name, owner: userId, created_at: at, updated_at: at };
  const item: WorkspaceItem = { kind: 'workspace', id, ...summary };
  await putNew({ ...workspaceKeys.workspace(id), ...item });
  await addMember(id, summary, userId, 'owner', at);
  return toWorkspace(item, []);
}

/**
 * The workspaces the caller is a member of, newest first, from the summaries on its member items. A
 * member item written before they carried one (`f7cd29b`) is answered from its workspace item, read in
 * a second wave that only such items cost; one whose workspace item is missing is left out.
 */
export async function listWorkspaces(userId: string, page: OwnerPage): Promise<WorkspaceListEntry[]> {
  const members = await listOwned(workspaceKeys.memberPartition(userId), page, (m: MemberItem) => m);
  const summaries = await Promise.all(
    members.map((m) => m.workspace ?? getItem<WorkspaceItem>(workspaceKeys.workspace(m.workspace_id))),
  );
  return members.flatMap((m, i) => {
    const summary = summaries[i];
    return summary ? [toSummary(m.workspace_id, summary)] : [];
  });
}

/** One wave: the caller's member item, the workspace item and its integrations. */
export async function getWorkspace(userId: string, workspaceId: string): Promise<Workspace> {
  const [member, workspace, integrations] = await Promise.all([
    getMember(userId, workspaceId),
    getItem<WorkspaceItem>(workspaceKeys.workspace(workspaceId)),
    queryIntegrations(workspaceId),
  ]);
  if (!member || !workspace) throw workspaceNotFound();
  return toWorkspace(workspace, integrations);
}
