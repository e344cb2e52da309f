// Spec §"Avatar upload result", §"States and transitions" and endpoint 3, with what the spec leaves
// open decided here (docs/avatars.md says why).
import * as v from 'valibot';
import {
  boolean,
  integer,
  literal,
  model,
  optionalNullable,
  string,
  uuid,
  valueError,
} from '../http/fields.ts';
import { uploadedFile } from '../http/multipart.ts';
import { dateTimeOut } from '../http/response-fields.ts';
import { UPLOAD_KEY_DESCRIPTION } from '../uploads/keys.ts';
import { AVATAR_STATUSES } from './states.ts';

const MiB = 1024 * 1024;
/** A video sent by direct upload (POST /api/v1/uploads allows the same). */
const VIDEO_BYTES = 2 * 1024 * MiB;

export const AVATAR_LIMITS = {
  /** Video sent inside the multipart request (Lambda's 6 MB payload, base64 included, bounds it). */
  formVideoBytes: 4 * MiB,
  /** Room for the other parts and the multipart framing around the video. */
  formOverheadBytes: 64 * 1024,
  /** Video sent earlier by direct upload and named by `upload_key`. */
  uploadVideoBytes: VIDEO_BYTES,
  uploadKey: { min: 1, max: 1024 },
  /** How long the presigned consent PUT URL is valid. */
  consentUrlSeconds: 60 * 60,
  /** The consent recording's size, declared with the upload (its URL takes exactly that many
   * bytes): at most what a direct upload of a video may be. */
  consentBytes: { min: 1, max: VIDEO_BYTES },
  /** How long the provider's presigned GET of the source video is valid. */
  providerVideoUrlSeconds: 60 * 60,
  /** A training avatar older than this no longer blocks a new upload (it is failed first). */
  trainingTimeoutSeconds: 24 * 60 * 60,
  /** How long after its id was made an avatar's upload may still be writing its record: longer than the
   * upload function's 29 s timeout (infra/routes/avatars.ts). Within it, a pointer or a provider report
   * naming an avatar not yet written is an upload in flight (409 / 503 with Retry-After), not a loss. */
  inFlightSeconds: 30,
  /** Callback signatures older or newer than this are refused. */
  callbackToleranceSeconds: 5 * 60,
  callbackEventId: { min: 1, max: 200 },
  /** The provider's job id kept on the record; an empty or longer one is replaced by the avatar id. */
  providerJobId: { min: 1, max: 256 },
  /** The most of the provider's 2xx answer that is read (its job id, in JSON, with room to spare);
   * the rest is not waited for. */
  providerAnswerBytes: 64 * 1024,
  providerError: { max: 500 },
} as const;

export const STUDIO = 'studio';

export const AVATAR_TEXTS = {
  wrongTeamType: 'Studio avatars can only be trained for teams of the avatar-video kind',
  trainingDisabled: 'Studio avatar training is not enabled for this account',
  alreadyTraining: 'An avatar is already training for this team',
  notAVideo: 'The video must be an MP4, QuickTime or WebM file',
  consentRequired: 'consent_attestation must be true: the subject has to consent to avatar training',
  minorRefused: 'avatars of minors are not trained',
  consentMissing: 'The consent recording was not received before training finished',
  providerFailed: 'Training failed at the avatar provider',
  timedOut: `Training did not finish within ${AVATAR_LIMITS.trainingTimeoutSeconds / 3600} hours`,
  subscriptionEnded: 'The team’s subscription has ended: no avatar is trained for it',
} as const;

/** A boolean field (pydantic's lax parsing) that only one value passes; the refusal is pydantic's
 * `value_error` of an after-validator, so it echoes the input as sent ("false", "1", …). */
const onlyBoolean = <const B extends boolean>(accepted: B, reason: string) =>
  v.pipe(
    v.unknown(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const parsed = v.safeParse(boolean(), dataset.value);
      if (!parsed.success) {
        for (const issue of parsed.issues) addIssue({ message: issue.message });
        return NEVER;
      }
      if (parsed.output !== accepted) {
        addIssue({ message: valueError(reason) });
        return NEVER;
      }
      return accepted;
    }),
    // The OpenAPI document reads this in place of the transform (see shared/http/fields.ts).
    v.metadata({ jsonSchema: { type: 'boolean', const: accepted } }),
  );

const consentAttestation = onlyBoolean(true, AVATAR_TEXTS.consentRequired);
const subjectIsMinor = v.optional(onlyBoolean(false, AVATAR_TEXTS.minorRefused), false);
// Optional, beyond the spec's three parts: a client written to the spec gets the plain URL it expects.
const consentSize = v.optional(
  v.pipe(
    integer({ ge: AVATAR_LIMITS.consentBytes.min, le: AVATAR_LIMITS.consentBytes.max }),
    v.description(
      'The consent recording’s size in bytes. Given, consent_url takes a PUT of exactly this many bytes, once (with consent_headers), counted against the daily upload allowance; without it, a plain PUT within the hour.',
    ),
  ),
);

/** multipart/form-data: the video itself. */
export const UploadAvatarForm = model({
  video: uploadedFile(),
  consent_attestation: consentAttestation,
  subject_is_minor: subjectIsMinor,
  consent_size: consentSize,
});

/** JSON: a video sent earlier by direct upload (POST /api/v1/uploads). */
export const UploadAvatarBody = model({
  upload_key: v.pipe(string(AVATAR_LIMITS.uploadKey), v.description(UPLOAD_KEY_DESCRIPTION)),
  consent_attestation: consentAttestation,
  subject_is_minor: subjectIsMinor,
  consent_size: consentSize,
});

export const AvatarUploadResult = v.object({
  avatar_id: v.string(),
  status: v.literal('training'),
  type: v.literal(STUDIO),
  /** A presigned PUT of the consent recording within the hour: with `consent_size`, exactly that many
   * bytes, once. */
  consent_url: v.string(),
  /** Headers the consent PUT must carry exactly as given (part of its signature; none without
   * `consent_size`). */
  consent_headers: v.record(v.string(), v.string()),
});
export type AvatarUploadResult = v.InferOutput<typeof AvatarUploadResult>;

export const AvatarStatus = v.object({
  avatar_id: v.string(),
  status: v.picklist(AVATAR_STATUSES),
  type: v.string(),
  consent_received: v.boolean(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
  /** Why training failed; null otherwise. */
  error: v.nullable(v.string()),
  /** A new presigned PUT of the consent recording while the avatar trains without it, for an upload
   * that declared `consent_size` (the same one PUT of exactly that many bytes, already counted; a
   * client that lost the upload's answer, or let its URL expire, sends the recording with this one);
   * null otherwise. */
  consent_url: v.nullable(v.string()),
  /** The headers that PUT must carry exactly as given; null with no consent_url. */
  consent_headers: v.nullable(v.record(v.string(), v.string())),
});
export type AvatarStatus = v.InferOutput<typeof AvatarStatus>;

/** What the avatar provider reports (signed: see signature.ts). */
export const ProviderReportBody = model({
  event_id: string(AVATAR_LIMITS.callbackEventId),
  team_id: uuid(),
  avatar_id: uuid(),
  status: literal(['ready', 'failed']),
  error: optionalNullable(string({ max: AVATAR_LIMITS.providerError.max })),
});
export type ProviderReport = v.InferOutput<typeof ProviderReportBody>;

export const ProviderReportResult = v.object({
  avatar_id: v.string(),
  /** The avatar's status after the report (unchanged when it had already finished). */
  status: v.picklist(AVATAR_STATUSES),
});
export type ProviderReportResult = v.InferOutput<typeof ProviderReportResult>;
