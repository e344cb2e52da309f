// The single table: generic keys and the indexes that real access patterns need. The CDK stack
// and the embedded runtime both build the table from this definition.
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

export const TABLE_INDEXES = {
  /** Owner-scoped lists ("a user's brands, newest first") and other second views. */
  gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** gsi1's keys with only the fields calendar generation reads of a scheduled task: gsi1 holds the
   * whole task, which may weigh DynamoDB's 400 KB (two or three to a 1 MB page), so a period's 500
   * read in a chain of pages, one round trip each; these entries weigh under 2 KB (docs/teams.md).
   * So gsi1's offset windows walk it too: a deep offset reads these, not the items it skips
   * (queryWindow in shared/db/store.ts). */
  gsi1_calendar: {
    partitionKey: 'gsi1pk',
    sortKey: 'gsi1sk',
    projection: [
      'id',
      'title',
      'task_type',
      'platform',
      'status',
      'scheduled_for',
      'assigned_member_id',
      'published_at',
    ],
  },
} as const;

export type IndexName = keyof typeof TABLE_INDEXES;

/** An index's projection: the attributes it names besides the keys, or every attribute. */
export const projectionOf = (index: IndexName) => {
  const definition = TABLE_INDEXES[index];
  return 'projection' in definition
    ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...definition.projection] }
    : { ProjectionType: 'ALL' as const };
};

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
    // Indexes may share key attributes (gsi1_calendar has gsi1's): each is defined once.
    ...[...new Set(Object.values(TABLE_INDEXES).flatMap((index) => [index.partitionKey, index.sortKey]))].map(
      (AttributeName) => ({ AttributeName, AttributeType: 'S' as const }),
    ),
  ],
  KeySchema: [
    { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' as const },
  ],
  GlobalSecondaryIndexes: Object.entries(TABLE_INDEXES).map(([name, index]) => ({
    IndexName: name,
    Projection: projectionOf(name as IndexName),
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
  })),
});
