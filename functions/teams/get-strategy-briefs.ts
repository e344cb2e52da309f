// GET /api/v1/teams/{team_id}/strategy-briefs: the team's strategy briefs, newest first.
import { httpRoute } from '#shared/http/route';
import { BriefHistory, TeamPath } from '#shared/teams/schemas';
import { getStrategyBriefs } from '#shared/teams/store';

export const handler = httpRoute(
  { path: TeamPath, response: BriefHistory, summary: 'List the team’s strategy briefs' },
  ({ caller, path }) => getStrategyBriefs(caller.userId, path.team_id),
);
