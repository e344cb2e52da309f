// An Idempotency-Key on a create: a client that retries a POST after a lost response gets the record
// the first attempt made, not a second one. The key is claimed in the create's first wave, beside its
// own reads; the record is written in the second under the claim's id and time. Two waves. The eight
// creates, the direct upload (docs/uploads.md) and the chat send (docs/chat.md, its claim in the
// session's partition) all go through here.
import * as v from 'valibot';
import { accountKeys } from './accounts/keys.ts';
import { now } from './clock.ts';
import { claimItem, deleteItem, getItem, updateItem } from './db/store.ts';
import { type Keys, TABLE_TTL_ATTRIBUTE } from './db/table.ts';
import { sha256 } from './digest.ts';
import { ConflictError, HttpError, ServiceUnavailableError } from './http/errors.ts';
import { model, string } from './http/fields.ts';
import { newIdAt } from './ids.ts';

export const IDEMPOTENCY_KEY_LIMITS = { min: 1, max: 255 } as const;

/** How long a claim is kept (Stripe keeps keys 24 h): the table's TTL deletes it some time after. */
const CLAIM_SECONDS = 24 * 60 * 60;

/** FastAPI's `idempotency_key: str | None = Header(None)`: retries with the same key make one record. */
export const IdempotencyHeader = model({
  'idempotency-key': v.optional(
    v.pipe(
      string(IDEMPOTENCY_KEY_LIMITS),
      v.description(
        `Retries with the same key (kept at least ${CLAIM_SECONDS / 3600} hours) answer what the first request made; the same key with another request is 409.`,
      ),
    ),
  ),
});

/** Rounds of finding a key's claim given back before a request asks for a retry. */
export const CLAIM_ROUNDS = 3;

/** The id and creation time a new record will have (its id a UUIDv7 of that time). */
export interface Identity {
  id: string;
  created_at: string;
}

export const newIdentity = (): Identity => {
  const at = now();
  return { id: newIdAt(at), created_at: at.toISOString() };
};

/** Where a create's claim lives: the caller's own partition, one per key and kind of create. */
export const ownClaim = (userId: string, create: string, key: string | undefined): Keys | undefined =>
  key === undefined ? undefined : accountKeys.idempotencyClaim(userId, create, key);

export interface Create<Checked, Ready, Made> {
  /** Where the key's claim lives (`ownClaim`; the chat send's in its session); undefined without a key. */
  claimAt: Keys | undefined;
  /** The claim's attribute that holds the record's id. The chat send's claims, older than the
   * creates', name it `message_id`; they keep that name, so the claims stored before still read. */
  idAttribute?: 'id' | 'message_id';
  /** What the 409 for the key sent with another request calls it (the chat send's says `message`). */
  noun?: 'request' | 'message';
  /** What the request asks for (its body, and its path where the path names a parent): the same key
   * with another request is a conflict. Only its digest is kept (it may carry secrets). */
  request: unknown;
  /** The create's own first-wave reads and checks; throwing refuses the request before its key is
   * looked at (its claim is given back, so the corrected request may use the key). */
  check?: () => Promise<Checked>;
  /** What only a request that writes needs, started in the first wave beside `check` (given its answer
   * to come). Its refusal is answered only by a request that is to write: a retry answers the first
   * record even where this would now refuse (the chat send's attachments, deleted since). */
  prepare?: (checked: Promise<Checked>) => Promise<Ready>;
  /** Items the record names, written in the first wave (beside `check` and the claim) under the
   * identity this request asks for, where no read reaches them until `write` names them: a project's
   * tasks, a workspace before its owner's member item. So a keyed create stays at two waves. They must
   * be the same items each time for the same identity and request: a retry that completes a first
   * attempt that died writes them again under the claim's identity (a wave before the record's third,
   * on that path only). A stage does not refuse: its failure leaves a keyed claim for the retry, where
   * a request to refuse (a 4xx) belongs in `prepare`, which gives the key back. */
  stage?: {
    write: (identity: Identity) => Promise<unknown>;
    /** Takes them back, best effort, when nothing is to name them: this request lost the key's claim
     * (the first request's identity is answered), or failed with its claim given back. */
    undo: (identity: Identity) => Promise<unknown>;
  };
  /** Writes the record under `identity` with `attribute_not_exists` (a twin's write changes nothing). */
  write: (identity: Identity, checked: Checked, ready: Ready) => Promise<Made>;
  /** Takes back a failed `write` (which may have landed, its answer lost), resolving whether the
   * record is gone, and all it wrote with it: a brand kit and its brand's count, a project item, a
   * workspace's member item. Where given, a request whose own write fails gives its claim back, as a
   * refused one does, and takes the write back, then the stage once the record is gone; the client's
   * retry makes the record afresh. Where the take-back fails too, the key is claimed again under the
   * write's identity (when still free): the retry completes or answers what stayed. Where a twin has
   * sealed the claim (the give-back fails), the twin completes the write instead, and takes it back
   * where its own write is refused. Without it, a
   * failed write leaves the claim and the stage for the retry to complete under the same identity (a
   * retry that may never come). */
  unwrite?: (identity: Identity) => Promise<boolean>;
  /** The record as it is now, read consistently by its id; undefined when it was never written. */
  read: (id: string) => Promise<Made | undefined>;
}

type ClaimItem = Record<string, unknown> & { fingerprint: string; created_at: string };

/** The client's to correct (a 4xx), unlike a failure the same request may get past on a retry. */
const isRefusal = (error: unknown) => error instanceof HttpError && error.status < 500;

/**
 * Creates a record once per Idempotency-Key. A retry (or a concurrent twin) that finds the claim
 * answers the record as it is now, or, when the first attempt died before writing it (or is still
 * writing, or was refused), seals the claim and writes it under the claim's id and time itself: a
 * third wave on that rare path only. Without a key, the checks (and the stage), then the write.
 */
export async function createOnce<Checked, Ready, Made>(create: Create<Checked, Ready, Made>): Promise<Made> {
  const { claimAt: keys, idAttribute = 'id', stage } = create;
  let asked = newIdentity();
  const fingerprint = keys && sha256(JSON.stringify(create.request));
  const claimKey = async () => {
    const claimed = await claimItem<ClaimItem>({
      ...keys!,
      kind: 'idempotency_claim',
      fingerprint,
      [idAttribute]: asked.id,
      created_at: asked.created_at,
      [TABLE_TTL_ATTRIBUTE]: Math.floor(now().getTime() / 1000) + CLAIM_SECONDS,
    });
    // Our own claim, landed with its answer lost (the SDK's resend failed the condition), is ours.
    return claimed.won || claimed.existing[idAttribute] === asked.id
      ? { won: true, claim: asked }
      : {
          won: false,
          claim: { id: claimed.existing[idAttribute] as string, created_at: claimed.existing.created_at },
          fingerprint: claimed.existing.fingerprint,
        };
  };
  const checking = create.check ? create.check() : Promise.resolve(undefined as Checked);
  const [checked, claimed, ready, staged] = await Promise.allSettled([
    checking,
    keys && claimKey(),
    create.prepare?.(checking),
    stage?.write(asked),
  ]);
  let claim = claimed.status === 'fulfilled' ? claimed.value : undefined;
  // True where nothing else may write under this request's identity: without a key, or with our own
  // claim given back. A twin that sealed the claim writes under it (the give-back fails); so may one
  // that found a claim whose own write failed here (it may have landed, its answer lost). Only our own
  // claim goes: a resend of the delete (its answer lost) must not delete another request's.
  const release = async () => {
    if (!keys) return true;
    if (claim?.won !== true) return false;
    const ours = { [idAttribute]: asked.id };
    if (await deleteItem(keys, { absent: ['sealed'], expect: ours }).catch(() => false)) return true;
    // A give-back that landed with its answer lost (the SDK's resend then fails its condition) or
    // whose answer failed: gone, or another request's claim since, it was given back. Sealed claims
    // are never deleted, so nothing else removed it.
    return getItem<ClaimItem>(keys).then(
      (left) => left?.[idAttribute] !== asked.id,
      () => false,
    );
  };
  // Staged under an identity the key's first request did not take: nothing will name those items.
  const unstaged = stage && claim && !claim.won ? stage.undo(asked).catch(() => undefined) : undefined;
  // This request refused by `prepare`.
  const refused = ready.status === 'rejected' ? ready : undefined;
  try {
    // The create's own refusal answers first, as it would without a key.
    if (checked.status === 'rejected') throw checked.reason;
    if (claimed.status === 'rejected') throw claimed.reason;
    for (let round = 1; keys && claim && !claim.won; round++) {
      const earlier = claim.claim;
      if (claim.fingerprint !== fingerprint)
        throw new ConflictError(
          `Idempotency-Key was already used with a different ${create.noun ?? 'request'}`,
        );
      // Refused, a request seals only a claim whose record it found: its seal would keep the claim's
      // own request, refused too, from giving the key back, held with no record (the corrected
      // request 409). A wave more where it finds one; the record found vouched for by the seal after it
      // (a request gives its claim back before taking its record back).
      const found = refused && (await create.read(earlier.id));
      if (refused && !found) throw refused.reason;
      const [first, sealed] = await Promise.all([
        found || create.read(earlier.id),
        // Sealed, the claim cannot be given back by its own request, refused meanwhile (and a third
        // request then claim the key afresh and make a second record).
        updateItem(keys, { set: { sealed: true }, expect: { [idAttribute]: earlier.id } }),
      ]);
      // Only a sealed claim vouches for the record read beside it: one given back meanwhile may be
      // the claim of a request taking its failed write back (`unwrite`).
      if (sealed) {
        if (first) return first;
        break;
      }
      // Given back by its refused request. A request refused itself needs no claim; one that would
      // write claims the key afresh, and after a few rounds asks the client to retry.
      if (refused) throw refused.reason;
      if (round >= CLAIM_ROUNDS) throw new ServiceUnavailableError();
      claim = await claimKey();
    }
    if (ready.status === 'rejected') throw ready.reason;
  } catch (error) {
    // A refused request gives its claim back (the corrected request may use the key). What it staged
    // goes only where nothing else may name it; a claim lost to another request was taken back above.
    const released = await release();
    if (stage && released) await stage.undo(asked).catch(() => undefined);
    throw error;
  } finally {
    await unstaged;
  }
  if (staged.status === 'rejected' && !unstaged) {
    // As when the write fails: a claim stays for the retry, which writes the same items again.
    if (!keys) await stage?.undo(asked).catch(() => undefined);
    throw staged.reason;
  }
  // Without a key or a stage nothing has named this request's identity: it is taken now, as the record
  // is written, so ids follow the order records are written in, not the order requests came in (a chat
  // send reading its attachments took an id before a quicker send wrote a newer one, and a poller
  // whose `after` had passed it never saw it).
  if (!keys && !stage) asked = newIdentity();
  const identity = claim?.claim ?? asked;
  // Staged under another identity (completing a first attempt that died: the same items again) or
  // taken back (the key was given back meanwhile and claimed afresh): written before the record.
  if (stage && (identity !== asked || unstaged)) await stage.write(identity);
  try {
    return await create.write(identity, checked.value, ready.value as Ready);
  } catch (error) {
    if (!create.unwrite) throw error;
    if (identity === asked && (await release())) {
      if (await create.unwrite(asked).catch(() => false)) await stage?.undo(asked).catch(() => undefined);
      // What stayed (the take-back failed too) is claimed again under its own identity where the key
      // is still free, so the client's retry completes it or answers it instead of making a second
      // record. Not after a refusal: a refused request gives its key back.
      else if (keys && !isRefusal(error)) await claimKey().catch(() => undefined);
    } else if (identity !== asked && isRefusal(error))
      // Completing a sealed claim, refused (a full brand): its own request left the record to us (its
      // give-back failed) and no twin after us writes it while the refusal holds, so it is taken back.
      // What was staged stays: a later twin, once past the refusal, writes under the same identity.
      await create.unwrite(identity).catch(() => false);
    throw error;
  }
}
