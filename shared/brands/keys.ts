/** The sort key prefix of a brand in its owner's gsi1 partition. */
const OWNER_PREFIX = 'BRAND#';

export const brandKeys = {
  brand: (brandId: string) => ({ pk: `BRAND#${brandId}`, sk: 'BRAND' }),
  /** gsi1: a user's brands, newest first (UUIDv7 ids sort by creation). */
  byOwner: (userId: string, brandId: string) => ({
    gsi1pk: `USER#${userId}#BRANDS`,
    gsi1sk: `${OWNER_PREFIX}${brandId}`,
  }),
  ownerPartition: (userId: string) => `USER#${userId}#BRANDS`,
  ownerPrefix: OWNER_PREFIX,
};
