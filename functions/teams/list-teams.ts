// GET /api/v1/teams: the caller's teams, newest first (each as the team detail without its members).
import { OwnerListQuery } from '#shared/db/owner-lists';
import { httpRoute } from '#shared/http/route';
import { TeamList } from '#shared/teams/schemas';
import { listTeams } from '#shared/teams/store';

export const handler = httpRoute(
  { query: OwnerListQuery, response: TeamList, summary: 'List the caller’s teams, newest first' },
  ({ caller, query }) => listTeams(caller.userId, query),
);
