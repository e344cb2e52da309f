// An Idempotency-Key on a create: a client that retries a POST after a lost response gets the record
// the first attempt made, not a second one. The key is claimed in the create's first wave, beside its
// own reads; the record is written in the second under the claim's id and time. Two waves, as the
// chat send (docs/chat.md), whose claim works the same way in its session's partition.
import * as v from 'valibot';
import { accountKeys } from './accounts/keys.ts';
import { now } from './clock.ts';
import { claimItem, deleteItem, updateItem } from './db/store.ts';
import { TABLE_TTL_ATTRIBUTE } from './db/table.ts';
import { sha256 } from './digest.ts';
import { ConflictError, ServiceUnavailableError } from './http/errors.ts';
import { model, string } from './http/fields.ts';
import { newIdAt } from './ids.ts';

export const IDEMPOTENCY_KEY_LIMITS = { min: 1, max: 255 } as const;

/** FastAPI's `idempotency_key: str | None = Header(None)`: retries with the same key make one record. */
export const IdempotencyHeader = model({
  'idempotency-key': v.optional(
    v.pipe(
      string(IDEMPOTENCY_KEY_LIMITS),
      v.description(
        'Retries with the same key (kept at least 24 hours) answer what the first request made; the same key with another request is 409.',
      ),
    ),
  ),
});

/** How long a claim is kept (Stripe keeps keys 24 h): the table's TTL deletes it some time after. */
const CLAIM_SECONDS = 24 * 60 * 60;
/** Rounds of finding a key's claim given back before a request asks for a retry (the chat send too). */
export const CLAIM_ROUNDS = 3;
/** The 409 for a key sent again with another request (`message` for the chat send). */
export const keyReused = (what: 'request' | 'message') =>
  new ConflictError(`Idempotency-Key was already used with a different ${what}`);

/** The id and creation time a new record will have (its id a UUIDv7 of that time). */
export interface Identity {
  id: string;
  created_at: string;
}

export const newIdentity = (): Identity => {
  const at = now();
  return { id: newIdAt(at), created_at: at.toISOString() };
};

/** What a claim holds: a fingerprint of the request (never the request: it may carry secrets) and the
 * identity of the record it stands for. */
interface Claim extends Identity {
  fingerprint: string;
}

export interface Create<Checked, Made> {
  /** Which create the key is for (`brand`, `team`…): a caller's keys are per create. */
  create: string;
  userId: string;
  key: string | undefined;
  /** What the request asks for (its body, and its path where the path names a parent): the same key
   * with another request is a conflict. */
  request: unknown;
  /** The create's own first-wave reads and checks; throwing refuses the request (its claim is given
   * back, so the corrected request may use the key). */
  check?: () => Promise<Checked>;
  /** Writes the record under `identity` with `attribute_not_exists` (a twin's write changes nothing). */
  write: (identity: Identity, checked: Checked) => Promise<Made>;
  /** The record as it is now, read consistently by its id; undefined when it was never written. */
  read: (id: string) => Promise<Made | undefined>;
}

const fingerprintOf = (request: unknown) => sha256(JSON.stringify(request));

/**
 * Creates a record once per Idempotency-Key. A retry (or a concurrent twin) that finds the claim
 * answers the record as it is now, or, when the first attempt died before writing it (or is still
 * writing, or was refused), seals the claim and writes it under the claim's id and time itself: a
 * third wave on that rare path only. Without a key, the check, then the write.
 */
export async function createOnce<Checked, Made>(create: Create<Checked, Made>): Promise<Made> {
  const { userId, key } = create;
  const keys = key === undefined ? undefined : accountKeys.idempotencyClaim(userId, create.create, key);
  const asked: Claim | undefined = keys && { ...newIdentity(), fingerprint: fingerprintOf(create.request) };
  const claimKey = async () => {
    const claimed = await claimItem<Claim>({
      ...keys!,
      kind: 'idempotency_claim',
      ...asked!,
      [TABLE_TTL_ATTRIBUTE]: Math.floor(now().getTime() / 1000) + CLAIM_SECONDS,
    });
    // Our own claim, landed with its answer lost (the SDK's resend failed the condition), is ours.
    return claimed.won || claimed.existing.id === asked!.id
      ? { won: true, claim: asked! }
      : { won: false, claim: claimed.existing };
  };
  const [checked, claimed] = await Promise.allSettled([create.check?.(), keys && claimKey()]);
  let claim = claimed.status === 'fulfilled' ? claimed.value : undefined;
  try {
    // The create's own refusal answers first, as it would without a key.
    if (checked.status === 'rejected') throw checked.reason;
    if (claimed.status === 'rejected') throw claimed.reason;
    for (let round = 1; keys && claim && !claim.won; round++) {
      const earlier = claim.claim;
      if (earlier.fingerprint !== asked?.fingerprint) throw keyReused('request');
      const [first, sealed] = await Promise.all([
        create.read(earlier.id),
        // Sealed, the claim cannot be given back by its own request, refused meanwhile (and a third
        // request then claim the key afresh and make a second record).
        updateItem(keys, { set: { sealed: true }, expect: { id: earlier.id } }),
      ]);
      if (first) return first;
      if (sealed) break;
      // Given back by its refused request: claimed afresh, a few rounds at most.
      if (round >= CLAIM_ROUNDS) throw new ServiceUnavailableError();
      claim = await claimKey();
    }
  } catch (error) {
    if (keys && claim?.won) await deleteItem(keys, { absent: ['sealed'] }).catch(() => undefined);
    throw error;
  }
  return create.write(claim?.claim ?? newIdentity(), checked.value as Checked);
}
