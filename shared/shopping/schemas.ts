// Spec §"Product search result and response" and endpoint 5, with the limits exactly as stated; the
// session resource around it is ours (docs/shopping.md).
import * as v from 'valibot';
import { integer, literal, model, modelRule, optionalNullable, string, uuid } from '../http/fields.ts';
import { dateTimeOut, intOut, uuidOut } from '../http/response-fields.ts';
import { MERCHANT_TYPES } from './catalog.ts';

export const SHOPPING_LIMITS = {
  query: { min: 1, max: 500 },
  maxResults: { min: 1, max: 20, default: 10 },
  title: { min: 1, max: 200 },
  /** Searches returned by GET session, newest first. */
  recentSearches: 20,
} as const;

export const ShoppingSessionPath = model({ session_id: uuid() });

export const CreateShoppingSessionBody = model({
  title: optionalNullable(string(SHOPPING_LIMITS.title)),
});
export type CreateShoppingSessionInput = v.InferOutput<typeof CreateShoppingSessionBody>;

const SearchFields = model({
  query: string(SHOPPING_LIMITS.query),
  merchant_type: optionalNullable(literal(MERCHANT_TYPES)),
  max_results: v.optional(
    integer({ ge: SHOPPING_LIMITS.maxResults.min, le: SHOPPING_LIMITS.maxResults.max }),
    SHOPPING_LIMITS.maxResults.default,
  ),
  price_min_cents: optionalNullable(integer({ ge: 0 })),
  price_max_cents: optionalNullable(integer({ ge: 0 })),
});

export const SearchProductsBody = modelRule(
  SearchFields,
  (body) =>
    body.price_min_cents === null ||
    body.price_max_cents === null ||
    body.price_min_cents <= body.price_max_cents,
  'price_min_cents must not be greater than price_max_cents',
);
export type SearchProductsInput = v.InferOutput<typeof SearchFields>;

// ---- responses ----------------------------------------------------------------------------

const MerchantType = v.picklist(MERCHANT_TYPES);

export const ProductSearchResult = v.object({
  title: v.string(),
  product_url: v.string(),
  currency: v.string(),
  image_url: v.string(),
  affiliate_url: v.string(),
  merchant_domain: v.string(),
  merchant_type: MerchantType,
  source: v.string(),
  price_cents: intOut,
  /** Left out when the feed gave no rating. */
  rating: v.optional(v.number()),
});

export const ProductSearchResponse = v.object({
  query: v.string(),
  results: v.pipe(
    v.array(ProductSearchResult),
    v.description(
      'The best matches, one per product: a variant group answers with its best variant passing the filters.',
    ),
  ),
  total_count: v.pipe(
    intOut,
    v.description(
      'Products matching after the filters, a variant group (item_group_id) counted once; not only this page.',
    ),
  ),
  source: v.string(),
});
export type ProductSearchResponse = v.InferOutput<typeof ProductSearchResponse>;

/** One search as the session remembers it. */
export const ShoppingSearchRecord = v.object({
  id: uuidOut,
  query: v.string(),
  merchant_type: v.nullable(MerchantType),
  max_results: v.number(),
  price_min_cents: v.nullable(v.number()),
  price_max_cents: v.nullable(v.number()),
  /** Product groups matching after filters (the response's total_count). */
  total_count: intOut,
  source: v.string(),
  created_at: dateTimeOut,
});
export type ShoppingSearchRecord = v.InferOutput<typeof ShoppingSearchRecord>;

export const ShoppingSession = v.object({
  id: uuidOut,
  title: v.nullable(v.string()),
  created_at: dateTimeOut,
  /** The latest searches, newest first (at most SHOPPING_LIMITS.recentSearches). */
  recent_searches: v.array(ShoppingSearchRecord),
});
export type ShoppingSession = v.InferOutput<typeof ShoppingSession>;

/** A session in the caller's list: without its recent searches (`GET …/sessions/{id}` has them). */
export const ShoppingSessionSummary = v.omit(ShoppingSession, ['recent_searches']);
export type ShoppingSessionSummary = v.InferOutput<typeof ShoppingSessionSummary>;
export const ShoppingSessionList = v.array(ShoppingSessionSummary);
