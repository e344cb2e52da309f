// Shopping sessions: the session item and its searches share one partition, so GET session is one
// newest-first Query (the session item sorts after every `SEARCH#`).
import { nowIso } from '../clock.ts';
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import { ownedBy, putNew, queryPartition } from '../db/store.ts';
import { newId } from '../ids.ts';
import type { MerchantType } from './catalog.ts';
import { shoppingKeys } from './keys.ts';
import {
  type CreateShoppingSessionInput,
  SHOPPING_LIMITS,
  type ShoppingSearchRecord,
  type ShoppingSession,
  type ShoppingSessionSummary,
} from './schemas.ts';

export interface ShoppingSessionItem {
  kind: 'shopping_session';
  id: string;
  owner: string;
  title: string | null;
  created_at: string;
}

export interface ShoppingSearchItem extends ShoppingSearchRecord {
  kind: 'shopping_search';
  session_id: string;
  merchant_type: MerchantType | null;
  /** Which snapshot answered (null before the first import). */
  catalog_version: string | null;
  returned_count: number;
}

export const SESSION_RESOURCE = 'Shopping session';

const toSearchRecord = (item: ShoppingSearchItem): ShoppingSearchRecord => ({
  id: item.id,
  query: item.query,
  merchant_type: item.merchant_type,
  max_results: item.max_results,
  price_min_cents: item.price_min_cents,
  price_max_cents: item.price_max_cents,
  total_count: item.total_count,
  source: item.source,
  created_at: item.created_at,
});

const toSessionSummary = (item: ShoppingSessionItem): ShoppingSessionSummary => ({
  id: item.id,
  title: item.title,
  created_at: item.created_at,
});

const toSession = (item: ShoppingSessionItem, searches: ShoppingSearchItem[]): ShoppingSession => ({
  ...toSessionSummary(item),
  recent_searches: searches.map(toSearchRecord),
});

/** The caller's shopping sessions, newest first, without their searches. */
export const listShoppingSessions = (userId: string, page: OwnerPage): Promise<ShoppingSessionSummary[]> =>
  listOwned(shoppingKeys.ownerPartition(userId), page, toSessionSummary);

export async function createShoppingSession(
  userId: string,
  input: CreateShoppingSessionInput,
): Promise<ShoppingSession> {
  const id = newId();
  const item: ShoppingSessionItem = {
    kind: 'shopping_session',
    id,
    owner: userId,
    title: input.title,
    created_at: nowIso(),
  };
  await putNew({ ...shoppingKeys.session(id), ...shoppingKeys.byOwner(userId, id), ...item });
  return toSession(item, []);
}

export async function getShoppingSession(userId: string, sessionId: string): Promise<ShoppingSession> {
  const [first, ...searches] = await queryPartition<ShoppingSessionItem | ShoppingSearchItem>(
    shoppingKeys.partition(sessionId),
    { newestFirst: true, limit: SHOPPING_LIMITS.recentSearches + 1 },
  );
  const session = ownedBy(first?.kind === 'shopping_session' ? first : undefined, userId, SESSION_RESOURCE);
  return toSession(session, searches as ShoppingSearchItem[]);
}

/** Remembers one search in its session. */
export async function recordSearch(item: Omit<ShoppingSearchItem, 'kind'>): Promise<void> {
  await putNew({ ...shoppingKeys.search(item.session_id, item.id), kind: 'shopping_search', ...item });
}
