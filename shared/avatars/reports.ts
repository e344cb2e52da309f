// What the avatar provider reports through its signed callback. The signature was checked before
// the body was read (functions/avatar-provider/callback.ts); here the report moves the avatar out of
// `training`, and each signed message leaves a receipt, written beside the move.
import { now, nowIso } from '../clock.ts';
import { NotFoundError, ServiceUnavailableError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { log } from '../log.ts';
import { objectExists } from './media.ts';
import { AVATAR_TEXTS, type ProviderReport, type ProviderReportResult } from './schemas.ts';
import { SIGNATURE_TEXTS, SignatureError } from './signature.ts';
import {
  type AvatarItem,
  type CallbackReceipt,
  moveAvatar,
  readAvatar,
  recordCallbackReceipt,
  secondsInFlightLeft,
  stillInFlight,
} from './store.ts';

/**
 * Applies a signed report, in at most two waves of requests after the avatar's read: every report
 * moves a training avatar (to `ready` or `failed`) and nothing moves a finished one, so applying a
 * message twice (a provider's retry, a replay while the avatar still trains) does what applying it
 * once did. So the receipt guards only what a report can no longer change: a message received before
 * about an avatar that has finished is a replay (401). The receipt is written beside the move, and a
 * failure of either is a 503 the provider retries: a move that failed leaves the avatar training, so
 * the retry applies the report; a receipt that failed is written by the retry. A write that failed
 * outright is read back (store.ts): one that landed with its answer lost is no failure, since both
 * landed would make the retry a replay.
 */
export async function receiveProviderReport(
  report: ProviderReport,
  messageId: string,
): Promise<ProviderReportResult> {
  const receipt: CallbackReceipt = {
    delivery: newId(),
    received_at: nowIso(),
    event_id: report.event_id,
    team_id: report.team_id,
    avatar_id: report.avatar_id,
    status: report.status,
  };
  // A provider may report within a second of the upload that created the avatar: the read is
  // consistent, as every table read (shared/db/store.ts).
  const avatar = await readAvatar(report.team_id, report.avatar_id);
  if (!avatar) {
    // The upload hands the job over before it writes the record: a report that overtakes it is retried.
    const at = now();
    if (stillInFlight(report.avatar_id, at))
      throw new ServiceUnavailableError(Math.ceil(secondsInFlightLeft(report.avatar_id, at)));
    throw new NotFoundError('Avatar');
  }
  if (avatar.status !== 'training') {
    // Nothing to apply: a late or repeated report changes nothing. Received before, it is a replay.
    if (await recordCallbackReceipt(messageId, receipt)) throw new SignatureError(SIGNATURE_TEXTS.replayed);
    return { avatar_id: avatar.id, status: avatar.status };
  }
  const [target, reason] = await targetOf(avatar, report);
  // Both settle before the answer: a rejected one is the 503, whatever the other did.
  const [move, recorded] = await Promise.allSettled([
    moveAvatar(avatar.team_id, avatar.id, target, reason),
    recordCallbackReceipt(messageId, receipt),
  ]);
  if (move.status === 'rejected') throw move.reason;
  if (recorded.status === 'rejected') throw recorded.reason;
  const status = move.value.avatar?.status ?? avatar.status;
  log.info('avatar provider report', {
    avatar_id: avatar.id,
    event_id: report.event_id,
    reported: report.status,
    status,
    moved: move.value.moved,
    // Received before: a retry of a delivery that failed, or a replay while the avatar trained.
    again: recorded.value !== undefined,
  });
  return { avatar_id: avatar.id, status };
}

/** Where the report moves a training avatar, and why when it fails. */
async function targetOf(
  avatar: AvatarItem,
  report: ProviderReport,
): Promise<['ready' | 'failed', string | null]> {
  if (report.status === 'ready')
    // No avatar is ready without the subject's recorded consent.
    return (await objectExists(avatar.consent_key))
      ? ['ready', null]
      : ['failed', AVATAR_TEXTS.consentMissing];
  // A blank reason is none: the client would show an empty message.
  return ['failed', report.error?.trim() ? report.error : AVATAR_TEXTS.providerFailed];
}
