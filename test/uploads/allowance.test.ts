// The daily upload allowance's one rule, asked two ways over dynalite: the read ahead of an upload
// (`readDailyAllowance`'s `refuseBeyond`, the avatar upload's 429 before the provider's job) and the
// conditional update that decides (`useDailyAllowance`). They must refuse exactly the same uploads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountKeys } from '../../shared/accounts/keys.ts';
import { updateItem } from '../../shared/db/store.ts';
import { TooManyRequestsError } from '../../shared/http/errors.ts';
import { newId } from '../../shared/ids.ts';
import { readDailyAllowance, useDailyAllowance } from '../../shared/uploads/store.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const AT = new Date('2026-11-21T10:00:00.000Z');
// docs/uploads.md's figures (20 GiB in 1,000 uploads), not the code's constants: a limit moved in the
// code alone fails here.
const [bytes, uploads] = [21_474_836_480, 1000];

/** Whether `counting` was refused with the allowance's 429 (anything else fails the test). */
const refused = (counting: () => unknown): Promise<boolean> =>
  Promise.resolve()
    .then(counting)
    .then(
      () => false,
      (error) => {
        if (error instanceof TooManyRequestsError) return true;
        throw error;
      },
    );

describe('the daily upload allowance: the read check and the count agree', () => {
  // What the day has counted before (none: no item yet), the upload asked for, and whether the rule
  // (after it, at most `bytes` bytes in at most `uploads` uploads) refuses it.
  const cases: {
    name: string;
    counted?: { bytes: number; uploads: number };
    size: number;
    refuse: boolean;
  }[] = [
    { name: 'a new day, the whole bytes allowance in one upload', size: bytes, refuse: false },
    // Larger than any upload today (2 GiB), as one would be past a daily limit lowered below it: the
    // update's condition lets a total not yet there pass, whatever the size.
    { name: 'a new day, one byte past the bytes allowance', size: bytes + 1, refuse: true },
    { name: 'the bytes left, exactly', counted: { bytes: bytes - 10, uploads: 1 }, size: 10, refuse: false },
    { name: 'a byte more than is left', counted: { bytes: bytes - 10, uploads: 1 }, size: 11, refuse: true },
    {
      name: 'the last upload of the day',
      counted: { bytes: 1, uploads: uploads - 1 },
      size: 1,
      refuse: false,
    },
    { name: 'an upload past the uploads allowance', counted: { bytes: 1, uploads }, size: 1, refuse: true },
  ];
  for (const { name, counted, size, refuse } of cases)
    it(`${name}: ${refuse ? 'both refuse (429)' : 'both count it'}`, async () => {
      const user = newId();
      // The day's totals as that many uploads would leave them (one update, not a thousand).
      if (counted)
        await updateItem(accountKeys.uploadAllowance(user, AT.toISOString().slice(0, 10)), { add: counted });
      const read = await readDailyAllowance(user, AT);
      const byRead = await refused(() => read.refuseBeyond(size));
      const byCount = await refused(() => useDailyAllowance(user, size, AT));
      assert.deepEqual({ byRead, byCount }, { byRead: refuse, byCount: refuse });
    });
});
