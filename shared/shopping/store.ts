// Shopping sessions: the session item and its searches share one partition, so GET session is one
// newest-first Query (the session item sorts after every `SEARCH#`).
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import { ownedBy, putNew, queryPartition } from '../db/store.ts';
import { createOnce, ownClaim } from '../idempotency.ts';
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
  listOwned(
    { partition: shoppingKeys.ownerPartition(userId), prefix: shoppingKeys.ownerPrefix },
    page,
    toSessionSummary,
  );

/** With an Idempotency-Key, a retry answers the session the first attempt opened (shared/idempotency.ts). */
export const createShoppingSession = (
  userId: string,
  input: CreateShoppingSessionInput,
  key?: string,
): Promise<ShoppingSession> =>
  createOnce({
    claimAt: ownClaim(userId, 'shopping-session', key),
    request: input,
    write: async ({ id, created_at }) => {
      const item: ShoppingSessionItem = {
        kind: 'shopping_session',
        id,
        owner: userId,
        title: input.title,
        created_at,
      };
      await putNew({ ...shoppingKeys.session(id), ...shoppingKeys.byOwner(userId, id), ...item });
      return toSession(item, []);
    },
    read: async (id) => {
      const { session, searches } = await readSessionWithSearches(id);
      return session && toSession(session, searches);
    },
  });

/** One newest-first Query of the session's partition: its latest searches, then the session. */
async function readSessionWithSearches(sessionId: string) {
  const [first, ...searches] = await queryPartition<ShoppingSessionItem | ShoppingSearchItem>(
    shoppingKeys.partition(sessionId),
    { newestFirst: true, limit: SHOPPING_LIMITS.recentSearches + 1 },
  );
  return {
    session: first?.kind === 'shopping_session' ? first : undefined,
    searches: searches as ShoppingSearchItem[],
  };
}

export async function getShoppingSession(userId: string, sessionId: string): Promise<ShoppingSession> {
  const { session, searches } = await readSessionWithSearches(sessionId);
  return toSession(ownedBy(session, userId, SESSION_RESOURCE), searches);
}

/** Remembers one search in its session. */
export async function recordSearch(item: Omit<ShoppingSearchItem, 'kind'>): Promise<void> {
  await putNew({ ...shoppingKeys.search(item.session_id, item.id), kind: 'shopping_search', ...item });
}
