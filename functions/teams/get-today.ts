// GET /api/v1/teams/{team_id}/today (spec 8): the day in the team's cycle, in its time zone.
import { httpRoute } from '#shared/http/route';
import { TeamPath, TodayView } from '#shared/teams/schemas';
import { getToday } from '#shared/teams/today';

export const handler = httpRoute(
  { path: TeamPath, response: TodayView, summary: 'Read what the team’s loops do today' },
  ({ caller, path }) => getToday(caller.userId, path.team_id),
);
