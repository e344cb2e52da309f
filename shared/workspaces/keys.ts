// A workspace, its members, integrations and tasks share one partition. Sort keys:
// 'INTEGRATION#…' < 'MEMBER#…' < 'WS' < 'WTASK#…', each kind read by its own prefix or GetItem.
const memberPartition = (userId: string) => `USER#${userId}#WORKSPACES`;
const memberPrefix = 'WS#';
const taskPrefix = 'WTASK#';

export const workspaceKeys = {
  partition: (workspaceId: string) => `WS#${workspaceId}`,
  workspace: (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WS' }),
  member: (workspaceId: string, userId: string) => ({ pk: `WS#${workspaceId}`, sk: `MEMBER#${userId}` }),
  /** gsi1 on member items: a user's workspaces, newest workspace first (UUIDv7 ids). Each member
   * item carries the workspace's summary, so the list is one Query. */
  byMember: (userId: string, workspaceId: string) => ({
    gsi1pk: memberPartition(userId),
    gsi1sk: `${memberPrefix}${workspaceId}`,
  }),
  memberPartition,
  memberPrefix,
  integration: (workspaceId: string, provider: string) => ({
    pk: `WS#${workspaceId}`,
    sk: `INTEGRATION#${provider}`,
  }),
  integrationPrefix: 'INTEGRATION#',
  task: (workspaceId: string, taskId: string) => ({ pk: `WS#${workspaceId}`, sk: `${taskPrefix}${taskId}` }),
  taskPrefix,
  /** gsi1 on task items: a workspace's tasks in one status, newest first (UUIDv7 ids). */
  byStatus: (workspaceId: string, status: string, taskId: string) => ({
    gsi1pk: `WS#${workspaceId}#STATUS#${status}`,
    gsi1sk: `${taskPrefix}${taskId}`,
  }),
  statusPartition: (workspaceId: string, status: string) => `WS#${workspaceId}#STATUS#${status}`,
};
