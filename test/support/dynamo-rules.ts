// DynamoDB's rules that dynalite does not enforce, checked on every request the tests' DynamoDB
// clients send: a request DynamoDB would refuse fails here, loudly, instead of passing locally and
// failing on AWS. Each rule is one DynamoDB refuses (AWS's Constraints page; dynoxide and the
// dynamodb-conformance captures of real AWS) and dynalite was seen to accept. Importing this module
// puts the check on every document client made afterwards (the shared `dynamo()` one, after every
// reset too); `test/support/harness.ts` imports it and `scripts/run-tests.mjs` preloads it.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ITEM_MAX_BYTES, itemBytes, numberBytes } from '../../shared/db/item-size.ts';
import { TABLE_INDEXES, TABLE_KEYS } from '../../shared/db/table.ts';

/** Attribute values and expressions as the low-level client sends them (after the document client's marshalling). */
type Value = Record<string, unknown>;
type Values = Record<string, Value>;
type Input = Record<string, unknown>;

export class DynamoRuleError extends Error {
  constructor(command: string, rule: string, detail: string) {
    super(
      `${command} breaks DynamoDB's rule "${rule}" (dynalite lets it through; AWS refuses it): ${detail}`,
    );
  }
}

/** The top-level attribute value is level 1; DynamoDB refuses a value deeper than 32. */
const MAX_DEPTH = 32;
const MAX_EXPRESSION_BYTES = 4 * 1024;
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;
const EXPRESSIONS = [
  'KeyConditionExpression',
  'FilterExpression',
  'ConditionExpression',
  'UpdateExpression',
  'ProjectionExpression',
] as const;

/** Every key attribute of the table and its indexes, with its role and the indexes it keys. */
const KEYS = new Map<string, { role: 'partition' | 'sort'; index?: string }>([
  [TABLE_KEYS.partitionKey, { role: 'partition' }],
  [TABLE_KEYS.sortKey, { role: 'sort' }],
]);
for (const [index, keys] of Object.entries(TABLE_INDEXES))
  for (const [name, role] of [
    [keys.partitionKey, 'partition'],
    [keys.sortKey, 'sort'],
  ] as const) {
    const known = KEYS.get(name);
    KEYS.set(name, { role, index: known?.index ? `${known.index}, ${index}` : index });
  }

const bytes = (value: Value): number | undefined =>
  typeof value.S === 'string'
    ? Buffer.byteLength(value.S)
    : typeof value.N === 'string'
      ? value.N.length
      : value.B instanceof Uint8Array
        ? value.B.byteLength
        : undefined;

/** A marshalled value's size as DynamoDB counts it: as `itemBytes` counts the plain value
 * (shared/db/item-size.ts), on the form the low-level client sends. */
function valueSize(value: Value): number {
  if (typeof value.S === 'string') return Buffer.byteLength(value.S);
  if (typeof value.N === 'string') return numberBytes(value.N);
  if (value.B instanceof Uint8Array) return value.B.byteLength;
  if (Array.isArray(value.SS))
    return (value.SS as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (Array.isArray(value.NS)) return (value.NS as string[]).reduce((sum, n) => sum + numberBytes(n), 0);
  if (Array.isArray(value.BS)) return (value.BS as Uint8Array[]).reduce((sum, b) => sum + b.byteLength, 0);
  if (Array.isArray(value.L))
    return (value.L as Value[]).reduce((sum, inner) => sum + 1 + valueSize(inner), 3);
  if (value.M && typeof value.M === 'object') return 3 + itemSize(value.M as Values, 1);
  return 1; // BOOL, NULL
}

/** An item's size: each attribute's name and value (and, inside a map, 1 byte an entry). */
const itemSize = (item: Values, perEntry = 0): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) => sum + perEntry + Buffer.byteLength(name) + valueSize(value),
    0,
  );

function checkItemSize(command: string, where: string, size: number) {
  if (size > ITEM_MAX_BYTES)
    throw new DynamoRuleError(
      command,
      'item ≤ 400 KB',
      `${where} is ${size} bytes, strings counted in UTF-8`,
    );
}

/** Empty attribute names and nesting, at any depth of a map of attribute values. */
function checkValues(command: string, where: string, values: Values) {
  const walk = (value: Value, path: string, depth: number) => {
    if (depth > MAX_DEPTH)
      throw new DynamoRuleError(command, 'nesting depth ≤ 32', `${path} is nested ${depth} levels deep`);
    if (value.M && typeof value.M === 'object') {
      for (const [name, inner] of Object.entries(value.M as Values)) {
        if (name === '')
          throw new DynamoRuleError(command, 'no empty attribute name', `${path} has a key ""`);
        walk(inner, `${path}.${name}`, depth + 1);
      }
    }
    if (Array.isArray(value.L))
      for (const [i, inner] of (value.L as Value[]).entries()) walk(inner, `${path}[${i}]`, depth + 1);
  };
  for (const [name, value] of Object.entries(values)) {
    if (name === '') throw new DynamoRuleError(command, 'no empty attribute name', `${where} has a key ""`);
    walk(value, `${where}.${name}`, 1);
  }
}

/** A key attribute's value as written or read: within its size in UTF-8 bytes, and not empty for an index. */
function checkKeyValue(command: string, where: string, name: string, value: Value) {
  const key = KEYS.get(name);
  const size = key && bytes(value);
  if (!key || size === undefined) return;
  if (size === 0 && key.index)
    throw new DynamoRuleError(
      command,
      'no empty index key',
      `${where}.${name} is empty, a key of ${key.index} (leave the attribute out instead)`,
    );
  const limit = key.role === 'partition' ? MAX_PARTITION_KEY_BYTES : MAX_SORT_KEY_BYTES;
  if (size > limit)
    throw new DynamoRuleError(
      command,
      `${key.role} key ≤ ${limit} bytes`,
      `${where}.${name} is ${size} bytes in UTF-8${key.index ? ` (a key of ${key.index})` : ''}`,
    );
}

function checkKeys(command: string, where: string, item: Values) {
  for (const [name, value] of Object.entries(item)) checkKeyValue(command, where, name, value);
}

/** One request of a command (the command itself, or one part of a batch or transaction). */
function checkRequest(command: string, request: Input) {
  const names = (request.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (request.ExpressionAttributeValues ?? {}) as Values;
  for (const expression of EXPRESSIONS) {
    const text = request[expression];
    if (typeof text === 'string' && Buffer.byteLength(text) > MAX_EXPRESSION_BYTES)
      throw new DynamoRuleError(
        command,
        'expression ≤ 4 KB',
        `${expression} is ${Buffer.byteLength(text)} bytes`,
      );
  }
  checkValues(command, 'ExpressionAttributeValues', values);
  for (const part of ['Item', 'Key', 'ExclusiveStartKey'] as const) {
    const item = request[part] as Values | undefined;
    if (!item) continue;
    checkValues(command, part, item);
    checkKeys(command, part, item);
    if (part === 'Item') checkItemSize(command, part, itemSize(item));
  }
  for (const key of (request.Keys ?? []) as Values[]) checkKeys(command, 'Keys', key);
  // A query's key condition compares key attributes: none of its values may be empty.
  const condition = request.KeyConditionExpression;
  if (typeof condition === 'string')
    for (const placeholder of condition.match(/:[\w-]+/g) ?? [])
      if (values[placeholder] && bytes(values[placeholder]) === 0)
        throw new DynamoRuleError(
          command,
          'no empty key value',
          `KeyConditionExpression compares a key with ${placeholder}, an empty value`,
        );
  // An update that sets a key attribute to a plain value: that value must fit its key (SET gsi1pk = :v).
  const update = request.UpdateExpression;
  if (typeof update === 'string')
    for (const [, path = '', placeholder = ''] of update.matchAll(/([#\w]+)\s*=\s*(:[\w-]+)(?!\s*[+-])/g)) {
      const name = names[path] ?? path;
      const value = values[placeholder];
      if (value) checkKeyValue(command, `UpdateExpression (SET ${path} = ${placeholder})`, name, value);
    }
}

/** Throws a DynamoRuleError when a low-level request breaks one of the rules. */
export function checkDynamoRequest(command: string, input: Input) {
  checkRequest(command, input);
  const requestItems = (input.RequestItems ?? {}) as Record<string, unknown>;
  for (const entries of Object.values(requestItems)) {
    // BatchWriteItem: a list of put and delete requests; BatchGetItem: { Keys, ProjectionExpression, … }.
    if (Array.isArray(entries))
      for (const entry of entries as Record<string, Input | undefined>[]) {
        if (entry.PutRequest) checkRequest(command, entry.PutRequest);
        if (entry.DeleteRequest) checkRequest(command, entry.DeleteRequest);
      }
    else checkRequest(command, entries as Input);
  }
  for (const entry of (input.TransactItems ?? []) as Record<string, Input>[])
    for (const request of Object.values(entry)) checkRequest(command, request);
}

type Stack = DynamoDBDocumentClient['middlewareStack'];
const NAME = 'dynamodb-rules';

/** Puts the check on a client's stack: at the build step, after the document client has marshalled the input. */
export function applyDynamoRules(stack: Stack) {
  if (stack.identify().some((entry) => entry.startsWith(`${NAME} `))) return;
  stack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? 'unknown command');
      checkDynamoRequest(command, args.input as Input);
      const result = await next(args);
      // An update's item is known only after it: checked where the update answers it (ALL_NEW), as
      // the document client has already unmarshalled it here.
      const written = (result.output as { Attributes?: Record<string, unknown> }).Attributes;
      if (command === 'UpdateItemCommand' && (args.input as Input).ReturnValues === 'ALL_NEW' && written)
        checkItemSize(command, 'the updated item', itemBytes(written));
      return result;
    },
    { step: 'build', name: NAME },
  );
}

// Every document client made from here on carries the check (the shared client is made lazily, and
// made again after `resetDynamo()`). `from` is how `shared/aws/dynamo.ts` makes it.
const documentClient = DynamoDBDocumentClient as unknown as {
  from: typeof DynamoDBDocumentClient.from;
  guarded?: true;
};
if (!documentClient.guarded) {
  const from = documentClient.from;
  documentClient.from = (...args) => {
    const client = from.apply(DynamoDBDocumentClient, args);
    applyDynamoRules(client.middlewareStack);
    return client;
  };
  documentClient.guarded = true;
}
