// Ids are UUIDv7: valid UUIDs that sort by creation time, so sort keys list records in time order.
import { createHash } from 'node:crypto';
import { v7 } from 'uuid';

export const newId = (): string => v7();

/** An id whose time part is `at`, so records listed by id sort exactly like their `created_at`. */
export const newIdAt = (at: Date): string => v7({ msecs: at.getTime() });

/** The same id for the same `name` every time, sorting at `at`: a record several writers may each
 * try to create once (the first write wins, the others find it there). */
export const stableIdAt = (at: Date, name: string): string =>
  v7({ msecs: at.getTime(), random: createHash('sha256').update(name).digest().subarray(0, 16) });
