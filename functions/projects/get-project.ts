// GET /api/v1/projects/{project_id} (spec 12): a project with its task counts, budget and a preview of
// its first tasks (all of them: GET …/tasks).
import { httpRoute } from '#shared/http/route';
import { Project, ProjectPath } from '#shared/projects/schemas';
import { getProject } from '#shared/projects/store';

export const handler = httpRoute(
  {
    path: ProjectPath,
    response: Project,
    summary: 'Read a project with its task counts, budget and first tasks',
  },
  ({ caller, path }) => getProject(caller.userId, path.project_id),
);
