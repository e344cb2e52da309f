import * as v from 'valibot';
import { CreateBrandKitBody } from '../../../shared/brand-kits/schemas.ts';
import { createBrandKit } from '../../../shared/brand-kits/store.ts';
import type { Seeder } from './index.ts';

/** A saved kit for the demo brand (after the brands seeder: it raises that brand's kit count). */
export const seedBrandKits: Seeder = async ({ owner }, seeded = {}) => {
  const input = {
    brand_id: seeded.brand_id ?? null,
    name: 'Northwind Outfitters',
    tagline: 'Tested on the trail, made for the weekend',
    mission_statement: 'We make dependable outdoor gear for people who explore close to home.',
    brand_voice: 'Warm, practical and encouraging; never macho.',
    tone_keywords: ['warm', 'practical', 'encouraging'],
    target_audience: 'Weekend hikers and families new to the outdoors.',
    primary_color: '#2F5D50',
    secondary_color: '#E9C46A',
    accent_color: '#E76F51',
    color_palette: ['#2F5D50', '#E9C46A', '#E76F51', '#F4F1EA'],
    font_headings: 'Montserrat',
    font_body: 'Source Sans 3',
    industry: 'Outdoor retail',
    website_url: 'https://northwind.example',
    social_links: { instagram: 'https://www.instagram.com/northwind.example/' },
    social_profiles: { instagram: 'northwind.example' },
    content_pillars: ['Trail guides', 'Gear care', 'Family adventures'],
  };
  // Parsed like a request, so the defaults of the fields not given are the API's own.
  const kit = await createBrandKit(owner, v.parse(CreateBrandKitBody, input));
  return { brand_kit_id: kit.id };
};
