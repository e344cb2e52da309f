// GET /api/v1/projects: the caller's projects, newest first, with counts and budget but no task preview.
import { OwnerListQuery } from '#shared/db/owner-lists';
import { httpRoute } from '#shared/http/route';
import { ProjectList } from '#shared/projects/schemas';
import { listProjects } from '#shared/projects/store';

export const handler = httpRoute(
  { query: OwnerListQuery, response: ProjectList, summary: 'List the caller’s projects, newest first' },
  ({ caller, query }) => listProjects(caller.userId, query),
);
