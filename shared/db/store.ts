// Thin helpers over the document client: the only place table names and key attributes meet the SDK.
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../aws/dynamo.ts';
import { config } from '../config.ts';
import { sha256 } from '../digest.ts';
import { NotFoundError, ServiceUnavailableError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { RESPONSE_BODY_MAX_BYTES, sentBytes } from '../lambda-response.ts';
import { log } from '../log.ts';
import { type IndexName, type Keys, TABLE_INDEXES } from './table.ts';

export type Item = Record<string, unknown>;

/**
 * Every read of the table is strongly consistent: a client's next request sees what its last one
 * wrote (an eventually consistent read may come from a replica a moment behind: a record just
 * created answering 404), and a read after a lost race sees the winner. Index reads cannot be
 * (DynamoDB's global secondary indexes are eventually consistent whatever is asked).
 */
const CONSISTENT_READ = true;

/** DynamoDB refused a write whose condition did not hold (not a failure of the request). */
export const isConditionFailure = (error: unknown) =>
  (error as Error).name === 'ConditionalCheckFailedException';

export async function getItem<T extends object>(keys: Keys): Promise<T | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: config.tableName, Key: keys, ConsistentRead: CONSISTENT_READ }),
  );
  return Item as T | undefined;
}

/** Writes a new item once: a retry or a racing writer with the same key changes nothing. */
export async function putNew(item: Item & Keys): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Claims a key: writes the item where none is (`attribute_not_exists`), beside a consistent read of
 * it. When the write loses, `existing` is the item found there: a racing writer's, or this write's own,
 * landed with its answer lost (the SDK's resend then fails the condition), which callers tell by a
 * field of theirs. An item given back between the two requests is claimed again, once; given back
 * again, 503 (Retry-After): the client's retry finds the key settled.
 */
export async function claimItem<T extends object>(
  item: Item & Keys,
  attempt = 1,
): Promise<{ won: true } | { won: false; existing: T }> {
  const keys = { pk: item.pk, sk: item.sk };
  // Both settle: a claim that won is the caller's whatever befell the read beside it (answered as a
  // failure, it would stay unknown to its caller: never given back, the key held by a refused request).
  const [put, read] = await Promise.allSettled([putNew(item), getItem<T>(keys)]);
  if (put.status === 'rejected') throw put.reason;
  if (put.value) return { won: true };
  // Lost to a claim that landed after our read, or our read failed: read it now.
  const existing = (read.status === 'fulfilled' ? read.value : undefined) ?? (await getItem<T>(keys));
  if (existing) return { won: false, existing };
  // Taken and given back again: contention the client's retry outlasts, not a server fault.
  if (attempt > 1) throw new ServiceUnavailableError();
  return claimItem(item, attempt + 1);
}

export async function put(item: Item & Keys): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: config.tableName, Item: item }));
}

export interface QueryOptions {
  /** Only sort keys that begin with this. */
  prefix?: string;
  /** Only sort keys between these two, both inclusive (instead of `prefix`). */
  between?: readonly [string, string];
  limit?: number;
  /** Newest first when the sort key ends in a UUIDv7. */
  newestFirst?: boolean;
  index?: IndexName;
  /** Continue after this sort key (cursor paging; base table only). */
  startAfter?: string;
  /** Continue after the item of these keys (its table keys, and the index's where one is read). */
  startKey?: Item;
  /** An access check started beside the read: every page after the first waits for it, so a request
   * it refuses (it rejects) reads one page, not a deep window of someone else's items. */
  checked?: Promise<unknown>;
}

/** What queryPartition reads but does not keep (an offset window's skipped items). */
export interface QuerySkip {
  /** Stop reading pages once two or more items are kept and their JSON passes this many bytes: a
   * page cut to this budget (withinPageBudget) would leave out the last of them anyway. */
  maxBytes?: number;
  /** This many items, after `passOver`, are read (and counted towards `limit`) but not kept. */
  skip?: number;
  /** The first item read, when this holds for it, is read and not kept (nor counted by `skip`). */
  passOver?: (item: Item) => boolean;
}

const queryInput = (partition: string, options: QueryOptions): QueryCommandInput => {
  const keys = options.index ? TABLE_INDEXES[options.index] : { partitionKey: 'pk', sortKey: 'sk' };
  return {
    TableName: config.tableName,
    IndexName: options.index,
    KeyConditionExpression: options.between
      ? '#pk = :pk AND #sk BETWEEN :from AND :to'
      : options.prefix
        ? '#pk = :pk AND begins_with(#sk, :prefix)'
        : '#pk = :pk',
    ExpressionAttributeNames:
      options.prefix || options.between
        ? { '#pk': keys.partitionKey, '#sk': keys.sortKey }
        : { '#pk': keys.partitionKey },
    ExpressionAttributeValues: options.between
      ? { ':pk': partition, ':from': options.between[0], ':to': options.between[1] }
      : options.prefix
        ? { ':pk': partition, ':prefix': options.prefix }
        : { ':pk': partition },
    ScanIndexForward: !options.newestFirst,
    Limit: options.limit,
    ConsistentRead: options.index ? undefined : CONSISTENT_READ,
    ExclusiveStartKey:
      options.startKey ??
      (options.startAfter === undefined ? undefined : { pk: partition, sk: options.startAfter }),
  };
};

/** One single-partition Query: up to `limit` items, page after page, since DynamoDB ends a page at
 * 1 MB (big items would otherwise cut a list short). `limit` is required: it bounds the read. Items
 * `skip` names are dropped as their page arrives, so a deep offset holds one page and the window in
 * memory, not everything it passes (OWASP API4: 10,000 big records would exceed the function's
 * memory; docs/security.md). */
export async function queryPartition<T extends object>(
  partition: string,
  options: QueryOptions & QuerySkip & { limit: number },
): Promise<T[]> {
  const items: T[] = [];
  let read = 0;
  let skipped = 0;
  let keptBytes = 0;
  let measured = 0;
  // A page is taken apart in a function of its own, so that nothing of it outlives its turn.
  const readPage = async (startKey: Record<string, unknown> | undefined) => {
    const input = queryInput(partition, { ...options, limit: options.limit - read });
    const page = await dynamo().send(
      new QueryCommand({ ...input, ExclusiveStartKey: startKey ?? input.ExclusiveStartKey }),
    );
    for (const item of page.Items ?? []) {
      if (read++ === 0 && options.passOver?.(item)) continue;
      if (skipped < (options.skip ?? 0)) skipped++;
      else items.push(item as T);
    }
    return page.LastEvaluatedKey;
  };
  // Measured only before another page is read: a list read in one page (the usual) is never measured
  // here, only by withinPageBudget.
  const overBudget = () => {
    if (options.maxBytes === undefined) return false;
    for (; measured < items.length; measured++)
      keptBytes += Buffer.byteLength(JSON.stringify(items[measured]));
    return items.length > 1 && keptBytes > options.maxBytes;
  };
  let startKey = await readPage(undefined);
  while (startKey && read < options.limit && !overBudget()) {
    await options.checked;
    startKey = await readPage(startKey);
  }
  return items;
}

/**
 * What one page of a list may weigh as Lambda returns it: the body is JSON, sent as a string inside
 * Lambda's own JSON response, whose synchronous limit is 6 MB. 100 brands with 256 KiB descriptions
 * (or tasks with large output) would pass it, an error for every read of that page.
 */
export const PAGE_MAX_BYTES = RESPONSE_BODY_MAX_BYTES;

/** The longest head of `items` within `maxBytes`, never empty when items remain. Pages measure the
 * stored items, which carry more than the entries made from them (the teams' views, their rows).
 * Escaping at most doubles a JSON text, so a page of half the budget is kept without measuring its
 * items one by one. */
export function withinPageBudget<T>(items: T[], maxBytes = PAGE_MAX_BYTES): T[] {
  if (Buffer.byteLength(JSON.stringify(items)) * 2 <= maxBytes) return items;
  let bytes = 0;
  for (const [i, item] of items.entries()) {
    bytes += sentBytes(JSON.stringify(item)) + 1; // and its comma
    if (bytes > maxBytes && i > 0) return items.slice(0, i);
  }
  return items;
}

/** A page's byte budget: PAGE_MAX_BYTES, or its share where one response holds several lists. */
interface PageBudget {
  maxBytes?: number;
}

/** One page of a partition after a cursor (the sort key of the previous page's last item), oldest
 * first: `limit` items (fewer where they would pass PAGE_MAX_BYTES), read as limit + 1 to know
 * whether another page follows, and the id the next page starts after (null on the last page). */
export async function queryAfter<T extends { id: string }>(
  partition: string,
  options: { prefix: string; limit: number; after?: string } & PageBudget & Pick<QueryOptions, 'checked'>,
): Promise<{ items: T[]; nextAfter: string | null }> {
  const items = await queryPartition<T>(partition, {
    prefix: options.prefix,
    limit: options.limit + 1,
    checked: options.checked,
    maxBytes: options.maxBytes ?? PAGE_MAX_BYTES,
    startAfter: options.after,
  });
  const page = withinPageBudget(items.slice(0, options.limit), options.maxBytes);
  return { items: page, nextAfter: items.length > page.length ? (page.at(-1)?.id ?? null) : null };
}

/** Where an offset window's skipped items are counted: a slim index holding the same sort keys (the
 * partitions' entries merged newest first by sort key), so a deep offset reads keys and a few short
 * fields rather than every item it skips. */
export interface OffsetWalk {
  index: IndexName;
  partitions: readonly string[];
}

/** gsi1's slim view: gsi1_calendar holds gsi1's keys with a few short fields (an entry under 2 KB),
 * where gsi1 holds whole items of up to 400 KB. */
const SLIM_VIEWS: Partial<Record<IndexName, IndexName>> = { gsi1: 'gsi1_calendar' };

/** An offset/limit window of one kind of item (sort keys `prefix` + id), newest first. DynamoDB has
 * no offset: the items before the window are read, past the first page from `walk` where there is one
 * (gsi1's windows walk its slim view by default), else from the window's own partition, so a deep
 * offset costs more pages and callers cap the offset. `before` (the id of the last entry a client
 * received) starts the window at the next older key instead: limit + 1 items read however deep,
 * unmoved by items created meanwhile; `offset` counts from there. The window ends early where it
 * would pass PAGE_MAX_BYTES: the next one starts at `offset` + the items it holds (or before its
 * last). */
export async function queryWindow<T extends object>(
  partition: string,
  options: Pick<QueryOptions, 'index' | 'checked'> & {
    prefix: string;
    offset: number;
    limit: number;
    before?: string | null;
    walk?: OffsetWalk;
  } & PageBudget,
): Promise<T[]> {
  const { prefix, offset, limit, before, maxBytes, index, checked } = options;
  const cursor = before == null ? undefined : `${prefix}${before}`;
  // A key condition has no exclusive bound beside a prefix: the range from the prefix to the cursor
  // holds the cursor's own key, so one item more is read and the cursor's item, where it is there
  // (it comes first), left out. Every key in that range begins with the prefix, as the cursor does.
  const range = cursor === undefined ? { prefix } : { between: [prefix, cursor] as const };
  const slim = index && SLIM_VIEWS[index];
  const walk = options.walk ?? (slim ? { index: slim, partitions: [partition] } : undefined);
  const sortKey = index ? TABLE_INDEXES[index].sortKey : 'sk';
  if (offset > 0 && walk) {
    // One page as the window reads it (offset + limit items): small records under a shallow offset
    // end there, in one wave beside the access check. Past it, the rest of the offset is walked on the
    // slim view, from the page's last entry, and the window read after the entry the walk ends on.
    const page = await dynamo().send(
      new QueryCommand(
        queryInput(partition, {
          index,
          ...range,
          newestFirst: true,
          limit: offset + limit + (cursor === undefined ? 0 : 1),
        }),
      ),
    );
    const read = (page.Items ?? []).filter((item, i) => !(i === 0 && item[sortKey] === cursor));
    const kept = read.slice(offset) as T[];
    if (!page.LastEvaluatedKey || kept.length >= limit)
      return withinPageBudget(kept.slice(0, limit), maxBytes);
    await checked;
    let startKey: Item | undefined = page.LastEvaluatedKey;
    if (read.length < offset) {
      const lastRead = read.at(-1)?.[sortKey] as string | undefined;
      const from = lastRead === undefined ? range : { between: [prefix, lastRead] as const };
      const last = await itemAtOffset(walk, from, offset - read.length, lastRead ?? cursor);
      if (!last) return [];
      const keys = index ? TABLE_INDEXES[index] : undefined;
      startKey = pickKeys(last, ['pk', 'sk', ...(keys ? [keys.partitionKey, keys.sortKey] : [])]);
    }
    const rest = await queryPartition<T>(partition, {
      index,
      checked,
      newestFirst: true,
      ...range,
      limit: limit - kept.length,
      startKey,
      // What the first page keeps counts towards the budget: the rest stops that much sooner.
      maxBytes: kept.reduce(
        (left, item) => left - Buffer.byteLength(JSON.stringify(item)),
        maxBytes ?? PAGE_MAX_BYTES,
      ),
    });
    return withinPageBudget([...kept, ...rest], maxBytes);
  }
  // The items before the window are read (DynamoDB has no offset) but not kept.
  const items = await queryPartition<T>(partition, {
    index,
    checked,
    newestFirst: true,
    ...range,
    limit: offset + limit + (cursor === undefined ? 0 : 1),
    skip: offset,
    passOver: cursor === undefined ? undefined : (item) => item[sortKey] === cursor,
    maxBytes: maxBytes ?? PAGE_MAX_BYTES,
  });
  return withinPageBudget(items.slice(0, limit), maxBytes);
}

const pickKeys = (item: Item, names: string[]) => Object.fromEntries(names.map((name) => [name, item[name]]));

/**
 * The `offset`-th entry (1-based) of `walk`'s partitions merged newest first by sort key, leaving out
 * the cursor's own; undefined where they hold fewer. Each partition is read page by page as the
 * merge needs it (a page at most what is left to count, and the cursor's entry); only the
 * partitions' current pages are held. Called once the access check has passed (queryWindow).
 */
async function itemAtOffset(
  walk: OffsetWalk,
  options: Pick<QueryOptions, 'prefix' | 'between'>,
  offset: number,
  cursor: string | undefined,
): Promise<Item | undefined> {
  const sortKey = TABLE_INDEXES[walk.index].sortKey;
  const streams = walk.partitions.map((partition) => ({
    partition,
    page: [] as Item[],
    next: undefined as Item | undefined,
    done: false,
  }));
  const unread = () => streams.filter((stream) => stream.page.length === 0 && !stream.done);
  let counted = 0;
  for (;;) {
    // Every partition not read to its end shows its next entry before one is taken: a page that came
    // back empty with a key to go on from is read on.
    for (let empty = unread(); empty.length > 0; empty = unread()) {
      const left = offset - counted + (cursor === undefined ? 0 : 1);
      await Promise.all(
        empty.map(async (stream) => {
          const page = await dynamo().send(
            new QueryCommand({
              ...queryInput(stream.partition, {
                ...options,
                index: walk.index,
                newestFirst: true,
                limit: left,
              }),
              ExclusiveStartKey: stream.next,
            }),
          );
          stream.page = page.Items ?? [];
          stream.next = page.LastEvaluatedKey;
          stream.done = stream.next === undefined;
        }),
      );
    }
    const head = (stream: (typeof streams)[number]) => String(stream.page[0]![sortKey]);
    let newest: (typeof streams)[number] | undefined;
    for (const stream of streams)
      if (stream.page.length > 0 && (!newest || head(stream) > head(newest))) newest = stream;
    if (!newest) return undefined;
    const item = newest.page.shift()!;
    if (item[sortKey] !== cursor && ++counted === offset) return item;
  }
}

/** The condition of a conditional update or delete, on the item as it is. */
export interface ItemCondition {
  /** These attributes exist on the current item… */
  exists?: string[];
  /** …these do not… */
  absent?: string[];
  /** …these equal the given values (expected state)… */
  expect?: Item;
  /** …these are absent or below the given numbers (a newer write is never overwritten)… */
  below?: Record<string, number>;
  /** …these lists are absent or hold fewer entries than the given numbers… */
  fewer?: Record<string, number>;
  /** …these are absent or differ from the given values (a write's own resend is refused)… */
  differ?: Item;
  /** …and these lists (or sets) are absent or do not hold the given values (an append's own resend
   * is refused, whatever landed between). */
  lacks?: Item;
}

export interface ItemUpdate extends ItemCondition {
  /** Attributes written by every call (an `undefined` value changes nothing). */
  set?: Item;
  /** Attributes written only where the item lacks them: an upsert's creation values. */
  setIfAbsent?: Item;
  /** Lists to append these values to (created empty). */
  append?: Record<string, unknown[]>;
  /** Numeric attributes to add to (created at 0), or string sets to add these members to (created
   * empty). */
  add?: Record<string, number | ReadonlySet<string>>;
  /** Attributes taken off the item. */
  remove?: string[];
  /** The update carries an id of its own (`WRITE_ID`) and is refused where the item holds it: the SDK's
   * resend of an update that landed (its answer lost) changes nothing again, and the call answers the
   * item as read. Not where another write landed between the two (the item then holds the other's id).
   * With a token, the token joins the item's string `set` in the same update, which is refused where
   * the set holds it: exactly once per token, whatever landed between (the set grows by one a token). */
  once?: true | Once;
}

/** The attribute that holds the id of the last write an item took whose resend must not apply again
 * (`updateItem`'s `once`, every counter update without a token set). */
const WRITE_ID = 'last_write';

/** What DynamoDB's size() answers for a list or a set: its number of entries. */
const entriesOf = (value: unknown) => (value instanceof Set ? value.size : (value as unknown[]).length);

/** What DynamoDB's contains() answers for a list or a set (absent: false). */
const entriesHold = (value: unknown, entry: unknown) =>
  value instanceof Set ? value.has(entry) : Array.isArray(value) && value.includes(entry);

/** The condition, on an item read instead of written: what its expression (`condition`) asks of it. */
export const holds = (
  item: Item,
  { exists = [], absent = [], expect = {}, below = {}, fewer = {}, differ = {}, lacks = {} }: ItemCondition,
) =>
  exists.every((a) => item[a] !== undefined) &&
  absent.every((a) => item[a] === undefined) &&
  Object.entries(expect).every(([a, v]) => item[a] === v) &&
  Object.entries(below).every(([a, v]) => item[a] === undefined || (item[a] as number) < v) &&
  Object.entries(fewer).every(([a, v]) => item[a] === undefined || entriesOf(item[a]) < v) &&
  Object.entries(differ).every(([a, v]) => item[a] !== v) &&
  Object.entries(lacks).every(([a, v]) => !entriesHold(item[a], v));

/** Aliases for the names and values of one expression, and the condition's text over them. */
function expressionParts() {
  const names: Record<string, string> = {};
  const values: Item = {};
  const name = (attribute: string) => {
    const alias = `#a${Object.keys(names).length}`;
    names[alias] = attribute;
    return alias;
  };
  const value = (v: unknown) => {
    const alias = `:v${Object.keys(values).length}`;
    values[alias] = v;
    return alias;
  };
  const condition = ({
    exists = [],
    absent = [],
    expect = {},
    below = {},
    fewer = {},
    differ = {},
    lacks = {},
  }: ItemCondition) => {
    const parts = [
      ...exists.map((a) => `attribute_exists(${name(a)})`),
      ...absent.map((a) => `attribute_not_exists(${name(a)})`),
      ...Object.entries(expect).map(([a, v]) => `${name(a)} = ${value(v)}`),
      ...Object.entries(below).map(([a, v]) => {
        const alias = name(a);
        return `(attribute_not_exists(${alias}) OR ${alias} < ${value(v)})`;
      }),
      ...Object.entries(fewer).map(([a, v]) => {
        const alias = name(a);
        return `(attribute_not_exists(${alias}) OR size(${alias}) < ${value(v)})`;
      }),
      ...Object.entries(differ).map(([a, v]) => {
        const alias = name(a);
        return `(attribute_not_exists(${alias}) OR ${alias} <> ${value(v)})`;
      }),
      ...Object.entries(lacks).map(([a, v]) => `NOT contains(${name(a)}, ${value(v)})`),
    ];
    return parts.length ? parts.join(' AND ') : undefined;
  };
  /** The names and values to send, undefined where there are none (DynamoDB refuses empty maps). */
  const aliases = () => ({
    ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
    ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
  });
  return { name, value, condition, aliases };
}

/** One atomic UpdateItem (concurrent updates apply in some serial order); answers the item as
 * written, or undefined when the condition failed (or, with nothing to write, the item is missing). */
export async function updateItem<T extends object>(keys: Keys, given: ItemUpdate): Promise<T | undefined> {
  const token = typeof given.once === 'object' ? given.once : undefined;
  const writeId = given.once === true ? newId() : undefined;
  const update = writeId
    ? {
        ...given,
        set: { ...given.set, [WRITE_ID]: writeId },
        differ: { ...given.differ, [WRITE_ID]: writeId },
      }
    : token
      ? { ...given, add: { ...given.add, [token.set]: new Set([token.token]) } }
      : given;
  const { name, value, condition, aliases } = expressionParts();
  // The document client drops undefined values (removeUndefinedValues), which would leave their
  // aliases named in the expression: a DynamoDB error. Undefined means "no change", as in a Partial.
  const defined = (item: Item = {}) => Object.entries(item).filter(([, v]) => v !== undefined);
  const sets = [
    ...defined(update.set).map(([a, v]) => `${name(a)} = ${value(v)}`),
    ...defined(update.setIfAbsent).map(([a, v]) => {
      const alias = name(a);
      return `${alias} = if_not_exists(${alias}, ${value(v)})`;
    }),
    ...Object.entries(update.append ?? {}).map(([a, v]) => {
      const alias = name(a);
      return `${alias} = list_append(if_not_exists(${alias}, ${value([])}), ${value(v)})`;
    }),
  ];
  const adds = Object.entries(update.add ?? {}).map(([a, v]) => `${name(a)} ${value(v)}`);
  const removes = (update.remove ?? []).map(name);
  // Nothing to write (every change undefined): DynamoDB refuses an empty UpdateExpression, so the item
  // is read as it is and the conditions checked here.
  if (!sets.length && !adds.length && !removes.length) {
    const item = await getItem<Item>(keys);
    return item && holds(item, update) ? (item as T) : undefined;
  }
  const ConditionExpression =
    [condition(update), ...(token ? [`NOT contains(${name(token.set)}, ${value(token.token)})`] : [])]
      .filter(Boolean)
      .join(' AND ') || undefined;
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys,
        UpdateExpression: [
          sets.length ? `SET ${sets.join(', ')}` : '',
          adds.length ? `ADD ${adds.join(', ')}` : '',
          removes.length ? `REMOVE ${removes.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join(' '),
        ConditionExpression,
        ...aliases(),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as T;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (!writeId && !token) return undefined;
    // Refused by its own id or token: this update landed (a resend's answer, or an earlier call's with
    // the same token); by another condition: refused.
    const item = await getItem<Item>(keys);
    const landed = writeId
      ? item?.[WRITE_ID] === writeId
      : (item?.[token!.set] as Set<string> | undefined)?.has(token!.token) === true;
    return landed ? (item as T) : undefined;
  }
}

type Once = { set: string; token: string };

/** Takes entries off a list, each only where it still sits at the index it was read at (a concurrent
 * change that moved the list refuses the update): whether it did. */
export async function removeListEntries(
  keys: Keys,
  list: string,
  entries: { index: number; value: unknown }[],
): Promise<boolean> {
  if (!entries.length) return true;
  const { name, value, aliases } = expressionParts();
  const alias = name(list);
  const at = (index: number) => `${alias}[${index}]`;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys,
        // Last first: DynamoDB reads every index against the list as it was, dynalite removes them in
        // turn (each shifting the ones after it); from the end, both take the same entries.
        UpdateExpression: `REMOVE ${entries
          .map(({ index }) => index)
          .sort((a, b) => b - a)
          .map(at)
          .join(', ')}`,
        ConditionExpression: entries
          .map((entry) => `${at(entry.index)} = ${value(entry.value)}`)
          .join(' AND '),
        ...aliases(),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Adds to numeric counters on an item (totals kept on the parent instead of counting history).
 * With `once`, only once per token; with `below`, each named counter must stay under its limit:
 * false when one has reached it. `touched` moves the parent's `updated_at` to that time in the same
 * update (its read answers the counters, so their change is its change), never back: when a
 * concurrent update has moved it later, the counters alone are added.
 * Without `once`, the update carries an id of its own (`WRITE_ID`, as `updateItem`'s `once`) and is
 * refused where the item holds it: the SDK's resend of an update that landed (its answer lost) adds nothing again, unless
 * another update landed between the two (a set of every id would grow towards DynamoDB's 400 KB; the
 * fixes weighed, and why none is made, are in docs/security.md, "Counters and lost responses"). An
 * update whose every answer is lost is read back: true where the item holds its id.
 */
export const addToCounters = (
  keys: Keys,
  counters: Record<string, number>,
  options: CounterOptions = {},
): Promise<boolean> => addCounted(keys, counters, options, options.once ? undefined : newId());

interface CounterOptions {
  once?: Once;
  below?: Record<string, number>;
  touched?: string;
}

async function addCounted(
  keys: Keys,
  counters: Record<string, number>,
  { once, below, touched }: CounterOptions,
  writeId: string | undefined,
): Promise<boolean> {
  const { name, value, condition, aliases } = expressionParts();
  const sets: string[] = [];
  const adds = Object.entries(counters).map(([counter, by]) => `${name(counter)} ${value(by)}`);
  const conditions = [condition({ exists: ['pk'], below, differ: writeId ? { [WRITE_ID]: writeId } : {} })];
  if (writeId) sets.push(`${name(WRITE_ID)} = ${value(writeId)}`);
  if (touched) {
    const updatedAt = name('updated_at');
    sets.push(`${updatedAt} = ${value(touched)}`);
    conditions.push(`(attribute_not_exists(${updatedAt}) OR ${updatedAt} < ${value(touched)})`);
  }
  if (once) {
    // The token joins a set in the same update, which refuses a token already there, so a write the
    // SDK retries after a lost response does not count twice.
    const set = name(once.set);
    conditions.push(`NOT contains(${set}, ${value(once.token)})`);
    adds.push(`${set} ${value(new Set([once.token]))}`);
  }
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys,
        ConditionExpression: conditions.join(' AND '),
        UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD ${adds.join(', ')}`,
        ...aliases(),
      }),
    );
    return true;
  } catch (error) {
    // Failed outright (a 500, a timeout after the SDK's resends), an update with its own id may have
    // landed, its answer lost: read back, the item holds the id where it did. (A token's count that
    // failed so is taken back by its caller, token and all: no drift.)
    const refused = isConditionFailure(error);
    if (!refused && !writeId) throw error;
    const item = await getItem<Item>(keys).catch((readError) => {
      throw refused ? readError : error;
    });
    if (writeId && item?.[WRITE_ID] === writeId) return true;
    if (!refused) throw error;
    // Which condition failed: a missing item fails as before; a token already counted is done (only
    // this call's own take-back could have removed the token since); a later `updated_at` is kept,
    // and the counters go again without it; otherwise a limit refused the update.
    if (!item) throw error;
    if (once && (item[once.set] as Set<string> | undefined)?.has(once.token)) return true;
    if (touched && typeof item.updated_at === 'string' && item.updated_at >= touched)
      return addCounted(keys, counters, { once, below }, writeId);
    if (below) return false;
    throw error;
  }
}

/**
 * Takes back what `addToCounters` added once for `token` (a compensation when the write it counted
 * failed). The token leaves the set in the same update, so taking back twice changes nothing.
 */
export async function takeBackCounters(
  keys: Keys,
  counters: Record<string, number>,
  once: Once,
): Promise<void> {
  const { name, value, aliases } = expressionParts();
  const adds = Object.entries(counters).map(([counter, by]) => `${name(counter)} ${value(-by)}`);
  const set = name(once.set);
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys,
        ConditionExpression: `contains(${set}, ${value(once.token)})`,
        UpdateExpression: `ADD ${adds.join(', ')} DELETE ${set} ${value(new Set([once.token]))}`,
        ...aliases(),
      }),
    );
  } catch (error) {
    // Never counted (or already taken back): nothing to undo.
    if (!isConditionFailure(error)) throw error;
  }
}

/** What claimSetMembers keeps in the owners set for `member` held by `owner` (a hash: members may be
 * long, and the set's item has 400 KB). */
export const memberToken = (owner: string, member: string) => `${owner}:${sha256(member).slice(0, 11)}`;

/**
 * A uniqueness claim on a string set: adds `members` to the item's `set` on the condition that none of
 * them is there already, unless `owner` put it there (the same writer claiming again). Each member's
 * owner is kept in the `owners` set as `<owner>:<hash of the member>`, small where members may be
 * long. With `most`, the set holds at most that many members after the claim: in the same condition,
 * so claims at the same moment cannot pass it together (an owner claiming members it holds already
 * adds none, and needs no room). false when another owner holds one, or there is no room. The item is
 * made with `created`'s attributes by the first claim.
 */
export async function claimSetMembers(
  keys: Keys,
  sets: { set: string; owners: string },
  members: readonly string[],
  owner: string,
  created: Item,
  most?: number,
): Promise<boolean> {
  if (most !== undefined && members.length > most) return false;
  const { name, value, aliases } = expressionParts();
  const token = (member: string) => memberToken(owner, member);
  const [set, owners] = [name(sets.set), name(sets.owners)];
  const held = members.map((member) => `contains(${owners}, ${value(token(member))})`);
  const free = members.map((member, i) => `(NOT contains(${set}, ${value(member)}) OR ${held[i]})`);
  if (most !== undefined)
    free.push(
      `(attribute_not_exists(${set}) OR size(${set}) <= ${value(most - members.length)} OR (${held.join(' AND ')}))`,
    );
  const creation = Object.entries(created).map(
    ([a, v]) => `${name(a)} = if_not_exists(${name(a)}, ${value(v)})`,
  );
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys,
        ConditionExpression: free.join(' AND '),
        UpdateExpression: `${creation.length ? `SET ${creation.join(', ')} ` : ''}ADD ${set} ${value(new Set(members))}, ${owners} ${value(new Set(members.map(token)))}`,
        ...aliases(),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Gives back the members `owner` holds (claimSetMembers), found by a consistent read: they leave `set`
 * and their tokens `owners` on the condition that `owner` still holds each. So the SDK's resend of a
 * give-back that landed (its answer lost) never removes a member another owner claimed in between.
 * Only for an owner that will not claim again (its record taken back).
 */
export async function releaseSetMembers(
  keys: Keys,
  sets: { set: string; owners: string },
  owner: string,
): Promise<void> {
  const item = await getItem<Item>(keys);
  const held = item?.[sets.owners] as Set<string> | undefined;
  const members = [...((item?.[sets.set] as Set<string> | undefined) ?? [])].filter((member) =>
    held?.has(memberToken(owner, member)),
  );
  if (members.length === 0) return;
  const { name, value, aliases } = expressionParts();
  const tokens = members.map((member) => memberToken(owner, member));
  const [set, owners] = [name(sets.set), name(sets.owners)];
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys,
        ConditionExpression: tokens.map((token) => `contains(${owners}, ${value(token)})`).join(' AND '),
        UpdateExpression: `DELETE ${set} ${value(new Set(members))}, ${owners} ${value(new Set(tokens))}`,
        ...aliases(),
      }),
    );
  } catch (error) {
    // Given back already: nothing is left to give.
    if (!isConditionFailure(error)) throw error;
  }
}

/** Deletes an item; with a condition, only while it holds (false when it does not). */
export async function deleteItem(keys: Keys, when: ItemCondition = {}): Promise<boolean> {
  const { condition, aliases } = expressionParts();
  const ConditionExpression = condition(when);
  try {
    await dynamo().send(
      new DeleteCommand({ TableName: config.tableName, Key: keys, ConditionExpression, ...aliases() }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * One batch request sent until DynamoDB leaves nothing of it unprocessed (it does when throttled),
 * backing off between sends: still so after the retries, a 503 like any throttling the SDK gives up
 * on (a plain Error answered 500). `send` answers what is left.
 */
async function untilProcessed<T>(operation: string, batch: T[], send: (pending: T[]) => Promise<T[]>) {
  let pending = batch;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
    if (attempt > 6) {
      log.warn('dependency unavailable', { error: `${operation} left items unprocessed after retries` });
      throw new ServiceUnavailableError();
    }
    pending = await send(pending);
  }
}

const inBatches = <T>(list: T[], size: number) =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

/** A key as one text (`existingKeys` answers these). */
export const keyText = ({ pk, sk }: Keys) => `${pk}\n${sk}`;

/** Which of these keys hold an item, as `keyText`s (strongly consistent, parallel batches of 100).
 * A key given twice is asked once: BatchGetItem refuses a request that names one twice. */
export async function existingKeys(keys: Keys[]): Promise<Set<string>> {
  const found = new Set<string>();
  const distinct = [...new Map(keys.map(({ pk, sk }) => [keyText({ pk, sk }), { pk, sk }])).values()];
  await Promise.all(
    inBatches(distinct, 100).map((batch) =>
      untilProcessed('BatchGetItem', batch, async (pending) => {
        const { Responses, UnprocessedKeys } = await dynamo().send(
          new BatchGetCommand({
            RequestItems: {
              [config.tableName]: {
                Keys: pending,
                ConsistentRead: CONSISTENT_READ,
                ProjectionExpression: 'pk, sk',
              },
            },
          }),
        );
        for (const item of Responses?.[config.tableName] ?? []) found.add(keyText(item as Keys));
        return (UnprocessedKeys?.[config.tableName]?.Keys ?? []) as Keys[];
      }),
    ),
  );
  return found;
}

type WriteRequest = { PutRequest: { Item: Item & Keys } } | { DeleteRequest: { Key: Keys } };

// Batches of one write in flight at once. A month's calendar is a hundred batches or more, most into
// one partition: sent all at once they were throttled together (on AWS, a partition takes about 1,000
// write units a second) or timed out together (dynalite on a loaded machine: a 503).
const BATCHES_IN_FLIGHT = 8;

/**
 * Batches of 25, BATCHES_IN_FLIGHT at a time, retrying what DynamoDB leaves unprocessed. After a
 * failure no batch starts, and those in flight settle before it is thrown, so a caller undoing the
 * writes finds none still in flight.
 */
async function writeMany(requests: WriteRequest[]): Promise<void> {
  const batches = inBatches(requests, 25);
  let next = 0;
  let failure: { reason: unknown } | undefined;
  const sender = async () => {
    while (next < batches.length && !failure) {
      const batch = batches[next++]!;
      await untilProcessed('BatchWriteItem', batch, async (pending) => {
        const { UnprocessedItems } = await dynamo().send(
          new BatchWriteCommand({ RequestItems: { [config.tableName]: pending } }),
        );
        return (UnprocessedItems?.[config.tableName] ?? []) as WriteRequest[];
      }).catch((reason: unknown) => {
        failure ??= { reason };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, sender));
  if (failure) throw failure.reason;
}

/** Writes many items (batches of 25). */
export const putMany = (items: (Item & Keys)[]) => writeMany(items.map((Item) => ({ PutRequest: { Item } })));

/** Deletes many items by their keys (batches of 25). */
export const deleteMany = (keys: Keys[]) =>
  writeMany(keys.map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } })));

/** The caller's own record, or the same 404 a missing one gives. */
export function ownedBy<T extends { owner?: unknown }>(
  item: T | undefined,
  userId: string,
  resource: string,
): T {
  if (!item || item.owner !== userId) throw new NotFoundError(resource);
  return item;
}
