// A user's account item: flags and settings that belong to the person, not to one resource.
export const accountKeys = {
  account: (userId: string) => ({ pk: `USER#${userId}`, sk: 'ACCOUNT' }),
};
