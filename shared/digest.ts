// SHA-256 of a text, base64url (not secrets code: shared/crypto/ holds the sealing, which only the
// credentials save bundles): how an Idempotency-Key goes into a sort key (bounded at 43 characters,
// where the key itself could pass DynamoDB's 1,024 bytes), how a request is fingerprinted, and the
// name part of a set member's owner token (claimSetMembers in shared/db/store.ts).
import { createHash } from 'node:crypto';

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');
