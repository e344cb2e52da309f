// POST /api/v1/teams/{team_id}/unsubscribe (spec 9): cancel the team at the end of its paid period.
import { httpRoute } from '#shared/http/route';
import { TeamDetail, TeamPath } from '#shared/teams/schemas';
import { unsubscribeTeam } from '#shared/teams/unsubscribe';

export const handler = httpRoute(
  { path: TeamPath, response: TeamDetail, summary: 'Unsubscribe a team' },
  ({ caller, path }) => unsubscribeTeam(caller.userId, path.team_id),
);
