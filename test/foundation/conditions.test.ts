// updateItem's conditions (shared/db/store.ts): where an update has nothing to write, the item is read
// and `holds` checks the condition in place of DynamoDB's expression; both must answer alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { holds, put, updateItem } from '../../shared/db/store.ts';
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
