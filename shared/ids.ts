// Ids are UUIDv7: valid UUIDs that sort by creation time, so sort keys list records in time order.
import { createHash, randomInt } from 'node:crypto';
import { v7 } from 'uuid';

export const newId = (): string => v7();

/** The millisecond and counter of the last `newIdAt` id. */
const lastAt = { msecs: Number.NaN, seq: 0 };

/**
 * An id whose time part is `at`, so records listed by id sort exactly like their `created_at`. Ids
 * for the millisecond of the one before count up from it (as `v7()`'s own do), so records made within
 * one millisecond list in the order they were made, not in the order of a random sequence.
 */
export const newIdAt = (at: Date): string => {
  const msecs = at.getTime();
  // A new millisecond starts at a random count below 2^31, leaving 2^31 ids of room above it.
  lastAt.seq = msecs === lastAt.msecs ? lastAt.seq + 1 : randomInt(2 ** 31);
  lastAt.msecs = msecs;
  return v7({ msecs, seq: lastAt.seq });
};

/** The same id for the same `name` every time, sorting at `at`: a record several writers may each
 * try to create once (the first write wins, the others find it there). Ids of one name and time
 * sort by `position` (below 2^30), so items made together list in the order they were made. */
export const stableIdAt = (at: Date, name: string, position?: number): string => {
  const random = createHash('sha256').update(name).digest().subarray(0, 16);
  // From a count below 2^30 that the name gives, as newIdAt's start from a random one.
  const seq = position === undefined ? undefined : (random.readUInt32BE(6) >>> 2) + position;
  return v7({ msecs: at.getTime(), seq, random });
};

/** When a UUIDv7 id was made: its first 48 bits are milliseconds since the epoch. */
export const timeOfId = (id: string): number => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
