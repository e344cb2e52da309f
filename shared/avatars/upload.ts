// Spec 3: start studio avatar training. Preconditions first (nothing is stored before they pass, and
// the day's upload allowance is read with them), then the source video in S3, then the provider's job,
// then in one wave the avatar record, the team's pointer to it and the consent recording's count
// against the allowance: two DynamoDB waves in all. The record comes last, after everything it names
// (DESIGN.md §5); a failed write takes back the others, so a failure leaves no record, and an upload
// whose record is not yet written is told from a lost one by its id's time (`stillInFlight`).
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { readAccount, studioTrainingEnabled } from '../accounts/store.ts';
import { readObjectStart, s3 } from '../aws/s3.ts';
import { now } from '../clock.ts';
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
import { newIdAt } from '../ids.ts';
import { log } from '../log.ts';
import { AVATAR_VIDEO_TEAM_TYPE } from '../teams/schemas.ts';
import { subscriptionEndsAt, type TeamItem } from '../teams/store.ts';
import { isOwnUploadKey } from '../uploads/keys.ts';
import { giveBackDailyAllowance, readDailyAllowance, useDailyAllowance } from '../uploads/store.ts';
import { consentPut, plainConsentUrl } from './consent.ts';
import { avatarObjects } from './keys.ts';
import { deleteObjectQuietly, putObject } from './media.ts';
import { type AvatarProvider, avatarProvider } from './provider.ts';
import { AVATAR_LIMITS, AVATAR_TEXTS, type AvatarUploadResult, STUDIO } from './schemas.ts';
import {
  type AvatarItem,
  ageOf,
  createAvatar,
  deleteAvatar,
  moveAvatar,
  pointTeamAtAvatar,
  readTeamAvatar,
  secondsInFlightLeft,
  stillInFlight,
  unpointTeam,
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
  const at = now();
  const [{ team, avatar: current }, account, allowance] = await Promise.all([
    readTeamAvatar(teamId),
    readAccount(userId),
    consentSize === undefined ? undefined : readDailyAllowance(userId, at),
  ]);
  const owned = ownedBy(team, userId, 'Team');
  if (owned.team_type !== AVATAR_VIDEO_TEAM_TYPE) throw new ForbiddenError(AVATAR_TEXTS.wrongTeamType);
  // A cancelled team works until its subscription ends (docs/teams.md); no training after that.
  const ends = subscriptionEndsAt(owned);
  if (ends !== null && Date.parse(ends) <= at.getTime())
    throw new ForbiddenError(AVATAR_TEXTS.subscriptionEnded);
  if (!studioTrainingEnabled(account)) throw new ForbiddenError(AVATAR_TEXTS.trainingDisabled);
  const stuck = refuseWhileTraining(owned, current, at);
  const video =
    'file' in source ? videoInRequest(source.file) : await videoUploaded(userId, source.uploadKey);
  // A declared consent recording is stored once, at its size, and counted like a direct upload: 429
  // when the day's allowance is used, before anything is stored or handed over. Undeclared (the spec's
  // form), the URL is the plain PUT such a client sends.
  if (consentSize !== undefined) allowance?.refuseBeyond(consentSize);
  // Only an upload that goes on to train fails the one stuck past the timeout: the provider may still
  // report on it, and a refused upload (415, 429…) would have taken that from it.
  if (stuck) await failStuck(stuck);

  const provider = avatarProvider();
  // Its time is the upload's: a pointer naming it before its record is an upload in flight until then.
  const id = newIdAt(at);
  const stamp = at.toISOString();
  const draft = {
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
    consent_attested_at: stamp,
    subject_is_minor: false,
    provider: provider.name,
    created_at: stamp,
    updated_at: stamp,
  } satisfies Partial<AvatarItem>;

  // The video, then the job that reads it, then the record that names both.
  if (video.content) await putObject(draft.source_key, video.content, video.format.contentType);
  const job = await handOver(provider, draft).catch(async (error: Error) => {
    log.warn('avatar provider did not take the job', { avatar_id: id, error: error.message });
    await forgetObject(draft);
    throw new ServiceUnavailableError();
  });
  const avatar: AvatarItem = { ...draft, job_accepted_at: job.acceptedAt, provider_job_id: job.jobId };
  // The pointer moves from what the upload read; a failure gives the team back the avatar it had.
  await writeAvatar(avatar, { seen: owned.current_avatar_id ?? undefined, had: current?.id }, consentSize);

  const consent =
    consentSize === undefined
      ? { url: await plainConsentUrl(avatar.consent_key), headers: {} }
      : await consentPut(avatar.consent_key, consentSize);
  return {
    avatar_id: id,
    status: 'training',
    type: STUDIO,
    consent_url: consent.url,
    consent_headers: consent.headers,
  };
}

/**
 * One wave: the record (a new id, so a failed condition is only this write's own resend), the team's
 * pointer (conditional on the pointer the upload saw: another upload that moved it first is the one
 * training, or still writing, so this one is 409 with the Retry-After of an upload in flight) and the
 * consent recording's count. Any of them failing takes the others back: the pointer first, so the team
 * gives back the avatar it had, then the record, then its object; beside them a count that landed goes
 * back. The provider's job, taken already, trains an avatar nothing names and its report answers 404.
 */
async function writeAvatar(
  avatar: AvatarItem,
  pointer: { seen: string | undefined; had: string | undefined },
  consentSize: number | undefined,
) {
  const countedAt = now();
  const [counted, written, pointed] = await Promise.allSettled([
    consentSize === undefined
      ? undefined
      : useDailyAllowance(avatar.owner, consentSize, countedAt, avatar.id),
    createAvatar(avatar),
    pointTeamAtAvatar(avatar.team_id, pointer.seen, avatar.id, pointer.had),
  ]);
  if (
    counted.status === 'fulfilled' &&
    written.status === 'fulfilled' &&
    pointed.status === 'fulfilled' &&
    pointed.value.moved
  )
    return;
  // A pointer refused by its condition names another upload's avatar: nothing of ours to give back.
  const lost = pointed.status === 'fulfilled' && !pointed.value.moved ? pointed.value : undefined;
  await Promise.all([
    forget(avatar, lost ? null : pointer.had),
    // No consent URL is handed out: the count goes back by the avatar's id, exactly where it landed
    // (one whose answer was lost included), so the client's retry is counted once, and an upload that
    // lost the pointer does not take the day's last place from the one that lost the count to it.
    consentSize !== undefined ? giveBackCount(avatar, consentSize, countedAt) : undefined,
  ]);
  // A failing store first (503), then the allowance's 429, then the lost race's 409.
  for (const outcome of [written, pointed, counted]) if (outcome.status === 'rejected') throw outcome.reason;
  // The winner's upload is in flight (it has just written its pointer): retry once it cannot be.
  throw new ConflictError(AVATAR_TEXTS.alreadyTraining, retryAfterInFlight(lost?.named, now()));
}

/** An upload in flight's 409 Retry-After: the seconds until no upload can still be writing `avatarId`
 * (at least 1: a pointer that names nothing in flight any more may free the team at once). */
const retryAfterInFlight = (avatarId: string | undefined, at: Date) =>
  Math.max(1, Math.ceil(avatarId ? secondsInFlightLeft(avatarId, at) : 0));

/**
 * 409 while the current avatar trains, or while the pointer names an avatar an upload may still be
 * writing (with Retry-After: the seconds until none can be). A pointer naming no record past that is
 * an upload whose take-back failed: the team's avatar is the one before it (`current`, read from
 * `previous_avatar_id`, never training: an upload moves the pointer only from a finished one). One
 * stuck training past the 24-hour timeout blocks nothing: it is returned, for `failStuck`.
 */
function refuseWhileTraining(team: TeamItem, current: AvatarItem | undefined, at: Date) {
  const named = team.current_avatar_id;
  if (named && current?.id !== named && stillInFlight(named, at))
    throw new ConflictError(AVATAR_TEXTS.alreadyTraining, retryAfterInFlight(named, at));
  if (current?.status !== 'training') return undefined;
  if (ageOf(current, at) <= AVATAR_LIMITS.trainingTimeoutSeconds)
    throw new ConflictError(AVATAR_TEXTS.alreadyTraining);
  return current;
}

/** Fails an avatar stuck training past the 24-hour timeout (its record kept: consent attestation,
 * source video), before the pointer moves from it. A provider report that landed meanwhile finished
 * it already (the move is conditional on `training`), which frees the team as well. */
async function failStuck(stuck: AvatarItem) {
  await moveAvatar(stuck.team_id, stuck.id, 'failed', AVATAR_TEXTS.timedOut);
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

/**
 * Takes back an upload whose writes did not all land: the team's pointer back to `had` (unless
 * `null`: the pointer is another upload's), then the record, then the object it stored. A step that
 * fails leaves the ones after it: a pointer left naming the avatar names no record once that is
 * deleted; the team's avatar is then still the one it had (kept beside the pointer), and the pointer
 * blocks the team only while an upload could be in flight (`refuseWhileTraining`).
 */
async function forget(avatar: AvatarItem, had: string | undefined | null) {
  if (had !== null) {
    try {
      await unpointTeam(avatar.team_id, avatar.id, had);
    } catch (error) {
      log.warn('team left pointing at an avatar being taken back', {
        avatar_id: avatar.id,
        error: (error as Error).name,
      });
    }
  }
  try {
    await deleteAvatar(avatar.team_id, avatar.id);
  } catch (error) {
    // The record stays (nothing names it, or a pointer does): keep its object so it never names nothing.
    log.warn('avatar record left behind', { avatar_id: avatar.id, error: (error as Error).name });
    return;
  }
  await forgetObject(avatar);
}

/** The consent's count back to the allowance; failing, it stays counted (logged). */
async function giveBackCount(avatar: AvatarItem, size: number, countedAt: Date) {
  try {
    await giveBackDailyAllowance(avatar.owner, size, countedAt, avatar.id);
  } catch (error) {
    log.warn('consent count left after a failed avatar upload', {
      avatar_id: avatar.id,
      error: (error as Error).name,
    });
  }
}

/** Only the avatar's own copy of a video sent in the form; a direct upload stays the caller's. */
const forgetObject = async (avatar: Pick<AvatarItem, 'team_id' | 'id' | 'source_key'>) => {
  if (avatar.source_key.startsWith(avatarObjects.folder(avatar.team_id, avatar.id)))
    await deleteObjectQuietly(avatar.source_key);
};

/** The job to the provider: resolves once it has taken it, with its job id and when. */
async function handOver(
  provider: AvatarProvider,
  avatar: Pick<AvatarItem, 'id' | 'team_id' | 'source_key' | 'source_version_id' | 'source_content_type'>,
): Promise<{ jobId: string; acceptedAt: string }> {
  // Signed at the time its expiry is counted from, so `video_url_expires_at` is the URL's own.
  const signedAt = now();
  const expires = new Date(signedAt.getTime() + AVATAR_LIMITS.providerVideoUrlSeconds * 1000);
  const videoUrl = await getSignedUrl(
    s3(),
    // Served as the type its bytes are, whatever type a direct upload was declared with.
    new GetObjectCommand({
      Bucket: config.bucketName,
      Key: avatar.source_key,
      VersionId: avatar.source_version_id,
      ResponseContentType: avatar.source_content_type,
    }),
    { expiresIn: AVATAR_LIMITS.providerVideoUrlSeconds, signingDate: signedAt },
  );
  const { jobId } = await provider.startTraining({
    team_id: avatar.team_id,
    avatar_id: avatar.id,
    video_url: videoUrl,
    video_content_type: avatar.source_content_type,
    video_url_expires_at: expires.toISOString(),
  });
  log.info('avatar training started', { avatar_id: avatar.id, provider: provider.name, job_id: jobId });
  return { jobId, acceptedAt: now().toISOString() };
}
