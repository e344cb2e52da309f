// Spec 3: start studio avatar training. Preconditions first (nothing is stored before they pass), the
// consent URL counted against the caller's daily upload allowance, then the source video in S3, then
// the avatar record, then the team's pointer to it, then the provider's job, and its acceptance noted
// on the record. A failed step removes what the earlier ones wrote, so no record points at nothing; an
// avatar whose job was not handed over is failed, or (that write failing too) stops blocking once no
// upload can still be handing it over.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { readAccount, studioTrainingEnabled } from '../accounts/store.ts';
import { readObjectStart, s3 } from '../aws/s3.ts';
import { now, nowIso } from '../clock.ts';
import { config } from '../config.ts';
import { ownedBy } from '../db/store.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../http/errors.ts';
import type { UploadedFile } from '../http/multipart.ts';
import { newId } from '../ids.ts';
import { log } from '../log.ts';
import { AVATAR_VIDEO_TEAM_TYPE } from '../teams/schemas.ts';
import { isOwnUploadKey } from '../uploads/keys.ts';
import { PUT_ONCE_HEADERS, presignPutOnce, useDailyAllowance } from '../uploads/store.ts';
import { avatarObjects } from './keys.ts';
import { deleteObjectQuietly, putObject } from './media.ts';
import { type AvatarProvider, avatarProvider } from './provider.ts';
import { AVATAR_LIMITS, AVATAR_TEXTS, type AvatarUploadResult, STUDIO } from './schemas.ts';
import {
  type AvatarItem,
  ageOf,
  awaitsHandOver,
  createAvatar,
  deleteAvatar,
  markJobAccepted,
  moveAvatar,
  pointTeamAtAvatar,
  readTeamAvatar,
} from './store.ts';
import { SNIFF_BYTES, sniffVideo, type VideoFormat } from './video.ts';

/** The video: sent in the request, or sent earlier by direct upload. */
export type VideoSource = { file: UploadedFile } | { uploadKey: string };

interface Video {
  format: VideoFormat;
  bytes: number;
  /** The request's bytes (to store under the avatar); none for a direct upload (used where it is). */
  content?: Buffer;
  /** The direct upload's version that was checked (a versioned bucket). */
  versionId?: string;
}

export async function uploadAvatar(
  userId: string,
  teamId: string,
  source: VideoSource,
  consentSize: number | undefined,
): Promise<AvatarUploadResult> {
  const [{ team, avatar: current }, account] = await Promise.all([
    readTeamAvatar(teamId),
    readAccount(userId),
  ]);
  const owned = ownedBy(team, userId, 'Team');
  if (owned.team_type !== AVATAR_VIDEO_TEAM_TYPE) throw new ForbiddenError(AVATAR_TEXTS.wrongTeamType);
  if (!studioTrainingEnabled(account)) throw new ForbiddenError(AVATAR_TEXTS.trainingDisabled);
  await refuseWhileTraining(current);
  const video =
    'file' in source ? videoInRequest(source.file) : await videoUploaded(userId, source.uploadKey);
  // A declared consent recording is stored once, at its size: counted like a direct upload (429 when
  // the day's allowance is used), before anything is stored. A later failure leaves it counted (the
  // strict side). Undeclared (the spec's form), the URL is the plain PUT such a client sends.
  if (consentSize !== undefined) await useDailyAllowance(userId, consentSize, now());

  const provider = avatarProvider();
  const id = newId();
  const at = nowIso();
  const avatar: AvatarItem = {
    kind: 'avatar',
    id,
    team_id: teamId,
    owner: userId,
    type: STUDIO,
    status: 'training',
    error: null,
    // A video sent in the form is stored under the avatar; a direct upload is used where it is: a
    // server-side copy of up to 2 GiB could outlast the function's 29 s (and would store it twice).
    source_key: 'file' in source ? avatarObjects.source(teamId, id, video.format.ext) : source.uploadKey,
    // The version checked is kept: the provider gets it, whatever is stored at the key later.
    source_version_id: video.versionId,
    source_content_type: video.format.contentType,
    source_bytes: video.bytes,
    // The consent recording is expected in the same container format as the source video.
    consent_key: avatarObjects.consent(teamId, id, video.format.ext),
    ...(consentSize === undefined ? {} : { consent_bytes: consentSize }),
    consent_attestation: true,
    consent_attested_by: userId,
    consent_attested_at: at,
    subject_is_minor: false,
    provider: provider.name,
    // Null until the provider takes the job: an avatar whose upload ends without it blocks nothing.
    job_accepted_at: null,
    provider_job_id: null,
    created_at: at,
    updated_at: at,
  };

  // The object first, then the record, then the pointer readers start from.
  if (video.content) await putObject(avatar.source_key, video.content, video.format.contentType);
  let pointed = false;
  try {
    // A new id: a failed condition can only be this write's own, landed with its answer lost.
    await createAvatar(avatar);
    pointed = await pointTeamAtAvatar(teamId, owned.current_avatar_id ?? undefined, id);
  } finally {
    if (!pointed) await forget(avatar);
  }
  // Another upload moved the pointer after our read: its avatar is the one training now.
  if (!pointed) throw new ConflictError(AVATAR_TEXTS.alreadyTraining);

  // Noted beside the consent URL's signing (no request): a 202 only for a job the record says was taken.
  const [, consent_url] = await Promise.all([
    startTraining(provider, avatar),
    consentUrl(avatar.consent_key, consentSize),
  ]);
  return {
    avatar_id: id,
    status: 'training',
    type: STUDIO,
    consent_url,
    consent_headers: consentSize === undefined ? {} : { ...PUT_ONCE_HEADERS },
  };
}

/**
 * The consent recording's presigned PUT, valid an hour: of exactly the declared size, once
 * (If-None-Match: *), as a direct upload's; undeclared, the plain PUT a client written to the spec sends
 * (reusable within the hour and outside the allowance: docs/avatars.md).
 */
const consentUrl = (key: string, size: number | undefined) => {
  const signing = { expiresIn: AVATAR_LIMITS.consentUrlSeconds, signedAt: now() };
  return size === undefined
    ? getSignedUrl(s3(), new PutObjectCommand({ Bucket: config.bucketName, Key: key }), {
        expiresIn: signing.expiresIn,
        signingDate: signing.signedAt,
      })
    : presignPutOnce(key, { size }, signing);
};

/** Seconds until no upload can still be handing the avatar's job over (at least 1). */
const untilHandOverEnds = (avatar: AvatarItem) =>
  Math.max(1, Math.ceil(AVATAR_LIMITS.handOverSeconds - ageOf(avatar, now())));

/**
 * 409 while the current avatar trains. One whose job the provider never took (its upload failed, and
 * so did its move to failed) blocks only while its upload may still be handing the job over (409 with
 * Retry-After), then is failed; one stuck past the 24-hour timeout is failed first. Either way the
 * failed record is kept (consent attestation, source video) and this upload proceeds.
 */
async function refuseWhileTraining(current: AvatarItem | undefined) {
  if (current?.status !== 'training') return;
  const age = ageOf(current, now());
  let reason: string;
  if (awaitsHandOver(current)) {
    if (age <= AVATAR_LIMITS.handOverSeconds)
      throw new ConflictError(AVATAR_TEXTS.alreadyTraining, untilHandOverEnds(current));
    reason = AVATAR_TEXTS.notStarted;
  } else if (age > AVATAR_LIMITS.trainingTimeoutSeconds) reason = AVATAR_TEXTS.timedOut;
  else throw new ConflictError(AVATAR_TEXTS.alreadyTraining);
  const { avatar } = await moveAvatar(current.team_id, current.id, 'failed', reason, {
    // The provider took it meanwhile: it trains, and blocks.
    onlyIfNotHandedOver: reason === AVATAR_TEXTS.notStarted,
  });
  if (avatar?.status === 'training') throw new ConflictError(AVATAR_TEXTS.alreadyTraining);
}

function videoInRequest(file: UploadedFile): Video {
  const format = sniffVideo(file.content);
  if (!format) throw new UnsupportedMediaTypeError(AVATAR_TEXTS.notAVideo);
  return { format, bytes: file.content.length, content: file.content };
}

/** A direct upload of the caller's: another user's key answers like a missing one. */
async function videoUploaded(userId: string, uploadKey: string): Promise<Video> {
  if (!isOwnUploadKey(userId, uploadKey)) throw new NotFoundError('Upload');
  const object = await readObjectStart(uploadKey, SNIFF_BYTES);
  if (!object) throw new NotFoundError('Upload');
  if (object.size > AVATAR_LIMITS.uploadVideoBytes)
    throw new PayloadTooLargeError(AVATAR_LIMITS.uploadVideoBytes);
  const format = sniffVideo(object.bytes);
  if (!format) throw new UnsupportedMediaTypeError(AVATAR_TEXTS.notAVideo);
  return { format, bytes: object.size, versionId: object.versionId };
}

/** Undoes a write that did not complete: the record first, so nothing ever points at a missing object. */
async function forget(avatar: AvatarItem) {
  try {
    await deleteAvatar(avatar.team_id, avatar.id);
  } catch (error) {
    // The record stays unreachable (no pointer names it); keep its object so it never points at nothing.
    log.warn('unreferenced avatar record left behind', {
      avatar_id: avatar.id,
      error: (error as Error).name,
    });
    return;
  }
  // Only the avatar's own copy of a video sent in the form; a direct upload stays the caller's.
  if (avatar.source_key.startsWith(avatarObjects.folder(avatar.team_id, avatar.id)))
    await deleteObjectQuietly(avatar.source_key);
}

/**
 * Hands the job to the provider and notes on the record that it took it. If the provider cannot be
 * reached, or its acceptance cannot be noted, the avatar fails at once (a new upload may follow) and
 * the client is told to retry: no consent URL is issued, so it could never become ready. If that move
 * fails too, the avatar stays `training` with nothing noted, which blocks the team only until no
 * upload can still be handing a job over: the 503's Retry-After says when.
 */
async function startTraining(provider: AvatarProvider, avatar: AvatarItem) {
  let jobId: string;
  try {
    jobId = await handOver(provider, avatar);
  } catch (error) {
    log.warn('avatar provider did not take the job', {
      avatar_id: avatar.id,
      error: (error as Error).message,
    });
    return failUnstarted(avatar, AVATAR_TEXTS.providerUnreachable);
  }
  try {
    await markJobAccepted(avatar.team_id, avatar.id, jobId);
  } catch (error) {
    // The provider trains it, but nothing says so: the client gets no consent URL for it.
    log.warn('avatar job taken but not noted', { avatar_id: avatar.id, error: (error as Error).name });
    return failUnstarted(avatar, AVATAR_TEXTS.notStarted);
  }
}

/** The avatar's upload ends without a 202: its avatar fails now, or (that write failing too) blocks
 * until the hand-over is over. */
async function failUnstarted(avatar: AvatarItem, reason: string): Promise<never> {
  try {
    await moveAvatar(avatar.team_id, avatar.id, 'failed', reason);
  } catch (error) {
    log.warn('avatar left training, its job not handed over', {
      avatar_id: avatar.id,
      error: (error as Error).name,
    });
    throw new ServiceUnavailableError(untilHandOverEnds(avatar));
  }
  throw new ServiceUnavailableError();
}

/** The job to the provider: resolves with its job id once it has taken it. */
async function handOver(provider: AvatarProvider, avatar: AvatarItem): Promise<string> {
  const expires = new Date(now().getTime() + AVATAR_LIMITS.providerVideoUrlSeconds * 1000);
  const videoUrl = await getSignedUrl(
    s3(),
    // Served as the type its bytes are, whatever type a direct upload was declared with.
    new GetObjectCommand({
      Bucket: config.bucketName,
      Key: avatar.source_key,
      VersionId: avatar.source_version_id,
      ResponseContentType: avatar.source_content_type,
    }),
    { expiresIn: AVATAR_LIMITS.providerVideoUrlSeconds },
  );
  const { jobId } = await provider.startTraining({
    team_id: avatar.team_id,
    avatar_id: avatar.id,
    video_url: videoUrl,
    video_content_type: avatar.source_content_type,
    video_url_expires_at: expires.toISOString(),
  });
  log.info('avatar training started', { avatar_id: avatar.id, provider: provider.name, job_id: jobId });
  return jobId;
}
