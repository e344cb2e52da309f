// GET /api/v1/projects/{project_id} (spec 12): a project with its task counts and budget.
import { httpRoute } from '#shared/http/route';
import { Project, ProjectPath } from '#shared/projects/schemas';
import { getProject } from '#shared/projects/store';

export const handler = httpRoute(
  { path: ProjectPath, response: Project, summary: 'Read a project with its task counts and budget' },
  ({ caller, path }) => getProject(caller.userId, path.project_id),
);
