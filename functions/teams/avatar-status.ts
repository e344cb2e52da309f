// GET /api/v1/teams/{team_id}/avatar/status: the team's current studio avatar, polled while it trains.
import { AvatarStatus } from '#shared/avatars/schemas';
import { getAvatarStatus } from '#shared/avatars/status';
import { httpRoute } from '#shared/http/route';
import { TeamPath } from '#shared/teams/schemas';

export const handler = httpRoute(
  { path: TeamPath, response: AvatarStatus, summary: 'Poll the studio avatar’s training status' },
  ({ caller, path }) => getAvatarStatus(caller.userId, path.team_id),
);
