// Spec §"Brand kit draft", endpoint 1 and `POST /brand-kits`. Limits the spec leaves open are decided
// here (docs/brand-kits.md).
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { boolean, dict, list, model, optionalNullable, string, uuid, valueError } from '../http/fields.ts';
import { dateTimeOut, nullableString, uuidOut, withDefault } from '../http/response-fields.ts';
import { UPLOAD_CONTENT_TYPES, UPLOAD_MAX_BYTES } from '../uploads/schemas.ts';
import { EXTRACT_MS } from './extract-time.ts';

const MiB = 1024 * 1024;

export const BRAND_KIT_LIMITS = {
  /** File part of the multipart route: its base64 body must fit Lambda's 6 MB payload. */
  multipartFileBytes: 4 * MiB,
  /** The whole multipart body: the file plus room for part headers and boundaries. */
  multipartBodyBytes: 4 * MiB + 64 * 1024,
  /** A document named by `upload_key` (a direct upload). */
  uploadBytes: UPLOAD_MAX_BYTES['application/pdf'],
  /** Reading a document gives up after this (or earlier when the function's own time runs out). */
  extractMs: EXTRACT_MS,
  /** The extractor's heap (its worker process's); a document needing more is refused (422). */
  extractHeapMb: 768,
  /** The extractor's worker process whole (its resident memory), past which it is killed and the
   * document refused (422). The heap limit does not count what pdf.js decodes into ArrayBuffers (a
   * 1 MB PDF inflates a 1 GB stream); the function has 1,536 MB (infra/routes/brand-kits.ts), and the
   * caller keeps the rest: its runtime, the document (up to 50 MiB) and its copy sent to the worker. */
  extractResidentMb: 1024,
  /** Documents one process reads at once, a worker each; more wait their turn, which their deadline
   * does not count (a Lambda process serves one request at a time; the local server, any number). */
  extractConcurrency: availableParallelism(),
  name: 200,
  shortText: 200,
  font: 100,
  industry: 100,
  url: 500,
  /** Logo URLs may be presigned URLs echoed back from a draft (long with a session token). */
  logoUrl: 4096,
  key: 1024,
  longText: 5000,
  listItems: 50,
  listItem: 200,
  palette: 50,
  /**
   * Kits counted on one brand. Each counted kit's id stays on the brand item (what makes the count
   * once per kit, docs/brand-kits.md), and the item must keep room for a 256 KiB description within
   * DynamoDB's 400 KB: about 3,600 ids would break every save, 1,000 take 37 KB.
   */
  perBrand: 1000,
} as const;

export const TOO_MANY_KITS = `A brand holds at most ${BRAND_KIT_LIMITS.perBrand} brand kits`;

export const LOGO_ROLES = ['logo', 'icon', 'dark', 'square'] as const;
export type LogoRole = (typeof LOGO_ROLES)[number];

/** What a logo's object may be: the image types a direct upload may have. */
export const LOGO_MEDIA_TYPES: ReadonlySet<string> = new Set(
  UPLOAD_CONTENT_TYPES.filter((type) => type.startsWith('image/')),
);
export const LOGO_NOT_AN_IMAGE = `a logo must be an image (${[...LOGO_MEDIA_TYPES].join(', ')})`;

/** The draft fields that name each role's logo. */
export const LOGO_FIELDS = {
  logo: { key: 'logo_key', url: 'logo_url' },
  icon: { key: 'logo_icon_key', url: 'logo_icon_url' },
  dark: { key: 'logo_dark_key', url: 'logo_dark_url' },
  square: { key: 'logo_square_key', url: 'logo_square_url' },
} as const satisfies Record<LogoRole, { key: string; url: string }>;

// ---- the draft and the saved kit ------------------------------------------------------------

const HEX = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** `#1A2B3C`, `1a2b3c` or `#abc`, stored as `#1A2B3C`. */
const hexColor = () =>
  v.pipe(
    string(),
    v.check((s) => HEX.test(s.trim()), valueError('a colour is a hex code such as #1A2B3C')),
    v.transform((s) => {
      const digits = s.trim().replace('#', '').toUpperCase();
      return `#${digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits}`;
    }),
    v.metadata({ jsonSchema: { type: 'string', pattern: HEX.source } }),
  );

const text = (max: number) => optionalNullable(string({ max }));
const words = () =>
  v.optional(
    list(string({ min: 1, max: BRAND_KIT_LIMITS.listItem }), { max: BRAND_KIT_LIMITS.listItems }),
    [],
  );
const L = BRAND_KIT_LIMITS;

/** Each text field's longest value (code points): what a save takes, and so where a draft is cut. */
export const TEXT_MAX = {
  name: L.name,
  brand_voice: L.longText,
  target_audience: L.longText,
  logo_wordmark: L.shortText,
  logo_wordmark_font: L.font,
  font_headings: L.font,
  font_body: L.font,
  imagery_style: L.longText,
  tagline: L.url,
  mission_statement: L.longText,
  industry: L.industry,
  location: L.shortText,
  website_url: L.url,
} as const;

/** The keyword lists of a kit: at most `listItems` items of 1 to `listItem` characters. */
export const WORD_LISTS = ['tone_keywords', 'competitors', 'seo_keywords', 'content_pillars'] as const;

/** The body of `POST /brand-kits`: every draft field (so a draft saves as returned) plus `brand_id`. */
export const CreateBrandKitBody = model({
  brand_id: optionalNullable(uuid()),
  name: text(TEXT_MAX.name),
  brand_voice: text(TEXT_MAX.brand_voice),
  target_audience: text(TEXT_MAX.target_audience),
  logo_wordmark: text(TEXT_MAX.logo_wordmark),
  logo_wordmark_font: text(TEXT_MAX.logo_wordmark_font),
  primary_color: optionalNullable(hexColor()),
  secondary_color: optionalNullable(hexColor()),
  accent_color: optionalNullable(hexColor()),
  font_headings: text(TEXT_MAX.font_headings),
  font_body: text(TEXT_MAX.font_body),
  imagery_style: text(TEXT_MAX.imagery_style),
  tagline: text(TEXT_MAX.tagline),
  mission_statement: text(TEXT_MAX.mission_statement),
  industry: text(TEXT_MAX.industry),
  location: text(TEXT_MAX.location),
  website_url: text(TEXT_MAX.website_url),
  logo_url: text(L.logoUrl),
  logo_icon_url: text(L.logoUrl),
  logo_dark_url: text(L.logoUrl),
  logo_square_url: text(L.logoUrl),
  logo_key: text(L.key),
  logo_icon_key: text(L.key),
  logo_dark_key: text(L.key),
  logo_square_key: text(L.key),
  logo_fields_authoritative: v.optional(boolean(), false),
  tone_keywords: words(),
  competitors: words(),
  seo_keywords: words(),
  content_pillars: words(),
  color_palette: optionalNullable(list(hexColor(), { max: L.palette })),
  social_links: optionalNullable(dict()),
  social_profiles: optionalNullable(dict()),
});
export type CreateBrandKitInput = v.InferOutput<typeof CreateBrandKitBody>;

export const BrandKitPath = model({ brand_kit_id: uuid() });

const strings = v.array(v.string());

/** Spec §"Brand kit draft", every field present (null or [] when the document says nothing). */
export const BrandKitDraft = v.object({
  name: nullableString,
  brand_voice: nullableString,
  target_audience: nullableString,
  logo_wordmark: nullableString,
  logo_wordmark_font: nullableString,
  primary_color: nullableString,
  secondary_color: nullableString,
  accent_color: nullableString,
  font_headings: nullableString,
  font_body: nullableString,
  imagery_style: nullableString,
  tagline: nullableString,
  mission_statement: nullableString,
  industry: nullableString,
  location: nullableString,
  website_url: nullableString,
  logo_url: nullableString,
  logo_icon_url: nullableString,
  logo_dark_url: nullableString,
  logo_square_url: nullableString,
  logo_key: nullableString,
  logo_icon_key: nullableString,
  logo_dark_key: nullableString,
  logo_square_key: nullableString,
  logo_fields_authoritative: withDefault(v.boolean(), false),
  tone_keywords: strings,
  competitors: strings,
  seo_keywords: strings,
  content_pillars: strings,
  color_palette: v.nullable(strings),
  social_links: v.nullable(v.record(v.string(), v.unknown())),
  social_profiles: v.nullable(v.record(v.string(), v.unknown())),
});
export type BrandKitDraft = v.InferOutput<typeof BrandKitDraft>;

/** A saved brand kit: the draft's fields, its id, the brand it belongs to and its timestamps. */
export const BrandKit = v.object({
  id: uuidOut,
  brand_id: v.nullable(uuidOut),
  ...BrandKitDraft.entries,
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type BrandKit = v.InferOutput<typeof BrandKit>;
