// Not an HTTP route: imports a merchant feed dropped under catalog/feeds/ in the bucket (S3 "Object
// Created" events through EventBridge; plain S3 notifications are read too). A feed that is bad as a
// whole is logged and dropped (retrying cannot fix it); anything else throws, so Lambda retries and
// then parks the event in the dead-letter queue.

import { log } from '#shared/log';
import { FeedError } from '#shared/shopping/feeds';
import { type ImportReport, importFeedObject, notificationKeyDecoded } from '#shared/shopping/import';

interface EventBridgeObjectCreated {
  detail?: { object?: { key?: string } };
}
interface S3Notification {
  Records?: { s3?: { object?: { key?: string } } }[];
}

/** S3 notifications URL-encode the key (spaces as `+`): decoded here (as sent, if it is no such
 * encoding). EventBridge is documented to carry it as it is: it `mayBeEncoded`, and importFeedObject
 * tries it decoded too if no object has it as it is. */
export const feedKeys = (
  event: EventBridgeObjectCreated & S3Notification,
): { key: string; mayBeEncoded: boolean }[] => {
  if (event.detail?.object?.key) return [{ key: event.detail.object.key, mayBeEncoded: true }];
  return (event.Records ?? [])
    .map((record) => record.s3?.object?.key)
    .filter((key): key is string => typeof key === 'string')
    .map((key) => ({ key: notificationKeyDecoded(key) ?? key, mayBeEncoded: false }));
};

/** Rows listed in the log per import; the counts cover all of them. */
const LOGGED_REJECTIONS = 50;

export const handler = async (event: EventBridgeObjectCreated & S3Notification) => {
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
};
