// A user's own partition: their account item (flags and settings that belong to the person, not to
// one resource), what they asked to upload each day and the Idempotency-Keys of their creates.
import { sha256 } from '../digest.ts';

const userPartition = (userId: string) => `USER#${userId}`;

export const accountKeys = {
  account: (userId: string) => ({ pk: userPartition(userId), sk: 'ACCOUNT' }),
  /** One UTC day (`YYYY-MM-DD`) of the user's upload allowance (shared/uploads/store.ts). */
  uploadAllowance: (userId: string, day: string) => ({ pk: userPartition(userId), sk: `UPLOADS#${day}` }),
  /** The claim of an Idempotency-Key the user sent with one kind of create (shared/idempotency.ts),
   * the key as its digest (shared/digest.ts). */
  idempotencyClaim: (userId: string, create: string, key: string) => ({
    pk: userPartition(userId),
    sk: `IDEMPOTENCY#${create}#${sha256(key)}`,
  }),
};
