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
    table: 'readWrite',
    // PutObject/CopyObject of the source, a ranged GET of a direct upload, DeleteObject on rollback.
    bucket: 'readWrite',
    timeoutSeconds: 29,
  },
  {
    method: 'GET',
    path: '/api/v1/teams/{team_id}/avatar/status',
    entry: 'teams/avatar-status',
    table: 'read',
    bucket: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/avatar-provider/callback',
    entry: AVATAR_CALLBACK_ENTRY,
    table: 'readWrite',
    bucket: 'read',
    auth: false,
  },
];
