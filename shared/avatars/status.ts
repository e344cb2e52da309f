// GET /teams/{id}/avatar/status: the team's current avatar, polled while it trains.
import { ownedBy } from '../db/store.ts';
import { NotFoundError } from '../http/errors.ts';
import { consentPut } from './consent.ts';
import { objectExists } from './media.ts';
import type { AvatarStatus } from './schemas.ts';
import { readTeamAvatar, toAvatarStatus } from './store.ts';

export async function getAvatarStatus(userId: string, teamId: string): Promise<AvatarStatus> {
  const { team, avatar } = await readTeamAvatar(teamId);
  ownedBy(team, userId, 'Team');
  if (!avatar) throw new NotFoundError('Avatar');
  const received = await objectExists(avatar.consent_key);
  // Still wanted, and safe to hand out again: one PUT of the declared size, counted at the upload.
  const again =
    avatar.status === 'training' && !received && avatar.consent_bytes !== undefined
      ? await consentPut(avatar.consent_key, avatar.consent_bytes)
      : undefined;
  return toAvatarStatus(avatar, received, again);
}
