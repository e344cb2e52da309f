// Ids are UUIDv7: valid UUIDs that sort by creation time, so sort keys list records in time order.
import { v7 } from 'uuid';

export const newId = (): string => v7();
