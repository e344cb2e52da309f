// A user's own resources of one kind (brands, teams, projects, chat and shopping sessions), listed
// newest first from gsi1, where each item carries `USER#<id>#<KIND>` beside its own keys. One Query
// (more where an offset passes its first page: the slim entries past it, then the window; queryWindow).
import type * as v from 'valibot';
import { model, type OffsetPageLimits, offsetPage } from '../http/fields.ts';
import { queryWindow } from './store.ts';

export const OWNER_LIST_LIMITS: OffsetPageLimits = {
  limit: { default: 50, min: 1, max: 100 },
};

export const OwnerListQuery = model(offsetPage(OWNER_LIST_LIMITS));
export type OwnerPage = v.InferOutput<typeof OwnerListQuery>;

/** Where one kind sits in gsi1: its owner's partition, and its sort keys' prefix (before the id). */
export interface OwnerIndex {
  partition: string;
  prefix: string;
}

/** One page of a user's owner partition of gsi1, newest first (UUIDv7 sort keys), as response
 * entries (a window of queryWindow: it may end early on big items; `before` is only a place in this
 * partition, so another user's id reveals nothing of theirs). */
export const listOwned = async <T extends object, E>(
  { partition, prefix }: OwnerIndex,
  page: OwnerPage,
  toEntry: (item: T) => E,
): Promise<E[]> => (await queryWindow<T>(partition, { index: 'gsi1', prefix, ...page })).map(toEntry);
