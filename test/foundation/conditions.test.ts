// updateItem's conditions (shared/db/store.ts): where an update has nothing to write, the item is read
// and `holds` checks the condition in place of DynamoDB's expression; both must answer alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  existingKeys,
  getItem,
  holds,
  keyText,
  put,
  queryAfter,
  removeListEntries,
  updateItem,
} from '../../shared/db/store.ts';
import { newId } from '../../shared/ids.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('the fewer condition', () => {
  it("counts a list's and a set's entries as DynamoDB's size() does, in the expression and in holds", async () => {
    const cases = [['a'], ['a', 'b'], ['a', 'b', 'c']].flatMap((entries) => [entries, new Set(entries)]);
    for (const entries of cases) {
      const keys = { pk: `CONDITION#${newId()}`, sk: 'ITEM' };
      await put({ ...keys, entries });
      const expression = await updateItem(keys, { set: { touched: true }, fewer: { entries: 3 } });
      const inPlace = holds({ ...keys, entries }, { fewer: { entries: 3 } });
      const size = entries instanceof Set ? entries.size : entries.length;
      assert.equal(expression !== undefined, size < 3, `${size} entries, by the expression`);
      assert.equal(inPlace, size < 3, `${size} entries (${entries.constructor.name}), by holds`);
    }
  });
});

describe('the lacks condition', () => {
  it("holds where a list or a set does not contain the value, as DynamoDB's contains(), in the expression and in holds", async () => {
    const cases = [['a'], ['b'], ['a', 'b']].flatMap((entries) => [entries, new Set(entries)]);
    for (const entries of cases) {
      const keys = { pk: `CONDITION#${newId()}`, sk: 'ITEM' };
      await put({ ...keys, entries });
      const expression = await updateItem(keys, { set: { touched: true }, lacks: { entries: 'a' } });
      const inPlace = holds({ ...keys, entries }, { lacks: { entries: 'a' } });
      const has = entries instanceof Set ? entries.has('a') : entries.includes('a');
      assert.equal(expression !== undefined, !has, `${[...entries]}, by the expression`);
      assert.equal(inPlace, !has, `${[...entries]} (${entries.constructor.name}), by holds`);
    }
    // An empty list, and an item without the list, lack every value.
    await put({ pk: 'CONDITION#empty', sk: 'ITEM', entries: [] });
    assert.notEqual(
      await updateItem(
        { pk: 'CONDITION#empty', sk: 'ITEM' },
        { set: { touched: true }, lacks: { entries: 'a' } },
      ),
      undefined,
    );
    const keys = { pk: `CONDITION#${newId()}`, sk: 'ITEM' };
    await put({ ...keys });
    assert.notEqual(await updateItem(keys, { set: { touched: true }, lacks: { entries: 'a' } }), undefined);
  });
});

describe('removeListEntries', () => {
  it('takes the entries off only where each still sits at the index read, else changes nothing', async () => {
    const keys = { pk: `CONDITION#${newId()}`, sk: 'ITEM' };
    await put({ ...keys, entries: ['a', 'b', 'c', 'd'] });
    const entries = async () => (await getItem<{ entries: string[] }>(keys))!.entries;
    // 'c' is no longer at 1: the list moved since it was read, so 'b' stays too.
    const moved = [
      { index: 1, value: 'b' },
      { index: 1, value: 'c' },
    ];
    assert.equal(await removeListEntries(keys, 'entries', moved.slice(1)), false);
    assert.equal(await removeListEntries(keys, 'entries', [moved[0]!, { index: 3, value: 'c' }]), false);
    assert.deepEqual(await entries(), ['a', 'b', 'c', 'd']);
    assert.equal(
      await removeListEntries(keys, 'entries', [
        { index: 1, value: 'b' },
        { index: 3, value: 'd' },
      ]),
      true,
    );
    assert.deepEqual(await entries(), ['a', 'c']);
  });
});

describe('existingKeys', () => {
  it('answers the keys that hold an item, past one batch of 100', async () => {
    const pk = `CONDITION#${newId()}`;
    const keys = Array.from({ length: 130 }, (_, i) => ({ pk, sk: `ITEM#${String(i).padStart(3, '0')}` }));
    const held = keys.filter((_, i) => i % 3 === 0);
    for (const key of held) await put({ ...key });
    assert.deepEqual(await existingKeys(keys), new Set(held.map(keyText)));
  });

  it('answers a key given twice (BatchGetItem refuses a request naming one twice)', async () => {
    const pk = `CONDITION#${newId()}`;
    await put({ pk, sk: 'HELD' });
    const keys = [
      { pk, sk: 'HELD' },
      { pk, sk: 'LEFT' },
    ];
    assert.deepEqual(await existingKeys([...keys, ...keys]), new Set([keyText(keys[0]!)]));
  });
});

describe('queryAfter', () => {
  it('answers an item heavier than the page budget alone, never an empty page, so paging goes on', async () => {
    const pk = `CONDITION#${newId()}`;
    const ids = ['a', 'b', 'c'];
    for (const id of ids) await put({ pk, sk: `ITEM#${id}`, id, text: 'x'.repeat(500) });
    const pages: string[][] = [];
    let after: string | undefined;
    do {
      const page = await queryAfter<{ id: string }>(pk, { prefix: 'ITEM#', limit: 3, after, maxBytes: 100 });
      pages.push(page.items.map((item) => item.id));
      after = page.nextAfter === null ? undefined : `ITEM#${page.nextAfter}`;
    } while (after !== undefined && pages.length < 5);
    assert.deepEqual(pages, [['a'], ['b'], ['c']]);
  });
});
