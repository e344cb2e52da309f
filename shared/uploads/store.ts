// Direct uploads: presigned PUTs under the caller's own prefix, and bounded reads of what arrived.
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { accountKeys } from '../accounts/keys.ts';
import { isMissingObject, s3 } from '../aws/s3.ts';
import { now } from '../clock.ts';
import { config } from '../config.ts';
import { getItem, holds, takeBackCounters, updateItem } from '../db/store.ts';
import { TABLE_TTL_ATTRIBUTE } from '../db/table.ts';
import { NotFoundError, PayloadTooLargeError, TooManyRequestsError } from '../http/errors.ts';
import { createOnce, ownClaim } from '../idempotency.ts';
import { timeOfId } from '../ids.ts';
import { log } from '../log.ts';
import { isOwnUploadKey, uploadKey } from './keys.ts';
import { PUT_ONCE_HEADERS, presignPutOnce } from './presign.ts';
import { type CreateUploadInput, DAILY_ALLOWANCE_USED, UPLOAD_LIMITS, type UploadSlot } from './schemas.ts';

/** How long a day's upload allowance is kept after the day ends. */
const ALLOWANCE_KEPT_SECONDS = 24 * 60 * 60;

/** How long a presigned GET (a logo URL in a response) is valid. */
export const DOWNLOAD_URL_SECONDS = 60 * 60;

/** The caller's allowance item for `at`'s UTC day, and the 429 past it (Retry-After: until midnight UTC). */
const allowanceDay = (userId: string, at: Date) => {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return {
    keys: accountKeys.uploadAllowance(userId, at.toISOString().slice(0, 10)),
    midnight,
    used: () => new TooManyRequestsError(DAILY_ALLOWANCE_USED, Math.ceil((midnight - at.getTime()) / 1000)),
  };
};

/**
 * The allowance's one rule, asked by the update that decides (`useDailyAllowance`) and by a read ahead
 * of it (`readDailyAllowance`): after an upload of `size`, each of the day's totals is at most its
 * `UPLOAD_LIMITS.daily` limit. `count` is what the upload adds to them (and what a give-back takes);
 * `below` is the rule as `updateItem`'s condition on the totals before it (a total not there yet
 * passes), undefined for an upload past a limit on its own, which no day admits.
 */
const dailyAllowanceRule = (size: number) => {
  const limits = UPLOAD_LIMITS.daily;
  const count = { bytes: size, uploads: 1 };
  const counters = Object.keys(limits) as (keyof typeof limits)[];
  const fits = counters.every((counter) => count[counter] <= limits[counter]);
  return {
    count,
    // total + added ≤ limit, for whole numbers: total < limit - added + 1.
    below: fits
      ? Object.fromEntries(counters.map((counter) => [counter, limits[counter] - count[counter] + 1]))
      : undefined,
  };
};

/** The string set, on a day's allowance item, of the uploads counted that day by an id of theirs (a
 * keyed upload's, an avatar's consent recording's): each is counted once whatever is resent, taken
 * back only if it was counted, and a keyed retry reads whether it was. At most
 * `UPLOAD_LIMITS.daily.uploads` ids; the item's TTL removes them with it. */
const COUNTED_IDS = 'counted_ids';

/**
 * Counts the upload against the caller's allowance for the day (one conditional update: both totals
 * stay within the day's limits, or nothing is counted). The update carries its own id (`once`): the
 * SDK's resend after a lost answer finds it and counts nothing again, where it counted the upload
 * twice (or, near the limit, answered 429 for an upload it had counted). With `countedId` the id joins
 * the day's `COUNTED_IDS` instead: counted once by every request that carries it, whatever lands
 * between, and given back exactly (`giveBackDailyAllowance`).
 */
export async function useDailyAllowance(
  userId: string,
  size: number,
  at: Date,
  countedId?: string,
): Promise<void> {
  const day = allowanceDay(userId, at);
  const { count, below } = dailyAllowanceRule(size);
  if (!below) throw day.used();
  const counted = await updateItem(day.keys, {
    // Nothing reads a day's allowance after the day: the table's TTL removes it a day later.
    setIfAbsent: {
      kind: 'upload_allowance',
      [TABLE_TTL_ATTRIBUTE]: day.midnight / 1000 + ALLOWANCE_KEPT_SECONDS,
    },
    add: count,
    below,
    once: countedId ? { set: COUNTED_IDS, token: countedId } : true,
  });
  if (!counted) throw day.used();
}

/** Whether the keyed upload `uploadId` was counted (on the day its id was made). */
async function keyedUploadCounted(userId: string, uploadId: string): Promise<boolean> {
  const item = await getItem<{ [COUNTED_IDS]?: Set<string> }>(
    allowanceDay(userId, new Date(timeOfId(uploadId))).keys,
  );
  return item?.[COUNTED_IDS]?.has(uploadId) === true;
}

/**
 * Gives back what `useDailyAllowance` counted under `countedId` for an upload that then failed
 * (nothing of it was handed out), on the day it was counted: only if it was counted (a count refused,
 * or never landed, gives nothing back), and once (the id leaves the set in the same update).
 */
export const giveBackDailyAllowance = (userId: string, size: number, countedAt: Date, countedId: string) =>
  takeBackCounters(allowanceDay(userId, countedAt).keys, dailyAllowanceRule(size).count, {
    set: COUNTED_IDS,
    token: countedId,
  });

/**
 * Reads the day's allowance ahead of an upload that is counted later (useDailyAllowance still decides):
 * `refuseBeyond(size)` is the 429 useDailyAllowance would answer now, for work that must not start
 * (the avatar provider's job) for an upload the allowance would refuse.
 */
export async function readDailyAllowance(userId: string, at: Date) {
  const day = allowanceDay(userId, at);
  const item = await getItem<{ bytes?: number; uploads?: number }>(day.keys);
  return {
    refuseBeyond(size: number) {
      const { below } = dailyAllowanceRule(size);
      if (!below || !holds(item ?? {}, { below })) throw day.used();
    },
  };
}

/**
 * A presigned PUT for exactly `size` bytes of `content_type`, once (presignPutOnce), counted first.
 * With an Idempotency-Key (createOnce), the upload's id is the claim's: a retry answers the same object
 * key, signed afresh (signing makes no request), counted once (`COUNTED_IDS`).
 */
export const createUpload = (
  userId: string,
  input: CreateUploadInput,
  idempotencyKey?: string,
): Promise<UploadSlot> => {
  const slot = async (uploadId: string): Promise<UploadSlot> => {
    const key = uploadKey(userId, uploadId, input.filename);
    const signedAt = now();
    const upload_url = await presignPutOnce(
      key,
      { size: input.size, contentType: input.content_type },
      { expiresIn: UPLOAD_LIMITS.urlSeconds, signedAt },
    );
    return {
      key,
      upload_url,
      method: 'PUT',
      headers: { 'content-type': input.content_type, ...PUT_ONCE_HEADERS },
      size: input.size,
      expires_at: new Date(signedAt.getTime() + UPLOAD_LIMITS.urlSeconds * 1000).toISOString(),
    };
  };
  const keyed = idempotencyKey !== undefined;
  // A 429 is sure to have counted nothing (refused by the condition, and a read found no id of it).
  let refused = false;
  return createOnce({
    claimAt: ownClaim(userId, 'upload', idempotencyKey),
    request: input,
    write: async ({ id, created_at }) => {
      await useDailyAllowance(userId, input.size, new Date(created_at), keyed ? id : undefined).catch(
        (error) => {
          refused = error instanceof TooManyRequestsError;
          throw error;
        },
      );
      return slot(id);
    },
    // A keyed count that failed may have landed (its answer lost): given back by its id, so the claim
    // can be given back and the retry count afresh. Where the take-back fails too, the count stays
    // (the allowance errs on the strict side) and createOnce claims the key again for this upload, so
    // the retry answers it counted once, or counts it. A 429 has nothing to take back; without a key
    // there is no claim, and the count's own resend is guarded by `once`.
    unwrite: async ({ id, created_at }) => {
      if (!keyed || refused) return true;
      try {
        await giveBackDailyAllowance(userId, input.size, new Date(created_at), id);
      } catch (error) {
        log.warn('upload count not taken back', { upload_id: id, error: (error as Error).name });
        throw error;
      }
      return true;
    },
    read: async (id) => ((await keyedUploadCounted(userId, id)) ? slot(id) : undefined),
  });
};

/** A time-limited GET URL for an object of ours (logos in responses). */
export const downloadUrl = (key: string): Promise<string> =>
  getSignedUrl(s3(), new GetObjectCommand({ Bucket: config.bucketName, Key: key }), {
    expiresIn: DOWNLOAD_URL_SECONDS,
    signingDate: now(),
  });

/**
 * The bytes of one of the caller's direct uploads, at most `maxBytes` of them: the size is checked
 * before anything is downloaded, and again while reading (the object may be replaced meanwhile).
 * Another user's key answers exactly as a missing one.
 */
export async function readOwnUpload(userId: string, key: string, maxBytes: number): Promise<Uint8Array> {
  if (!isOwnUploadKey(userId, key)) throw new NotFoundError('Upload');
  const target = { Bucket: config.bucketName, Key: key };
  try {
    const head = await s3().send(new HeadObjectCommand(target));
    if ((head.ContentLength ?? 0) > maxBytes) throw new PayloadTooLargeError(maxBytes);
    const object = await s3().send(new GetObjectCommand(target));
    const stream = object.Body as AsyncIterable<Uint8Array> & { destroy?: () => void };
    const bytes = new Uint8Array(Math.min(object.ContentLength ?? maxBytes, maxBytes));
    let length = 0;
    for await (const chunk of stream) {
      if (length + chunk.length > bytes.length) {
        stream.destroy?.();
        throw new PayloadTooLargeError(maxBytes);
      }
      bytes.set(chunk, length);
      length += chunk.length;
    }
    return bytes.subarray(0, length);
  } catch (error) {
    if (isMissingObject(error)) throw new NotFoundError('Upload');
    throw error;
  }
}
