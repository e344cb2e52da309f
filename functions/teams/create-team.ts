// POST /api/v1/teams: create a team owned by the caller (a brand, when given, must be theirs); an
// Idempotency-Key header makes a retry answer the first team.
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';
import { CreateTeamBody, TeamWithMembers } from '#shared/teams/schemas';
import { createTeam } from '#shared/teams/store';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateTeamBody,
    status: 201,
    response: TeamWithMembers,
    summary: 'Create a team',
    errors: [404, 409],
  },
  ({ caller, header, body }) => createTeam(caller.userId, body, header['idempotency-key']),
);
