import type { Route } from '../routes.ts';

export const projectRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/projects',
    entry: 'projects/create-project',
    table: ['PutItem', 'BatchWriteItem'],
  },
  // The caller's projects, newest first, from gsi1.
  {
    method: 'GET',
    path: '/api/v1/projects',
    entry: 'projects/list-projects',
    indexes: ['gsi1'],
  },
  { method: 'GET', path: '/api/v1/projects/{project_id}', entry: 'projects/get-project', table: ['Query'] },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/tasks',
    entry: 'projects/list-project-tasks',
    table: ['GetItem', 'Query'],
  },
];
