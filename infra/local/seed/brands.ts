import { createBrand } from '../../../shared/brands/store.ts';
import type { Seeder } from './index.ts';

export const seedBrands: Seeder = async ({ owner, other }) => {
  const brand = await createBrand(owner, {
    name: 'Northwind Outfitters',
    website_url: 'https://northwind.example',
    logo_url: null,
    industry: 'Outdoor retail',
    description: 'Trail-tested gear for weekend adventurers.',
  });
  await createBrand(other, {
    name: 'Other User Brand',
    website_url: null,
    logo_url: null,
    industry: null,
    description: null,
  });
  return { brand_id: brand.id };
};
