// The catalogue in S3: one immutable object per version and a small pointer to the newest, written
// last. Readers only ever follow the pointer, so a half-written import is never seen. After each
// import the oldest versions are deleted, the newest few and the pointer's own kept.
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { deleteObject, s3, s3StatusOf as status } from '../aws/s3.ts';
import { nowIso } from '../clock.ts';
import { config } from '../config.ts';
import { newId } from '../ids.ts';
import { log } from '../log.ts';
import {
  type CatalogProduct,
  type CatalogSnapshot,
  type MerchantType,
  parseSnapshot,
  serializeSnapshot,
} from './catalog.ts';
import type { FeedFormat } from './feeds.ts';
import { CATALOG_KEYS } from './keys.ts';

/** The name search responses give as `source`. */
export const CATALOG_SOURCE = 'merchant-catalog';

/**
 * Snapshots kept after each import (the pointer's own always among them): a roll-back reaches the
 * four before the current one, and an import still merging an older one finds it unless five others
 * land meanwhile (it then merges again, as after a lost pointer race). 19 MB each at 40,000 products.
 */
export const KEPT_SNAPSHOTS = 5;

export interface MerchantSummary {
  merchant_type: MerchantType;
  format: FeedFormat;
  product_count: number;
  imported_at: string;
  /** The Last-Modified of the bucket feed imported (absent for the CLI and the seed): an older feed
   * of the merchant, delivered or retried late, is not imported over it. */
  feed_modified_at?: string;
}

export interface CatalogPointer {
  version: string;
  key: string;
  created_at: string;
  product_count: number;
  merchants: Record<string, MerchantSummary>;
}

export interface LatestCatalog {
  pointer: CatalogPointer;
  /** For the conditional write that replaces the pointer. */
  etag: string;
}

/** The snapshot a pointer named is gone: pruned since the pointer was read, as newer ones landed. */
export class MissingSnapshotError extends Error {
  constructor(key: string) {
    super(`Catalog snapshot ${key} is missing`);
    this.name = 'MissingSnapshotError';
  }
}

/** Another import replaced the pointer between our read and our write. */
export class CatalogChangedError extends Error {
  constructor() {
    super('The catalogue changed during the import');
    this.name = 'CatalogChangedError';
  }
}

const readObject = async (key: string) => {
  try {
    const object = await s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: key }));
    return { bytes: await object.Body!.transformToByteArray(), etag: object.ETag ?? '' };
  } catch (error) {
    if (status(error) === 404) return undefined;
    throw error;
  }
};

/** The pointer to the newest snapshot, or undefined before the first import. */
export async function readLatestPointer(): Promise<LatestCatalog | undefined> {
  const object = await readObject(CATALOG_KEYS.latest);
  if (!object) return undefined;
  return { pointer: JSON.parse(new TextDecoder().decode(object.bytes)) as CatalogPointer, etag: object.etag };
}

export async function readSnapshot(key: string): Promise<CatalogSnapshot> {
  const object = await readObject(key);
  if (!object) throw new MissingSnapshotError(key);
  return parseSnapshot(object.bytes);
}

/**
 * Writes a new version: the snapshot object first, then the pointer, conditionally on the pointer
 * still being the one read (`previous`), so two imports racing cannot drop each other's merchants.
 */
export async function writeSnapshot(
  products: readonly CatalogProduct[],
  merchants: Record<string, MerchantSummary>,
  previous: LatestCatalog | undefined,
): Promise<CatalogPointer> {
  const version = newId();
  const created_at = nowIso();
  const key = CATALOG_KEYS.snapshot(version);
  await s3().send(
    new PutObjectCommand({
      Bucket: config.bucketName,
      Key: key,
      Body: serializeSnapshot(products, { source: CATALOG_SOURCE, created_at }),
      ContentType: 'application/json',
    }),
  );
  const pointer: CatalogPointer = { version, key, created_at, product_count: products.length, merchants };
  try {
    await s3().send(
      new PutObjectCommand({
        Bucket: config.bucketName,
        Key: CATALOG_KEYS.latest,
        Body: JSON.stringify(pointer),
        ContentType: 'application/json',
        // S3 conditional writes: 412 when another import moved the pointer first.
        ...(previous ? { IfMatch: previous.etag } : { IfNoneMatch: '*' }),
      }),
    );
  } catch (error) {
    if (status(error) !== 412 && status(error) !== 409) throw error;
    // The SDK's resend of a write that landed (its answer lost) is refused too: the pointer names ours.
    const named = await readLatestPointer().then(
      (latest) => latest?.pointer.version,
      () => undefined,
    );
    if (named === version) return pointer;
    // A lost race: no pointer ever named this snapshot, and it would take one of the kept places.
    if (named !== undefined)
      await deleteObject(key).catch((failed: unknown) =>
        log.warn('catalog snapshot of a lost race not deleted; a later prune deletes it', {
          error: (failed as Error).name,
        }),
      );
    throw new CatalogChangedError();
  }
  return pointer;
}

/** Every snapshot's key, oldest first (UUIDv7 versions sort by creation), over all listing pages. */
async function listSnapshotKeys(): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({
        Bucket: config.bucketName,
        Prefix: CATALOG_KEYS.snapshotsPrefix,
        ContinuationToken,
      }),
    );
    for (const { Key } of page.Contents ?? []) if (Key && CATALOG_KEYS.versionOf(Key)) keys.push(Key);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys.sort();
}

/**
 * Deletes every snapshot but the newest KEPT_SNAPSHOTS and the one the pointer names, read afresh
 * (after the caller's pointer write: another import may have moved it since). Oldest first, one at a
 * time, stopping at the first failure. Never throws: a failed prune changes nothing an import
 * answers, and the next import prunes again.
 */
export async function pruneSnapshots(): Promise<void> {
  let deleted = 0;
  try {
    const latest = await readLatestPointer();
    // No pointer to keep (removed by hand): delete nothing rather than guess.
    if (!latest) return;
    const named = latest.pointer.version;
    const old = (await listSnapshotKeys())
      .slice(0, -KEPT_SNAPSHOTS)
      .filter((key) => CATALOG_KEYS.versionOf(key) !== named && key !== latest.pointer.key);
    for (const key of old) {
      await deleteObject(key);
      deleted++;
    }
    if (deleted > 0) log.info('catalog snapshots pruned', { deleted, kept_version: named });
  } catch (error) {
    log.warn('catalog snapshots not pruned; the next import prunes again', {
      error: (error as Error).name,
      deleted,
    });
  }
}
