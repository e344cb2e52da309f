import { PutObjectCommand } from '@aws-sdk/client-s3';
import { setStudioTraining } from '../../../shared/accounts/store.ts';
import { s3 } from '../../../shared/aws/s3.ts';
import { config } from '../../../shared/config.ts';
import { newId } from '../../../shared/ids.ts';
import { AVATAR_VIDEO_TEAM_TYPE } from '../../../shared/teams/schemas.ts';
import { createTeam } from '../../../shared/teams/store.ts';
import { userUploadPrefix } from '../../../shared/uploads/keys.ts';
import type { Seeder, SeedIds } from './index.ts';

const box = (type: string, payload: Buffer) => {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + payload.length);
  return Buffer.concat([size, Buffer.from(type, 'latin1'), payload]);
};

/** The smallest file the upload takes for an MP4: an `ftyp` box (brand `isom`), then an empty `mdat`. */
const SELF_VIDEO = Buffer.concat([
  box('ftyp', Buffer.from('isom\0\0\0\0isommp41')),
  box('mdat', Buffer.alloc(0)),
]);

/** The demo owner may train studio avatars for the avatar-video team the teams seeder created
 * (created here only when that seeder did not), from a video they uploaded (`avatar_video_key`, the
 * sample event's `upload_key`). The other user's account keeps the default: off. */
export const seedAvatars: Seeder = async ({ owner }, seeded = {}): Promise<SeedIds> => {
  await setStudioTraining(owner, true);
  const video = `${userUploadPrefix(owner)}${newId()}/self-video.mp4`;
  await s3().send(
    new PutObjectCommand({
      Bucket: config.bucketName,
      Key: video,
      Body: SELF_VIDEO,
      ContentType: 'video/mp4',
    }),
  );
  if (seeded.avatar_team_id) return { avatar_video_key: video };
  const team = await createTeam(owner, {
    team_type: AVATAR_VIDEO_TEAM_TYPE,
    display_name: 'Studio avatar team',
    tier: 'studio',
    operation_mode: 'autopilot',
    brand_id: seeded.brand_id ?? null,
    brand_kit_id: null,
    content_strategy: {},
    orchestrator_cadence: {},
    config: {},
    content_cadence: [],
  });
  return { avatar_team_id: team.id, avatar_video_key: video };
};
