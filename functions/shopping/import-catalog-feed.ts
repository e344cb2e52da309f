// Not an HTTP route: imports a merchant feed dropped under catalog/feeds/ in the bucket (S3 "Object
// Created" events through EventBridge; plain S3 notifications are read too). A feed that is bad as a
// whole is logged and dropped (retrying cannot fix it); anything else throws, so Lambda retries and
// then parks the event in the dead-letter queue (importFeedEvent).
import { type FeedEvent, importFeedEvent } from '#shared/shopping/import';

export const handler = (event: FeedEvent) => importFeedEvent(event);
