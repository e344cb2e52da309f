// Pure parts of the avatar domain: video sniffing, callback signatures, the state machine, the
// in-flight window.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { AVATAR_UPLOAD_ENTRY, avatarRoutes } from '../../infra/routes/avatars.ts';
import { AVATAR_LIMITS } from '../../shared/avatars/schemas.ts';
import { SIGNATURE_TEXTS, signProviderMessage, verifyCallback } from '../../shared/avatars/signature.ts';
import { AVATAR_STATUSES, statesBefore, TRANSITIONS } from '../../shared/avatars/states.ts';
import { secondsInFlightLeft, stillInFlight } from '../../shared/avatars/store.ts';
import { sniffVideo } from '../../shared/avatars/video.ts';
import { newIdAt, timeOfId } from '../../shared/ids.ts';
import { ebml, isoMedia, mp4, quicktime, webm } from './support.ts';

describe('sniffVideo', () => {
  it('knows MP4 brands, QuickTime and WebM by their first bytes', () => {
    for (const brand of ['isom', 'iso2', 'mp41', 'mp42', 'avc1', 'M4V ', 'dash'])
      assert.equal(sniffVideo(isoMedia(brand))?.ext, 'mp4', brand);
    assert.deepEqual(sniffVideo(mp4()), { ext: 'mp4', contentType: 'video/mp4' });
    assert.deepEqual(sniffVideo(quicktime()), { ext: 'mov', contentType: 'video/quicktime' });
    assert.deepEqual(sniffVideo(webm()), { ext: 'webm', contentType: 'video/webm' });
    // The brand ends at byte 12: those are enough, one fewer is a truncated header.
    assert.equal(sniffVideo(mp4().subarray(0, 12))?.ext, 'mp4');
    assert.equal(sniffVideo(mp4().subarray(0, 11)), undefined);
  });

  it('refuses audio, images, Matroska, other files and truncated headers', () => {
    for (const bytes of [
      isoMedia('M4A '),
      isoMedia('heic'),
      isoMedia('avif'),
      ebml('matroska'),
      ebml('webmx'),
      // A WebM DocType without the EBML magic before it.
      Buffer.concat([Buffer.alloc(4), webm().subarray(4)]),
      Buffer.from('1a45dfa3', 'hex'),
      Buffer.from('%PDF-1.7'),
      Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79]),
      Buffer.alloc(0),
    ])
      assert.equal(sniffVideo(bytes), undefined, bytes.subarray(0, 12).toString('hex'));
  });
});

describe('callback signatures', () => {
  const secret = 's3cret';
  const body = Buffer.from('{"a":1}');

  it('signs HMAC-SHA256 over "<t>.<raw body>"', () => {
    const expected = createHmac('sha256', secret).update('1700000000.{"a":1}').digest('hex');
    assert.equal(signProviderMessage(secret, 1_700_000_000, body), `t=1700000000,v1=${expected}`);
  });

  it('accepts its own signature within the tolerance, also among other v1 values', () => {
    const header = signProviderMessage(secret, 1000, body);
    assert.doesNotThrow(() => verifyCallback(header, body, secret, 1000 + 300, 300));
    assert.doesNotThrow(() => verifyCallback(`v1=${'a'.repeat(64)}, ${header}`, body, secret, 1000, 300));
  });

  it('refuses everything else with a 401', () => {
    const header = signProviderMessage(secret, 1000, body);
    const refuse = (h: string | undefined, b: Buffer, now: number, text: string) =>
      assert.throws(
        () => verifyCallback(h, b, secret, now, 300),
        (e: Error & { status?: number; detail?: unknown }) => e.status === 401 && e.detail === text,
      );
    refuse(undefined, body, 1000, SIGNATURE_TEXTS.invalid);
    refuse('', body, 1000, SIGNATURE_TEXTS.invalid);
    refuse(header.replace('t=1000', 't=1001'), body, 1000, SIGNATURE_TEXTS.invalid);
    refuse(header, Buffer.from('{"a":2}'), 1000, SIGNATURE_TEXTS.invalid);
    refuse(header.slice(0, -2), body, 1000, SIGNATURE_TEXTS.invalid);
    refuse(signProviderMessage('other', 1000, body), body, 1000, SIGNATURE_TEXTS.invalid);
    refuse(`t=1,${header}`, body, 1000, SIGNATURE_TEXTS.invalid);
    refuse(`${header},t=1000`, body, 1000, SIGNATURE_TEXTS.invalid);
    refuse(header, body, 1301, SIGNATURE_TEXTS.stale);
    refuse(header, body, 699, SIGNATURE_TEXTS.stale);
    // The v1 value as the provider writes it: lower-case hex only.
    refuse(
      header.replace(/v1=(.*)$/, (_, hex: string) => `v1=${hex.toUpperCase()}`),
      body,
      1000,
      SIGNATURE_TEXTS.invalid,
    );
    // At most 12 digits: padding the signed timestamp gives another header, not the same number.
    refuse(header.replace('t=1000', `t=${'1000'.padStart(13, '0')}`), body, 1000, SIGNATURE_TEXTS.invalid);
  });
});

describe('training state machine', () => {
  it('training → ready | failed, and nothing leaves a finished state', () => {
    assert.deepEqual(TRANSITIONS, { training: ['ready', 'failed'], ready: [], failed: [] });
    assert.deepEqual(statesBefore('ready'), ['training']);
    assert.deepEqual(statesBefore('failed'), ['training']);
    assert.deepEqual(statesBefore('training'), []);
    assert.deepEqual([...AVATAR_STATUSES], ['training', 'ready', 'failed']);
  });
});

describe('the in-flight window', () => {
  it('outlasts the upload function: no upload is still writing an avatar once it has passed', () => {
    const upload = avatarRoutes.find((route) => route.entry === AVATAR_UPLOAD_ENTRY);
    assert.ok(upload?.timeoutSeconds);
    assert.ok(AVATAR_LIMITS.inFlightSeconds > upload.timeoutSeconds);
  });

  it('runs from the time in the avatar id, for inFlightSeconds', () => {
    const made = new Date('2026-11-26T10:00:00.000Z');
    const id = newIdAt(made);
    assert.equal(timeOfId(id), made.getTime());
    const at = (seconds: number) => new Date(made.getTime() + seconds * 1000);
    assert.equal(stillInFlight(id, at(AVATAR_LIMITS.inFlightSeconds - 0.001)), true);
    assert.equal(secondsInFlightLeft(id, at(10)), AVATAR_LIMITS.inFlightSeconds - 10);
    assert.equal(stillInFlight(id, at(AVATAR_LIMITS.inFlightSeconds)), false);
  });
});
