// GET /api/v1/projects/{project_id}/tasks: all of a project's tasks, oldest first, paged.
import { httpRoute } from '#shared/http/route';
import { ListProjectTasksQuery, ProjectPath, ProjectTaskPage } from '#shared/projects/schemas';
import { listProjectTasks } from '#shared/projects/store';

export const handler = httpRoute(
  {
    path: ProjectPath,
    query: ListProjectTasksQuery,
    response: ProjectTaskPage,
    summary: 'List the tasks of a project, oldest first',
  },
  ({ caller, path, query }) => listProjectTasks(caller.userId, path.project_id, query),
);
