import { setStudioTraining } from '../../../shared/accounts/store.ts';
import { AVATAR_VIDEO_TEAM_TYPE } from '../../../shared/teams/schemas.ts';
import { createTeam } from '../../../shared/teams/store.ts';
import type { Seeder, SeedIds } from './index.ts';

/** The demo owner may train studio avatars for the avatar-video team the teams seeder created
 * (created here only when that seeder did not). The other user's account keeps the default: off. */
export const seedAvatars: Seeder = async ({ owner }, seeded = {}): Promise<SeedIds> => {
  await setStudioTraining(owner, true);
  if (seeded.avatar_team_id) return {};
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
  return { avatar_team_id: team.id };
};
