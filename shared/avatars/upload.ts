// Spec 3: start studio avatar training. Preconditions first (nothing is stored before they pass),
// then the source video in S3, then the avatar record, then the team's pointer to it, then the
// provider's job. A failed step removes what the earlier ones wrote, so no record points at nothing.
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
import { avatarObjects } from './keys.ts';
import { deleteObjectQuietly, putObject } from './media.ts';
import { type AvatarProvider, avatarProvider } from './provider.ts';
import { AVATAR_LIMITS, AVATAR_TEXTS, type AvatarUploadResult, STUDIO } from './schemas.ts';
import {
  type AvatarItem,
  createAvatar,
  deleteAvatar,
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
    consent_attestation: true,
    consent_attested_by: userId,
    consent_attested_at: at,
    subject_is_minor: false,
    provider: provider.name,
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

  await startTraining(provider, avatar);
  return {
    avatar_id: id,
    status: 'training',
    type: STUDIO,
    consent_url: await getSignedUrl(
      s3(),
      new PutObjectCommand({ Bucket: config.bucketName, Key: avatar.consent_key }),
      { expiresIn: AVATAR_LIMITS.consentUrlSeconds },
    ),
  };
}

/** 409 while the current avatar trains; one stuck past the timeout is failed first and no longer blocks. */
async function refuseWhileTraining(current: AvatarItem | undefined) {
  if (current?.status !== 'training') return;
  const age = (now().getTime() - Date.parse(current.created_at)) / 1000;
  if (age <= AVATAR_LIMITS.trainingTimeoutSeconds) throw new ConflictError(AVATAR_TEXTS.alreadyTraining);
  const { avatar } = await moveAvatar(current.team_id, current.id, 'failed', AVATAR_TEXTS.timedOut);
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

/** Hands the job to the provider. If it cannot be reached the avatar fails at once (a new upload
 * may follow) and the client is told to retry. */
async function startTraining(provider: AvatarProvider, avatar: AvatarItem) {
  const expires = new Date(now().getTime() + AVATAR_LIMITS.providerVideoUrlSeconds * 1000);
  try {
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
  } catch (error) {
    log.warn('avatar provider did not take the job', {
      avatar_id: avatar.id,
      error: (error as Error).message,
    });
    await moveAvatar(avatar.team_id, avatar.id, 'failed', AVATAR_TEXTS.providerUnreachable);
    throw new ServiceUnavailableError();
  }
}
