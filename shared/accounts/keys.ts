// A user's own partition: their account item (flags and settings that belong to the person, not to
// one resource) and what they asked to upload each day.
const userPartition = (userId: string) => `USER#${userId}`;

export const accountKeys = {
  account: (userId: string) => ({ pk: userPartition(userId), sk: 'ACCOUNT' }),
  /** One UTC day (`YYYY-MM-DD`) of the user's upload allowance (shared/uploads/store.ts). */
  uploadAllowance: (userId: string, day: string) => ({ pk: userPartition(userId), sk: `UPLOADS#${day}` }),
};
