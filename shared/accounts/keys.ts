// A user's own partition: their account item (flags and settings that belong to the person, not to
// one resource), what they asked to upload each day and the Idempotency-Keys of their creates.
import { createHash } from 'node:crypto';

const userPartition = (userId: string) => `USER#${userId}`;

export const accountKeys = {
  account: (userId: string) => ({ pk: userPartition(userId), sk: 'ACCOUNT' }),
  /** One UTC day (`YYYY-MM-DD`) of the user's upload allowance (shared/uploads/store.ts). */
  uploadAllowance: (userId: string, day: string) => ({ pk: userPartition(userId), sk: `UPLOADS#${day}` }),
  /** The claim of an Idempotency-Key the user sent with one kind of create (shared/idempotency.ts).
   * The key goes in as its SHA-256: 255 characters of up to 4 UTF-8 bytes each would pass DynamoDB's
   * 1,024-byte limit on a sort key. */
  idempotencyClaim: (userId: string, create: string, key: string) => ({
    pk: userPartition(userId),
    sk: `IDEMPOTENCY#${create}#${createHash('sha256').update(key).digest('base64url')}`,
  }),
};
