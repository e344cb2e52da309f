// Shared pieces of the avatar tests: real video headers, multipart bodies, teams through the teams
// domain, signed provider callbacks.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { setStudioTraining } from '../../shared/accounts/store.ts';
import { signProviderMessage } from '../../shared/avatars/signature.ts';
import type { AvatarItem } from '../../shared/avatars/store.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { config } from '../../shared/config.ts';
import { queryPartition } from '../../shared/db/store.ts';
import { AVATAR_VIDEO_TEAM_TYPE } from '../../shared/teams/schemas.ts';
import { createTeam } from '../../shared/teams/store.ts';
import type { CallResult, Harness } from '../support/harness.ts';
import { multipart as formMultipart } from '../support/multipart.ts';

const box = (type: string, payload: Buffer) => {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + payload.length);
  return Buffer.concat([size, Buffer.from(type, 'latin1'), payload]);
};

/** An ISO base media file: an `ftyp` box with the brand, then an `mdat` box of filler. */
export const isoMedia = (brand: string, filler = 256) =>
  Buffer.concat([
    box('ftyp', Buffer.concat([Buffer.from(brand, 'latin1'), Buffer.alloc(4), Buffer.from('isommp41')])),
    box('mdat', Buffer.alloc(filler, 7)),
  ]);
export const mp4 = (filler = 256) => isoMedia('isom', filler);
export const quicktime = () => isoMedia('qt  ');

/** An EBML header with the given DocType, then filler (a WebM file starts like this). */
export const ebml = (docType: string) =>
  Buffer.concat([
    Buffer.from('1a45dfa3', 'hex'),
    Buffer.from([0x80 | (7 + docType.length)]),
    Buffer.from('4286810142f781014282', 'hex'),
    Buffer.from([0x80 | docType.length]),
    Buffer.from(docType, 'latin1'),
    Buffer.alloc(128, 3),
  ]);
export const webm = () => ebml('webm');

export interface FilePart {
  filename: string;
  type: string;
  content: Buffer;
}

/** A form from name → text or file (the shared builder, named parts in insertion order). */
export const multipart = (parts: Record<string, string | FilePart>) =>
  formMultipart(
    ...Object.entries(parts).map(([name, value]) =>
      typeof value === 'string' ? { name, content: value } : { name, ...value },
    ),
  );

export const videoPart = (content: Buffer = mp4(), filename = 'me.mp4', type = 'video/mp4'): FilePart => ({
  filename,
  type,
  content,
});

/** An avatar-video team of `owner`, whose account may (or may not) train studio avatars. */
export async function avatarTeam(owner: string, { training = true } = {}) {
  if (training) await setStudioTraining(owner, true);
  const team = await createTeam(owner, {
    team_type: AVATAR_VIDEO_TEAM_TYPE,
    display_name: 'Studio',
    tier: 'studio',
    operation_mode: 'autopilot',
    brand_id: null,
    brand_kit_id: null,
    content_strategy: {},
    orchestrator_cadence: {},
    config: {},
    content_cadence: [],
  });
  return team.id;
}

/** The team's avatar records, oldest first. */
export const avatarRecords = (teamId: string) =>
  queryPartition<AvatarItem>(`TEAM#${teamId}`, { prefix: 'AVATAR#', limit: 100 });

export const uploadUrl = (teamId: string) => `/api/v1/teams/${teamId}/avatar/upload`;
export const statusUrl = (teamId: string) => `/api/v1/teams/${teamId}/avatar/status`;

/** A consent recording, and the size an upload declares for it (what its consent URL takes). */
export const consentRecording = () => webm();
export const CONSENT_SIZE = consentRecording().length;

/** The avatar upload's form; `consent_size` (the recording's) is added unless `parts` names it. */
export function uploadVideo(
  h: Harness,
  teamId: string,
  parts: Record<string, string | FilePart> = { video: videoPart(), consent_attestation: 'true' },
  token?: string,
): Promise<CallResult> {
  const form = 'consent_size' in parts ? parts : { ...parts, consent_size: String(CONSENT_SIZE) };
  return h.call('POST', uploadUrl(teamId), { ...multipart(form), ...(token ? { token } : {}) });
}

export async function readObject(key: string): Promise<Buffer | undefined> {
  try {
    const object = await s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  } catch {
    return undefined;
  }
}

export const SECRET = 'test-provider-secret-0123456789abcdef';

export const unixNow = () => Math.floor(Date.now() / 1000);

/** A provider callback, signed with `secret` at `t` unless a header is given. */
export function callback(
  h: Harness,
  report: Record<string, unknown> | string,
  options: { secret?: string; t?: number; header?: string | null } = {},
): Promise<CallResult> {
  const body = typeof report === 'string' ? report : JSON.stringify(report);
  const header =
    options.header === undefined
      ? signProviderMessage(options.secret ?? SECRET, options.t ?? unixNow(), body)
      : options.header;
  return h.call('POST', '/api/v1/avatar-provider/callback', {
    token: null,
    body,
    headers: {
      'content-type': 'application/json',
      ...(header === null ? {} : { 'x-avatar-signature': header }),
    },
  });
}

/** A provider on a local port (AVATAR_PROVIDER_URL, at `path`) answering with `handler` while `run`
 * runs; then stopped, and the URL unset (uploads go to the recording provider again). */
export async function withProvider(handler: RequestListener, run: () => Promise<void>, path = '/trainings') {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.AVATAR_PROVIDER_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  try {
    await run();
  } finally {
    delete process.env.AVATAR_PROVIDER_URL;
    server.close();
  }
}
