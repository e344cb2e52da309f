// The single table: generic keys and the indexes that real access patterns need. The CDK stack
// and the embedded runtime both build the table from this definition.
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

export const TABLE_INDEXES = {
  /** Owner-scoped lists ("a user's brands, newest first") and other second views. */
  gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;

export type IndexName = keyof typeof TABLE_INDEXES;

/** Epoch seconds after which DynamoDB's TTL may delete an item (Idempotency-Key claims, daily upload
 * allowances): the table's `timeToLiveAttribute`. dynalite has no TTL: locally such items stay. */
export const TABLE_TTL_ATTRIBUTE = 'expires_at';

export interface Keys {
  pk: string;
  sk: string;
}

/** CreateTable input for the embedded DynamoDB (dynalite). */
export const createTableInput = (tableName: string) => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST' as const,
  AttributeDefinitions: [
    { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' as const },
    { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' as const },
    ...Object.values(TABLE_INDEXES).flatMap((index) => [
      { AttributeName: index.partitionKey, AttributeType: 'S' as const },
      { AttributeName: index.sortKey, AttributeType: 'S' as const },
    ]),
  ],
  KeySchema: [
    { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' as const },
  ],
  GlobalSecondaryIndexes: Object.entries(TABLE_INDEXES).map(([name, index]) => ({
    IndexName: name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  })),
});
