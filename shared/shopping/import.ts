// Catalogue import: one merchant's feed replaces that merchant's products in the newest snapshot,
// and the result is written as a new version. A file that cannot be read as a whole (FeedError)
// throws before anything is written, so a bad file changes nothing. The CLI, the S3-triggered
// function and the seed all import through here.
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { isMissingObject, s3 } from '../aws/s3.ts';
import { nowIso } from '../clock.ts';
import { config } from '../config.ts';
import { log } from '../log.ts';
import { isMerchantType, type MerchantType } from './catalog.ts';
import {
  FeedError,
  type FeedFormat,
  type FeedRowError,
  normalizeMerchantDomain,
  parseFeed,
} from './feeds.ts';
import { CATALOG_KEYS } from './keys.ts';
import {
  CatalogChangedError,
  type LatestCatalog,
  MissingSnapshotError,
  pruneSnapshots,
  readLatestPointer,
  readSnapshot,
  writeSnapshot,
} from './snapshots.ts';

export interface ImportOptions {
  /** The merchant's domain (`shop.example.com`). */
  merchant: string;
  merchantType: MerchantType;
  /** Affiliates only: query parameters that turn a product_url into its affiliate_url. */
  trackingParams?: Record<string, string>;
  format?: 'auto' | FeedFormat;
  /** When the feed was written (a bucket object's Last-Modified): refused if the merchant's catalogue
   * already comes from a newer feed. */
  feedModifiedAt?: Date;
}

export interface ImportReport {
  merchant: string;
  merchant_type: MerchantType;
  format: FeedFormat;
  /** The new catalogue version. */
  version: string;
  imported: number;
  /** The merchant's products the import replaced. */
  replaced: number;
  /** Rows skipped, with the line each starts on. */
  rejected: FeedRowError[];
  /** Rows the feed keeps out of search (`enable_search` false), not imported. */
  withheld: number;
  catalog_products: number;
}

/**
 * Pointer races happen when feeds of different merchants land together (one `aws s3 sync` of a
 * night's feeds); each retry re-merges. Every lost race is another import's win, so n imports at
 * once need at most n tries: 10 covers a batch of 10 feeds without leaning on Lambda's retries.
 */
export const IMPORT_ATTEMPTS = 10;

/** The products of the snapshot `latest` names. One pruned since the pointer was read (newer
 * imports landed meanwhile) is a lost race: the caller merges again from the newer pointer. */
async function productsOf(latest: LatestCatalog | undefined) {
  if (!latest) return [];
  try {
    return (await readSnapshot(latest.pointer.key)).products;
  } catch (error) {
    if (!(error instanceof MissingSnapshotError)) throw error;
    // Still named by the pointer: a broken catalogue, not a race; merging again cannot help.
    if ((await readLatestPointer())?.pointer.version === latest.pointer.version) throw error;
    throw new CatalogChangedError();
  }
}

export async function importCatalogFeed(
  feed: string | Uint8Array,
  options: ImportOptions,
): Promise<ImportReport> {
  const merchant = normalizeMerchantDomain(options.merchant);
  const parsed = parseFeed(feed, {
    merchant,
    merchantType: options.merchantType,
    trackingParams: options.trackingParams,
    format: options.format,
  });
  // A header-only export is far more often a broken export than a merchant with nothing to sell; a
  // feed that withholds every row from search is the merchant's word, and empties its catalogue.
  if (parsed.products.length === 0 && parsed.withheld === 0) throw new FeedError('feed has no products');
  for (let attempt = 1; ; attempt++) {
    const latest = await readLatestPointer();
    const newer = latest?.pointer.merchants[merchant]?.feed_modified_at;
    // Events arrive at least once and failed imports are retried, so an older file can come last.
    if (newer && options.feedModifiedAt && Date.parse(newer) > options.feedModifiedAt.getTime())
      throw new FeedError(`a newer feed of ${merchant} (written ${newer}) is already imported`);
    try {
      const current = await productsOf(latest);
      const kept = current.filter((product) => product.merchant !== merchant);
      const products = [...kept, ...parsed.products];
      const merchants = {
        ...latest?.pointer.merchants,
        [merchant]: {
          merchant_type: options.merchantType,
          format: parsed.format,
          product_count: parsed.products.length,
          imported_at: nowIso(),
          ...(options.feedModifiedAt && { feed_modified_at: options.feedModifiedAt.toISOString() }),
        },
      };
      const pointer = await writeSnapshot(products, merchants, latest);
      await pruneSnapshots();
      return {
        merchant,
        merchant_type: options.merchantType,
        format: parsed.format,
        version: pointer.version,
        imported: parsed.products.length,
        replaced: current.length - kept.length,
        rejected: parsed.errors,
        withheld: parsed.withheld,
        catalog_products: products.length,
      };
    } catch (error) {
      if (!(error instanceof CatalogChangedError) || attempt === IMPORT_ATTEMPTS) throw error;
      log.warn('catalog changed during import; merging again', { merchant, attempt });
    }
  }
}

// ---- feeds dropped into the bucket ----------------------------------------------------------

/** Feeds past this size are refused: parsing holds the whole file and its rows in memory. */
export const MAX_FEED_BYTES = 100 * 1024 * 1024;

export interface FeedObjectTarget {
  merchant: string;
  merchantType: MerchantType;
}

/** `catalog/feeds/<merchant_type>/<merchant domain>/<file>` → who the feed speaks for. */
export const feedObjectTarget = (key: string): FeedObjectTarget => {
  const parts = key.startsWith(CATALOG_KEYS.feedsPrefix)
    ? key.slice(CATALOG_KEYS.feedsPrefix.length).split('/')
    : [];
  const [merchantType, merchant, ...file] = parts;
  if (!isMerchantType(merchantType) || !merchant || file.join('/') === '')
    throw new FeedError(
      `feed key "${key}" is not ${CATALOG_KEYS.feedsPrefix}<affiliate|ucp|acp>/<merchant domain>/<file>`,
    );
  return { merchant: normalizeMerchantDomain(merchant), merchantType };
};

/** `tag=tcs-20&utm_source=tcs` (the object's `tracking` metadata) → tracking parameters. */
export const parseTrackingParams = (text: string | undefined): Record<string, string> =>
  Object.fromEntries(new URLSearchParams(text ?? '').entries());

/** A key as S3's notifications carry it (URL-encoded, spaces as `+`), decoded; undefined if it is no
 * such encoding. */
export const notificationKeyDecoded = (key: string): string | undefined => {
  try {
    return decodeURIComponent(key.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
};

/** The feed object at `key`; when there is none and the key `mayBeEncoded`, at `key` decoded as a
 * notification's key. S3's own notifications URL-encode keys (decoded before they get here);
 * EventBridge's events are documented with a plain key, which could not be checked without AWS: a feed
 * named with a space or a `+` is found either way. */
async function getFeedObject(key: string, mayBeEncoded: boolean) {
  const get = (at: string) => s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: at }));
  const missing = (error: unknown) => {
    if (!isMissingObject(error)) throw error;
    return undefined;
  };
  const plain = await get(key).catch(missing);
  if (plain) return { key, object: plain };
  const decoded = mayBeEncoded ? notificationKeyDecoded(key) : undefined;
  const found = decoded !== undefined && decoded !== key ? await get(decoded).catch(missing) : undefined;
  // Deleted before its event was handled (S3 reads its own writes): a retry finds it gone too.
  if (!found) throw new FeedError(`feed object "${key}" is gone: deleted before its import`);
  return { key: decoded!, object: found };
}

/** Imports a feed object from the bucket; its key names the merchant, its metadata the tracking. An
 * EventBridge event's key `mayBeEncoded` (getFeedObject). */
export async function importFeedObject(
  eventKey: string,
  { mayBeEncoded = false } = {},
): Promise<ImportReport> {
  feedObjectTarget(eventKey); // a key outside the feeds' layout is refused before any read
  const { key, object } = await getFeedObject(eventKey, mayBeEncoded);
  const target = feedObjectTarget(key);
  if ((object.ContentLength ?? 0) > MAX_FEED_BYTES) {
    object.Body?.transformToWebStream().cancel();
    throw new FeedError(`feed is larger than ${MAX_FEED_BYTES} bytes`);
  }
  const bytes = await object.Body!.transformToByteArray();
  return importCatalogFeed(bytes, {
    ...target,
    trackingParams: parseTrackingParams(object.Metadata?.tracking),
    feedModifiedAt: object.LastModified,
  });
}

/** What the catalogue import function is invoked with: an S3 "Object Created" event through
 * EventBridge, or S3's own notification (read too). */
export interface FeedEvent {
  detail?: { object?: { key?: string } };
  Records?: { s3?: { object?: { key?: string } } }[];
}

/** S3 notifications URL-encode the key (spaces as `+`): decoded here (as sent, if it is no such
 * encoding). EventBridge is documented to carry it as it is: it `mayBeEncoded`, and importFeedObject
 * tries it decoded too if no object has it as it is. */
export const feedKeys = (event: FeedEvent): { key: string; mayBeEncoded: boolean }[] => {
  if (event.detail?.object?.key) return [{ key: event.detail.object.key, mayBeEncoded: true }];
  return (event.Records ?? [])
    .map((record) => record.s3?.object?.key)
    .filter((key): key is string => typeof key === 'string')
    .map((key) => ({ key: notificationKeyDecoded(key) ?? key, mayBeEncoded: false }));
};

/** Rows listed in the log per import; the counts cover all of them. */
const LOGGED_REJECTIONS = 50;

/** Imports every feed an event names. A feed that is bad as a whole (FeedError) is logged and
 * reported refused (retrying cannot fix it); anything else throws, so Lambda retries the event and
 * then parks it in the dead-letter queue. */
export async function importFeedEvent(
  event: FeedEvent,
): Promise<(ImportReport | { key: string; refused: string })[]> {
  const reports: (ImportReport | { key: string; refused: string })[] = [];
  for (const { key, mayBeEncoded } of feedKeys(event)) {
    try {
      const report = await importFeedObject(key, { mayBeEncoded });
      log.info('catalog feed imported', {
        key,
        merchant: report.merchant,
        format: report.format,
        version: report.version,
        imported: report.imported,
        rejected: report.rejected.length,
        withheld: report.withheld,
        catalog_products: report.catalog_products,
      });
      for (const row of report.rejected.slice(0, LOGGED_REJECTIONS))
        log.warn('catalog feed row skipped', { key, line: row.line, reason: row.reason });
      reports.push(report);
    } catch (error) {
      if (!(error instanceof FeedError)) throw error;
      log.error('catalog feed refused; the catalogue is unchanged', { key, reason: error.message });
      reports.push({ key, refused: error.message });
    }
  }
  return reports;
}
