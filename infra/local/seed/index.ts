// The demo data set of the embedded runtime. Each domain contributes a seeder that writes through
// the domain's own write API (never raw items) and returns the ids it adds to seed.json.
import { newId } from '../../../shared/ids.ts';
import { seedBrands } from './brands.ts';
import { seedProjects } from './projects.ts';

export interface SeedUsers {
  owner: string;
  other: string;
}

/** The ids part of seed.json; base_url and tokens are added at every start. */
export type SeedIds = Record<string, string>;

export type Seeder = (users: SeedUsers) => Promise<SeedIds>;

const seeders: Seeder[] = [seedBrands, seedProjects];

export async function seedDemoData(): Promise<{ users: SeedUsers; ids: SeedIds }> {
  const users = { owner: newId(), other: newId() };
  const ids: SeedIds = {};
  for (const seeder of seeders) Object.assign(ids, await seeder(users));
  return { users, ids };
}
