// A chat session, its messages and its idempotency records share one partition. Message ids are
// UUIDv7, so `MSG#<id>` lists messages in the order they were sent with no counter to contend on.
import { sha256 } from '../digest.ts';

const partition = (sessionId: string) => `CHAT#${sessionId}`;

export const MESSAGE_PREFIX = 'MSG#';

/** gsi1 partition of a user's chat sessions. */
const ownerPartition = (userId: string) => `USER#${userId}#CHAT`;
const ownerPrefix = 'CHAT#';

export const chatKeys = {
  ownerPartition,
  ownerPrefix,
  partition,
  session: (sessionId: string) => ({ pk: partition(sessionId), sk: 'SESSION' }),
  /** The document names the session's messages hold, beside the session item rather than on it: up
   * to 1,000 names and their owners (about 240 KB) would weigh on every read of the session and on
   * its owner's list. `NAMES` sorts between `MSG#…` and `SESSION`: one Query reads the two. */
  documentNames: (sessionId: string) => ({ pk: partition(sessionId), sk: 'NAMES' }),
  message: (sessionId: string, messageId: string) => ({
    pk: partition(sessionId),
    sk: `${MESSAGE_PREFIX}${messageId}`,
  }),
  /** One per Idempotency-Key a caller used in the session (shared/idempotency.ts): the conditional
   * write that makes a retry safe. The caller's id is in the key, so a stranger's request can never
   * take or block one. The header's value goes in as its digest (shared/digest.ts). */
  idempotency: (sessionId: string, userId: string, key: string) => ({
    pk: partition(sessionId),
    sk: `IDEMPOTENCY#${userId}#${sha256(key)}`,
  }),
  /** gsi1: a user's chat sessions, newest first. */
  byOwner: (userId: string, sessionId: string) => ({
    gsi1pk: ownerPartition(userId),
    gsi1sk: `${ownerPrefix}${sessionId}`,
  }),
};
