// Ids are UUIDv7: valid UUIDs that sort by creation time, so sort keys list records in time order.
import { v7 } from 'uuid';

export const newId = (): string => v7();

/** An id whose time part is `at`, so records listed by id sort exactly like their `created_at`. */
export const newIdAt = (at: Date): string => v7({ msecs: at.getTime() });
