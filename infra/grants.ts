// The vocabulary of the route table's grant declarations: what a function may do to the table, which
// object keys it may touch in the bucket, and how it may use the secrets key. No CDK here: the route
// table (and so the local server and the `$default` function) imports it; infra/grant-statements.ts
// turns declarations into IAM statements for the stack.
import { avatarObjects } from '../shared/avatars/keys.ts';
import { brandKitLogoKey, draftLogoKey } from '../shared/brand-kits/keys.ts';
import type { IndexName } from '../shared/db/table.ts';
import { CATALOG_KEYS } from '../shared/shopping/keys.ts';
import { uploadKey } from '../shared/uploads/keys.ts';

/**
 * The DynamoDB operations a function may send to the table, one IAM action each, never Scan: the ones
 * its paths send, no more (test/infra/grants.test.ts walks them; the local runtime refuses any other,
 * infra/local/grants.ts).
 */
export type TableOperation = 'GetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem';

/** Object key patterns (IAM wildcards) a route may touch, by what it does to them. */
export interface BucketAccess {
  /** s3:GetObject: GetObject, HeadObject, the source of a CopyObject, presigned GET URLs. */
  read?: readonly string[];
  /** s3:GetObjectVersion: a GET (or presigned GET) of one version by its id. */
  readVersions?: readonly string[];
  /** s3:PutObject: PutObject, the target of a CopyObject, presigned PUT URLs. */
  write?: readonly string[];
  /** s3:DeleteObject only: on this versioned bucket it leaves a delete marker; no DeleteObjectVersion. */
  delete?: readonly string[];
  /**
   * The reads (of these patterns) that may find no object and answer for it (404 `Upload not found`,
   * `consent_received: false`), and the prefixes listed (ListObjectsV2: the catalogue import's prune).
   * S3 answers a missing key with 404 only to a caller allowed s3:ListBucket on the bucket (403
   * otherwise), and documents no narrower condition that keeps the 404, so such a function is granted
   * s3:ListBucket on the bucket: it may list key names, not read objects.
   */
  list?: readonly string[];
}

/** Uses of the secrets key: `seal` = GenerateDataKey (encrypting new secrets), `open` = Decrypt. */
export type SecretsUse = 'seal' | 'open';

/** The grant declarations of one route (or event-driven function). */
export interface Grants {
  table?: readonly TableOperation[];
  /** Global secondary indexes the function queries (Query on `<table>/index/<name>`). */
  indexes?: readonly IndexName[];
  bucket?: BucketAccess;
  secrets?: readonly SecretsUse[];
}

/** The key pattern of a key builder: its output with `*` for every id, cut after the first id. */
const underFirstId = (key: string) => key.slice(0, key.indexOf('*') + 1);

/** Where each kind of object lives, from the domains' own key builders. */
export const OBJECTS = {
  /** Direct uploads: `uploads/<user>/<upload>/<name>`. */
  uploads: underFirstId(uploadKey('*', '*', 'file')),
  /** Draft brand-kit logos: `drafts/<user>/<draft>/<role>.png` (expire after a day). */
  drafts: underFirstId(draftLogoKey('*', '*', 'logo')),
  /** Saved brand-kit logos: `brand-kits/<user>/logos/<source digest>.<ext>`. */
  brandKitLogos: underFirstId(brandKitLogoKey('*', '')),
  /** An avatar's source video: `teams/<team>/avatars/<avatar>/source.<ext>`. */
  avatarSources: avatarObjects.source('*', '*', '*'),
  /** An avatar's consent recording (the client PUTs it): `teams/<team>/avatars/<avatar>/consent.<ext>`. */
  avatarConsents: avatarObjects.consent('*', '*', '*'),
  /** Catalogue snapshots and their `latest.json` pointer. */
  catalogSnapshots: `${CATALOG_KEYS.snapshotsPrefix}*`,
  /** Merchant feeds dropped by operators. */
  catalogFeeds: `${CATALOG_KEYS.feedsPrefix}*`,
} as const;

/** Whether a function reaches the table at all (its items or an index). */
export const usesTable = (grants: Grants) => (grants.table?.length ?? 0) + (grants.indexes?.length ?? 0) > 0;

/** The table operation an SDK command name stands for (`GetItemCommand` → `GetItem`). */
export const tableOperationOf = (commandName: string) =>
  commandName.replace(/Command$/, '') as TableOperation;

/**
 * Why IAM would refuse a DynamoDB request under `grants`, or undefined when they allow it: an index
 * query needs the index declared, anything else its operation on the table. The local runtime
 * refuses such requests as AWS would (infra/local/grants.ts), so every test checks the declarations.
 */
export function tableRefusal(grants: Grants, commandName: string, input: { IndexName?: unknown }) {
  const operation = tableOperationOf(commandName);
  if (input.IndexName !== undefined)
    return operation === 'Query' && (grants.indexes ?? []).includes(input.IndexName as IndexName)
      ? undefined
      : `dynamodb:${operation} on index ${String(input.IndexName)}`;
  return (grants.table ?? []).includes(operation) ? undefined : `dynamodb:${operation} on the table`;
}
