// GET /api/v1/teams/{team_id}/strategy-history: the team's strategy cycles, newest first.
import { httpRoute } from '#shared/http/route';
import { StrategyHistory, TeamPath } from '#shared/teams/schemas';
import { getStrategyHistory } from '#shared/teams/store';

export const handler = httpRoute(
  { path: TeamPath, response: StrategyHistory, summary: 'List the team’s strategy cycles' },
  ({ caller, path }) => getStrategyHistory(caller.userId, path.team_id),
);
