// POST /api/v1/teams/{team_id}/avatar/upload on the real handler over dynalite + s3rver.
import assert from 'node:assert/strict';
import type { IncomingMessage, RequestListener } from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { accountKeys } from '../../shared/accounts/keys.ts';
import { readAccount, setStudioTraining } from '../../shared/accounts/store.ts';
import { recordingProvider } from '../../shared/avatars/provider.ts';
import { AVATAR_LIMITS, AVATAR_TEXTS } from '../../shared/avatars/schemas.ts';
import { SIGNATURE_HEADER, verifyCallback } from '../../shared/avatars/signature.ts';
import { moveAvatar, readAvatar } from '../../shared/avatars/store.ts';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { setClock } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { getItem } from '../../shared/db/store.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../shared/http/route.ts';
import { newId } from '../../shared/ids.ts';
import { CONTENT_TEAM_TYPE } from '../../shared/teams/schemas.ts';
import { createTeam, readTeam } from '../../shared/teams/store.ts';
import { userUploadPrefix } from '../../shared/uploads/keys.ts';
import { DAILY_ALLOWANCE_USED, UPLOAD_LIMITS } from '../../shared/uploads/schemas.ts';
import { useDailyAllowance } from '../../shared/uploads/store.ts';
import { recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { clearFaults, inject } from '../support/sdk-faults.ts';
import {
  avatarRecords,
  avatarTeam,
  CONSENT_SIZE,
  consentRecording,
  ebml,
  isoMedia,
  mp4,
  multipart,
  quicktime,
  readObject,
  SECRET,
  uploadUrl,
  uploadVideo,
  videoPart,
  webm,
  withProvider,
} from './support.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());
afterEach(() => {
  setClock(undefined);
  delete process.env.AVATAR_PROVIDER_URL;
});

const teamObjects = async (teamId: string) => {
  const listed = await s3().send(
    new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: `teams/${teamId}/` }),
  );
  return (listed.Contents ?? []).map((object) => object.Key!);
};
const putUpload = (key: string, body: Buffer) =>
  s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body }));

/** FastAPI's 422 for one form field. */
const formError = (field: string, type: string, msg: string, input: unknown, ctx?: object) => ({
  detail: [{ type, loc: ['body', field], msg, input, ...(ctx ? { ctx } : {}) }],
});

describe('avatar upload: happy path', () => {
  it('stores the video, hands the job over, then writes the record and points the team at it (202)', async () => {
    const team = await avatarTeam(h.owner.id);
    const video = mp4(2048);
    const res = await uploadVideo(h, team, { video: videoPart(video), consent_attestation: 'true' });
    assert.equal(res.status, 202);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'avatar_id',
      'consent_headers',
      'consent_url',
      'status',
      'type',
    ]);
    const { avatar_id, status, type, consent_url, consent_headers } = res.body;
    assert.equal(status, 'training');
    assert.equal(type, 'studio');
    assert.match(avatar_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const sourceKey = `teams/${team}/avatars/${avatar_id}/source.mp4`;
    assert.deepEqual(await readObject(sourceKey), video);
    const record = await readAvatar(team, avatar_id);
    assert.equal(record?.status, 'training');
    assert.equal(record?.type, 'studio');
    assert.equal(record?.source_key, sourceKey);
    assert.equal(record?.source_bytes, video.length);
    assert.equal(record?.consent_attestation, true);
    assert.equal(record?.consent_attested_by, h.owner.id);
    assert.equal(record?.subject_is_minor, false);
    assert.equal(record?.owner, h.owner.id);
    assert.equal((await readTeam(team))?.current_avatar_id, avatar_id);

    // The consent URL is a time-limited presigned PUT of this avatar's consent object: of exactly the
    // declared size, once (S3 checks signed headers: another length, or no If-None-Match, is a 403).
    const url = new URL(consent_url);
    assert.match(url.pathname, new RegExp(`/teams/${team}/avatars/${avatar_id}/consent\\.mp4$`));
    assert.equal(url.searchParams.get('X-Amz-Expires'), String(AVATAR_LIMITS.consentUrlSeconds));
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'content-length;host;if-none-match');
    assert.deepEqual(consent_headers, { 'if-none-match': '*' });
    assert.equal(record?.consent_bytes, CONSENT_SIZE);

    // The provider got the job, with a URL that serves the stored video; the record says it took it.
    const job = recordingProvider.jobs.find((j) => j.avatar_id === avatar_id);
    assert.equal(record?.provider_job_id, avatar_id);
    assert.match(record?.job_accepted_at ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(job?.team_id, team);
    assert.equal(job?.video_content_type, 'video/mp4');
    const fetched = await fetch(job!.video_url);
    assert.equal(fetched.status, 200);
    assert.deepEqual(Buffer.from(await fetched.arrayBuffer()), video);
  });

  it('takes two DynamoDB waves: the reads, then the record, the pointer and the consent’s count side by side', async () => {
    // Before: the reads, the count, the record, the pointer, the provider's acceptance: five.
    const team = await avatarTeam(h.owner.id);
    const recorder = recordDynamoRequests();
    let res: Awaited<ReturnType<typeof uploadVideo>>;
    try {
      res = await uploadVideo(h, team);
    } finally {
      recorder.stop();
    }
    assert.equal(res.status, 202, res.text);
    assert.equal(recorder.waves(), 2);
    const writes = recorder.requests.filter((r) => /^(Put|Update|Delete)/.test(r.command));
    assert.deepEqual(writes.map((r) => r.command).sort(), [
      'PutItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
    ]);
  });

  it('an upload whose pointer landed before its record blocks the next one (409, Retry-After) as a training avatar does', async () => {
    const team = await avatarTeam(h.owner.id);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (
          !holding &&
          context.commandName === 'PutItemCommand' &&
          JSON.stringify(args.input).includes('AVATAR#')
        ) {
          holding = true;
          await held;
        }
        return next(args);
      },
      { step: 'initialize', name: 'hold-avatar-record' },
    );
    try {
      const first = uploadVideo(h, team);
      // Its pointer lands beside the held record (a bounded wait: the code before wrote the record first).
      for (let tries = 0; !(await readTeam(team))?.current_avatar_id; tries++) {
        assert.ok(tries < 400, 'the pointer never landed while the record was held');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const second = await uploadVideo(h, team);
      assert.equal(second.status, 409, second.text);
      assert.deepEqual(second.body, { detail: AVATAR_TEXTS.alreadyTraining });
      const wait = Number(second.headers['retry-after']);
      assert.ok(wait >= 1 && wait <= AVATAR_LIMITS.inFlightSeconds, second.headers['retry-after']);
      release();
      assert.equal((await first).status, 202);
    } finally {
      release();
      dynamo().middlewareStack.remove('hold-avatar-record');
    }
    assert.equal((await avatarRecords(team)).length, 1);
  });

  it('names the object by what the bytes are, not by the file name or declared type', async () => {
    for (const [content, ext] of [
      [webm(), 'webm'],
      [quicktime(), 'mov'],
    ] as const) {
      const team = await avatarTeam(h.owner.id);
      const res = await uploadVideo(h, team, {
        video: videoPart(content, 'clip.bin', 'application/octet-stream'),
        consent_attestation: 'true',
      });
      assert.equal(res.status, 202, ext);
      assert.deepEqual(await teamObjects(team), [
        `teams/${team}/avatars/${res.body.avatar_id}/source.${ext}`,
      ]);
    }
  });

  it('accepts a video sent earlier by direct upload (JSON upload_key) and trains from it where it is', async () => {
    const team = await avatarTeam(h.owner.id);
    const key = `${userUploadPrefix(h.owner.id)}01a1fc6e-0000-7000-8000-0000000000aa/me.webm`;
    const video = webm();
    // Declared as MP4 when it was uploaded; its bytes are WebM.
    await s3().send(
      new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: video, ContentType: 'video/mp4' }),
    );
    const res = await h.call('POST', uploadUrl(team), {
      json: {
        upload_key: key,
        consent_attestation: true,
        consent_size: CONSENT_SIZE,
        subject_is_minor: false,
      },
    });
    assert.equal(res.status, 202);
    // No copy of up to 2 GiB under the team (it could outlast the function): the record names the upload.
    assert.deepEqual(await teamObjects(team), []);
    const record = await readAvatar(team, res.body.avatar_id);
    assert.equal(record?.source_key, key);
    assert.equal(record?.source_bytes, video.length);
    assert.equal(record?.source_content_type, 'video/webm');
    // The provider's URL serves the upload as what its bytes are.
    const job = recordingProvider.jobs.find((j) => j.avatar_id === res.body.avatar_id);
    const fetched = await fetch(job!.video_url);
    assert.equal(fetched.status, 200);
    assert.equal(fetched.headers.get('content-type'), 'video/webm');
    assert.deepEqual(Buffer.from(await fetched.arrayBuffer()), video);
    assert.equal(job?.video_content_type, 'video/webm');
  });

  it('hands the provider the version of the direct upload that was checked, not a later PUT', async () => {
    // On AWS the bucket is versioned and a GET names the version it read; s3rver keeps none, so the
    // SDK reports one here. The upload's URL stays valid for other bytes of the same length.
    const team = await avatarTeam(h.owner.id);
    const key = `${userUploadPrefix(h.owner.id)}${newId()}/me.mp4`;
    await putUpload(key, mp4());
    const client = s3();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'GetObjectCommand' && (args.input as { Key?: string }).Key === key)
          (result.output as { VersionId?: string }).VersionId = 'checked-version';
        return result;
      },
      { step: 'initialize', name: 'versionedBucket' },
    );
    try {
      const res = await h.call('POST', uploadUrl(team), {
        json: { upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE },
      });
      assert.equal(res.status, 202, res.text);
      assert.equal((await readAvatar(team, res.body.avatar_id))?.source_version_id, 'checked-version');
      const job = recordingProvider.jobs.find((j) => j.avatar_id === res.body.avatar_id);
      assert.equal(new URL(job!.video_url).searchParams.get('versionId'), 'checked-version');
    } finally {
      client.middlewareStack.remove('versionedBucket');
    }
  });
});

describe('avatar upload: preconditions, checked before any byte is stored', () => {
  it('404 for an unknown team and for another user’s team alike', async () => {
    const others = await avatarTeam(h.other.id);
    for (const team of [others, '01a1fc6e-0000-7000-8000-000000000000']) {
      const res = await uploadVideo(h, team);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'Team not found' });
    }
    assert.deepEqual(await teamObjects(others), []);
  });

  it('403 for a team that is not of the avatar-video kind', async () => {
    const { id: team } = await createTeam(h.owner.id, {
      team_type: CONTENT_TEAM_TYPE,
      display_name: 'Content',
      tier: 'pro',
      operation_mode: 'autopilot',
      brand_id: null,
      brand_kit_id: null,
      content_strategy: {},
      orchestrator_cadence: {},
      config: {},
      content_cadence: [],
    });
    const res = await uploadVideo(h, team);
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { detail: AVATAR_TEXTS.wrongTeamType });
    assert.deepEqual(await teamObjects(team), []);
  });

  it('403 once a cancelled team’s subscription has ended (it works until then); nothing stored', async () => {
    const team = await avatarTeam(h.owner.id);
    const cancelled = await h.call('POST', `/api/v1/teams/${team}/unsubscribe`);
    assert.equal(cancelled.status, 200, cancelled.text);
    const ends = Date.parse(cancelled.body.subscription_ends_at);
    setClock(new Date(ends - 60_000));
    const before = await uploadVideo(h, team);
    assert.equal(before.status, 202, before.text);
    await moveAvatar(team, before.body.avatar_id, 'ready');
    setClock(new Date(ends));
    const after = await uploadVideo(h, team);
    assert.equal(after.status, 403, after.text);
    assert.deepEqual(after.body, { detail: AVATAR_TEXTS.subscriptionEnded });
    assert.equal((await avatarRecords(team)).length, 1);
    assert.equal((await readTeam(team))?.current_avatar_id, before.body.avatar_id);
  });

  it('403 when studio training is not enabled on the caller’s account', async () => {
    const user = '01a1fc6e-0000-7000-8000-00000000beef';
    const team = await avatarTeam(user, { training: false });
    const res = await uploadVideo(h, team, undefined, await h.tokenFor(user));
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { detail: AVATAR_TEXTS.trainingDisabled });
    assert.deepEqual(await teamObjects(team), []);
    assert.deepEqual(await avatarRecords(team), []);
    // Turned on, then off an hour later: refused again, and the account keeps when it was made.
    await setStudioTraining(user, true);
    const made = (await readAccount(user))!.created_at;
    setClock(new Date(Date.now() + 3_600_000));
    try {
      await setStudioTraining(user, false);
    } finally {
      setClock(undefined);
    }
    assert.equal((await uploadVideo(h, team, undefined, await h.tokenFor(user))).status, 403);
    assert.equal((await readAccount(user))!.created_at, made);
  });

  it('409 while the team’s current avatar is training; nothing of the second upload is stored', async () => {
    const team = await avatarTeam(h.owner.id);
    const first = await uploadVideo(h, team);
    assert.equal(first.status, 202);
    const second = await uploadVideo(h, team);
    assert.equal(second.status, 409);
    assert.deepEqual(second.body, { detail: AVATAR_TEXTS.alreadyTraining });
    assert.equal((await avatarRecords(team)).length, 1);
    assert.equal((await teamObjects(team)).length, 1);
  });

  it('two concurrent uploads: one trains, the other gets 409 and leaves nothing behind', async () => {
    const team = await avatarTeam(h.owner.id);
    const results = await Promise.all([uploadVideo(h, team), uploadVideo(h, team)]);
    assert.deepEqual(results.map((r) => r.status).sort(), [202, 409]);
    const winner = results.find((r) => r.status === 202)!.body.avatar_id;
    assert.deepEqual(
      (await avatarRecords(team)).map((a) => (a as { id: string }).id),
      [winner],
    );
    assert.equal((await readTeam(team))?.current_avatar_id, winner);
    assert.deepEqual(await teamObjects(team), [`teams/${team}/avatars/${winner}/source.mp4`]);
  });

  it('a lost race for the pointer: 409 with Retry-After (the winner may still be writing), as the early 409 for an upload in flight', async () => {
    const team = await avatarTeam(h.owner.id);
    // Another upload runs whole between this one's reads and its pointer write, and moves the pointer.
    let raced = false;
    let winner: Awaited<ReturnType<typeof uploadVideo>> | undefined;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (
          !raced &&
          context.commandName === 'UpdateItemCommand' &&
          JSON.stringify(args.input).includes('current_avatar_id')
        ) {
          raced = true;
          winner = await uploadVideo(h, team);
        }
        return next(args);
      },
      { step: 'initialize', name: 'race-for-the-pointer' },
    );
    let loser: Awaited<ReturnType<typeof uploadVideo>>;
    try {
      loser = await uploadVideo(h, team);
    } finally {
      dynamo().middlewareStack.remove('race-for-the-pointer');
    }
    assert.equal(winner?.status, 202, winner?.text);
    assert.equal(loser.status, 409, loser.text);
    assert.deepEqual(loser.body, { detail: AVATAR_TEXTS.alreadyTraining });
    const wait = Number(loser.headers['retry-after']);
    assert.ok(
      wait >= 1 && wait <= AVATAR_LIMITS.inFlightSeconds,
      `Retry-After: ${loser.headers['retry-after']}`,
    );
    assert.deepEqual(
      (await avatarRecords(team)).map((a) => a.id),
      [winner?.body.avatar_id],
    );
  });

  it('a lost race for the pointer that now names nothing in flight: 409 with Retry-After 1, never 0', async () => {
    const team = await avatarTeam(h.owner.id);
    // The pointer write is refused, and the team read back names no avatar: another upload moved the
    // pointer and, failing, gave it back. Nothing is in flight, but the client must still wait a second.
    const refused = inject('dynamo', {
      commands: /^UpdateItem/,
      about: 'current_avatar_id',
      failing: (attempt) => attempt === 1,
      kind: 'condition',
    });
    const loser = await uploadVideo(h, team).finally(clearFaults);
    assert.equal(refused.attempts() >= 1, true, 'the pointer write was refused');
    assert.equal(loser.status, 409, loser.text);
    assert.deepEqual(loser.body, { detail: AVATAR_TEXTS.alreadyTraining });
    assert.equal(loser.headers['retry-after'], '1');
    assert.deepEqual(await avatarRecords(team), []);
  });

  it('an avatar stuck in training past the timeout is failed and no longer blocks', async () => {
    const team = await avatarTeam(h.owner.id);
    const first = await uploadVideo(h, team);
    setClock(new Date(Date.now() + (AVATAR_LIMITS.trainingTimeoutSeconds + 60) * 1000));
    const second = await uploadVideo(h, team);
    assert.equal(second.status, 202);
    const old = await readAvatar(team, first.body.avatar_id);
    assert.equal(old?.status, 'failed');
    assert.equal(old?.error, AVATAR_TEXTS.timedOut);
  });

  it('an avatar training for exactly the timeout still blocks (409); a millisecond past, it is failed', async () => {
    const team = await avatarTeam(h.owner.id);
    const started = Date.now();
    setClock(new Date(started));
    const first = await uploadVideo(h, team);
    assert.equal(first.status, 202, first.text);
    const timeout = 24 * 60 * 60 * 1000; // docs/avatars.md's 24 hours, not the code's constant
    setClock(new Date(started + timeout));
    assert.equal((await uploadVideo(h, team)).status, 409);
    assert.equal((await readAvatar(team, first.body.avatar_id))?.status, 'training');
    setClock(new Date(started + timeout + 1));
    assert.equal((await uploadVideo(h, team)).status, 202);
    assert.equal((await readAvatar(team, first.body.avatar_id))?.status, 'failed');
  });

  it('an upload refused for its video or by the allowance leaves an avatar stuck in training as it is', async () => {
    // The provider may still report on it: only an upload that goes on to train replaces it.
    const user = newId();
    const token = await h.tokenFor(user);
    const team = await avatarTeam(user);
    const stuck = await uploadVideo(h, team, undefined, token);
    assert.equal(stuck.status, 202, stuck.text);
    const later = new Date(Date.now() + (AVATAR_LIMITS.trainingTimeoutSeconds + 60) * 1000);
    setClock(later);
    const notAVideo = { video: videoPart(Buffer.from('not a video')), consent_attestation: 'true' };
    // The day's allowance, all but one byte less than a consent recording used.
    await useDailyAllowance(user, UPLOAD_LIMITS.daily.bytes - CONSENT_SIZE + 1, later);
    const refused = [
      await uploadVideo(h, team, notAVideo, token),
      await h.call('POST', uploadUrl(team), {
        token,
        json: { upload_key: `${userUploadPrefix(user)}none/me.mp4`, consent_attestation: true },
      }),
      await uploadVideo(h, team, undefined, token),
    ];
    assert.deepEqual(
      refused.map((r) => r.status),
      [415, 404, 429],
    );
    assert.equal((await readAvatar(team, stuck.body.avatar_id))?.status, 'training');
  });
});

describe('avatar upload: bad input', () => {
  let team: string;
  before(async () => {
    team = await avatarTeam(h.owner.id);
  });

  it('422 for each missing part (video, consent_attestation), in FastAPI’s format', async () => {
    const res = await uploadVideo(h, team, { subject_is_minor: 'false' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      detail: [
        { type: 'missing', loc: ['body', 'video'], msg: 'Field required', input: null },
        { type: 'missing', loc: ['body', 'consent_attestation'], msg: 'Field required', input: null },
      ],
    });
    const noVideo = await uploadVideo(h, team, { consent_attestation: 'true' });
    assert.deepEqual(noVideo.body, formError('video', 'missing', 'Field required', null));
    const noConsent = await uploadVideo(h, team, { video: videoPart() });
    assert.deepEqual(noConsent.body, formError('consent_attestation', 'missing', 'Field required', null));
    // An empty field is absent, as in FastAPI.
    const empty = await uploadVideo(h, team, { video: videoPart(), consent_attestation: '' });
    assert.deepEqual(empty.body, formError('consent_attestation', 'missing', 'Field required', null));
    const noBody = await h.call('POST', uploadUrl(team), {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    assert.equal(noBody.status, 422);
  });

  it('a text part where the video file belongs is FastAPI’s UploadFile value error', async () => {
    const res = await uploadVideo(h, team, { video: 'not a file', consent_attestation: 'true' });
    const notAFile = formError(
      'video',
      'value_error',
      "Value error, Expected UploadFile, received: <class 'str'>",
      'not a file',
      { error: {} },
    );
    assert.deepEqual(res.body, notAFile);
    // A URL-encoded form is a form to FastAPI too (it said every field was missing).
    const encoded = await h.call('POST', uploadUrl(team), {
      body: 'video=not+a+file&consent_attestation=true&subject_is_minor=&consent_size=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.deepEqual([encoded.status, encoded.body], [422, notAFile]);
  });

  it('reads booleans as FastAPI does: true/1/yes/on/t/y, false/0/no/off/f/n, any case', async () => {
    const falses = ['false', '0', 'no', 'off', 'f', 'n', 'OFF', 'No'];
    for (const [i, text] of ['true', '1', 'yes', 'on', 't', 'y', 'TRUE', 'Yes'].entries()) {
      const fresh = await avatarTeam(h.owner.id);
      const res = await uploadVideo(h, fresh, {
        video: videoPart(),
        consent_attestation: text,
        subject_is_minor: falses[i]!,
      });
      assert.equal(res.status, 202, text);
    }
  });

  it('consent_attestation false is refused (value_error, echoing the text sent)', async () => {
    for (const text of ['false', '0', 'no', 'off', 'f', 'n']) {
      const res = await uploadVideo(h, team, { video: videoPart(), consent_attestation: text });
      assert.equal(res.status, 422);
      assert.deepEqual(
        res.body,
        formError(
          'consent_attestation',
          'value_error',
          `Value error, ${AVATAR_TEXTS.consentRequired}`,
          text,
          {
            error: {},
          },
        ),
      );
    }
  });

  it('subject_is_minor true is refused: avatars of minors are not trained', async () => {
    const res = await uploadVideo(h, team, {
      video: videoPart(),
      consent_attestation: 'true',
      subject_is_minor: 'yes',
    });
    assert.deepEqual(
      res.body,
      formError('subject_is_minor', 'value_error', `Value error, ${AVATAR_TEXTS.minorRefused}`, 'yes', {
        error: {},
      }),
    );
  });

  it('texts that are not booleans are bool_parsing errors, all reported together', async () => {
    const res = await uploadVideo(h, team, {
      video: videoPart(),
      consent_attestation: 'sure',
      subject_is_minor: ' true',
    });
    const parsing = 'Input should be a valid boolean, unable to interpret input';
    assert.deepEqual(res.body, {
      detail: [
        { type: 'bool_parsing', loc: ['body', 'consent_attestation'], msg: parsing, input: 'sure' },
        { type: 'bool_parsing', loc: ['body', 'subject_is_minor'], msg: parsing, input: ' true' },
      ],
    });
  });

  it("the spec's form without consent_size: 202 with the plain consent URL, nothing counted for it", async () => {
    const own = await avatarTeam(h.owner.id);
    const omitted = await h.call(
      'POST',
      uploadUrl(own),
      multipart({ video: videoPart(), consent_attestation: 'true' }),
    );
    assert.equal(omitted.status, 202, omitted.text);
    // A client written to the spec PUTs the URL bare: nothing but the host is signed.
    assert.equal(new URL(omitted.body.consent_url).searchParams.get('X-Amz-SignedHeaders'), 'host');
    assert.deepEqual(omitted.body.consent_headers, {});
    assert.equal((await readAvatar(own, omitted.body.avatar_id))?.consent_bytes, undefined);
    const put = await fetch(omitted.body.consent_url, { method: 'PUT', body: consentRecording() });
    assert.equal(put.status, 200);
  });

  it('consent_size, when sent, is 1 byte to 2 GiB: the consent URL takes exactly that many bytes', async () => {
    const own = await avatarTeam(h.owner.id);
    const parts = { video: videoPart(), consent_attestation: 'true' };
    // docs/avatars.md's figure, not the code's constant: a limit moved in the code alone fails here.
    const max = 2_147_483_648;
    for (const [text, type] of [
      ['0', 'greater_than_equal'],
      [String(max + 1), 'less_than_equal'],
      ['1.5', 'int_parsing'],
    ] as const) {
      const res = await uploadVideo(h, own, { ...parts, consent_size: text });
      assert.equal(res.status, 422, text);
      assert.deepEqual(
        res.body.detail.map((item: { loc: string[]; type: string }) => [item.loc.join('.'), item.type]),
        [['body.consent_size', type]],
      );
    }
    assert.deepEqual(await teamObjects(own), []);
    const atMost = await uploadVideo(h, own, {
      ...parts,
      consent_size: String(max),
    });
    assert.equal(atMost.status, 202, atMost.text);
  });

  it('415 for bytes that are not MP4, QuickTime or WebM, whatever the declared type', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64)]);
    for (const content of [
      Buffer.from('just text, no video'),
      png,
      isoMedia('M4A '),
      ebml('matroska'),
      Buffer.alloc(0),
    ]) {
      const res = await uploadVideo(h, team, { video: videoPart(content), consent_attestation: 'true' });
      assert.equal(res.status, 415);
      assert.deepEqual(res.body, { detail: AVATAR_TEXTS.notAVideo });
    }
    assert.deepEqual(await teamObjects(team), []);
  });

  it('413 past 4 MiB of video in the form (and past the body limit)', async () => {
    const limit = 4_194_304; // docs/avatars.md's figure, not the code's constant
    const over = await uploadVideo(h, team, { video: videoPart(mp4(limit)), consent_attestation: 'true' });
    assert.equal(over.status, 413);
    assert.deepEqual(over.body, { detail: `Request body too large: the limit is ${limit} bytes` });
    const far = await uploadVideo(h, team, {
      video: videoPart(mp4(limit + 200_000)),
      consent_attestation: 'true',
    });
    assert.equal(far.status, 413);
    assert.deepEqual(await teamObjects(team), []);
    const atLimit = await uploadVideo(h, team, {
      video: videoPart(mp4(limit - mp4(0).length)),
      consent_attestation: 'true',
    });
    assert.equal(atLimit.status, 202);
  });
});

describe('avatar upload by upload_key', () => {
  let team: string;
  before(async () => {
    team = await avatarTeam(h.owner.id);
  });
  const send = (json: unknown) => h.call('POST', uploadUrl(team), { json });

  it('holds a JSON body to the JSON limit, not the multipart form’s', async () => {
    const res = await send({
      upload_key: 'k',
      consent_attestation: true,
      consent_size: CONSENT_SIZE,
      pad: 'p'.repeat(300_000),
    });
    assert.equal(res.status, 413);
    assert.match(res.body.detail, new RegExp(`the limit is ${DEFAULT_BODY_LIMIT_BYTES} bytes$`));
  });

  it('404 for another user’s key and for a missing object', async () => {
    const others = `${userUploadPrefix(h.other.id)}x/me.mp4`;
    await putUpload(others, mp4());
    for (const key of [others, `${userUploadPrefix(h.owner.id)}nothing/here.mp4`, '../etc/passwd']) {
      const res = await send({ upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE });
      assert.equal(res.status, 404, key);
      assert.deepEqual(res.body, { detail: 'Upload not found' });
    }
    // A lone surrogate is no string at all (pydantic's string_unicode), echoed with U+FFFD in its place.
    const res = await send({
      upload_key: `${userUploadPrefix(h.owner.id)}x/\ud800.mp4`,
      consent_attestation: true,
      consent_size: CONSENT_SIZE,
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail[0].type, 'string_unicode');
    assert.equal(res.body.detail[0].input, `${userUploadPrefix(h.owner.id)}x/\ufffd.mp4`);
  });

  it('404 for a key with a `.` segment: no key of ours has one, and the embedded S3 read another', async () => {
    // s3rver resolved `x/./me.mp4` to the object at `x/me.mp4` (202, the record naming a key that holds
    // nothing on S3, which takes keys literally; a client that normalises the provider's URL breaks its
    // signature there). Our keys never hold one: file names lose their leading dots.
    const folder = `${userUploadPrefix(h.owner.id)}${newId()}`;
    await putUpload(`${folder}/me.mp4`, mp4());
    for (const key of [
      `${folder}/./me.mp4`,
      `${userUploadPrefix(h.owner.id)}./${folder.split('/').at(-1)}/me.mp4`,
    ]) {
      const res = await send({ upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE });
      assert.deepEqual([res.status, res.body], [404, { detail: 'Upload not found' }], key);
    }
  });

  it('415 for an uploaded object that is not a video', async () => {
    const key = `${userUploadPrefix(h.owner.id)}y/notes.mp4`;
    await putUpload(key, Buffer.from('%PDF-1.7 not a video'));
    const res = await send({ upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE });
    assert.equal(res.status, 415);
    // An empty one too: S3 answers the range over it with 416 InvalidRange.
    const empty = `${userUploadPrefix(h.owner.id)}y/empty.mp4`;
    await putUpload(empty, Buffer.alloc(0));
    assert.equal(
      (await send({ upload_key: empty, consent_attestation: true, consent_size: CONSENT_SIZE })).status,
      415,
    );
  });

  it('413 for an uploaded video over 2 GiB (size as S3 reports it)', async () => {
    const key = `${userUploadPrefix(h.owner.id)}z/huge.mp4`;
    await putUpload(key, mp4());
    // s3rver cannot hold 2 GiB here: the S3 client reports a larger object instead.
    const claimLargeObject = 'claim-large-object';
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'GetObjectCommand')
          (result.output as { ContentRange?: string }).ContentRange =
            `bytes 0-63/${AVATAR_LIMITS.uploadVideoBytes + 1}`;
        return result;
      },
      { step: 'initialize', name: claimLargeObject },
    );
    try {
      const res = await send({ upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE });
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, {
        detail: `Request body too large: the limit is ${AVATAR_LIMITS.uploadVideoBytes} bytes`,
      });
    } finally {
      s3().middlewareStack.remove(claimLargeObject);
    }
  });

  it('trains from an uploaded video of exactly 2 GiB (size as S3 reports it)', async () => {
    const own = await avatarTeam(h.owner.id);
    const key = `${userUploadPrefix(h.owner.id)}z/largest.mp4`;
    await putUpload(key, mp4());
    const claimLargestObject = 'claim-largest-object';
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'GetObjectCommand')
          (result.output as { ContentRange?: string }).ContentRange = `bytes 0-63/${2 * 1024 * 1024 * 1024}`;
        return result;
      },
      { step: 'initialize', name: claimLargestObject },
    );
    try {
      const res = await h.call('POST', uploadUrl(own), {
        json: { upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE },
      });
      assert.equal(res.status, 202, res.text);
    } finally {
      s3().middlewareStack.remove(claimLargestObject);
    }
  });

  it('validates the JSON body like the form: consent required and true, minors refused', async () => {
    const missing = await send({});
    assert.deepEqual(missing.body, {
      detail: [
        { type: 'missing', loc: ['body', 'upload_key'], msg: 'Field required', input: {} },
        { type: 'missing', loc: ['body', 'consent_attestation'], msg: 'Field required', input: {} },
      ],
    });
    const refused = await send({
      upload_key: 'k',
      consent_attestation: false,
      subject_is_minor: true,
      consent_size: 1,
    });
    assert.deepEqual(refused.body, {
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'consent_attestation'],
          msg: `Value error, ${AVATAR_TEXTS.consentRequired}`,
          input: false,
          ctx: { error: {} },
        },
        {
          type: 'value_error',
          loc: ['body', 'subject_is_minor'],
          msg: `Value error, ${AVATAR_TEXTS.minorRefused}`,
          input: true,
          ctx: { error: {} },
        },
      ],
    });
  });
});

describe('avatar upload: the consent URL against the daily upload allowance', () => {
  it('counts it as one upload of its declared size; past the allowance, 429 and nothing stored', async () => {
    const user = '01a1fc6e-0000-7000-8000-00000000a11c';
    const token = await h.tokenFor(user);
    const team = await avatarTeam(user);
    const today = () =>
      getItem<{ bytes: number; uploads: number }>(
        accountKeys.uploadAllowance(user, new Date().toISOString().slice(0, 10)),
      );
    const first = await uploadVideo(h, team, undefined, token);
    assert.equal(first.status, 202, first.text);
    assert.deepEqual([(await today())?.bytes, (await today())?.uploads], [CONSENT_SIZE, 1]);
    await moveAvatar(team, first.body.avatar_id, 'failed', 'done');
    // Direct uploads take the rest of the day's bytes but one byte less than a consent recording.
    await useDailyAllowance(user, UPLOAD_LIMITS.daily.bytes - 2 * CONSENT_SIZE + 1, new Date());
    const refused = await uploadVideo(h, team, undefined, token);
    assert.equal(refused.status, 429, refused.text);
    assert.deepEqual(refused.body, { detail: DAILY_ALLOWANCE_USED });
    assert.match(refused.headers['retry-after'] ?? '', /^\d+$/);
    // Nothing stored, nothing counted: the team still names the first avatar.
    assert.deepEqual(await teamObjects(team), [`teams/${team}/avatars/${first.body.avatar_id}/source.mp4`]);
    assert.equal((await avatarRecords(team)).length, 1);
    assert.equal((await readTeam(team))?.current_avatar_id, first.body.avatar_id);
    assert.equal((await today())?.uploads, 2);
    // A smaller recording still fits.
    const smaller = await uploadVideo(
      h,
      team,
      { video: videoPart(), consent_attestation: 'true', consent_size: String(CONSENT_SIZE - 1) },
      token,
    );
    assert.equal(smaller.status, 202, smaller.text);
    assert.equal((await today())?.bytes, UPLOAD_LIMITS.daily.bytes);
  });
});

describe('avatar upload: failures leave no record pointing at nothing', () => {
  it('S3 refusing the PutObject: 503, no avatar record, the team unchanged', async () => {
    const team = await avatarTeam(h.owner.id);
    const failPut = 'fail-put-object';
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutObjectCommand')
          throw Object.assign(new Error('We encountered an internal error.'), {
            name: 'InternalError',
            $metadata: { httpStatusCode: 500 },
          });
        return next(args);
      },
      { step: 'initialize', name: failPut },
    );
    try {
      const res = await uploadVideo(h, team);
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { detail: 'Service temporarily unavailable, retry later' });
    } finally {
      s3().middlewareStack.remove(failPut);
    }
    assert.deepEqual(await avatarRecords(team), []);
    assert.equal((await readTeam(team))?.current_avatar_id, undefined);
    assert.equal((await h.call('GET', `/api/v1/teams/${team}/avatar/status`)).status, 404);
  });

  it('DynamoDB failing the pointer update: the record and then the object are removed', async () => {
    const team = await avatarTeam(h.owner.id);
    const failPointer = 'fail-team-update';
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        // The document client's commands reach the client's stack as the low-level UpdateItem.
        const input = args.input as { Key?: { sk?: unknown } };
        if (context.commandName === 'UpdateItemCommand' && input.Key?.sk === 'TEAM')
          throw Object.assign(new Error('unavailable'), {
            name: 'ServiceUnavailable',
            $metadata: { httpStatusCode: 503 },
          });
        return next(args);
      },
      { step: 'initialize', name: failPointer },
    );
    const key = `${userUploadPrefix(h.owner.id)}${newId()}/me.mp4`;
    await putUpload(key, mp4());
    try {
      const res = await uploadVideo(h, team);
      assert.equal(res.status, 503);
      // From a direct upload: the record goes, the upload (the caller's own object) stays.
      const direct = await h.call('POST', uploadUrl(team), {
        json: { upload_key: key, consent_attestation: true, consent_size: CONSENT_SIZE },
      });
      assert.equal(direct.status, 503);
    } finally {
      dynamo().middlewareStack.remove(failPointer);
    }
    assert.deepEqual(await avatarRecords(team), []);
    assert.deepEqual(await teamObjects(team), []);
    assert.deepEqual(await readObject(key), mp4());
    assert.equal((await uploadVideo(h, team)).status, 202);
  });
});

describe('avatar provider over HTTP', () => {
  it('POSTs the job to AVATAR_PROVIDER_URL', async () => {
    const received: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
    const provider: RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"job_id":"job-42"}');
      });
    };
    process.env.AVATAR_PROVIDER_SECRET = SECRET;
    // The service's clock, a few seconds behind the machine's: the video URL is signed by it.
    const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    await withProvider(provider, async () => {
      const team = await avatarTeam(h.owner.id);
      setClock(signedAt);
      const res = await uploadVideo(h, team).finally(() => setClock(undefined));
      assert.equal(res.status, 202);
      assert.equal(received.length, 1);
      const [{ headers, body }] = received as [(typeof received)[0]];
      assert.equal(headers['idempotency-key'], res.body.avatar_id);
      // Signed with the secret shared with the provider, as its callbacks are.
      const raw = Buffer.from(JSON.stringify(body));
      assert.doesNotThrow(() =>
        verifyCallback(headers[SIGNATURE_HEADER] as string, raw, SECRET, Math.floor(Date.now() / 1000), 300),
      );
      assert.throws(() =>
        verifyCallback(
          headers[SIGNATURE_HEADER] as string,
          raw,
          'another secret',
          Math.floor(Date.now() / 1000),
          300,
        ),
      );
      assert.deepEqual(Object.keys(body).sort(), [
        'avatar_id',
        'team_id',
        'video_content_type',
        'video_url',
        'video_url_expires_at',
      ]);
      assert.equal(body.avatar_id, res.body.avatar_id);
      // The URL expires when the job says: signed at the time its expiry is counted from.
      const url = new URL(body.video_url as string);
      const date = url.searchParams
        .get('X-Amz-Date')!
        .replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z');
      assert.equal(
        new Date(Date.parse(date) + Number(url.searchParams.get('X-Amz-Expires')) * 1000).toISOString(),
        body.video_url_expires_at,
      );
      assert.equal((await readAvatar(team, res.body.avatar_id))?.provider, 'http');
    }).finally(() => {
      delete process.env.AVATAR_PROVIDER_SECRET;
    });
  });

  it('an unreachable provider: 503 and nothing stored (no record, no object, the team unchanged); a new upload may follow', async () => {
    const team = await avatarTeam(h.owner.id);
    await withProvider(
      (_req, res) => res.writeHead(500).end(),
      async () => {
        const res = await uploadVideo(h, team);
        assert.equal(res.status, 503);
      },
      '/',
    );
    assert.deepEqual(await avatarRecords(team), []);
    assert.deepEqual(await teamObjects(team), []);
    assert.equal((await readTeam(team))?.current_avatar_id, undefined);
    assert.equal((await h.call('GET', `/api/v1/teams/${team}/avatar/status`)).status, 404);
    assert.equal((await uploadVideo(h, team)).status, 202);
  });

  it('keeps the provider’s job_id up to 256 characters; an empty or longer one (or none) is the avatar id', async () => {
    // Stored on the record: unbounded, one of 300,000 characters was stored whole, and one nearer
    // DynamoDB's 400 KB item limit would fail the record's write after the provider took the job.
    const answer = (jobId: string) => JSON.stringify({ job_id: jobId });
    // Only the answer's first 64 KiB are read (docs/avatars.md): a job id whose JSON ends past them is none.
    const padded = (bytes: number) => `{"job_id":"job-42"${' '.repeat(bytes - answer('job-42').length)}}`;
    for (const [body, kept] of [
      [answer('job-42'), 'job-42'],
      [answer('j'.repeat(256)), 'j'.repeat(256)],
      [answer('j'.repeat(257)), undefined],
      [answer('j'.repeat(300_000)), undefined],
      [answer(''), undefined],
      [padded(64 * 1024), 'job-42'],
      [padded(64 * 1024 + 1), undefined],
    ] as const) {
      const provider: RequestListener = (req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(202, { 'content-type': 'application/json' }).end(body));
      };
      await withProvider(provider, async () => {
        const team = await avatarTeam(h.owner.id);
        const res = await uploadVideo(h, team);
        assert.equal(res.status, 202, res.text);
        const record = await readAvatar(team, res.body.avatar_id);
        assert.equal(record?.provider_job_id, kept ?? res.body.avatar_id);
      });
    }
  });

  it('an AVATAR_PROVIDER_TIMEOUT_MS that is no positive number is the default 5 s, not an instant abort', async () => {
    const slow: RequestListener = (req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(202).end('{"job_id":"slow"}'), 50));
    };
    try {
      for (const setting of ['0', '-1', 'soon']) {
        process.env.AVATAR_PROVIDER_TIMEOUT_MS = setting;
        await withProvider(slow, async () => {
          const team = await avatarTeam(h.owner.id);
          const res = await uploadVideo(h, team);
          assert.equal(res.status, 202, `${setting}: ${res.text}`);
          assert.equal((await readAvatar(team, res.body.avatar_id))?.provider_job_id, 'slow');
        });
      }
    } finally {
      delete process.env.AVATAR_PROVIDER_TIMEOUT_MS;
    }
  });

  it('a 2xx whose body is cut short has still taken the job: the avatar trains under its own id', async () => {
    const cutShort: RequestListener = (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(202, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"job_id":"jo', () => res.socket?.destroy());
      });
    };
    const team = await avatarTeam(h.owner.id);
    await withProvider(cutShort, async () => {
      const res = await uploadVideo(h, team);
      assert.equal(res.status, 202, res.text);
      const status = await h.call('GET', `/api/v1/teams/${team}/avatar/status`);
      assert.deepEqual([status.body.status, status.body.avatar_id], ['training', res.body.avatar_id]);
    });
  });

  it('reads no more of a 2xx answer than a job id needs: a provider answering without end is cut off', async () => {
    // The whole answer was read into memory: 300 MiB within the 5 s timeout grew the process by
    // 915 MiB here, past the upload function's 512 MB.
    const total = 64 * 1024 * 1024;
    let written = 0;
    const endless: RequestListener = (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(202, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        const pump = () => {
          while (written < total && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      });
    };
    const team = await avatarTeam(h.owner.id);
    await withProvider(endless, async () => {
      const res = await uploadVideo(h, team);
      assert.equal(res.status, 202, res.text);
      assert.equal((await readAvatar(team, res.body.avatar_id))?.provider_job_id, res.body.avatar_id);
    });
    assert.ok(written < total, `the provider wrote ${written / 1024 / 1024} MiB of its answer`);
  });

  it('a provider URL that redirects is not followed: the job would reach it as a GET, without its body', async () => {
    // fetch turns a POST answered with 301/302/303 into a GET of the new location: the job was lost
    // and any 2xx there (a landing page) was taken for the provider's acceptance.
    const posts: string[] = [];
    const redirecting: RequestListener = (req, res) => {
      if (req.method === 'POST') posts.push(req.url ?? '');
      if (req.url === '/trainings') res.writeHead(301, { location: '/trainings/' }).end();
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Welcome</p>');
    };
    const team = await avatarTeam(h.owner.id);
    await withProvider(redirecting, async () => {
      const res = await uploadVideo(h, team);
      assert.equal(res.status, 503, res.text);
      assert.deepEqual(posts, ['/trainings']);
    });
    assert.deepEqual(await avatarRecords(team), []);
  });
});

describe('avatar upload: bearer check first', () => {
  it('401 without a token, before the body is read', async () => {
    const res = await h.call('POST', uploadUrl('01a1fc6e-0000-7000-8000-000000000000'), {
      token: null,
      ...multipart({ video: 'x' }),
    });
    assert.equal(res.status, 401);
  });
});
