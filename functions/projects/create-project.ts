// POST /api/v1/projects: create a project, optionally with its first tasks; an Idempotency-Key header
// makes a retry answer the first project.
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';
import { CreateProjectBody, Project } from '#shared/projects/schemas';
import { createProject } from '#shared/projects/store';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateProjectBody,
    status: 201,
    response: Project,
    summary: 'Create a project with its first tasks',
    errors: [409],
  },
  ({ caller, header, body }) => createProject(caller.userId, body, header['idempotency-key']),
);
