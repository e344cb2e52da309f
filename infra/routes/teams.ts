import type { Route } from '../routes.ts';

const TEAM = '/api/v1/teams/{team_id}';

export const teamRoutes: Route[] = [
  // Reads the caller's brand (brand_name) before writing the team.
  {
    method: 'POST',
    path: '/api/v1/teams',
    entry: 'teams/create-team',
    // With an Idempotency-Key, its claim is sealed by a retry (which Queries the team's members and
    // activity) and given back when refused.
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
  },
  // The caller's teams, newest first, from gsi1 (an offset walked on its slim view).
  {
    method: 'GET',
    path: '/api/v1/teams',
    entry: 'teams/list-teams',
    indexes: ['gsi1', 'gsi1_calendar'],
  },
  { method: 'GET', path: TEAM, entry: 'teams/get-team', table: ['GetItem', 'Query'] },
  { method: 'GET', path: `${TEAM}/dashboard`, entry: 'teams/get-dashboard', table: ['GetItem', 'Query'] },
  { method: 'GET', path: `${TEAM}/tasks`, entry: 'teams/list-tasks', table: ['GetItem', 'Query'] },
  { method: 'GET', path: `${TEAM}/activity`, entry: 'teams/list-activity', table: ['GetItem', 'Query'] },
  {
    method: 'GET',
    path: `${TEAM}/strategy-history`,
    entry: 'teams/get-strategy-history',
    table: ['GetItem', 'Query'],
  },
  {
    method: 'GET',
    path: `${TEAM}/strategy-briefs`,
    entry: 'teams/get-strategy-briefs',
    table: ['GetItem', 'Query'],
  },
  // gsi1: the team's cycles by start date (the current one, whatever is planned after it), and its
  // loop instances running or fired today, whenever they were scheduled.
  {
    method: 'GET',
    path: `${TEAM}/today`,
    entry: 'teams/get-today',
    table: ['GetItem', 'Query'],
    indexes: ['gsi1'],
  },
  {
    method: 'POST',
    path: `${TEAM}/unsubscribe`,
    entry: 'teams/unsubscribe-team',
    table: ['GetItem', 'PutItem', 'UpdateItem'],
  },
  // Reads the team's scheduled tasks from gsi1_calendar (gsi1's keys, the calendar's fields).
  {
    method: 'POST',
    path: `${TEAM}/calendar/generate`,
    entry: 'teams/generate-calendar',
    table: ['GetItem', 'Query', 'BatchWriteItem'],
    indexes: ['gsi1_calendar'],
  },
];
