// What the avatar provider reports through its signed callback. The signature was checked before
// the body was read (functions/avatar-provider/callback.ts); here each signed message is accepted
// once, and moves the avatar only out of `training`.
import { now, nowIso } from '../clock.ts';
import { NotFoundError, ServiceUnavailableError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { log } from '../log.ts';
import { objectExists } from './media.ts';
import { AVATAR_TEXTS, type ProviderReport, type ProviderReportResult } from './schemas.ts';
import { SIGNATURE_TEXTS, SignatureError } from './signature.ts';
import {
  type CallbackReceipt,
  forgetCallbackReceipt,
  markCallbackApplied,
  moveAvatar,
  readAvatar,
  recordCallbackReceipt,
  takeOverCallbackReceipt,
} from './store.ts';

/** How long another delivery of the same message may still be applying it: longer than the callback
 * function's timeout (10 s; no function behind API Gateway may exceed 29 s). Past that, one that
 * neither applied it nor gave it back has died. */
const IN_FLIGHT_SECONDS = 30;

/**
 * Each signed message is applied once. A delivery records a receipt first; a later delivery of the
 * same message is a replay (401) once the report was applied, and while another delivery may still be
 * applying it, a 503 the provider retries. A delivery that fails gives its receipt back, so the
 * provider's retry is not taken for a replay.
 */
export async function receiveProviderReport(
  report: ProviderReport,
  messageId: string,
): Promise<ProviderReportResult> {
  const receipt: CallbackReceipt = {
    delivery: newId(),
    applied: false,
    received_at: nowIso(),
    event_id: report.event_id,
    team_id: report.team_id,
    avatar_id: report.avatar_id,
    status: report.status,
  };
  const earlier = await recordCallbackReceipt(messageId, receipt);
  if (earlier?.applied) {
    // Marked beside the avatar's read, so a move that failed after it (its give-back failing too)
    // leaves a receipt saying applied: every report moves a training avatar, so one still training
    // never had it, and this delivery applies it (the receipt stays the earlier delivery's).
    if ((await readAvatar(report.team_id, report.avatar_id))?.status !== 'training')
      throw new SignatureError(SIGNATURE_TEXTS.replayed);
  } else if (earlier) {
    const age = (now().getTime() - Date.parse(earlier.received_at)) / 1000;
    if (age <= IN_FLIGHT_SECONDS || !(await takeOverCallbackReceipt(messageId, earlier.delivery, receipt)))
      throw new ServiceUnavailableError();
  }
  try {
    // Marked beside the report's first read: a failure of either gives the receipt back.
    const [result] = await Promise.all([
      applyReport(report),
      markCallbackApplied(messageId, receipt.delivery),
    ]);
    return result;
  } catch (error) {
    // Not applied: the provider's retry of this same message must not be taken for a replay.
    await forgetCallbackReceipt(messageId, receipt.delivery).catch(() => undefined);
    throw error;
  }
}

async function applyReport(report: ProviderReport): Promise<ProviderReportResult> {
  // A provider may report within a second of the upload that created the avatar: the read is
  // consistent, as every table read (shared/db/store.ts).
  const avatar = await readAvatar(report.team_id, report.avatar_id);
  if (!avatar) throw new NotFoundError('Avatar');
  // A late or repeated message about a finished avatar changes nothing.
  if (avatar.status !== 'training') return { avatar_id: avatar.id, status: avatar.status };
  let move: Awaited<ReturnType<typeof moveAvatar>>;
  if (report.status === 'ready') {
    // No avatar is ready without the subject's recorded consent.
    const consented = await objectExists(avatar.consent_key);
    move = consented
      ? await moveAvatar(avatar.team_id, avatar.id, 'ready')
      : await moveAvatar(avatar.team_id, avatar.id, 'failed', AVATAR_TEXTS.consentMissing);
  } else {
    // A blank reason is none: the client would show an empty message.
    const reason = report.error?.trim() ? report.error : AVATAR_TEXTS.providerFailed;
    move = await moveAvatar(avatar.team_id, avatar.id, 'failed', reason);
  }
  const status = move.avatar?.status ?? avatar.status;
  log.info('avatar provider report', {
    avatar_id: avatar.id,
    event_id: report.event_id,
    reported: report.status,
    status,
    moved: move.moved,
  });
  return { avatar_id: avatar.id, status };
}
