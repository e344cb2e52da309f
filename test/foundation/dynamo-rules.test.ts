// The tests' guard of DynamoDB's rules (test/support/dynamo-rules.ts): each request below breaks a rule
// DynamoDB enforces, and dynalite alone stores or answers it, so only the guard stands between it and
// a test that passes here and fails on AWS. Each is refused through the shared client (the guard is
// on it, and on the one made after a reset), naming the rule and the command; its compliant twin passes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type EmbeddedAws, LOCAL_TABLE, startEmbeddedAws } from '../../infra/local/embedded.ts';
import { dynamo, resetDynamo } from '../../shared/aws/dynamo.ts';
import '../support/dynamo-rules.ts';

let aws: EmbeddedAws;
/** dynalite with the guard taken off: what it answers on its own. */
let bare: DynamoDBDocumentClient;
before(async () => {
  aws = await startEmbeddedAws();
  bare = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint: aws.dynamodbEndpoint }),
  );
  assert.ok(bare.middlewareStack.remove('dynamodb-rules'));
});
after(async () => {
  bare.destroy();
  await aws.close();
});

const TableName = LOCAL_TABLE;
const key = (pk = 'p', sk = 's') => ({ pk, sk });
/** A value `levels` deep, the top-level value the first level. */
const nested = (levels: number): unknown => (levels === 1 ? 'leaf' : { a: nested(levels - 1) });
/** A condition expression of exactly `bytes` bytes (true on a new item). */
const conditionOf = (bytes: number) => {
  let expression = 'attribute_not_exists(x0)';
  for (let i = 1; expression.length + ` AND attribute_not_exists(x${i})`.length <= bytes; i++)
    expression += ` AND attribute_not_exists(x${i})`;
  return `${expression}${' '.repeat(bytes - expression.length)}`;
};
const update = (UpdateExpression: string, values: Record<string, unknown>, names?: Record<string, string>) =>
  new UpdateCommand({
    TableName,
    Key: key(),
    UpdateExpression,
    ExpressionAttributeValues: values,
    ...(names ? { ExpressionAttributeNames: names } : {}),
  });
const putOf = (Item: Record<string, unknown>) =>
  new BatchWriteCommand({ RequestItems: { [TableName]: [{ PutRequest: { Item } }] } });
const queryGsi1 = (value: string) =>
  new QueryCommand({
    TableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': value },
  });

// biome-ignore lint/suspicious/noExplicitAny: the commands differ in their input types
type Command = any;
const cases: { rule: RegExp; command: string; breaks: () => Command; keeps: () => Command }[] = [
  {
    rule: /no empty attribute name.*Item\.m\.inner has a key ""/,
    command: 'PutItemCommand',
    breaks: () => new PutCommand({ TableName, Item: { ...key(), m: { inner: { '': 1 } } } }),
    keeps: () => new PutCommand({ TableName, Item: { ...key(), m: { inner: { ' ': 1 } }, empty: '' } }),
  },
  {
    rule: /no empty attribute name.*ExpressionAttributeValues\.:v\[0\] has a key ""/,
    command: 'UpdateItemCommand',
    breaks: () => update('SET l = :v', { ':v': [{ '': 'x' }] }),
    keeps: () => update('SET l = :v', { ':v': [{ a: 'x' }] }),
  },
  {
    rule: /no empty attribute name.*Item has a key ""/,
    command: 'BatchWriteItemCommand',
    breaks: () => putOf({ ...key(), '': 1 }),
    keeps: () => putOf({ ...key(), a: 1 }),
  },
  {
    rule: /nesting depth ≤ 32.*nested 33 levels deep/,
    command: 'PutItemCommand',
    breaks: () => new PutCommand({ TableName, Item: { ...key(), deep: nested(33) } }),
    keeps: () => new PutCommand({ TableName, Item: { ...key(), deep: nested(32) } }),
  },
  {
    rule: /nesting depth ≤ 32.*ExpressionAttributeValues/,
    command: 'UpdateItemCommand',
    breaks: () => update('SET deep = :v', { ':v': nested(33) }),
    keeps: () => update('SET deep = :v', { ':v': nested(32) }),
  },
  {
    // 1,025 characters of 2 bytes: dynalite counts characters.
    rule: /partition key ≤ 2048 bytes.*Item\.pk is 2050 bytes/,
    command: 'PutItemCommand',
    breaks: () => new PutCommand({ TableName, Item: key('é'.repeat(1025)) }),
    keeps: () => new PutCommand({ TableName, Item: key('é'.repeat(1024)) }),
  },
  {
    rule: /sort key ≤ 1024 bytes.*Key\.sk is 1026 bytes/,
    command: 'GetItemCommand',
    breaks: () => new GetCommand({ TableName, Key: key('p', 'é'.repeat(513)) }),
    keeps: () => new GetCommand({ TableName, Key: key('p', 'é'.repeat(512)) }),
  },
  {
    rule: /partition key ≤ 2048 bytes.*Item\.gsi1pk is 2049 bytes in UTF-8 \(a key of gsi1, gsi1_calendar\)/,
    command: 'BatchWriteItemCommand',
    breaks: () => putOf({ ...key(), gsi1pk: 'x'.repeat(2049), gsi1sk: 'a' }),
    keeps: () => putOf({ ...key(), gsi1pk: 'x'.repeat(2048), gsi1sk: 'a' }),
  },
  {
    rule: /sort key ≤ 1024 bytes.*gsi1sk is 1025 bytes/,
    command: 'UpdateItemCommand',
    breaks: () => update('SET #s = :s', { ':s': 'x'.repeat(1025) }, { '#s': 'gsi1sk' }),
    keeps: () => update('SET #s = :s', { ':s': 'x'.repeat(1024) }, { '#s': 'gsi1sk' }),
  },
  {
    rule: /no empty index key.*Item\.gsi1pk is empty/,
    command: 'PutItemCommand',
    breaks: () => new PutCommand({ TableName, Item: { ...key(), gsi1pk: '', gsi1sk: 'a' } }),
    keeps: () => new PutCommand({ TableName, Item: { ...key(), gsi1sk: 'a' } }),
  },
  {
    rule: /no empty index key.*SET gsi1pk = :p/,
    command: 'UpdateItemCommand',
    breaks: () => update('SET a = :a, gsi1pk = :p', { ':a': '', ':p': '' }),
    keeps: () => update('SET a = :a, gsi1pk = :p', { ':a': '', ':p': 'x' }),
  },
  {
    rule: /no empty key value.*:p, an empty value/,
    command: 'QueryCommand',
    breaks: () => queryGsi1(''),
    keeps: () => queryGsi1('x'),
  },
  {
    // 140,000 Thai letters: 420,000 bytes in UTF-8, which DynamoDB counts, 140,000 units as dynalite counts.
    rule: /item ≤ 400 KB.*Item is 420007 bytes, strings counted in UTF-8/,
    command: 'PutItemCommand',
    breaks: () => new PutCommand({ TableName, Item: { ...key(), t: 'ก'.repeat(140_000) } }),
    keeps: () => new PutCommand({ TableName, Item: { ...key(), t: 'ก'.repeat(136_531) } }),
  },
  {
    // At the limit to the byte: 409,600 with the keys' names and values.
    rule: /item ≤ 400 KB.*Item is 409601 bytes/,
    command: 'BatchWriteItemCommand',
    breaks: () => putOf({ ...key(), t: 'é'.repeat(204_797) }),
    keeps: () => putOf({ ...key(), t: `${'é'.repeat(204_796)}x` }),
  },
  {
    // Only the update's answer tells its item's size (the updates here all ask for it, ALL_NEW).
    rule: /item ≤ 400 KB.*the updated item is 420007 bytes/,
    command: 'UpdateItemCommand',
    breaks: () =>
      new UpdateCommand({
        TableName,
        Key: key('u'),
        UpdateExpression: 'SET t = :t',
        ExpressionAttributeValues: { ':t': 'ก'.repeat(140_000) },
        ReturnValues: 'ALL_NEW',
      }),
    keeps: () =>
      new UpdateCommand({
        TableName,
        Key: key('u'),
        UpdateExpression: 'SET t = :t',
        ExpressionAttributeValues: { ':t': 'ก'.repeat(136_531) },
        ReturnValues: 'ALL_NEW',
      }),
  },
  {
    rule: /expression ≤ 4 KB.*ConditionExpression is 4097 bytes/,
    command: 'PutItemCommand',
    breaks: () => new PutCommand({ TableName, Item: key('c1'), ConditionExpression: conditionOf(4097) }),
    keeps: () => new PutCommand({ TableName, Item: key('c2'), ConditionExpression: conditionOf(4096) }),
  },
];

describe("DynamoDB's rules on the tests' DynamoDB client", () => {
  for (const { rule, command, breaks, keeps } of cases)
    it(`${command}: ${rule.source.split('.*')[0]}`, async () => {
      await bare.send(breaks()); // dynalite alone takes it
      await assert.rejects(dynamo().send(breaks()), (error: Error) => {
        assert.match(error.message, rule);
        assert.match(error.message, new RegExp(`^${command} breaks DynamoDB's rule`));
        return true;
      });
      await dynamo().send(keeps());
    });

  it('stays on the shared client when it is made again', async () => {
    resetDynamo();
    await assert.rejects(
      dynamo().send(new PutCommand({ TableName, Item: { ...key(), '': 1 } })),
      /PutItemCommand breaks DynamoDB's rule "no empty attribute name"/,
    );
  });
});
