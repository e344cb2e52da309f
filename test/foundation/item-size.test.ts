// `itemBytes` (shared/db/item-size.ts) against dynalite's own count of the item the document client
// marshals, and the bound the agents' task updates rely on: a value takes at most twice its JSON.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { itemBytes, numberBytes } from '../../shared/db/item-size.ts';
import { sentBytes } from '../../shared/lambda-response.ts';

const dynalite = createRequire(import.meta.url)('dynalite/db/index.js') as {
  itemSize: (item: Record<string, unknown>) => number;
};

/** The item as the document client marshals it (the service's options), caught before it is sent. */
const documents = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' } }),
  {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  },
);
documents.middlewareStack.add(
  (_next) => async (args) => ({
    output: { marshalled: (args.input as { Item: unknown }).Item } as never,
    response: {},
  }),
  { step: 'build', name: 'catch-marshalled' },
);
const marshalled = async (item: Record<string, unknown>) =>
  (
    (await documents.send(new PutCommand({ TableName: 't', Item: item }))) as unknown as {
      marshalled: Record<string, unknown>;
    }
  ).marshalled;

/** Plain values the table stores: numbers within the document client's safe range, ASCII strings
 * (where dynalite's UTF-16 count is the UTF-8 one), lists, maps, sets, binary, nulls, booleans. */
const leaf = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc
    .double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 })
    .filter((n) => n === 0 || Math.abs(n) >= 1e-130),
  fc.constantFrom(0.1, 1.2, 1e-130, -0.000123, 5e-30, 100, 120, 1200, 12, 123456789012345),
  fc.boolean(),
  fc.constant(null),
  fc.uint8Array({ minLength: 1, maxLength: 8 }),
  fc
    .uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 })
    .map((s) => new Set(s)),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
}));
const item = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), value, { maxKeys: 6 });

describe('itemBytes', () => {
  it("counts as dynalite does where strings are ASCII (dynalite's own 400 KB check)", async () => {
    await fc.assert(
      fc.asyncProperty(item, async (plain) => {
        assert.equal(itemBytes(plain), dynalite.itemSize(await marshalled(plain)));
      }),
      { numRuns: 300 },
    );
    // Zero, which the property may not draw: 1 byte, as dynalite counts it.
    const zeros = { zero: 0, list: [0, 0.0, -0] };
    assert.equal(itemBytes(zeros), dynalite.itemSize(await marshalled(zeros)));
  });

  it('counts strings and names in UTF-8, as AWS does, where dynalite counts UTF-16 units', async () => {
    const plain = { é: 'กา', list: ['😀'], map: { ü: 'x' } };
    const units = dynalite.itemSize(await marshalled(plain));
    // é 2 bytes for 1 unit, กา 6 for 2, 😀 4 for 2, ü 2 for 1.
    assert.equal(itemBytes(plain), units + 1 + 4 + 2 + 1);
  });

  it('leaves out undefined, as the document client does', async () => {
    const plain = { a: 1, gone: undefined, map: { kept: 'x', gone: undefined } };
    assert.equal(itemBytes(plain), dynalite.itemSize(await marshalled(plain)));
  });

  it('gives a JSON value at most twice its JSON as sent, the worst a number deep in lists', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'binary', maxLength: 8 }),
        fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
        fc.constantFrom(0, 1, -1, 0.5, 1.2, 10, 99),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { maxKeys: 5 }),
        (record) => {
          assert.ok(itemBytes(record) <= 2 * sentBytes(JSON.stringify(record)));
        },
      ),
      { numRuns: 2000 },
    );
    const deep = { a: [[[[[[[[1]]]]]]]] };
    assert.equal(itemBytes(deep), 1 + 8 * 4 + 2);
    assert.ok(itemBytes(deep) <= 2 * sentBytes(JSON.stringify(deep)));
  });

  it('counts a number written with a long run of zeros as fast as one without', () => {
    // Its trailing zeros were sought from every zero of each run, to the run's end: the square of the
    // run (70 ms at 10,000 zeros, 80,000 took seconds).
    const n = 80_000;
    const zeros = `1${'0'.repeat(n)}1`;
    const ones = '1'.repeat(n + 2);
    assert.equal(numberBytes(zeros), 1 + (n + 2) / 2);
    /** CPU milliseconds of the fastest of three counts. */
    const cpuMs = (text: string) => {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const start = process.cpuUsage();
        numberBytes(text);
        const used = process.cpuUsage(start);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      return best;
    };
    const [withZeros, without] = [cpuMs(zeros), cpuMs(ones)];
    assert.ok(withZeros < 20 * Math.max(without, 0.1), `${withZeros} ms with zeros, ${without} ms without`);
  });
});
