// Avatars live in their team's partition (`AVATAR#<id>`, UUIDv7 so newest sorts last); their media
// under the team's folder in the bucket. Provider callbacks leave one receipt each, keyed by what was signed.
import { teamKeys } from '../teams/keys.ts';

export const AVATAR_PREFIX = 'AVATAR#';

export const avatarKeys = {
  avatar: (teamId: string, avatarId: string) => ({
    pk: teamKeys.partition(teamId),
    sk: `${AVATAR_PREFIX}${avatarId}`,
  }),
  /** One accepted provider callback (by the digest of what was signed): a second delivery of the
   * same signed message is a replay. */
  callbackReceipt: (messageId: string) => ({ pk: `AVATARCB#${messageId}`, sk: 'CALLBACK' }),
};

const folder = (teamId: string, avatarId: string) => `teams/${teamId}/avatars/${avatarId}/`;

export const avatarObjects = {
  folder,
  source: (teamId: string, avatarId: string, ext: string) => `${folder(teamId, avatarId)}source.${ext}`,
  consent: (teamId: string, avatarId: string, ext: string) => `${folder(teamId, avatarId)}consent.${ext}`,
};
