// GET /api/v1/teams/{team_id}/tasks: the team's tasks, newest first, with their total.
import { httpRoute } from '#shared/http/route';
import { PageQuery, TeamPath, TeamTaskList } from '#shared/teams/schemas';
import { listTeamTasks } from '#shared/teams/store';

export const handler = httpRoute(
  { path: TeamPath, query: PageQuery, response: TeamTaskList, summary: 'List the team’s tasks' },
  ({ caller, path, query }) => listTeamTasks(caller.userId, path.team_id, query),
);
