// The normalised product every feed format is turned into, and the snapshot document that carries a
// whole catalogue from the importer to the search function (loaded from S3 once per container).

export const MERCHANT_TYPES = ['affiliate', 'ucp', 'acp'] as const;
export type MerchantType = (typeof MERCHANT_TYPES)[number];

export const isMerchantType = (value: unknown): value is MerchantType =>
  typeof value === 'string' && (MERCHANT_TYPES as readonly string[]).includes(value);

export interface CatalogProduct {
  id: string;
  title: string;
  description: string;
  product_url: string;
  image_url: string;
  brand: string;
  product_type: string;
  category: string;
  /** Minor units of `currency` (cents for USD/EUR, yen for JPY). */
  price_cents: number;
  currency: string;
  rating: number | null;
  availability: string;
  merchant_domain: string;
  merchant_type: MerchantType;
  affiliate_url: string;
  /** The merchant whose feed listed it: a re-import of that feed replaces exactly these products. */
  merchant: string;
  /**
   * The feed's item_group_id: variants of one product (sizes, colours) share it, within `merchant`.
   * Absent when the feed gives none; search answers one result per group.
   */
  item_group_id?: string;
}

export const SNAPSHOT_VERSION = 1;

export interface SnapshotMeta {
  /** Catalogue name, e.g. "main" or a merchant domain; echoed as `source` in search responses. */
  source: string;
  /** ISO 8601; defaults to now. */
  created_at?: string;
}

export interface CatalogSnapshot {
  version: number;
  created_at: string;
  source: string;
  products: CatalogProduct[];
}

// Rows are arrays in this column order: keys are written once, not 40,000 times.
const COLUMNS = [
  'id',
  'title',
  'description',
  'product_url',
  'image_url',
  'brand',
  'product_type',
  'category',
  'price_cents',
  'currency',
  'rating',
  'availability',
  'merchant_domain',
  'merchant_type',
  'affiliate_url',
  'merchant',
  'item_group_id',
] as const satisfies readonly (keyof CatalogProduct)[];

type Column = (typeof COLUMNS)[number];
// Compile-time check that COLUMNS names every field of CatalogProduct: fails if one is left out.
const _everyFieldIsAColumn: Record<Exclude<keyof CatalogProduct, Column>, never> = {};

export class SnapshotError extends Error {
  constructor(message: string) {
    super(`Invalid catalog snapshot: ${message}`);
    this.name = 'SnapshotError';
  }
}

export const serializeSnapshot = (products: readonly CatalogProduct[], meta: SnapshotMeta): string => {
  const header = {
    version: SNAPSHOT_VERSION,
    created_at: meta.created_at ?? new Date().toISOString(),
    source: meta.source,
    count: products.length,
    columns: COLUMNS,
  };
  // One JSON document, one row per line: diff-able, and a truncated upload fails the count check.
  const rows = products.map((p) => JSON.stringify(COLUMNS.map((c) => p[c])));
  const headerJson = JSON.stringify(header);
  return `${headerJson.slice(0, -1)},"rows":[\n${rows.join(',\n')}\n]}\n`;
};

/** Columns a snapshot written before they existed lacks; read as absent. */
const OPTIONAL_COLUMNS: ReadonlySet<Column> = new Set(['item_group_id']);

const STRING_COLUMNS = COLUMNS.filter(
  (c) => c !== 'price_cents' && c !== 'rating' && c !== 'merchant_type' && !OPTIONAL_COLUMNS.has(c),
);

const rowToProduct = (row: unknown, index: number, at: Map<string, number>): CatalogProduct => {
  if (!Array.isArray(row)) throw new SnapshotError(`row ${index} is not an array`);
  const get = (c: Column): unknown => row[at.get(c)!];
  const out: Record<string, unknown> = {};
  for (const c of STRING_COLUMNS) {
    const value = get(c);
    if (typeof value !== 'string') throw new SnapshotError(`row ${index}: ${c} is not a string`);
    out[c] = value;
  }
  const price = get('price_cents');
  if (typeof price !== 'number' || !Number.isSafeInteger(price) || price < 0) {
    throw new SnapshotError(`row ${index}: price_cents is not a non-negative integer`);
  }
  const rating = get('rating');
  if (rating !== null && (typeof rating !== 'number' || !Number.isFinite(rating))) {
    throw new SnapshotError(`row ${index}: rating is not a number or null`);
  }
  const merchantType = get('merchant_type');
  if (!isMerchantType(merchantType)) throw new SnapshotError(`row ${index}: bad merchant_type`);
  out.price_cents = price;
  out.rating = rating;
  out.merchant_type = merchantType;
  // null in the row (JSON's form of undefined) and a missing column both mean no group.
  const group = at.has('item_group_id') ? get('item_group_id') : null;
  if (group !== null) {
    if (typeof group !== 'string' || group === '') {
      throw new SnapshotError(`row ${index}: item_group_id is not a non-empty string or null`);
    }
    out.item_group_id = group;
  }
  return out as unknown as CatalogProduct;
};

/** Reads a snapshot; throws SnapshotError on anything unexpected so a bad upload is never served. */
export const parseSnapshot = (input: string | Uint8Array): CatalogSnapshot => {
  let text: string;
  try {
    text = typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch {
    throw new SnapshotError('not UTF-8 text');
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SnapshotError(`not JSON (${(err as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null) throw new SnapshotError('not an object');
  const d = doc as Record<string, unknown>;
  if (d.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(`unsupported version ${String(d.version)} (expected ${SNAPSHOT_VERSION})`);
  }
  if (typeof d.created_at !== 'string' || Number.isNaN(Date.parse(d.created_at))) {
    throw new SnapshotError('created_at is not a date');
  }
  if (typeof d.source !== 'string') throw new SnapshotError('source is not a string');
  if (!Array.isArray(d.columns) || !Array.isArray(d.rows)) throw new SnapshotError('columns or rows missing');
  // Columns are looked up by name so a later version may add or reorder columns.
  const at = new Map<string, number>();
  d.columns.forEach((c, i) => {
    if (typeof c === 'string') at.set(c, i);
  });
  const missing = COLUMNS.filter((c) => !at.has(c) && !OPTIONAL_COLUMNS.has(c));
  if (missing.length > 0) throw new SnapshotError(`missing columns: ${missing.join(', ')}`);
  if (d.count !== d.rows.length) {
    throw new SnapshotError(`count ${String(d.count)} does not match ${d.rows.length} rows (truncated?)`);
  }
  const products = d.rows.map((row, i) => rowToProduct(row, i, at));
  return { version: d.version, created_at: d.created_at, source: d.source, products };
};

/** A product search result as the API specifies it (endpoint 5); rating is left out when unknown. */
export interface ProductSearchResult {
  title: string;
  product_url: string;
  currency: string;
  image_url: string;
  affiliate_url: string;
  merchant_domain: string;
  merchant_type: MerchantType;
  source: string;
  price_cents: number;
  rating?: number;
}

export const toSearchResult = (p: CatalogProduct, source: string): ProductSearchResult => {
  const result: ProductSearchResult = {
    title: p.title,
    product_url: p.product_url,
    currency: p.currency,
    image_url: p.image_url,
    affiliate_url: p.affiliate_url,
    merchant_domain: p.merchant_domain,
    merchant_type: p.merchant_type,
    source,
    price_cents: p.price_cents,
  };
  if (p.rating !== null) result.rating = p.rating;
  return result;
};
