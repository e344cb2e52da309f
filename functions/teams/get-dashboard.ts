// GET /api/v1/teams/{team_id}/dashboard (spec 4): every part of the team in one call.
import { httpRoute } from '#shared/http/route';
import { Dashboard, PAGE_LIMITS, TeamPath } from '#shared/teams/schemas';
import { getDashboard } from '#shared/teams/store';

export const handler = httpRoute(
  {
    path: TeamPath,
    response: Dashboard,
    summary: `Read the team dashboard (task and activity lists: the first ${PAGE_LIMITS.limit.default})`,
  },
  ({ caller, path }) => getDashboard(caller.userId, path.team_id),
);
