import { OBJECTS } from '../grants.ts';
import type { Route } from '../routes.ts';

/** The provider callback: the stack gives its function (and only it) the signing secret. */
export const AVATAR_CALLBACK_ENTRY = 'avatar-provider/callback';
/** The upload: the stack gives its function the provider's URL when one is configured. */
export const AVATAR_UPLOAD_ENTRY = 'teams/avatar-upload';

export const avatarRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/teams/{team_id}/avatar/upload',
    entry: AVATAR_UPLOAD_ENTRY,
    // The team, its newest avatar, the account and the day's upload allowance; the record; the
    // allowance's count and the pointer (UpdateItem, and their give-backs); the record again when
    // another write of its wave fails.
    table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: {
      // A ranged GET of a direct upload (404 `Upload not found` when missing); the presigned GET of
      // the source video (a form's copy, or the direct upload itself) handed to the provider...
      read: [OBJECTS.uploads, OBJECTS.avatarSources],
      // ...of the direct upload's version that was checked, on the versioned bucket.
      readVersions: [OBJECTS.uploads],
      // PutObject of a form's video; the presigned PUT of the consent recording.
      write: [OBJECTS.avatarSources, OBJECTS.avatarConsents],
      // The source video again when its record cannot be written.
      delete: [OBJECTS.avatarSources],
      list: [OBJECTS.uploads],
    },
    timeoutSeconds: 29,
    // Training is a rare, deliberate act; each start may carry a 4 MiB video and calls the provider.
    throttle: { rate: 10, burst: 20 },
  },
  {
    method: 'GET',
    path: '/api/v1/teams/{team_id}/avatar/status',
    entry: 'teams/avatar-status',
    table: ['GetItem', 'Query'],
    bucket: {
      // HeadObject of the consent recording: missing is `consent_received: false`.
      read: [OBJECTS.avatarConsents],
      list: [OBJECTS.avatarConsents],
      // The consent URL handed out again while the recording is wanted (a presigned PUT).
      write: [OBJECTS.avatarConsents],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/avatar-provider/callback',
    entry: AVATAR_CALLBACK_ENTRY,
    // The avatar's read; the receipt (PutItem, with a GetItem beside it) beside the move (UpdateItem).
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    // HeadObject of the consent recording: no avatar is ready without it.
    bucket: { read: [OBJECTS.avatarConsents], list: [OBJECTS.avatarConsents] },
    auth: false,
  },
];
