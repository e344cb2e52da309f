// What the avatar provider reports through its signed callback. The signature was checked before
// the body was read (functions/avatar-provider/callback.ts); here each signed message is accepted
// once, and moves the avatar only out of `training`.
import { nowIso } from '../clock.ts';
import { NotFoundError } from '../http/errors.ts';
import { log } from '../log.ts';
import { objectExists } from './media.ts';
import { AVATAR_TEXTS, type ProviderReport, type ProviderReportResult } from './schemas.ts';
import { SIGNATURE_TEXTS, SignatureError } from './signature.ts';
import { forgetCallbackReceipt, moveAvatar, readAvatar, recordCallbackReceipt } from './store.ts';

export async function receiveProviderReport(
  report: ProviderReport,
  messageId: string,
): Promise<ProviderReportResult> {
  const first = await recordCallbackReceipt(messageId, {
    event_id: report.event_id,
    team_id: report.team_id,
    avatar_id: report.avatar_id,
    status: report.status,
    received_at: nowIso(),
  });
  if (!first) throw new SignatureError(SIGNATURE_TEXTS.replayed);
  try {
    return await applyReport(report);
  } catch (error) {
    // Not applied: the provider's retry of this same message must not be taken for a replay.
    await forgetCallbackReceipt(messageId).catch(() => undefined);
    throw error;
  }
}

async function applyReport(report: ProviderReport): Promise<ProviderReportResult> {
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
  } else
    move = await moveAvatar(avatar.team_id, avatar.id, 'failed', report.error ?? AVATAR_TEXTS.providerFailed);
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
