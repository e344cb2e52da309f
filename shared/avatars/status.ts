// GET /teams/{id}/avatar/status: the team's current avatar, polled while it trains.
import { ownedBy } from '../db/store.ts';
import { NotFoundError } from '../http/errors.ts';
import { objectExists } from './media.ts';
import type { AvatarStatus } from './schemas.ts';
import { readTeamAvatar, toAvatarStatus } from './store.ts';

export async function getAvatarStatus(userId: string, teamId: string): Promise<AvatarStatus> {
  const { team, avatar } = await readTeamAvatar(teamId);
  ownedBy(team, userId, 'Team');
  if (!avatar) throw new NotFoundError('Avatar');
  return toAvatarStatus(avatar, await objectExists(avatar.consent_key));
}
