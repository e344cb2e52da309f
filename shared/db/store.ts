// Thin helpers over the document client: the only place table names and key attributes meet the SDK.
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../aws/dynamo.ts';
import { config } from '../config.ts';
import { NotFoundError } from '../http/errors.ts';
import { type IndexName, type Keys, TABLE_INDEXES } from './table.ts';

export type Item = Record<string, unknown>;

export async function getItem<T extends object>(keys: Keys): Promise<T | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: config.tableName, Key: keys }));
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
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

export async function put(item: Item & Keys): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: config.tableName, Item: item }));
}

export interface QueryOptions {
  /** Only sort keys that begin with this. */
  prefix?: string;
  limit?: number;
  /** Newest first when the sort key ends in a UUIDv7. */
  newestFirst?: boolean;
  index?: IndexName;
}

/** One single-partition Query, one page (callers bound their reads with `limit`). */
export async function queryPartition<T extends object>(
  partition: string,
  options: QueryOptions = {},
): Promise<T[]> {
  const keys = options.index ? TABLE_INDEXES[options.index] : { partitionKey: 'pk', sortKey: 'sk' };
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: config.tableName,
      IndexName: options.index,
      KeyConditionExpression: options.prefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
      ExpressionAttributeNames: options.prefix
        ? { '#pk': keys.partitionKey, '#sk': keys.sortKey }
        : { '#pk': keys.partitionKey },
      ExpressionAttributeValues: options.prefix
        ? { ':pk': partition, ':prefix': options.prefix }
        : { ':pk': partition },
      ScanIndexForward: !options.newestFirst,
      Limit: options.limit,
    }),
  );
  return (Items ?? []) as T[];
}

/** Adds to numeric counters on an item (totals kept on the parent instead of counting history). */
export async function addToCounters(keys: Keys, counters: Record<string, number>): Promise<void> {
  const names = Object.keys(counters);
  await dynamo().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys,
      ConditionExpression: 'attribute_exists(pk)',
      UpdateExpression: `ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:c${i}`, counters[name]])),
    }),
  );
}

/** Writes many items in parallel batches of 25, retrying what DynamoDB leaves unprocessed. */
export async function putMany(items: (Item & Keys)[]): Promise<void> {
  const batches: (Item & Keys)[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  await Promise.all(
    batches.map(async (batch) => {
      let requests = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
        if (attempt > 6) throw new Error('BatchWrite left items unprocessed after retries');
        const { UnprocessedItems } = await dynamo().send(
          new BatchWriteCommand({ RequestItems: { [config.tableName]: requests } }),
        );
        requests = (UnprocessedItems?.[config.tableName] ?? []) as typeof requests;
      }
    }),
  );
}

/** The caller's own record, or the same 404 a missing one gives. */
export function ownedBy<T extends { owner?: unknown }>(
  item: T | undefined,
  userId: string,
  resource: string,
): T {
  if (!item || item.owner !== userId) throw new NotFoundError(resource);
  return item;
}
