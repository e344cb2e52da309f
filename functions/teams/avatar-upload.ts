// POST /api/v1/teams/{team_id}/avatar/upload (spec 3): start studio avatar training from a video,
// sent in the multipart form or named by the key of an earlier direct upload (JSON).
import {
  AVATAR_LIMITS,
  AvatarUploadResult,
  UploadAvatarBody,
  UploadAvatarForm,
} from '#shared/avatars/schemas';
import { uploadAvatar } from '#shared/avatars/upload';
import { formBody } from '#shared/http/multipart';
import { httpRoute } from '#shared/http/route';
import { TeamPath } from '#shared/teams/schemas';

export const handler = httpRoute(
  {
    path: TeamPath,
    form: formBody(UploadAvatarForm, { maxFileBytes: AVATAR_LIMITS.formVideoBytes }),
    body: UploadAvatarBody,
    status: 202,
    maxBodyBytes: AVATAR_LIMITS.formVideoBytes + AVATAR_LIMITS.formOverheadBytes,
    response: AvatarUploadResult,
    summary: 'Upload avatar media (start studio avatar training)',
    errors: [403, 404, 409, 413, 415, 429],
  },
  ({ caller, path, form, body }) =>
    form
      ? uploadAvatar(caller.userId, path.team_id, { file: form.video }, form.consent_size)
      : uploadAvatar(caller.userId, path.team_id, { uploadKey: body.upload_key }, body.consent_size),
);
