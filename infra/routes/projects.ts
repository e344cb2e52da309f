import type { Route } from '../routes.ts';

export const projectRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/projects',
    entry: 'projects/create-project',
    // The tasks (BatchWriteItem), then the project item; an Idempotency-Key's claim (PutItem and a
    // consistent GetItem), a retry's Query of the project beside the UpdateItem sealing the claim, and
    // the BatchWriteItem deleting the tasks it staged. A failed project write gives its claim back and
    // deletes the project item (DeleteItem both; it may have landed), then its tasks.
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'Query'],
  },
  // The caller's projects, newest first, from gsi1 (an offset walked on its slim view).
  {
    method: 'GET',
    path: '/api/v1/projects',
    entry: 'projects/list-projects',
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  { method: 'GET', path: '/api/v1/projects/{project_id}', entry: 'projects/get-project', table: ['Query'] },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/tasks',
    entry: 'projects/list-project-tasks',
    table: ['GetItem', 'Query'],
  },
];
