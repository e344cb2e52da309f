// GET /api/v1/teams/{team_id}: the team detail with its members, recent activity and cadence.
import { httpRoute } from '#shared/http/route';
import { TeamPath, TeamWithMembers } from '#shared/teams/schemas';
import { getTeam } from '#shared/teams/store';

export const handler = httpRoute(
  { path: TeamPath, response: TeamWithMembers, summary: 'Read a team with its members' },
  ({ caller, path }) => getTeam(caller.userId, path.team_id),
);
