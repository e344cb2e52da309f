// The demo data set of the embedded runtime. Each domain contributes a seeder that writes through
// the domain's own write API (never raw items) and returns the ids it adds to seed.json.
import { newId } from '../../../shared/ids.ts';
import { seedAvatars } from './avatars.ts';
import { seedBrandKits } from './brand-kits.ts';
import { seedBrands } from './brands.ts';
import { seedChat } from './chat.ts';
import { seedProjects } from './projects.ts';
import { seedShopping } from './shopping.ts';
import { seedTeams } from './teams.ts';
import { seedWorkspaces } from './workspaces.ts';

export interface SeedUsers {
  owner: string;
  other: string;
}

/** The ids part of seed.json; base_url and tokens are added at every start. */
export type SeedIds = Record<string, string>;

/** `seeded`: the ids earlier seeders returned (a seeder that builds on another's data runs after it). */
export type Seeder = (users: SeedUsers, seeded?: Readonly<SeedIds>) => Promise<SeedIds>;

// seedAvatars after the teams seeder: it enables studio training for that seeder's avatar team.
export const DEMO_SEEDERS: readonly Seeder[] = [
  seedBrands,
  seedBrandKits,
  seedProjects,
  seedTeams,
  seedAvatars,
  seedWorkspaces,
  seedShopping,
  seedChat,
];

export async function seedDemoData(): Promise<{ users: SeedUsers; ids: SeedIds }> {
  const users = { owner: newId(), other: newId() };
  const ids: SeedIds = {};
  for (const seeder of DEMO_SEEDERS) Object.assign(ids, await seeder(users, { ...ids }));
  return { users, ids };
}
