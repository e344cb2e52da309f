// The catalogue in S3: one immutable object per version and a small pointer to the newest, written
// last. Readers only ever follow the pointer, so a half-written import is never seen.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3 } from '../aws/s3.ts';
import { nowIso } from '../clock.ts';
import { config } from '../config.ts';
import { newId } from '../ids.ts';
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

/** Another import replaced the pointer between our read and our write. */
export class CatalogChangedError extends Error {
  constructor() {
    super('The catalogue changed during the import');
    this.name = 'CatalogChangedError';
  }
}

const status = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

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
  if (!object) throw new Error(`Catalog snapshot ${key} is missing`);
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
    if (status(error) === 412 || status(error) === 409) throw new CatalogChangedError();
    throw error;
  }
  return pointer;
}
