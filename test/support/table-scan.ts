// Every item of the local table a Scan matches, page after page: one page ends at 1 MB of the table
// read (before any filter), so a single Scan misses items once the tests' records pass that, and a
// check over them could no longer fail.
import { ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { config } from '../../shared/config.ts';

export async function scanTable(
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'> = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({ ...input, TableName: config.tableName, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
