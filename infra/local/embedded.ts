// The embedded AWS of the local runtime and the tests: dynalite (DynamoDB on LevelDB) and s3rver
// (S3 on the file system) on loopback ports, reached by the real SDK clients through the environment.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemInput,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type GlobalSecondaryIndexDescription,
  ListTablesCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { resetDynamo } from '../../shared/aws/dynamo.ts';
import { resetS3 } from '../../shared/aws/s3.ts';
import { createTableInput } from '../../shared/db/table.ts';
import { conditionalWrites, type ObjectStore } from './s3-conditional-writes.ts';
import { durablePuts, type FilesystemStore } from './s3-durable-puts.ts';
import { emptyRanges } from './s3-empty-ranges.ts';
import { type ListingStore, listPages } from './s3-list-pages.ts';

export const LOCAL_TABLE = 'team-content';
export const LOCAL_BUCKET = 'team-content-uploads';
/** s3rver's built-in account; dynalite accepts any credentials. */
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface EmbeddedAws {
  dynamodbEndpoint: string;
  s3Endpoint: string;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Persist under this folder; in memory (and a temporary S3 folder) when absent. */
  dataDir?: string;
  dynamodbPort?: number;
  s3Port?: number;
}

/** Another process holds the data folder's DynamoDB files (an `npm run invoke` on its own stores, an
 * `npm start` before it has written running.json). */
export class DataFolderInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(`${dataDir} is in use by another process`);
  }
}

/** The LevelDB dynalite opens (its own copy of the `level` package). */
const { Level } = createRequire(createRequire(import.meta.url).resolve('dynalite'))('level') as {
  Level: new (path: string) => { open(): Promise<void>; close(): Promise<void> };
};

/**
 * dynalite opens its LevelDB in the background: on a folder another process holds, the open fails
 * unseen and its first request throws outside any promise, crashing the process with a stack trace.
 * So the lock is tried first, and released for dynalite.
 */
async function claimDynamoDir(dataDir: string, dynamoDir: string) {
  const db = new Level(dynamoDir);
  try {
    await db.open();
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED')
      throw new DataFolderInUseError(dataDir);
    throw error;
  } finally {
    await db.close();
  }
}

export async function startEmbeddedAws(options: EmbeddedOptions = {}): Promise<EmbeddedAws> {
  const dynamoDir = options.dataDir ? join(options.dataDir, 'dynamodb') : undefined;
  const s3Dir = options.dataDir ? join(options.dataDir, 's3') : await mkdtemp(join(tmpdir(), 'tcs-s3-'));
  if (options.dataDir && dynamoDir) {
    await mkdir(dynamoDir, { recursive: true });
    await claimDynamoDir(options.dataDir, dynamoDir);
  }
  await mkdir(s3Dir, { recursive: true });

  const dynamo = dynalite({ path: dynamoDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => dynamo.listen(options.dynamodbPort ?? 0, '127.0.0.1', resolve));
  const dynamodbEndpoint = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;

  const s3 = new S3rver({
    address: '127.0.0.1',
    port: options.s3Port ?? 0,
    directory: s3Dir,
    silent: true,
    configureBuckets: [{ name: LOCAL_BUCKET, configs: [] }],
  });
  // S3's conditional writes (If-Match, If-None-Match), its 416 for a range over an empty object and
  // listings of more than one page, which s3rver lacks; first, before its routes (the range check
  // inside the key's read turn).
  const koa = s3 as unknown as { middleware: unknown[]; store: ObjectStore & FilesystemStore & ListingStore };
  koa.middleware.unshift(conditionalWrites(koa.store), emptyRanges(koa.store), listPages(koa.store));
  // And S3's read-after-write: an object is whole once its PUT has answered.
  durablePuts(koa.store);
  const { port: s3Port } = (await s3.run()) as AddressInfo;
  const s3Endpoint = `http://127.0.0.1:${s3Port}`;

  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    TABLE_NAME: LOCAL_TABLE,
    BUCKET_NAME: LOCAL_BUCKET,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    S3_ENDPOINT: s3Endpoint,
  });
  resetClients();
  await ensureTable(dynamodbEndpoint);

  return {
    dynamodbEndpoint,
    s3Endpoint,
    close: async () => {
      resetClients();
      await Promise.all([new Promise((resolve) => dynamo.close(resolve)), s3.close()]);
      // A folder of its own (no DATA_DIR: the tests' stores) goes with the stores: thousands were left.
      if (!options.dataDir) await rm(s3Dir, { recursive: true, force: true });
    },
  };
}

const resetClients = () => {
  resetDynamo();
  resetS3();
};

/** How long a new table may take to become ACTIVE (dynalite: a moment; it marks it after answering). */
const TABLE_ACTIVE_WAIT_MS = 5000;
/** Where a table made to an older definition is copied while it is made again (`rebuildTable`). */
const ASIDE_TABLE = `${LOCAL_TABLE}-rebuild`;
const BATCH_WRITE_ITEMS = 25;

/** Creates the table if it is missing, and returns once it is ACTIVE: dynalite answers CreateTable
 * while the table is still CREATING, and refuses writes to it until then (ResourceNotFoundException).
 * A data folder's table made to an older definition (its indexes) is made again to this one. */
export async function ensureTable(endpoint: string) {
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: LOCAL_CREDENTIALS });
  try {
    const { TableNames = [] } = await client.send(new ListTablesCommand({}));
    if (TableNames.includes(ASIDE_TABLE)) await rebuildTable(client, TableNames.includes(LOCAL_TABLE));
    else if (!TableNames.includes(LOCAL_TABLE))
      await client.send(new CreateTableCommand(createTableInput(LOCAL_TABLE)));
    else if (!(await isCurrent(client, LOCAL_TABLE))) await rebuildTable(client, true);
    await untilActive(client, LOCAL_TABLE);
  } finally {
    client.destroy();
  }
}

async function untilActive(client: DynamoDBClient, table: string) {
  const deadline = Date.now() + TABLE_ACTIVE_WAIT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus === 'ACTIVE') return;
    // A table a stopped process left CREATING stays so: dynalite activates it on a timer.
    if (Date.now() > deadline)
      throw new Error(
        `the local table is still ${Table?.TableStatus} (a first start was interrupted): delete the data folder and start again`,
      );
    await setTimeout(10);
  }
}

/** Whether the table has the indexes, keys and projections the code reads (createTableInput's). */
async function isCurrent(client: DynamoDBClient, table: string) {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  const shape = (indexes: readonly GlobalSecondaryIndexDescription[] = []) =>
    JSON.stringify(
      indexes
        .map(({ IndexName, KeySchema, Projection }) => ({
          IndexName,
          KeySchema,
          Projection: {
            ProjectionType: Projection?.ProjectionType,
            NonKeyAttributes: Projection?.NonKeyAttributes,
          },
        }))
        .sort((a, b) => (a.IndexName ?? '').localeCompare(b.IndexName ?? '')),
    );
  return shape(Table?.GlobalSecondaryIndexes) === shape(createTableInput(table).GlobalSecondaryIndexes);
}

/**
 * Makes the table again to the current definition, its items kept: dynalite cannot add an index to a
 * table (its UpdateTable ignores GlobalSecondaryIndexUpdates), and fills an index only as items are
 * written. The items are copied aside, the table made anew, and copied back. A start stopped midway
 * goes on from what it left: the copy aside is whole once the table is gone or current (it is deleted
 * only after the copy), else it is made again.
 */
async function rebuildTable(client: DynamoDBClient, tableThere: boolean) {
  const asideThere = (await client.send(new ListTablesCommand({}))).TableNames?.includes(ASIDE_TABLE);
  if (!asideThere || (tableThere && !(await isCurrent(client, LOCAL_TABLE)))) {
    if (asideThere) await dropTable(client, ASIDE_TABLE);
    await client.send(new CreateTableCommand(createTableInput(ASIDE_TABLE)));
    await untilActive(client, ASIDE_TABLE);
    await copyItems(client, LOCAL_TABLE, ASIDE_TABLE);
    await dropTable(client, LOCAL_TABLE);
    tableThere = false;
  }
  if (!tableThere) await client.send(new CreateTableCommand(createTableInput(LOCAL_TABLE)));
  await untilActive(client, LOCAL_TABLE);
  await copyItems(client, ASIDE_TABLE, LOCAL_TABLE);
  await dropTable(client, ASIDE_TABLE);
}

async function copyItems(client: DynamoDBClient, from: string, to: string) {
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: from, ExclusiveStartKey: start }));
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += BATCH_WRITE_ITEMS) {
      let requests: BatchWriteItemInput['RequestItems'] = {
        [to]: items.slice(i, i + BATCH_WRITE_ITEMS).map((Item) => ({ PutRequest: { Item } })),
      };
      while (requests && Object.keys(requests).length > 0)
        requests = (await client.send(new BatchWriteItemCommand({ RequestItems: requests })))
          .UnprocessedItems;
    }
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Deletes a table and returns once it is gone (dynalite keeps it DELETING for a moment). */
async function dropTable(client: DynamoDBClient, table: string) {
  await client.send(new DeleteTableCommand({ TableName: table }));
  while ((await client.send(new ListTablesCommand({}))).TableNames?.includes(table)) await setTimeout(10);
}
