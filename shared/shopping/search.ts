// Endpoint 5: search the loaded catalogue within one of the caller's sessions, and remember the search.
import { now } from '../clock.ts';
import { getItem, ownedBy } from '../db/store.ts';
import { newIdAt } from '../ids.ts';
import { toSearchResult } from './catalog.ts';
import { shoppingKeys } from './keys.ts';
import { currentCatalog } from './loaded-catalog.ts';
import type { ProductSearchResponse, SearchProductsInput } from './schemas.ts';
import { recordSearch, SESSION_RESOURCE, type ShoppingSessionItem } from './store.ts';

export async function searchProducts(
  userId: string,
  sessionId: string,
  input: SearchProductsInput,
): Promise<ProductSearchResponse> {
  // Both in one wave; the session check still answers first, so a stranger learns nothing else.
  const catalog = currentCatalog();
  catalog.catch(() => undefined);
  ownedBy(await getItem<ShoppingSessionItem>(shoppingKeys.session(sessionId)), userId, SESSION_RESOURCE);
  const { index, source, version } = await catalog;
  const { results, total_count } = index.search(input);
  // Listed newest first by id: the id is made at created_at's instant, so the two orders agree.
  const at = now();
  await recordSearch({
    id: newIdAt(at),
    session_id: sessionId,
    query: input.query,
    merchant_type: input.merchant_type,
    max_results: input.max_results,
    price_min_cents: input.price_min_cents,
    price_max_cents: input.price_max_cents,
    total_count,
    returned_count: results.length,
    source,
    catalog_version: version,
    created_at: at.toISOString(),
  });
  return {
    query: input.query,
    results: results.map((product) => toSearchResult(product, source)),
    total_count,
    source,
  };
}
