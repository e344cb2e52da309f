// Saved brand kits: one item per kit (listed per owner through gsi1); logos copied once per source.
import { CopyObjectCommand } from '@aws-sdk/client-s3';
import { headObject, isMissingObject, s3, s3StatusOf } from '../aws/s3.ts';
import { countBrandKit, countsBrandKit, getBrand, uncountBrandKit } from '../brands/store.ts';
import { config } from '../config.ts';
import { deleteItem, getItem, ownedBy, putNew } from '../db/store.ts';
import {
  ConflictError,
  NotFoundError,
  RequestValidationError,
  ServiceUnavailableError,
} from '../http/errors.ts';
import { valueError } from '../http/fields.ts';
import { fieldError } from '../http/validation.ts';
import { createOnce, ownClaim } from '../idempotency.ts';
import { log } from '../log.ts';
import { bareMediaType } from '../media-type.ts';
import { isOwnUploadKey } from '../uploads/keys.ts';
import { downloadUrl } from '../uploads/store.ts';
import { brandKitKeys, brandKitLogoKey, isOwnKitLogoKey, isOwnLogoSource } from './keys.ts';
import {
  BRAND_KIT_LIMITS,
  type BrandKit,
  type BrandKitDraft,
  type CreateBrandKitInput,
  LOGO_FIELDS,
  LOGO_MEDIA_TYPES,
  LOGO_NOT_AN_IMAGE,
  LOGO_ROLES,
  type LogoRole,
  TOO_MANY_KITS,
} from './schemas.ts';

interface BrandKitItem extends BrandKit {
  owner: string;
}

/**
 * The draft fields of any record that has them, as the spec lists them. Logo URLs of stored keys are
 * presigned again on every read (they are time-limited); a URL without a key is returned as stored.
 */
export async function draftFields(source: Partial<BrandKitDraft>): Promise<BrandKitDraft> {
  const urlOf = async (role: LogoRole) => {
    const { key, url } = LOGO_FIELDS[role];
    const stored = source[key];
    return stored ? downloadUrl(stored) : (source[url] ?? null);
  };
  const [logo, icon, dark, square] = await Promise.all(LOGO_ROLES.map(urlOf));
  return {
    name: source.name ?? null,
    brand_voice: source.brand_voice ?? null,
    target_audience: source.target_audience ?? null,
    logo_wordmark: source.logo_wordmark ?? null,
    logo_wordmark_font: source.logo_wordmark_font ?? null,
    primary_color: source.primary_color ?? null,
    secondary_color: source.secondary_color ?? null,
    accent_color: source.accent_color ?? null,
    font_headings: source.font_headings ?? null,
    font_body: source.font_body ?? null,
    imagery_style: source.imagery_style ?? null,
    tagline: source.tagline ?? null,
    mission_statement: source.mission_statement ?? null,
    industry: source.industry ?? null,
    location: source.location ?? null,
    website_url: source.website_url ?? null,
    logo_url: logo ?? null,
    logo_icon_url: icon ?? null,
    logo_dark_url: dark ?? null,
    logo_square_url: square ?? null,
    logo_key: source.logo_key ?? null,
    logo_icon_key: source.logo_icon_key ?? null,
    logo_dark_key: source.logo_dark_key ?? null,
    logo_square_key: source.logo_square_key ?? null,
    logo_fields_authoritative: source.logo_fields_authoritative ?? false,
    tone_keywords: source.tone_keywords ?? [],
    competitors: source.competitors ?? [],
    seo_keywords: source.seo_keywords ?? [],
    content_pillars: source.content_pillars ?? [],
    color_palette: source.color_palette ?? null,
    social_links: source.social_links ?? null,
    social_profiles: source.social_profiles ?? null,
  };
}

export const toBrandKit = async (item: BrandKitItem): Promise<BrandKit> => ({
  id: item.id,
  brand_id: item.brand_id ?? null,
  ...(await draftFields(item)),
  created_at: item.created_at,
  updated_at: item.updated_at,
});

/**
 * The key of each named logo the kit is to store, by role: a copy of the source (drafts expire; the
 * copy stays), made once per source (brandKitLogoKey), or another kit's logo as it is. A source named
 * in several roles is read once, and each of those roles names its copy. A direct upload is checked
 * first (HeadObject): one not there is a 404, one that is not an image (it may be a video or a PDF) is
 * never copied, is a 422 at each field naming it. Draft logos are our own PNGs and kit logos copies of
 * checked sources, so those are taken as they are. Copies made for a save that is then refused stay:
 * at most one per source, the copy its next save names.
 */
async function keepLogos(userId: string, input: CreateBrandKitInput) {
  const rolesOf = new Map<string, LogoRole[]>();
  for (const role of LOGO_ROLES) {
    const source = input[LOGO_FIELDS[role].key];
    if (source) rolesOf.set(source, [...(rolesOf.get(source) ?? []), role]);
  }
  for (const source of rolesOf.keys()) if (!isOwnLogoSource(userId, source)) throw new NotFoundError('Logo');
  const kept = await Promise.allSettled(
    [...rolesOf].map(async ([source, roles]) => ({ roles, source, key: await keepLogo(userId, source) })),
  );
  const failed = kept.find((k) => k.status === 'rejected');
  if (failed) throw isMissingObject(failed.reason) ? new NotFoundError('Logo') : failed.reason;
  const logos = kept.flatMap((k) => (k.status === 'fulfilled' ? [k.value] : []));
  const notImages = logos.filter((logo) => logo.key === undefined);
  if (notImages.length > 0)
    throw new RequestValidationError(
      LOGO_ROLES.flatMap((role) =>
        notImages
          .filter(({ roles }) => roles.includes(role))
          .map(({ source }) =>
            fieldError(['body', LOGO_FIELDS[role].key], source, valueError(LOGO_NOT_AN_IMAGE)),
          ),
      ),
    );
  return new Map<LogoRole, string>(
    logos.flatMap(({ roles, key }) => roles.map((role) => [role, key!] as const)),
  );
}

/** Copies `source` to `key` unless an object is there (If-None-Match: *): made once, however many
 * saves copy it at the same time. */
async function copyOnce(source: string, key: string, attempt = 1): Promise<void> {
  try {
    await s3().send(
      new CopyObjectCommand({
        Bucket: config.bucketName,
        Key: key,
        CopySource: `${config.bucketName}/${source.split('/').map(encodeURIComponent).join('/')}`,
        IfNoneMatch: '*',
      }),
    );
  } catch (error) {
    // Taken: another save's copy (or this one's, its answer lost and the SDK's resend refused).
    if (s3StatusOf(error) === 412) return;
    // 409: a write to the key in flight at the same moment. Again after a second try: the client's
    // retry, not a 500 (the SDK counts no 409 as transient).
    if (s3StatusOf(error) === 409) {
      if (attempt === 1) return copyOnce(source, key, attempt + 1);
      throw new ServiceUnavailableError();
    }
    throw error;
  }
}

/** The key a kit stores for one logo source; undefined for a direct upload that is not an image. */
async function keepLogo(userId: string, source: string): Promise<string | undefined> {
  if (isOwnKitLogoKey(userId, source)) {
    if (!(await headObject(source))) throw new NotFoundError('Logo');
    return source;
  }
  let mediaType: string | undefined;
  if (isOwnUploadKey(userId, source)) {
    const head = await headObject(source);
    // No object is a 404 here, not at the copy: its URL's PUT may land between the two, and the
    // copy would take whatever it stored (a video) unchecked. Once there, an upload stays as it is.
    if (!head) throw new NotFoundError('Logo');
    mediaType = bareMediaType(head.ContentType);
    if (!LOGO_MEDIA_TYPES.has(mediaType)) return undefined;
  }
  const key = brandKitLogoKey(userId, source, mediaType);
  // Copied only where no save copied it yet: every save copying again stored the image again, outside
  // the daily upload allowance (and on this versioned bucket an overwrite keeps the old bytes 30 days).
  // The read spares a found copy the request; the copy's own condition settles concurrent first saves.
  if (!(await headObject(key))) await copyOnce(source, key);
  return key;
}

const countKit = async (brandId: string, kitId: string, at: string) => {
  if (!(await countBrandKit(brandId, kitId, BRAND_KIT_LIMITS.perBrand, at)))
    throw new ConflictError(TOO_MANY_KITS);
};

const readKit = (kitId: string) => getItem<BrandKitItem>(brandKitKeys.brandKit(kitId));

/**
 * Saves a reviewed draft. The brand (when named) must be the caller's: it is read while the logos are
 * kept (keepLogos); then the kit and the brand's `brand_kit_count` are written together (two waves in
 * all, the logos' reads and copies inside the first). An Idempotency-Key makes
 * a retry answer the first kit (shared/idempotency.ts); a failed save, keyed or not, leaves neither
 * the kit nor its count, and gives the key back.
 */
export function createBrandKit(userId: string, input: CreateBrandKitInput, key?: string): Promise<BrandKit> {
  const { brand_id, ...fields } = input;
  return createOnce({
    claimAt: ownClaim(userId, 'brand-kit', key),
    request: input,
    check: () => (brand_id ? getBrand(userId, brand_id) : Promise.resolve(null)),
    // A full brand refuses only a request that is to write: the retry of the save that took its last
    // place answers that kit. The count's own condition settles a race for the last place. The logos
    // are kept beside the brand's read (they name no kit: a twin's write names the same keys).
    prepare: async (checking) => {
      const [brand, logos] = await Promise.allSettled([checking, keepLogos(userId, input)]);
      if (brand.status === 'fulfilled' && (brand.value?.brand_kit_count ?? 0) >= BRAND_KIT_LIMITS.perBrand)
        throw new ConflictError(TOO_MANY_KITS);
      if (logos.status === 'rejected') throw logos.reason;
      return logos.value;
    },
    write: async ({ id, created_at: at }, _brand, logos) => {
      const item: BrandKitItem = {
        ...fields,
        id,
        brand_id: brand_id ?? null,
        created_at: at,
        updated_at: at,
        owner: userId,
      };
      for (const role of LOGO_ROLES) {
        const { key, url } = LOGO_FIELDS[role];
        const kept = logos.get(role);
        item[key] = kept ?? null;
        // A stored key's URL is presigned at every read; only a URL without a key is kept.
        if (kept) item[url] = null;
      }
      // The kit and its count are written side by side (a twin completing this save under the same
      // id writes neither twice); if either fails, `unwrite` takes both back.
      const outcomes = await Promise.allSettled([
        putNew({
          ...brandKitKeys.brandKit(id),
          ...brandKitKeys.byOwner(userId, id),
          kind: 'brand-kit',
          ...item,
        }),
        brand_id ? countKit(brand_id, id, at) : undefined,
      ]);
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      return toBrandKit(item);
    },
    // Deleting a kit that was not written and taking back a count that was not added change nothing.
    // Gone only where both went. A count kept without its kit is the keyed retry's to complete (counted
    // once) or, without a key, logged with both ids (the place it holds is the operator's to give back).
    // The logo copies stay either way: other kits may name them, and the retry names them again.
    unwrite: async ({ id }) => {
      const [unwritten, uncounted] = await Promise.allSettled([
        deleteItem(brandKitKeys.brandKit(id)),
        brand_id ? uncountBrandKit(brand_id, id) : undefined,
      ]);
      if (uncounted.status === 'rejected')
        log.error('brand kit uncount failed', { brand_id, kit_id: id, keyed: key !== undefined });
      return unwritten.status === 'fulfilled' && uncounted.status === 'fulfilled';
    },
    // A kit its brand does not count is a save still under way or failed (its count refused or lost):
    // read as unwritten, so a twin that sealed the claim completes it (the put and the count once).
    read: async (id) => {
      const [kit, counted] = await Promise.all([readKit(id), brand_id && countsBrandKit(brand_id, id)]);
      return kit && counted !== false ? toBrandKit(kit) : undefined;
    },
  });
}

export async function getBrandKit(userId: string, kitId: string): Promise<BrandKit> {
  return toBrandKit(ownedBy(await readKit(kitId), userId, 'Brand kit'));
}
