// GET /api/v1/teams/{team_id}/activity: the team's activity log, newest first, with its total.
import { httpRoute } from '#shared/http/route';
import { ActivityList, PageQuery, TeamPath } from '#shared/teams/schemas';
import { listTeamActivity } from '#shared/teams/store';

export const handler = httpRoute(
  { path: TeamPath, query: PageQuery, response: ActivityList, summary: 'List the team’s activity' },
  ({ caller, path, query }) => listTeamActivity(caller.userId, path.team_id, query),
);
