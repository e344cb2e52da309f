// A data folder made before the table's definition changed (here: before gsi1_calendar) is opened by
// the current code: its table is rebuilt to the current definition, every item kept, so the routes
// that read the new index answer from the folder's data.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { LOCAL_TABLE, startEmbeddedAws } from '../../infra/local/embedded.ts';
import { ensureSeed, openLocalStores } from '../../infra/local/runtime.ts';
import { startServer } from '../../infra/local/server.ts';
import { createTableInput } from '../../shared/db/table.ts';

const folders: string[] = [];
after(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));
const folder = async () => {
  const made = await mkdtemp(join(tmpdir(), 'tcs-table-'));
  folders.push(made);
  return made;
};

/** A dynalite on `dataDir`'s DynamoDB files, reached by a client of its own, for `use`. */
async function withDynalite<T>(dataDir: string, use: (client: DynamoDBClient) => Promise<T>) {
  const server = dynalite({ path: join(dataDir, 'dynamodb'), createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  try {
    return await use(client);
  } finally {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

const scanAll = async (client: DynamoDBClient) => {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: LOCAL_TABLE, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

describe('the local table of a data folder made before its definition changed', () => {
  it('is rebuilt to the current definition with its items, so the calendar reads gsi1_calendar', async () => {
    // The demo data set, seeded by the current code, then put in a table as the code before
    // gsi1_calendar made it (gsi1 alone), in a folder of its own beside the same seed.json and secrets.
    const made = await folder();
    const fresh = await openLocalStores(made);
    await ensureSeed(made, undefined, fresh.secret);
    const rows = await (async () => {
      const client = new DynamoDBClient({
        region: 'us-east-1',
        endpoint: fresh.aws!.dynamodbEndpoint,
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      });
      try {
        return await scanAll(client);
      } finally {
        client.destroy();
      }
    })();
    await fresh.aws!.close();

    const older = await folder();
    await cp(made, older, { recursive: true, filter: (source) => !source.includes(`${made}/dynamodb`) });
    const before = createTableInput(LOCAL_TABLE);
    await withDynalite(older, async (client) => {
      await client.send(
        new CreateTableCommand({
          ...before,
          GlobalSecondaryIndexes: before.GlobalSecondaryIndexes.filter((index) => index.IndexName === 'gsi1'),
        }),
      );
      for (;;) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE }));
        if (Table?.TableStatus === 'ACTIVE') break;
        await setTimeout(10);
      }
      for (let i = 0; i < rows.length; i += 25)
        await client.send(
          new BatchWriteItemCommand({
            RequestItems: { [LOCAL_TABLE]: rows.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
          }),
        );
    });

    // Opened by the current code, as `npm start` opens it.
    const stores = await openLocalStores(older);
    const server = await startServer(0);
    try {
      const seed = await ensureSeed(older, server.url, stores.secret);
      // The demo team's calendar: its scheduled tasks are read from gsi1_calendar (before: 500, the
      // table having no such index).
      const res = await fetch(`${server.url}/api/v1/teams/${seed.team_id}/calendar/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seed.users.owner.token}` },
      });
      const body = (await res.json()) as { entries?: { status: string }[] };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.ok(
        body.entries?.some((entry) => entry.status !== 'planned'),
        'the team’s own tasks are in it',
      );
      const client = new DynamoDBClient({
        region: 'us-east-1',
        endpoint: stores.aws!.dynamodbEndpoint,
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      });
      try {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE }));
        assert.deepEqual(
          Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.Projection?.ProjectionType]),
          before.GlobalSecondaryIndexes.map((index) => [index.IndexName, index.Projection.ProjectionType]),
        );
        // Every item kept, as it was (beside them, the calendar entries that run stored).
        const key = (item: Record<string, AttributeValue>) => JSON.stringify(item);
        const kept = new Set((await scanAll(client)).map(key));
        assert.deepEqual(
          rows.filter((row) => !kept.has(key(row))),
          [],
        );
      } finally {
        client.destroy();
      }
    } finally {
      await server.close();
      await stores.aws!.close();
    }
    // And a folder made now opens as it is.
    const again = await startEmbeddedAws({ dataDir: older });
    await again.close();
  });

  it('a rebuild stopped after its copy aside and the table’s deletion goes on from the copy at the next start', async () => {
    const dataDir = await folder();
    const item = { pk: { S: 'TEAM#kept' }, sk: { S: 'TEAM' }, gsi1pk: { S: 'G' }, gsi1sk: { S: 'g' } };
    await withDynalite(dataDir, async (client) => {
      await client.send(new CreateTableCommand(createTableInput(`${LOCAL_TABLE}-rebuild`)));
      for (;;) {
        const { Table } = await client.send(
          new DescribeTableCommand({ TableName: `${LOCAL_TABLE}-rebuild` }),
        );
        if (Table?.TableStatus === 'ACTIVE') break;
        await setTimeout(10);
      }
      await client.send(
        new BatchWriteItemCommand({
          RequestItems: { [`${LOCAL_TABLE}-rebuild`]: [{ PutRequest: { Item: item } }] },
        }),
      );
    });
    const aws = await startEmbeddedAws({ dataDir });
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: aws.dynamodbEndpoint,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    try {
      assert.deepEqual(await scanAll(client), [item]);
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, [LOCAL_TABLE]);
    } finally {
      client.destroy();
      await aws.close();
    }
  });
});
