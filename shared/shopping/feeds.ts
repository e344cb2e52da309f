// Merchant feed import: Google Merchant Center (TSV/CSV), the Agentic Commerce Protocol flat feed
// (TSV/CSV) and JSON Lines with minor-unit prices (Universal Commerce Protocol style), all turned
// into CatalogProduct. Row problems are reported and the row skipped; a file that cannot be read as
// a whole throws FeedError so the caller keeps its current catalogue untouched.
import { parse as parseCsv } from 'csv-parse/sync';
import { decodeHTMLStrict } from 'entities/decode';
import { now } from '../clock.ts';
import { codePointLength, cutAtWord } from '../strings.ts';
import type { CatalogProduct, MerchantType } from './catalog.ts';

export type FeedFormat = 'gmc' | 'acp' | 'jsonl';

export interface ParseFeedOptions {
  /** Merchant domain ("example.com"; a URL is accepted). Product links must live on it. */
  merchant: string;
  merchantType: MerchantType;
  /** Affiliate tracking parameters appended to product_url to make affiliate_url. */
  trackingParams?: Record<string, string>;
  format?: 'auto' | FeedFormat;
  /** The moment a sale price's effective period is checked against; the clock's now by default. */
  at?: Date;
}

export interface FeedRowError {
  /** 1-based line in the file where the row starts. */
  line: number;
  reason: string;
}

export interface ParseFeedResult {
  format: FeedFormat;
  products: CatalogProduct[];
  errors: FeedRowError[];
  /** Rows the merchant keeps out of search (`enable_search` false): valid or not, never imported. */
  withheld: number;
}

/** The file as a whole is unusable; nothing from it should be applied. */
export class FeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedError';
  }
}

/** A single row is unusable; it is reported and skipped. */
class RowError extends Error {}

// ---------------------------------------------------------------------------------------------
// Prices

/**
 * ISO 4217's minor units of the currencies where they are not 2. Not ICU's: its digits are a display
 * convention (0 for IDR, HUF, COP, PKR, IQD and 12 more, where ISO has 2 or 3), which a client scaling
 * `price_cents` by ISO, and a JSON Lines feed giving minor units (ACP's, as payment APIs count them),
 * read a hundredfold apart; and they can change with Node.js's ICU, which would rescale prices.
 */
const ISO_MINOR_DIGITS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((code) => [code, 0]),
  ),
  ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((code) => [code, 3])),
  CLF: 4,
  UYW: 4,
};

// ICU formats any three letters as a currency ("12 pcs" would be 12.00 PCS); only known codes pass:
// Node's list, and the codes above it lacks (the funds codes CLF, UYI and UYW, on Node.js 20 to 24).
const CURRENCIES: ReadonlySet<string> = new Set([
  ...Intl.supportedValuesOf('currency'),
  ...Object.keys(ISO_MINOR_DIGITS),
]);

/**
 * Decimal places of a currency's minor unit (2 for USD and IDR, 0 for JPY, 3 for KWD), by ISO 4217.
 * Every price passes through here, so it is also where a currency code is checked.
 */
export const currencyMinorDigits = (currency: string): number => {
  if (!CURRENCIES.has(currency)) throw new RowError(`"${currency}" is not an ISO 4217 currency code`);
  return ISO_MINOR_DIGITS[currency] ?? 2;
};

const SPACES_RE = /[\s\u00a0\u202f\u2009']/g;

/**
 * "1,299.99", "1.299,99", "1.299.000", "1299,99", "15" → integer minor units. A lone comma followed by
 * one or two digits is a decimal comma; otherwise commas group thousands (Merchant Center uses a
 * decimal dot), and so do two or more dots.
 * One separator and exactly three digits ("1.299", "1,299") is refused where it is ambiguous.
 */
// [pattern, separator to drop from the integer part]; tried in order. A thousands group never
// starts with 0: "0,500" is half a unit, not 500.
const DECIMAL_FORMS: readonly [RegExp, string][] = [
  [/^(\d+)(?:\.(\d+))?$/, ''],
  [/^([1-9]\d{0,2}(?:,\d{3})+)(?:\.(\d+))?$/, ','],
  [/^(\d+),(\d{1,2})$/, ''],
  [/^(0),(\d+)$/, ''],
  [/^([1-9]\d{0,2}(?:\.\d{3})+)(?:,(\d+))?$/, '.'],
];

// One separator then exactly three digits: "1.299" is 1299 written the German way or 1.299 written
// the English way.
const THREE_AFTER_ONE_SEPARATOR = /^[1-9]\d{0,2}([.,])\d{3}$/;

/** `numberIsJson`: the text is a JSON number's, whose dot is always the decimal point. */
const decimalToMinor = (numberText: string, digits: number, numberIsJson = false): number => {
  const s = numberText.replace(SPACES_RE, '');
  // A dot there is a decimal point (Merchant Center's rule) only when the currency has 3 decimals:
  // "1.299 KWD" is 1.299. "1.299 EUR" read so is 1.30 EUR, read as German grouping 1,299 EUR; a comma
  // is grouping except in a 3-decimal currency ("1,299 KWD"). Guessing is a thousandfold mistake
  // either way, so such a row is refused with the reason and the merchant can write it plainly.
  const ambiguous = THREE_AFTER_ONE_SEPARATOR.exec(s);
  if (ambiguous && !numberIsJson && (ambiguous[1] === '.') === digits < 3) {
    throw new RowError(
      `price "${numberText}" is ambiguous (thousands or decimals?); write it with ${digits} decimals`,
    );
  }
  let intPart: string | undefined;
  let frac = '';
  for (const [pattern, group] of DECIMAL_FORMS) {
    const m = pattern.exec(s);
    if (!m) continue;
    intPart = group ? m[1]!.replaceAll(group, '') : m[1]!;
    frac = m[2] ?? '';
    break;
  }
  if (intPart === undefined) throw new RowError(`"${numberText}" is not a price`);
  // Integer arithmetic on the digit strings: 0.1 + 0.2 style float errors never reach a price.
  let minor = Number(intPart + frac.slice(0, digits).padEnd(digits, '0'));
  if (frac.length > digits && Number(frac[digits]) >= 5) minor += 1;
  if (!Number.isSafeInteger(minor)) throw new RowError(`price "${numberText}" is out of range`);
  return minor;
};

export interface Price {
  /** Integer minor units of `currency`. */
  amount_minor: number;
  currency: string;
}

/**
 * Parses a feed price: "15.00 USD", "USD 15.00", "1,299.99 EUR", or a bare number when the feed has
 * a separate currency column. Throws on anything else (no symbol guessing: "$" is not one currency).
 */
export const parsePrice = (text: string, defaultCurrency?: string): Price => {
  // Runs of white space become one space first: the pattern reads a run in three places (around the
  // code and inside the number), so on long runs it failed in cubic time (two of 1,000 spaces: 10 s).
  const t = text.trim().replace(/\s+/g, ' ');
  const m = /^([A-Za-z]{3})?\s*([\d.,\s\u00a0\u202f\u2009']+?)\s*([A-Za-z]{3})?$/.exec(t);
  if (!m || (m[1] && m[3])) throw new RowError(`"${text}" is not a price like "15.00 USD"`);
  const currency = (m[1] ?? m[3] ?? defaultCurrency ?? '').toUpperCase();
  if (!currency) throw new RowError(`price "${text}" has no currency`);
  const digits = currencyMinorDigits(currency);
  return { amount_minor: decimalToMinor(m[2]!, digits), currency };
};

// ---------------------------------------------------------------------------------------------
// URLs and merchants

const normalizeHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/\.$/, '');

/** "https://www.Example.com/shop" or "example.com" → "example.com". */
export const normalizeMerchantDomain = (merchant: string): string => {
  const trimmed = merchant.trim();
  try {
    const url = new URL(trimmed.includes('://') ? trimmed : `https://${trimmed}`);
    const host = normalizeHost(url.hostname);
    if (host.includes('.') && !trimmed.includes(' ')) return host;
  } catch {
    // Falls through to the error below.
  }
  throw new FeedError(`merchant "${merchant}" is not a domain name`);
};

const parseHttpUrl = (value: string): URL | null => {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
};

/**
 * Adds tracking parameters to a product URL. Existing parameters are kept byte for byte (a
 * URLSearchParams round trip would re-encode them); one with the same name as a tracking
 * parameter is replaced so the merchant sees a single value. The fragment stays last.
 */
export const buildAffiliateUrl = (
  productUrl: string,
  trackingParams: Record<string, string> = {},
): string => {
  const entries = Object.entries(trackingParams);
  if (entries.length === 0) return productUrl;
  const url = new URL(productUrl);
  const ours = new Set(entries.map(([k]) => k));
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => {
      if (pair === '') return false;
      const rawKey = pair.split('=', 1)[0]!;
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replaceAll('+', ' '));
      } catch {
        // A malformed escape is kept as it is.
      }
      return !ours.has(key);
    });
  const added = new URLSearchParams(entries).toString();
  url.search = [...kept, added].join('&');
  return url.toString();
};

// ---------------------------------------------------------------------------------------------
// Field helpers

/** Canonical fields and the column / key names the formats use for them. */
const ALIASES = {
  id: ['id', 'item_id', 'offer_id', 'product_id', 'sku'],
  title: ['title', 'name', 'product_name'],
  description: ['description', 'product_description'],
  link: ['link', 'url', 'product_url', 'product_link'],
  image: ['image_link', 'image_url', 'image', 'main_image_url'],
  price: ['price'],
  sale_price: ['sale_price'],
  sale_window: ['sale_price_effective_date'],
  currency: ['currency', 'price_currency', 'currency_code'],
  availability: ['availability', 'stock_status'],
  brand: ['brand', 'vendor'],
  product_type: ['product_type'],
  category: ['google_product_category', 'product_category', 'category'],
  // product_review_rating is the ACP feed's name (its store_review_rating rates the seller, not this).
  rating: [
    'product_rating',
    'product_review_rating',
    'rating',
    'average_rating',
    'product_review_average',
    'review_average',
  ],
  // Merchant Center's name; the ACP flat feed's newer spec calls it group_id.
  item_group_id: ['item_group_id', 'group_id'],
  // The ACP feed's opt-out: false keeps the product out of search (withheld, not imported).
  enable_search: ['enable_search'],
} as const;

type Field = keyof typeof ALIASES;
type RawRow = Partial<Record<Field, unknown>>;

const REQUIRED: readonly Field[] = ['id', 'title', 'link', 'price'];

/**
 * Longest item_group_id kept, in code points: the ACP feed's limit (Merchant Center's is 50), so any
 * id valid under either spec passes. A longer one is a shifted column or a description pasted in.
 */
export const MAX_ITEM_GROUP_ID_LENGTH = 70;

/**
 * Longest title kept, in code points; a longer one is cut at a word and ends in '…'. The feed specs
 * stop at 150 (Merchant Center, ACP): this keeps every real title whole, and a page of 20 results far
 * inside Lambda's 6 MB response (titles of 360 KB made every search that found them answer 500).
 */
export const MAX_TITLE_LENGTH = 500;

/**
 * Longest product or image link, in code points as written: Merchant Center's limit. A longer product
 * link skips its row (a cut URL names another page, and results echo it twice); a longer image link is
 * left out, as an unreadable one is.
 */
export const MAX_LINK_LENGTH = 2000;

/** What may follow a `<` that opens a tag, as a browser reads HTML: a letter (`<b>`), `/` (`</b>`), `!`
 * (`<!-- -->`) or `?`. Any other `<` is text: `USB-C <-> HDMI`, `<2 Pack>`, `< 3 years`. */
const TAG_START = /[A-Za-z/!?]/;

/**
 * Each tag (`<b>`, `</p>`, `<br/>`) becomes a space. By hand, not `/<[^>]*>/g`: that scans from every
 * `<` to the text's end when no `>` follows, quadratic in the text (a field of 40,000 `<` took 2.7 s).
 */
const stripTags = (text: string): string => {
  let out = '';
  let from = 0;
  for (let open = text.indexOf('<'); open !== -1; open = text.indexOf('<', open + 1)) {
    if (!TAG_START.test(text.charAt(open + 1))) continue;
    const close = text.indexOf('>', open + 1);
    // No `>` after this tag's `<`, so none after any later one: the rest is text.
    if (close === -1) break;
    out += `${text.slice(from, open)} `;
    from = close + 1;
    open = close;
  }
  return out + text.slice(from);
};

/** Feeds carry stray HTML in titles and descriptions; the index and the API want plain text. */
const cleanText = (value: unknown): string => {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  // JSON Lines may escape half a surrogate pair (an exporter that cut a title in UTF-16 units): it is
  // U+FFFD, as a reference to no character is, so no answer carries text a strict client refuses.
  let s = String(value).toWellFormed();
  if (s.includes('<')) s = stripTags(s);
  // Every HTML character reference ending in ';' ("Caf&eacute;", "&ndash;", "&#233;"), as a browser
  // reads it; an unknown name stays as written.
  if (s.includes('&')) s = decodeHTMLStrict(s);
  // A soft hyphen is invisible, and would cut the word it sits in into two for search.
  return s
    .replace(/\u00ad/g, '')
    .replace(/\s+/g, ' ')
    .trim();
};

/** "in stock", "InStock", "https://schema.org/InStock", "in_stock" → "in_stock". */
const normalizeAvailability = (value: unknown): string => {
  if (typeof value === 'boolean') return value ? 'in_stock' : 'out_of_stock';
  const s = cleanText(value)
    .replace(/^https?:\/\/schema\.org\//i, '')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return s || 'unknown';
};

/** A 0–5 star rating, or null: a broken rating never costs a product its place in the catalogue. */
const parseRating = (value: unknown): number | null => {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    const m = /^\s*(\d+(?:[.,]\d+)?)/.exec(value);
    if (!m) return null;
    n = Number(m[1]!.replace(',', '.'));
  } else if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return parseRating(o.value ?? o.average ?? o.rating);
  } else return null;
  return Number.isFinite(n) && n >= 0 && n <= 5 ? Math.round(n * 100) / 100 : null;
};

/** Category paths may come as "A > B", as arrays, or as bare Google taxonomy ids. */
const categoryText = (value: unknown): string => {
  if (Array.isArray(value)) return value.map(cleanText).filter(Boolean).join(' > ');
  return cleanText(value);
};

const firstString = (value: unknown): string => {
  if (Array.isArray(value)) return firstString(value[0]);
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return firstString(o.url ?? o.link ?? o.name ?? o.value);
  }
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
};

/** A JSON Lines price: minor units ({amount}, bare number, price_cents) or a decimal string. */
const jsonPrice = (value: unknown, currencyField: unknown, label: string): Price => {
  const fallback = typeof currencyField === 'string' ? currencyField.trim().toUpperCase() : undefined;
  if (typeof value === 'number') {
    if (!fallback) throw new RowError(`${label} has no currency`);
    currencyMinorDigits(fallback);
    return { amount_minor: minorInteger(value, label), currency: fallback };
  }
  if (typeof value === 'string') return parsePrice(value, fallback);
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    const cur = o.currency ?? o.currency_code ?? o.currencyCode ?? fallback;
    if (typeof cur !== 'string' || !cur) throw new RowError(`${label} has no currency`);
    const currency = cur.trim().toUpperCase();
    currencyMinorDigits(currency);
    const minor = o.amount ?? o.amount_minor ?? o.minor ?? o.cents ?? o.value_minor;
    if (minor !== undefined) return { amount_minor: minorInteger(minor, label), currency };
    if (typeof o.value === 'string' || typeof o.value === 'number') {
      // {value: "15.00"} is Google's decimal style, not minor units.
      const digits = currencyMinorDigits(currency);
      return { amount_minor: decimalToMinor(String(o.value), digits, typeof o.value === 'number'), currency };
    }
  }
  throw new RowError(`${label} is missing or not understood`);
};

const DAY_MS = 86_400_000;

/** One end of a sale period: an ISO 8601 date-time (in UTC when it names no zone, as a bare date is,
 * not in the importing machine's zone), or a date (the whole day, UTC). */
const periodEdge = (text: string, end: boolean): number => {
  const t = text.trim();
  const ms = Date.parse(/[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(t) ? `${t}Z` : t);
  return /^\d{4}-\d{2}-\d{2}$/.test(t) && end ? ms + DAY_MS : ms;
};

/**
 * Whether a sale price applies at `at`. No period: always. A period ("start/end", Merchant Center and
 * ACP; `{startTime, endTime}` in JSON) applies from its start until its end; an unreadable one never
 * does, so the regular price is shown rather than a sale the merchant may not be running.
 */
const saleApplies = (period: unknown, at: number): boolean => {
  if (period === undefined || period === null || period === '') return true;
  let start: number;
  let end: number;
  if (typeof period === 'string') {
    const sides = period.split('/');
    if (sides.length !== 2) return false;
    start = periodEdge(sides[0]!, false);
    end = periodEdge(sides[1]!, true);
  } else if (typeof period === 'object' && !Array.isArray(period)) {
    const o = period as Record<string, unknown>;
    const from = o.startTime ?? o.start_time ?? o.start;
    const to = o.endTime ?? o.end_time ?? o.end;
    if (typeof from !== 'string' || typeof to !== 'string') return false;
    start = periodEdge(from, false);
    end = periodEdge(to, true);
  } else return false;
  return start <= at && at < end;
};

const minorInteger = (value: unknown, label: string): number => {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new RowError(`${label} ${JSON.stringify(value)} is not an integer amount in minor units`);
  }
  return n;
};

// ---------------------------------------------------------------------------------------------
// Rows → products

interface Context {
  merchant: string;
  merchantType: MerchantType;
  trackingParams: Record<string, string>;
  /** Epoch ms that sale periods are checked against. */
  at: number;
  seen: Map<string, number>;
  products: CatalogProduct[];
  errors: FeedRowError[];
  withheld: number;
  json: boolean;
}

const toProduct = (row: RawRow, ctx: Context): CatalogProduct => {
  const id = firstString(row.id);
  if (!id) throw new RowError('id is empty');
  const cleanTitle = cleanText(row.title);
  if (!cleanTitle) throw new RowError('title is empty');
  const title =
    codePointLength(cleanTitle) > MAX_TITLE_LENGTH ? cutAtWord(cleanTitle, MAX_TITLE_LENGTH) : cleanTitle;
  const link = firstString(row.link);
  if (!link) throw new RowError('link is empty');
  if (codePointLength(link) > MAX_LINK_LENGTH)
    throw new RowError(`link is longer than ${MAX_LINK_LENGTH} characters`);
  const url = parseHttpUrl(link);
  if (!url) throw new RowError(`link "${link}" is not an http(s) URL`);
  // As stored: the URL percent-encodes what the feed wrote as text (an "é" becomes six characters).
  if (url.toString().length > MAX_LINK_LENGTH)
    throw new RowError(`link is longer than ${MAX_LINK_LENGTH} characters as a URL`);
  const host = normalizeHost(url.hostname);
  // A feed only speaks for its own merchant: a row pointing elsewhere is refused.
  if (host !== ctx.merchant && !host.endsWith(`.${ctx.merchant}`)) {
    throw new RowError(`link host ${host} is not on merchant ${ctx.merchant}`);
  }

  const price = priceOf(row.price, row.currency, 'price', ctx.json);
  if (price.amount_minor <= 0) throw new RowError('price must be greater than zero');
  if (
    row.sale_price !== undefined &&
    row.sale_price !== '' &&
    row.sale_price !== null &&
    saleApplies(row.sale_window, ctx.at)
  ) {
    // A broken or foreign-currency sale price is ignored: the regular price is still right.
    try {
      const sale = priceOf(row.sale_price, row.currency ?? price.currency, 'sale_price', ctx.json);
      if (
        sale.currency === price.currency &&
        sale.amount_minor > 0 &&
        sale.amount_minor < price.amount_minor
      ) {
        price.amount_minor = sale.amount_minor;
      }
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
    }
  }

  const itemGroupId = firstString(row.item_group_id);
  // An identifier, read like id (trimmed, compared exactly). One too long is refused with the row, as a
  // bad id is: it is a shifted column or pasted text, and the row's other fields are suspect too.
  if ([...itemGroupId].length > MAX_ITEM_GROUP_ID_LENGTH) {
    throw new RowError(`item_group_id is longer than ${MAX_ITEM_GROUP_ID_LENGTH} characters`);
  }

  const imageLink = firstString(row.image);
  const parsedImage = codePointLength(imageLink) > MAX_LINK_LENGTH ? null : parseHttpUrl(imageLink);
  const image = parsedImage && parsedImage.toString().length <= MAX_LINK_LENGTH ? parsedImage : null;
  const productUrl = url.toString();
  const product: CatalogProduct = {
    id,
    title,
    description: cleanText(row.description),
    product_url: productUrl,
    image_url: image ? image.toString() : '',
    brand: cleanText(firstString(row.brand)),
    product_type: categoryText(row.product_type),
    category: categoryText(row.category),
    price_cents: price.amount_minor,
    currency: price.currency,
    rating: parseRating(row.rating),
    availability: normalizeAvailability(row.availability),
    merchant_domain: host,
    merchant_type: ctx.merchantType,
    affiliate_url: buildAffiliateUrl(productUrl, ctx.trackingParams),
    merchant: ctx.merchant,
  };
  if (itemGroupId) product.item_group_id = itemGroupId;
  return product;
};

const priceOf = (value: unknown, currency: unknown, label: string, json: boolean): Price => {
  if (json) return jsonPrice(value, currency, label);
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) throw new RowError(`${label} is empty`);
  const cur = typeof currency === 'string' && currency.trim() ? currency.trim().toUpperCase() : undefined;
  return parsePrice(text, cur);
};

/** `enable_search` false (the boolean, or the text in any case): the merchant keeps it out of search. */
const withheldFromSearch = (row: RawRow): boolean =>
  row.enable_search === false ||
  (typeof row.enable_search === 'string' && row.enable_search.trim().toLowerCase() === 'false');

const acceptRow = (row: RawRow, line: number, ctx: Context): void => {
  if (withheldFromSearch(row)) {
    ctx.withheld++;
    return;
  }
  try {
    const product = toProduct(row, ctx);
    const first = ctx.seen.get(product.id);
    if (first !== undefined) throw new RowError(`duplicate id "${product.id}" (first on line ${first})`);
    ctx.seen.set(product.id, line);
    ctx.products.push(product);
  } catch (err) {
    if (!(err instanceof RowError)) throw err;
    ctx.errors.push({ line, reason: err.message });
  }
};

// ---------------------------------------------------------------------------------------------
// Formats

const normalizeHeader = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/^g:/, '')
    .replace(/[\s-]+/g, '_');

const ACP_ONLY_COLUMNS = ['item_id', 'seller_name', 'seller_url', 'enable_search', 'enable_checkout'];

/** Tab, then the delimiter the header holds most of (comma on a tie); Merchant Center also takes | and ~. */
const pickDelimiter = (headerLine: string): string => {
  const count = (ch: string) => headerLine.split(ch).length - 1;
  const tabs = count('\t');
  if (tabs > 0 && tabs >= count(',')) return '\t';
  let best = ',';
  for (const ch of [';', '|', '~']) if (count(ch) > count(best)) best = ch;
  return best;
};

const parseDelimited = (text: string, requested: 'auto' | 'gmc' | 'acp', ctx: Context): FeedFormat => {
  // The header is the first line with something on it: exports sometimes start with blank lines.
  const headerLine = /^.*\S.*$/m.exec(text)?.[0] ?? '';
  const delimiter = pickDelimiter(headerLine);
  let columns: Partial<Record<Field, number>> = {};
  let width = 0;
  let format: FeedFormat = requested === 'auto' ? 'gmc' : requested;
  let lastEndLine = 0;

  const onHeader = (header: string[]) => {
    const names = header.map(normalizeHeader);
    width = names.length;
    columns = {};
    for (const field of Object.keys(ALIASES) as Field[]) {
      for (const alias of ALIASES[field]) {
        const at = names.indexOf(alias);
        if (at !== -1) {
          columns[field] = at;
          break;
        }
      }
    }
    const missing = REQUIRED.filter((f) => columns[f] === undefined);
    if (missing.length > 0) {
      const wanted = missing.map((f) => `${f} (${ALIASES[f].join(' | ')})`).join(', ');
      throw new FeedError(`missing required column(s): ${wanted}; header was: ${names.join(', ')}`);
    }
    if (requested === 'auto') {
      const acp =
        names.some((n) => ACP_ONLY_COLUMNS.includes(n)) || (names.includes('url') && !names.includes('link'));
      format = acp ? 'acp' : 'gmc';
    }
  };

  try {
    parseCsv(text, {
      delimiter,
      raw: true,
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record, info) => {
        // With `raw: true` csv-parse hands over { record, raw }; its typings only know string[].
        const rec = record as unknown as { record: string[]; raw: string };
        const line = startLine(rec.raw, info.lines);
        lastEndLine = info.lines;
        const fields = rec.record;
        if (fields.every((f) => f.trim() === '')) return null;
        if (width === 0) {
          onHeader(fields);
          return null;
        }
        // Fields past the header's last column are a value split by an unquoted delimiter, unless
        // they are empty: exports that end every row with a delimiter add one to each.
        if (fields.length > width && fields.slice(width).some((f) => f.trim() !== '')) {
          ctx.errors.push({
            line,
            reason: `row has ${fields.length} fields but the header has ${width} (unquoted ${delimiter === '\t' ? 'tab' : `"${delimiter}"`}?)`,
          });
          return null;
        }
        const row: RawRow = {};
        for (const [field, at] of Object.entries(columns) as [Field, number][]) {
          const value = fields[at];
          if (value !== undefined && value.trim() !== '') row[field] = value;
        }
        acceptRow(row, line, ctx);
        return null;
      },
    });
  } catch (err) {
    if (err instanceof FeedError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') {
      // Everything after an unclosed quote is swallowed into one field: no row after it can be trusted.
      throw new FeedError(
        `line ${lastEndLine + 1}: a quoted field is never closed; the rest of the file is unreadable`,
      );
    }
    throw new FeedError(
      `not a readable ${delimiter === '\t' ? 'TSV' : 'CSV'} file: ${(err as Error).message}`,
    );
  }
  if (width === 0) throw new FeedError('feed has no header row');
  return format;
};

/** csv-parse reports the line where a record ends; rows are reported where they start. */
const startLine = (raw: string, endLine: number): number => {
  let body = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  body = body.replace(/^\n+/, '');
  let breaks = 0;
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) breaks++;
  return endLine - breaks;
};

const JSON_ALIASES: Record<Field, readonly string[]> = {
  ...ALIASES,
  image: [...ALIASES.image, 'images', 'image_urls', 'imageUrl'],
  link: [...ALIASES.link, 'productUrl'],
  id: [...ALIASES.id, 'offer_id'],
  category: [...ALIASES.category, 'categories'],
  price: ['price', 'price_cents', 'price_minor'],
  sale_price: ['sale_price', 'salePrice'],
  sale_window: ['sale_price_effective_date', 'salePriceEffectiveDate'],
  product_type: ['product_type', 'productType'],
  item_group_id: [...ALIASES.item_group_id, 'itemGroupId', 'groupId'],
  enable_search: [...ALIASES.enable_search, 'enableSearch'],
};

/** Keys whose name says minor units, whatever the JSON type of their value. */
const MINOR_UNIT_KEYS: ReadonlySet<string> = new Set(['price_cents', 'price_minor']);

const parseJsonLines = (text: string, ctx: Context): void => {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const source = lines[i]!.trim();
    if (source === '') continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (err) {
      ctx.errors.push({ line, reason: `invalid JSON: ${(err as Error).message}` });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.errors.push({ line, reason: 'not a JSON object' });
      continue;
    }
    const o = value as Record<string, unknown>;
    const row: RawRow = {};
    for (const field of Object.keys(JSON_ALIASES) as Field[]) {
      for (const key of JSON_ALIASES[field]) {
        if (o[key] !== undefined && o[key] !== null) {
          // Under price_cents a string of digits is minor units too, never a decimal amount.
          row[field] = MINOR_UNIT_KEYS.has(key) && typeof o[key] !== 'object' ? { amount: o[key] } : o[key];
          break;
        }
      }
    }
    // The sale price may rely on the currency given inside the regular price object.
    if (row.currency === undefined && typeof o.price === 'object' && o.price !== null) {
      row.currency = (o.price as Record<string, unknown>).currency;
    }
    acceptRow(row, line, ctx);
  }
};

// ---------------------------------------------------------------------------------------------
// Entry point

const decodeInput = (input: string | Uint8Array): string => {
  if (typeof input === 'string') return input;
  if (input[0] === 0x1f && input[1] === 0x8b)
    throw new FeedError('feed is gzip-compressed; decompress it first');
  if (input[0] === 0x50 && input[1] === 0x4b) throw new FeedError('feed is a zip archive; extract it first');
  if ((input[0] === 0xff && input[1] === 0xfe) || (input[0] === 0xfe && input[1] === 0xff)) {
    throw new FeedError('feed is UTF-16; export it as UTF-8');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch {
    throw new FeedError('feed is not UTF-8 text');
  }
};

export const detectFormat = (text: string): FeedFormat | 'delimited' => {
  const first = text.replace(/^\ufeff/, '').trimStart();
  if (first.startsWith('{')) return 'jsonl';
  if (first.startsWith('['))
    throw new FeedError('feed is a JSON array; send JSON Lines (one object per line)');
  if (first.startsWith('<'))
    throw new FeedError('feed looks like XML/HTML; only TSV, CSV and JSON Lines are read');
  return 'delimited';
};

/**
 * Parses a merchant feed into catalogue products. Throws FeedError when the file as a whole is
 * unusable (not text, unknown format, missing required columns, or no valid row at all).
 */
export const parseFeed = (input: string | Uint8Array, opts: ParseFeedOptions): ParseFeedResult => {
  const trackingParams = opts.trackingParams ?? {};
  const hasTracking = Object.keys(trackingParams).length > 0;
  if (hasTracking && opts.merchantType !== 'affiliate') {
    throw new FeedError(`tracking parameters only apply to affiliate merchants, not ${opts.merchantType}`);
  }
  for (const key of Object.keys(trackingParams)) {
    if (!key.trim()) throw new FeedError('tracking parameter names must not be empty');
  }
  const ctx: Context = {
    merchant: normalizeMerchantDomain(opts.merchant),
    merchantType: opts.merchantType,
    trackingParams,
    at: (opts.at ?? now()).getTime(),
    seen: new Map(),
    products: [],
    errors: [],
    withheld: 0,
    json: false,
  };
  const raw = decodeInput(input);
  if (raw.includes('\u0000')) throw new FeedError('feed is not text (it contains NUL bytes)');
  // One line ending everywhere keeps line numbers honest for CR LF files.
  const text = raw.replace(/\r\n?/g, '\n').replace(/^\ufeff/, '');
  if (text.trim() === '') throw new FeedError('feed is empty');

  const detected = detectFormat(text);
  const requested = opts.format ?? 'auto';
  let format: FeedFormat;
  if (requested === 'jsonl' || (requested === 'auto' && detected === 'jsonl')) {
    if (detected !== 'jsonl')
      throw new FeedError('feed was declared JSON Lines but does not start with a JSON object');
    ctx.json = true;
    parseJsonLines(text, ctx);
    format = 'jsonl';
  } else {
    if (detected === 'jsonl') throw new FeedError(`feed was declared ${requested} but is JSON Lines`);
    format = parseDelimited(text, requested === 'auto' ? 'auto' : requested, ctx);
  }

  if (ctx.products.length === 0 && ctx.errors.length > 0 && ctx.withheld === 0) {
    const first = ctx.errors[0]!;
    // Applying an all-bad file would empty the merchant's catalogue; refuse it instead (one that
    // withholds rows from search is applied: the products it holds back leave the catalogue).
    throw new FeedError(
      `no valid rows (${ctx.errors.length} rejected; first on line ${first.line}: ${first.reason})`,
    );
  }
  return { format, products: ctx.products, errors: ctx.errors, withheld: ctx.withheld };
};
