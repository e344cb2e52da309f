// Membership: only members reach a workspace. Every route checks the caller's member item first (or
// in the same wave as its reads) and answers a non-member exactly like a missing workspace.
import { nowIso } from '../clock.ts';
import { getItem, putNew } from '../db/store.ts';
import { NotFoundError } from '../http/errors.ts';
import { workspaceKeys } from './keys.ts';

export type MemberRole = 'owner' | 'member';

/** What a workspace list shows of a workspace. The workspace item holds it, and each member item a
 * copy, so the member's list is one Query (a write that changes these fields updates the copies). */
export interface WorkspaceSummary {
  name: string;
  /** The creator, also its owner member. */
  owner: string;
  created_at: string;
  updated_at: string;
}

export interface MemberItem {
  kind: 'workspace_member';
  workspace_id: string;
  user_id: string;
  role: MemberRole;
  created_at: string;
  /** Absent on member items written before `f7cd29b` (listWorkspaces reads the workspace item then). */
  workspace?: WorkspaceSummary;
}

export const workspaceNotFound = () => new NotFoundError('Workspace');

export const getMember = (userId: string, workspaceId: string) =>
  getItem<MemberItem>(workspaceKeys.member(workspaceId, userId));

/** The caller's membership, or the 404 a missing workspace gives. */
export async function requireMember(userId: string, workspaceId: string): Promise<MemberItem> {
  const member = await getMember(userId, workspaceId);
  if (!member) throw workspaceNotFound();
  return member;
}

/** Adds a member once (the creator as owner; the sharing flow's write path). */
export async function addMember(
  workspaceId: string,
  workspace: WorkspaceSummary,
  userId: string,
  role: MemberRole,
  at = nowIso(),
) {
  const item: MemberItem = {
    kind: 'workspace_member',
    workspace_id: workspaceId,
    user_id: userId,
    role,
    created_at: at,
    workspace,
  };
  await putNew({
    ...workspaceKeys.member(workspaceId, userId),
    ...workspaceKeys.byMember(userId, workspaceId),
    ...item,
  });
}
