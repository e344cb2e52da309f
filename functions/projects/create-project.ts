// POST /api/v1/projects: create a project, optionally with its first tasks.
import { httpRoute } from '#shared/http/route';
import { CreateProjectBody, Project } from '#shared/projects/schemas';
import { createProject } from '#shared/projects/store';

export const handler = httpRoute(
  {
    body: CreateProjectBody,
    status: 201,
    response: Project,
    summary: 'Create a project with its first tasks',
  },
  ({ caller, body }) => createProject(caller.userId, body),
);
