// Brands: one item per brand, listed per owner through gsi1.
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import { addToCounters, getItem, ownedBy, putNew, takeBackCounters } from '../db/store.ts';
import { createOnce, ownClaim } from '../idempotency.ts';
import { brandKeys } from './keys.ts';
import type { Brand, CreateBrandInput } from './schemas.ts';

interface BrandItem extends Brand {
  owner: string;
}

/** The response is built from the spec's fields only, never by deleting keys from the item. */
export const toBrand = (item: BrandItem): Brand => ({
  id: item.id,
  name: item.name,
  created_at: item.created_at,
  updated_at: item.updated_at,
  website_url: item.website_url ?? null,
  logo_url: item.logo_url ?? null,
  industry: item.industry ?? null,
  description: item.description ?? null,
  partner_slug: item.partner_slug ?? null,
  brand_kit_count: item.brand_kit_count ?? 0,
  audit_count: item.audit_count ?? 0,
  competitor_count: item.competitor_count ?? 0,
});

/** With an Idempotency-Key, a retry answers the brand the first attempt made (shared/idempotency.ts). */
export const createBrand = (userId: string, input: CreateBrandInput, key?: string): Promise<Brand> =>
  createOnce({
    claimAt: ownClaim(userId, 'brand', key),
    request: input,
    write: async ({ id, created_at }) => {
      const item: BrandItem = {
        id,
        name: input.name,
        website_url: input.website_url,
        logo_url: input.logo_url,
        industry: input.industry,
        description: input.description,
        partner_slug: null,
        brand_kit_count: 0,
        audit_count: 0,
        competitor_count: 0,
        created_at,
        updated_at: created_at,
        owner: userId,
      };
      await putNew({ ...brandKeys.brand(id), ...brandKeys.byOwner(userId, id), kind: 'brand', ...item });
      return toBrand(item);
    },
    read: async (id) => {
      const item = await getItem<BrandItem>(brandKeys.brand(id));
      return item && toBrand(item);
    },
  });

export async function getBrand(userId: string, brandId: string): Promise<Brand> {
  return toBrand(ownedBy(await getItem<BrandItem>(brandKeys.brand(brandId)), userId, 'Brand'));
}

export const listBrands = (userId: string, page: OwnerPage): Promise<Brand[]> =>
  listOwned({ partition: brandKeys.ownerPartition(userId), prefix: brandKeys.ownerPrefix }, page, toBrand);

const KIT_COUNT = { brand_kit_count: 1 };
const countedKit = (kitId: string) => ({ set: 'counted_kits', token: kitId });

/**
 * A brand kit was saved for the brand `at`: its `brand_kit_count` goes up by one, once per kit, while
 * it is under `limit` (false when the brand already holds that many), and its `updated_at` is `at`.
 */
export const countBrandKit = (brandId: string, kitId: string, limit: number, at: string) =>
  addToCounters(brandKeys.brand(brandId), KIT_COUNT, {
    once: countedKit(kitId),
    below: { brand_kit_count: limit },
    touched: at,
  });

/** Whether the brand's `brand_kit_count` holds the kit; undefined where the brand is gone. */
export const countsBrandKit = async (brandId: string, kitId: string) => {
  const brand = await getItem<Record<string, unknown>>(brandKeys.brand(brandId));
  return brand && Boolean((brand[countedKit(kitId).set] as Set<string> | undefined)?.has(kitId));
};

/** The kit was not saved after all: the count it added (if any) is taken back. */
export const uncountBrandKit = (brandId: string, kitId: string) =>
  takeBackCounters(brandKeys.brand(brandId), KIT_COUNT, countedKit(kitId));
