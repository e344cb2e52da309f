// A project and its tasks share one partition; 'PROJECT' sorts before every 'PTASK#', so one
// ascending Query returns the project first and then its tasks in creation order (task ids are
// UUIDv7), and a Query on the `PTASK#` prefix alone never returns the project item.
const partition = (projectId: string) => `PROJECT#${projectId}`;

export const TASK_PREFIX = 'PTASK#';

/** gsi1 partition of a user's projects. */
const ownerPartition = (userId: string) => `USER#${userId}#PROJECTS`;
const ownerPrefix = 'PROJECT#';

export const projectKeys = {
  ownerPartition,
  ownerPrefix,
  project: (projectId: string) => ({ pk: partition(projectId), sk: 'PROJECT' }),
  task: (projectId: string, taskId: string) => ({ pk: partition(projectId), sk: `${TASK_PREFIX}${taskId}` }),
  partition,
  byOwner: (userId: string, projectId: string) => ({
    gsi1pk: ownerPartition(userId),
    gsi1sk: `${ownerPrefix}${projectId}`,
  }),
};
