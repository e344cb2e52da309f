// A project and its tasks share one partition; 'PROJECT' sorts before every 'PTASK#', so one
// ascending Query returns the project first and then its tasks in creation order.
export const projectKeys = {
  project: (projectId: string) => ({ pk: `PROJECT#${projectId}`, sk: 'PROJECT' }),
  task: (projectId: string, taskId: string) => ({ pk: `PROJECT#${projectId}`, sk: `PTASK#${taskId}` }),
  partition: (projectId: string) => `PROJECT#${projectId}`,
  byOwner: (userId: string, projectId: string) => ({
    gsi1pk: `USER#${userId}#PROJECTS`,
    gsi1sk: `PROJECT#${projectId}`,
  }),
};
