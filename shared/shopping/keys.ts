// Shopping sessions and their searches share one partition. 'SEARCH#' sorts before 'SESSION', so one
// newest-first Query returns the session item and then its latest searches.
const partition = (sessionId: string) => `SHOP#${sessionId}`;

/** gsi1 partition of a user's shopping sessions. */
const ownerPartition = (userId: string) => `USER#${userId}#SHOP`;
const ownerPrefix = 'SHOP#';

export const shoppingKeys = {
  ownerPartition,
  ownerPrefix,
  partition,
  session: (sessionId: string) => ({ pk: partition(sessionId), sk: 'SESSION' }),
  search: (sessionId: string, searchId: string) => ({ pk: partition(sessionId), sk: `SEARCH#${searchId}` }),
  /** gsi1: a user's shopping sessions, newest first. */
  byOwner: (userId: string, sessionId: string) => ({
    gsi1pk: ownerPartition(userId),
    gsi1sk: `${ownerPrefix}${sessionId}`,
  }),
};

const snapshotsPrefix = 'catalog/snapshots/';
const SNAPSHOT_SUFFIX = '.json';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Where catalogue files live in the bucket. */
export const CATALOG_KEYS = {
  /** Merchant feeds dropped here are imported: `catalog/feeds/<merchant_type>/<merchant domain>/<file>`. */
  feedsPrefix: 'catalog/feeds/',
  snapshotsPrefix,
  /** Versions are UUIDv7, so snapshot keys sort by creation. */
  snapshot: (version: string) => `${snapshotsPrefix}${version}${SNAPSHOT_SUFFIX}`,
  /** The version a snapshot's key names; undefined for any other key (the pointer, a stray file). */
  versionOf: (key: string): string | undefined => {
    if (!key.startsWith(snapshotsPrefix) || !key.endsWith(SNAPSHOT_SUFFIX)) return undefined;
    const version = key.slice(snapshotsPrefix.length, -SNAPSHOT_SUFFIX.length);
    return UUID_V7.test(version) ? version : undefined;
  },
  /** A small object naming the newest snapshot: readers poll it, the importer writes it last. */
  latest: `${snapshotsPrefix}latest.json`,
} as const;
