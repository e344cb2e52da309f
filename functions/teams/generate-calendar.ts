// POST /api/v1/teams/{team_id}/calendar/generate (spec 10): plan and store a week or a month.
import { httpRoute } from '#shared/http/route';
import { generateCalendar } from '#shared/teams/calendar';
import { CalendarQuery, CalendarResult, TeamPath } from '#shared/teams/schemas';

export const handler = httpRoute(
  { path: TeamPath, query: CalendarQuery, response: CalendarResult, summary: 'Generate the team calendar' },
  ({ caller, path, query }) => generateCalendar(caller.userId, path.team_id, query),
);
