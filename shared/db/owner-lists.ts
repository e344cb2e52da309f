// A user's own resources of one kind (brands, teams, projects, chat and shopping sessions), listed
// newest first from gsi1, where each item carries `USER#<id>#<KIND>` beside its own keys. One Query.
import { model, type OffsetPageLimits, offsetPage } from '../http/fields.ts';
import { queryWindow } from './store.ts';

export const OWNER_LIST_LIMITS: OffsetPageLimits = {
  limit: { default: 50, min: 1, max: 100 },
  offset: { default: 0, max: 10_000 },
};

export const OwnerListQuery = model(offsetPage(OWNER_LIST_LIMITS));
export interface OwnerPage {
  limit: number;
  offset: number;
}

/**
 * What one page may weigh as Lambda returns it: the body is JSON, sent as a string inside Lambda's own
 * JSON response, whose synchronous limit is 6 MB. 100 brands with 256 KiB descriptions would pass it
 * (a 500 for every page of that user), so a page stops early instead.
 */
export const PAGE_MAX_BYTES = 5 * 1024 * 1024;

/** The bytes an entry adds to a Lambda response: its JSON, escaped again as part of the body string. */
const sentBytes = (entry: unknown) => Buffer.byteLength(JSON.stringify(JSON.stringify(entry))) - 1;

/**
 * One page of a user's owner partition of gsi1, newest first (UUIDv7 sort keys), as response entries:
 * at most `limit`, and fewer where the next one would take the page past PAGE_MAX_BYTES (never none
 * while items remain). The next page starts at `offset` + the entries answered.
 */
export async function listOwned<T extends object, E>(
  ownerPartition: string,
  page: OwnerPage,
  toEntry: (item: T) => E,
): Promise<E[]> {
  const items = await queryWindow<T>(ownerPartition, { index: 'gsi1', newestFirst: true, ...page });
  const entries: E[] = [];
  let bytes = 0;
  for (const item of items) {
    const entry = toEntry(item);
    bytes += sentBytes(entry);
    if (bytes > PAGE_MAX_BYTES && entries.length > 0) break;
    entries.push(entry);
  }
  return entries;
}
