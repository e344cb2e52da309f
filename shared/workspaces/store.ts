// Workspaces: the workspace item, with its integrations nested in its details.
import { nowIso } from '../clock.ts';
import { getItem, putNew } from '../db/store.ts';
import { newId } from '../ids.ts';
import { type IntegrationItem, queryIntegrations, toIntegrationStatus } from './integrations.ts';
import { workspaceKeys } from './keys.ts';
import { addMember, getMember, workspaceNotFound } from './members.ts';
import type { CreateWorkspaceInput, Workspace } from './schemas.ts';

interface WorkspaceItem {
  kind: 'workspace';
  id: string;
  name: string;
  /** The creator, also its owner member. */
  owner: string;
  created_at: string;
  updated_at: string;
}

const toWorkspace = (item: WorkspaceItem, integrations: IntegrationItem[]): Workspace => ({
  id: item.id,
  name: item.name,
  owner_id: item.owner,
  created_at: item.created_at,
  updated_at: item.updated_at,
  integrations: integrations.map(toIntegrationStatus),
});

/** The member item first, the workspace item last: until it exists the workspace is not there. */
export async function createWorkspace(userId: string, input: CreateWorkspaceInput): Promise<Workspace> {
  const id = newId();
  const at = nowIso();
  await addMember(id, userId, 'owner', at);
  const item: WorkspaceItem = {
    kind: 'workspace',
    id,
    name: input.name,
    owner: userId,
    created_at: at,
    updated_at: at,
  };
  await putNew({ ...workspaceKeys.workspace(id), ...item });
  return toWorkspace(item, []);
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
