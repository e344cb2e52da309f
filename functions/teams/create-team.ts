// POST /api/v1/teams: create a team owned by the caller (a brand, when given, must be theirs).
import { httpRoute } from '#shared/http/route';
import { CreateTeamBody, TeamWithMembers } from '#shared/teams/schemas';
import { createTeam } from '#shared/teams/store';

export const handler = httpRoute(
  { body: CreateTeamBody, status: 201, response: TeamWithMembers, summary: 'Create a team', errors: [404] },
  ({ caller, body }) => createTeam(caller.userId, body),
);
