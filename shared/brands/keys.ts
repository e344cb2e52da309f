export const brandKeys = {
  brand: (brandId: string) => ({ pk: `BRAND#${brandId}`, sk: 'BRAND' }),
  /** gsi1: a user's brands, newest first (UUIDv7 ids sort by creation). */
  byOwner: (userId: string, brandId: string) => ({
    gsi1pk: `USER#${userId}#BRANDS`,
    gsi1sk: `BRAND#${brandId}`,
  }),
  ownerPartition: (userId: string) => `USER#${userId}#BRANDS`,
};
