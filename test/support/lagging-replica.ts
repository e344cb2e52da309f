// DynamoDB's eventually consistent reads, at their worst, on the real store. A read that does not ask
// for ConsistentRead may be served by a replica that has not applied the latest writes yet (DynamoDB's
// documented behaviour, usually for well under a second: exactly when a client's next request follows
// its last one). `lagReplica()` copies the table as it is now into a second table and, until `stop()`,
// an SDK middleware on the shared client sends every such read of the base table (GetItem, and Query
// without IndexName) to that copy: the handlers, the store helpers and the table stay the real ones.
// Writes, consistent reads and index queries (eventually consistent on AWS whatever is asked, so no
// code can do better there) go to the table.
//
//   const replica = await lagReplica();
//   await h.call('POST', …);            // written to the table
//   await h.call('GET', …);             // its eventually consistent reads see the table as it was
//   await replica.stop();
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { config } from '../../shared/config.ts';
import { createTableInput } from '../../shared/db/table.ts';
import { intercept } from './sdk-faults.ts';

type Input = { TableName?: string; ConsistentRead?: boolean; IndexName?: string };

const BATCH_WRITE_ITEMS = 25;
let replicas = 0;

export async function lagReplica(): Promise<{ stop(): Promise<void> }> {
  const client = dynamo();
  const table = config.tableName;
  const replica = `${table}-lagging-replica-${++replicas}`;
  await client.send(new CreateTableCommand(createTableInput(replica)));
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += BATCH_WRITE_ITEMS) {
      const puts = items.slice(i, i + BATCH_WRITE_ITEMS).map((Item) => ({ PutRequest: { Item } }));
      await client.send(new BatchWriteCommand({ RequestItems: { [replica]: puts } }));
    }
    start = page.LastEvaluatedKey;
  } while (start);

  const removeRouting = intercept(
    'dynamo',
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: Input }) => {
        const { input } = args;
        const baseTableRead =
          context.commandName === 'GetItemCommand' ||
          (context.commandName === 'QueryCommand' && input.IndexName === undefined);
        if (baseTableRead && input.TableName === table && input.ConsistentRead !== true)
          return next({ ...args, input: { ...input, TableName: replica } });
        return next(args);
      },
    'initialize',
  );
  return {
    async stop() {
      removeRouting();
      await client.send(new DeleteTableCommand({ TableName: replica }));
    },
  };
}
