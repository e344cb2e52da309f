// GET /api/v1/brand-kits/{brand_kit_id}: one of the caller's brand kits, with fresh logo URLs.
import { BrandKit, BrandKitPath } from '#shared/brand-kits/schemas';
import { getBrandKit } from '#shared/brand-kits/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  { path: BrandKitPath, response: BrandKit, summary: 'Read a saved brand kit' },
  ({ caller, path }) => getBrandKit(caller.userId, path.brand_kit_id),
);
