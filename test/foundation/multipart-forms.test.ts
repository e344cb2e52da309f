// multipart/form-data as real clients send it, on the two routes that take files: every legal form of
// the Content-Type header (RFC 9110 parameters, RFC 2046 boundaries), a file part sent more than once
// (the last one counts, as in FastAPI), and a file part echoed in a 422 (a small descriptor, never
// the file's bytes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as v from 'valibot';
import {
  FORM_LIMITS,
  formBody as formParser,
  isUploadedFile,
  multipartBoundary,
} from '../../shared/http/multipart.ts';
import {
  avatarRecords,
  avatarTeam,
  CONSENT_SIZE,
  mp4,
  readObject,
  uploadUrl,
  webm,
} from '../avatars/support.ts';
import { guidelineDocx, guidelinePdf } from '../brand-kits/fixtures.ts';
import { runGuarded } from '../support/hang-guard.ts';
import { type CallResult, type Harness, startHarness } from '../support/harness.ts';
import { type FormPart, formBody } from '../support/multipart.ts';

/** The avatar form's declared consent recording size. */
const consentSize: FormPart = { name: 'consent_size', content: String(CONSENT_SIZE) };

let h: Harness;
let pdf: Buffer;
let docx: Buffer;
before(async () => {
  h = await startHarness();
  pdf = Buffer.from(await guidelinePdf());
  docx = Buffer.from(guidelineDocx());
});
after(() => h.close());

const GENERATE = '/api/v1/brand-kits/generate-from-upload';

const pdfPart = (): FormPart => ({
  name: 'file',
  content: pdf,
  filename: 'guidelines.pdf',
  type: 'application/pdf',
});
const docxPart = (): FormPart => ({
  name: 'file',
  content: docx,
  filename: 'guidelines.docx',
  type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
});

const post = (url: string, contentType: string, body: Buffer) =>
  h.call('POST', url, { body, headers: { 'content-type': contentType } });

const MISSING_FILE = {
  detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }],
};

/** A 422 small enough for any client and free of byte arrays (a Buffer serialised as JSON). */
function smallAndByteFree(res: CallResult) {
  assert.ok(res.text.length < 10 * 1024, `a ${res.text.length}-character answer`);
  assert.doesNotMatch(res.text, /\[\s*\d+\s*,\s*\d+\s*,\s*\d+/, 'an array of numbers in the answer');
  assert.doesNotMatch(res.text, /"type"\s*:\s*"Buffer"/);
}

describe('multipart Content-Type headers: every legal form is read', () => {
  // Each: the header as sent, the boundary the body uses.
  const variants: [title: string, header: string, boundary: string][] = [
    [
      'quoted boundary (.NET HttpClient)',
      'multipart/form-data; boundary="9b2c7e1a-4f7d-4a51-9d0e-2f6f0c1d8e3b"',
      '9b2c7e1a-4f7d-4a51-9d0e-2f6f0c1d8e3b',
    ],
    [
      'boundary with underscores (Apache HttpClient)',
      'multipart/form-data; boundary=Lf_3kQ9x_Zr7TnVb-Wd2_pYs',
      'Lf_3kQ9x_Zr7TnVb-Wd2_pYs',
    ],
    ['boundary with dots', 'multipart/form-data; boundary=part.2024.boundary', 'part.2024.boundary'],
    [
      "boundary with every other RFC 2046 bchar ('()+_,-./:=? and inner spaces), quoted",
      `multipart/form-data; boundary="a'(b)+c_d,e-f.g/h:i=j?k l m"`,
      `a'(b)+c_d,e-f.g/h:i=j?k l m`,
    ],
    ['no space after the semicolon', 'multipart/form-data;boundary=nospace0boundary', 'nospace0boundary'],
    ['mixed-case media type', 'Multipart/Form-Data; boundary=mixedcase0boundary', 'mixedcase0boundary'],
    [
      'charset parameter before the boundary',
      'multipart/form-data; charset=utf-8; boundary=charset0first',
      'charset0first',
    ],
    ['parameter name in another case', 'multipart/form-data; Boundary=capital0B', 'capital0B'],
    [
      'all at once: odd spacing, case, quoted boundary with underscores',
      'MULTIPART/FORM-DATA ;  CHARSET="UTF-8" ;BOUNDARY="x_y.z"',
      'x_y.z',
    ],
  ];
  for (const [title, header, boundary] of variants)
    it(`${title}: ${header}`, async () => {
      const res = await post(GENERATE, header, formBody(boundary, pdfPart()));
      assert.equal(res.status, 200, res.text.slice(0, 500));
      assert.equal(res.body.name, 'Acme Rocket');
    });

  it('the plain form (curl, browsers) still works, and a DOCX through an odd boundary too', async () => {
    const plain = await post(
      GENERATE,
      'multipart/form-data; boundary=------------------------d74496d66958873e',
      formBody('------------------------d74496d66958873e', pdfPart()),
    );
    assert.equal(plain.status, 200, plain.text.slice(0, 500));
    const odd = await post(
      GENERATE,
      'multipart/form-data; boundary="=_odd_="',
      formBody('=_odd_=', docxPart()),
    );
    assert.equal(odd.status, 200, odd.text.slice(0, 500));
    assert.equal(odd.body.name, 'Globex');
  });

  it('a boundary that occurs inside a part only as a longer string is not split on', async () => {
    // `--b.x_` inside a part, not after a CRLF, is content (busboy splits on CRLF "--" boundary).
    const body = formBody('b.x', pdfPart(), { name: 'note', content: 'see --b.x_ and b.x' });
    const res = await post(GENERATE, 'multipart/form-data; boundary=b.x', body);
    assert.equal(res.status, 200, res.text.slice(0, 500));
  });
});

describe('multipart Content-Type headers: no boundary, or a malformed one, answers as before', () => {
  // What these answered before the header was read properly: an empty form (422 missing).
  const cases: [title: string, header: string, boundary: string][] = [
    ['no boundary parameter', 'multipart/form-data', 'nob0undary'],
    ['no boundary, another parameter', 'multipart/form-data; charset=utf-8', 'nob0undary'],
    ['empty boundary', 'multipart/form-data; boundary=', 'x'],
    ['empty quoted boundary', 'multipart/form-data; boundary=""', 'x'],
    ['boundary over 70 characters', `multipart/form-data; boundary=${'b'.repeat(71)}`, 'b'.repeat(71)],
    ['boundary ending in a space', 'multipart/form-data; boundary="abc "', 'abc '],
    ['boundary with a character outside RFC 2046', 'multipart/form-data; boundary="a;b"', 'a;b'],
    ['unquoted boundary with a space', 'multipart/form-data; boundary=a b', 'a b'],
    ['unterminated quoted boundary', 'multipart/form-data; boundary="abc', 'abc'],
    ['boundary given twice', 'multipart/form-data; boundary=one1; boundary=two2', 'one1'],
    ['parameter without a value', 'multipart/form-data; boundary', 'x'],
  ];
  for (const [title, header, boundary] of cases)
    it(`${title}: 422 missing`, async () => {
      const res = await post(GENERATE, header, formBody(boundary, pdfPart()));
      assert.equal(res.status, 422, res.text.slice(0, 500));
      assert.deepEqual(res.body, MISSING_FILE);
    });
});

describe('a file part sent more than once: the last one counts', () => {
  it('brand kit: the same PDF twice (curl -F file=@a.pdf -F file=@a.pdf) drafts the kit', async () => {
    const res = await post(
      GENERATE,
      'multipart/form-data; boundary=twice0pdf',
      formBody('twice0pdf', pdfPart(), pdfPart()),
    );
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.equal(res.body.name, 'Acme Rocket');
  });

  it('brand kit: DOCX then PDF reads the PDF; PDF then DOCX reads the DOCX; three parts read the third', async () => {
    const docxThenPdf = await post(
      GENERATE,
      'multipart/form-data; boundary=order0a',
      formBody('order0a', docxPart(), pdfPart()),
    );
    assert.equal(docxThenPdf.status, 200, docxThenPdf.text.slice(0, 500));
    assert.equal(docxThenPdf.body.name, 'Acme Rocket');
    const pdfThenDocx = await post(
      GENERATE,
      'multipart/form-data; boundary=order0b',
      formBody('order0b', pdfPart(), docxPart()),
    );
    assert.equal(pdfThenDocx.status, 200, pdfThenDocx.text.slice(0, 500));
    assert.equal(pdfThenDocx.body.name, 'Globex');
    const three = await post(
      GENERATE,
      'multipart/form-data; boundary="order_c"',
      formBody('order_c', pdfPart(), pdfPart(), docxPart()),
    );
    assert.equal(three.status, 200, three.text.slice(0, 500));
    assert.equal(three.body.name, 'Globex');
  });

  it('avatar: two video parts store the last one (202)', async () => {
    const team = await avatarTeam(h.owner.id);
    const first = mp4(4096);
    const last = webm();
    const res = await post(
      uploadUrl(team),
      'multipart/form-data; boundary=twice0video',
      formBody(
        'twice0video',
        { name: 'video', content: first, filename: 'one.mp4', type: 'video/mp4' },
        { name: 'consent_attestation', content: 'true' },
        consentSize,
        { name: 'video', content: last, filename: 'two.webm', type: 'video/webm' },
      ),
    );
    assert.equal(res.status, 202, res.text.slice(0, 500));
    const stored = await readObject(`teams/${team}/avatars/${res.body.avatar_id}/source.webm`);
    assert.deepEqual(stored, last);
  });

  it('avatar: the same video twice through an Apache-style boundary (202)', async () => {
    const team = await avatarTeam(h.owner.id);
    const video = { name: 'video', content: mp4(2048), filename: 'me.mp4', type: 'video/mp4' };
    const res = await post(
      uploadUrl(team),
      'multipart/form-data; boundary=Ab_Cd-Ef_12',
      formBody('Ab_Cd-Ef_12', video, video, { name: 'consent_attestation', content: 'true' }, consentSize),
    );
    assert.equal(res.status, 202, res.text.slice(0, 500));
  });
});

describe('a form past its part limits: Starlette’s 400, never a part dropped in silence', () => {
  const extraFiles = (n: number): FormPart[] =>
    Array.from({ length: n }, (_, i) => ({ name: `extra${i}`, content: 'x', filename: `${i}.txt` }));
  const extraFields = (n: number): FormPart[] =>
    Array.from({ length: n }, (_, i) => ({ name: `extra${i}`, content: 'x' }));
  const TOO_MANY_FILES = { detail: `Too many files. Maximum number of files is ${FORM_LIMITS.files}.` };
  const TOO_MANY_FIELDS = { detail: `Too many fields. Maximum number of fields is ${FORM_LIMITS.fields}.` };
  const send = (url: string, ...parts: FormPart[]) =>
    post(url, 'multipart/form-data; boundary=limits0form', formBody('limits0form', ...parts));

  it('brand kit: one file too many, before or after the document, is 400; at the limit the kit drafts', async () => {
    // busboy skipped the 11th file: the document itself when it came last (422 "Field required").
    for (const parts of [
      [...extraFiles(FORM_LIMITS.files), pdfPart()],
      [pdfPart(), ...extraFiles(FORM_LIMITS.files)],
    ]) {
      const res = await send(GENERATE, ...parts);
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.deepEqual(res.body, TOO_MANY_FILES);
    }
    const atLimit = await send(GENERATE, ...extraFiles(FORM_LIMITS.files - 1), pdfPart());
    assert.equal(atLimit.status, 200, atLimit.text.slice(0, 300));
  });

  it('brand kit and avatar: one field too many is 400; at the limit the form is read', async () => {
    const tooMany = await send(GENERATE, ...extraFields(FORM_LIMITS.fields + 1), pdfPart());
    assert.equal(tooMany.status, 400, tooMany.text.slice(0, 300));
    assert.deepEqual(tooMany.body, TOO_MANY_FIELDS);
    const team = await avatarTeam(h.owner.id);
    const video = { name: 'video', content: mp4(1024), filename: 'me.mp4', type: 'video/mp4' };
    const consent = { name: 'consent_attestation', content: 'true' };
    // Two fields of its own (consent_attestation, consent_size), the rest extras.
    const avatar = await send(
      uploadUrl(team),
      video,
      consent,
      consentSize,
      ...extraFields(FORM_LIMITS.fields - 1),
    );
    assert.equal(avatar.status, 400, avatar.text.slice(0, 300));
    assert.deepEqual(avatar.body, TOO_MANY_FIELDS);
    const atLimit = await send(
      uploadUrl(team),
      video,
      consent,
      consentSize,
      ...extraFields(FORM_LIMITS.fields - 2),
    );
    assert.equal(atLimit.status, 202, atLimit.text.slice(0, 300));
  });
});

describe('a form at its size and field limits: exactly at each is read, one past is refused', () => {
  const MiB = 1024 * 1024;
  /** docs/brand-kits.md, docs/avatars.md: a form's body at most 4 MiB + 64 KiB, a file 4 MiB. */
  const BODY_LIMIT = 4 * MiB + 64 * 1024;
  const boundary = 'limits0size';
  /** A form of exactly `bytes` bytes: its parts, then a file part of padding (a field no form reads). */
  const formOf = (bytes: number, ...parts: FormPart[]) => {
    const pad = (n: number): FormPart => ({
      name: 'pad',
      content: Buffer.alloc(n, 0x20),
      filename: 'pad.bin',
    });
    const body = formBody(boundary, ...parts, pad(bytes - formBody(boundary, ...parts, pad(0)).length));
    assert.equal(body.length, bytes);
    return body;
  };
  const send = (url: string, body: Buffer) => post(url, `multipart/form-data; boundary=${boundary}`, body);
  const TOO_LARGE = { detail: `Request body too large: the limit is ${BODY_LIMIT} bytes` };

  it('brand kit: a body of 4,259,840 bytes with a 4 MiB file is read; one byte more is 413', async () => {
    const junk: FormPart = { name: 'file', content: Buffer.alloc(4 * MiB, 0x41), filename: 'junk.bin' };
    const atLimit = await send(GENERATE, formOf(BODY_LIMIT, junk));
    assert.equal(atLimit.status, 415, 'read (and found to be no document), not refused for its size');
    const past = await send(GENERATE, formOf(BODY_LIMIT + 1, junk));
    assert.deepEqual([past.status, past.body], [413, TOO_LARGE]);
  });

  it('avatar: a body of 4,259,840 bytes with a 4 MiB video trains; one byte more is 413, nothing stored', async () => {
    const team = await avatarTeam(h.owner.id);
    const video: FormPart = {
      name: 'video',
      content: mp4(4 * MiB - mp4(0).length),
      filename: 'me.mp4',
      type: 'video/mp4',
    };
    const consent: FormPart = { name: 'consent_attestation', content: 'true' };
    const past = await send(uploadUrl(team), formOf(BODY_LIMIT + 1, video, consent));
    assert.deepEqual([past.status, past.body], [413, TOO_LARGE]);
    assert.deepEqual(await avatarRecords(team), []);
    const atLimit = await send(uploadUrl(team), formOf(BODY_LIMIT, video, consent));
    assert.equal(atLimit.status, 202, atLimit.text.slice(0, 300));
  });

  it('a URL-encoded form of 50 fields is read; 51 are Starlette’s 400 (docs/decisions.md), on both routes', async () => {
    const team = await avatarTeam(h.owner.id);
    const encoded = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `extra${i}=x`).join('&'));
    for (const url of [GENERATE, uploadUrl(team)]) {
      const atLimit = await post(url, 'application/x-www-form-urlencoded', encoded(50));
      assert.equal(atLimit.status, 422, 'read: the form misses its file');
      const past = await post(url, 'application/x-www-form-urlencoded', encoded(51));
      assert.deepEqual(
        [past.status, past.body],
        [400, { detail: 'Too many fields. Maximum number of fields is 50.' }],
        url,
      );
    }
  });
});

describe('a file part echoed in a 422 is a small descriptor, never its bytes', () => {
  const big = Buffer.alloc(200 * 1024, 0x41);
  const descriptor = (filename: string, contentType: string, size: number) => ({
    filename,
    content_type: contentType,
    size,
  });

  it('avatar: a file sent as consent_attestation is still bool_type, with the file described', async () => {
    const team = await avatarTeam(h.owner.id);
    const res = await post(
      uploadUrl(team),
      'multipart/form-data; boundary=file0as0text',
      formBody(
        'file0as0text',
        { name: 'video', content: mp4(), filename: 'me.mp4', type: 'video/mp4' },
        { name: 'consent_attestation', content: big, filename: 'consent.txt', type: 'text/plain' },
        consentSize,
      ),
    );
    assert.equal(res.status, 422, res.text.slice(0, 500));
    smallAndByteFree(res);
    assert.deepEqual(res.body, {
      detail: [
        {
          type: 'bool_type',
          loc: ['body', 'consent_attestation'],
          msg: 'Input should be a valid boolean',
          input: descriptor('consent.txt', 'text/plain', big.length),
        },
      ],
    });
  });

  it('avatar: files as both booleans, each described the same way', async () => {
    const team = await avatarTeam(h.owner.id);
    const res = await post(
      uploadUrl(team),
      'multipart/form-data; boundary=both0files',
      formBody(
        'both0files',
        { name: 'video', content: mp4(), filename: 'me.mp4', type: 'video/mp4' },
        { name: 'consent_attestation', content: big, filename: 'a.bin', type: 'application/octet-stream' },
        {
          name: 'subject_is_minor',
          content: big.subarray(0, 1000),
          filename: 'b.pdf',
          type: 'application/pdf',
        },
        consentSize,
      ),
    );
    assert.equal(res.status, 422, res.text.slice(0, 500));
    smallAndByteFree(res);
    assert.deepEqual(
      res.body.detail.map((item: { loc: string[]; input: unknown }) => [item.loc[1], item.input]),
      [
        ['consent_attestation', descriptor('a.bin', 'application/octet-stream', big.length)],
        ['subject_is_minor', descriptor('b.pdf', 'application/pdf', 1000)],
      ],
    );
  });

  it('avatar: a file sent twice as consent_attestation: one descriptor (the last part), no array', async () => {
    const team = await avatarTeam(h.owner.id);
    const res = await post(
      uploadUrl(team),
      'multipart/form-data; boundary=twice0consent',
      formBody(
        'twice0consent',
        { name: 'video', content: mp4(), filename: 'me.mp4', type: 'video/mp4' },
        { name: 'consent_attestation', content: big, filename: 'one.txt', type: 'text/plain' },
        {
          name: 'consent_attestation',
          content: big.subarray(0, 10),
          filename: 'two.txt',
          type: 'text/plain',
        },
        consentSize,
      ),
    );
    assert.equal(res.status, 422, res.text.slice(0, 500));
    smallAndByteFree(res);
    assert.equal(res.body.detail.length, 1);
    assert.equal(res.body.detail[0].type, 'bool_type');
    assert.deepEqual(res.body.detail[0].input, descriptor('two.txt', 'text/plain', 10));
  });
});

describe('part names as FastAPI reads them: none is 400, `x[]` is a field of its own', () => {
  // Middy's parser threw outside its promise on both (the local server's process went down; on
  // Lambda, the runtime), and read a text part `x[]` as an item of `x`.
  const uncaught: Error[] = [];
  const collect = (error: Error) => uncaught.push(error);
  before(() => process.on('uncaughtException', collect));
  after(() => process.off('uncaughtException', collect));
  const NAMELESS = { detail: 'The Content-Disposition header field "name" must be provided.' };
  const b = 'names0form';
  const send = (url: string, ...parts: Buffer[]) =>
    post(url, `multipart/form-data; boundary=${b}`, Buffer.concat([...parts, Buffer.from(`--${b}--\r\n`)]));
  const part = (disposition: string, content: string | Buffer) =>
    Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data${disposition}\r\n\r\n`),
      Buffer.from(content),
      Buffer.from('\r\n'),
    ]);
  const named = (name: string, content: string | Buffer, filename?: string) =>
    part(`; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`, content);

  it("a part without a name, text or file, is Starlette's 400 on both routes", async () => {
    const team = await avatarTeam(h.owner.id);
    for (const url of [GENERATE, uploadUrl(team)])
      for (const unnamed of [part('', 'hello'), part('; filename="a.pdf"', pdf)]) {
        const res = await send(url, named('file', pdf, 'a.pdf'), unnamed);
        assert.equal(res.status, 400, `${url}: ${res.text.slice(0, 300)}`);
        assert.deepEqual(res.body, NAMELESS);
      }
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
  });

  it('a part with no Content-Disposition at all names no field either: the same 400 (busboy skipped it)', async () => {
    const team = await avatarTeam(h.owner.id);
    const headed = (headers: string, content: string) =>
      Buffer.from(`--${b}\r\n${headers}\r\n${content}\r\n`);
    for (const url of [GENERATE, uploadUrl(team)])
      for (const unnamed of [headed('Content-Type: text/plain\r\n', 'hello'), headed('', 'hello')]) {
        const res = await send(url, named('file', pdf, 'a.pdf'), unnamed);
        assert.equal(res.status, 400, `${url}: ${res.text.slice(0, 300)}`);
        assert.deepEqual(res.body, NAMELESS);
      }
    // One past busboy's 16 KiB buffer stalled the parser: its watchdog answered 415 after 2 s.
    const started = Date.now();
    const res = await send(GENERATE, headed('', 'x'.repeat(70_000)));
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.deepEqual(res.body, NAMELESS);
    assert.ok(Date.now() - started < 1_000, `answered after ${Date.now() - started} ms`);
  });

  it('brand kit: a text part `file[]` leaves `file` as sent: missing alone, the document beside it', async () => {
    const alone = await send(GENERATE, named('file[]', 'hello'));
    assert.equal(alone.status, 422, alone.text.slice(0, 300));
    assert.deepEqual(alone.body, MISSING_FILE);
    for (const parts of [
      [named('file', pdf, 'a.pdf'), named('file[]', 'hello')],
      [named('file[]', 'hello'), named('file', pdf, 'a.pdf')],
    ]) {
      const res = await send(GENERATE, ...parts);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.body.name, 'Acme Rocket');
    }
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
  });

  it('avatar: consent_attestation[] and subject_is_minor[] beside the plain fields are ignored (202)', async () => {
    const video = named('video', mp4(), 'me.mp4');
    for (const extras of [
      [named('consent_attestation', 'true'), named('consent_attestation[]', 'true')],
      [named('consent_attestation', 'true'), named('subject_is_minor[]', 'true')],
      [named('consent_attestation', 'true'), named('video[]', 'x'), named('video[a]', 'y')],
    ]) {
      const res = await send(uploadUrl(await avatarTeam(h.owner.id)), video, ...extras);
      assert.equal(res.status, 202, res.text.slice(0, 300));
    }
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
  });

  it("a text part past Starlette's 1 MiB is its 400 (busboy cut it silently); at 1 MiB it is read", async () => {
    const TOO_LARGE = { detail: 'Part exceeded maximum size of 1024KB.' };
    const headed = (disposition: string, content: string) =>
      Buffer.from(`--${b}\r\nContent-Disposition: ${disposition}\r\n\r\n${content}\r\n`);
    const MiB = 1024 * 1024;
    const at = await send(GENERATE, named('file', pdf, 'a.pdf'), named('note', 'n'.repeat(MiB)));
    assert.equal(at.status, 200, at.text.slice(0, 300));
    const over = 'n'.repeat(MiB + 1);
    for (const parts of [
      [named('file', pdf, 'a.pdf'), named('note', over)],
      // Where the file belongs: its 422 echoed the first 1 MiB as if it were all that was sent.
      [named('file', over)],
      // A name Middy is given as a never-read file part is still a text part.
      [named('note[]', over), named('file', pdf, 'a.pdf')],
      // Counted in bytes: 349,526 three-byte characters.
      [named('file', pdf, 'a.pdf'), named('note', '€'.repeat(Math.ceil((MiB + 1) / 3)))],
      // A filename only inside a quoted value, or in another header, makes no file: still text.
      [named('file', pdf, 'a.pdf'), part('; name="note"; x="; filename=y"', over)],
      [
        named('file', pdf, 'a.pdf'),
        headed('form-data; name="note"\r\nContent-Type: text/plain; filename=y', over),
      ],
    ]) {
      const res = await send(GENERATE, ...parts);
      assert.deepEqual([res.status, res.body], [400, TOO_LARGE]);
    }
    // In the parts' order, as Starlette reads them: the first refusable part decides (a nameless one
    // with a Content-Disposition, or one without any).
    const undisposed = Buffer.from(`--${b}\r\nContent-Type: text/plain\r\n\r\nhello\r\n`);
    for (const unnamed of [
      part('', 'hello'),
      part('; filename="a.txt"', 'hello'),
      part('; filename="a; name=b"', 'hello'),
      headed('form-data\r\nContent-Type: text/plain; name=y', 'hello'),
      undisposed,
    ]) {
      const nameless = await send(GENERATE, unnamed, named('note', over));
      assert.deepEqual([nameless.status, nameless.body], [400, NAMELESS]);
      const large = await send(GENERATE, named('note', over), unnamed);
      assert.deepEqual([large.status, large.body], [400, TOO_LARGE]);
    }
    // The Content-Disposition's quoted strings are blanked by a pattern that cannot backtrack: one
    // that needed the closing quote took minutes on 500,000 `"\` (a hang guard, not a budget).
    const read = runGuarded<string>(
      `import * as v from 'valibot';
       import { formBody } from './shared/http/multipart.ts';
       const parser = formBody(v.any(), { maxFileBytes: 1024 });
       const body = '--b\\r\\nContent-Disposition: form-data; name="n"; x=' + '"\\\\'.repeat(500000) +
         '\\r\\n\\r\\nv\\r\\n--b--\\r\\n';
       const form = await parser.parse({ headers: { 'content-type': 'multipart/form-data; boundary=b' }, body });
       console.log(JSON.stringify(Object.keys(form)));`,
    );
    assert.deepEqual(read, ['n']);
    const consent = named('consent_attestation', `true${' '.repeat(MiB)}`);
    const res = await send(uploadUrl(await avatarTeam(h.owner.id)), named('video', mp4(), 'me.mp4'), consent);
    assert.deepEqual([res.status, res.body], [400, TOO_LARGE]);
  });

  it('a name of any length, or with `[` anywhere, is a field no form declares: ignored at once', async () => {
    // Middy's parser tried its pattern for `x[…]` on every text part's name, all in one turn of the
    // event loop: cubic in the `[`s (18.5 s on 3,000), quadratic in the length (8 s on 100,000
    // letters). First in a child process (runGuarded: a hang guard, not a budget), which the 100,000
    // `[` would have held for hours at least; then through the route.
    const names = ['['.repeat(4096), '['.repeat(100_000), 'a'.repeat(100_000)];
    const read = runGuarded<string[][]>(
      `import { readFileSync } from 'node:fs';
       import * as v from 'valibot';
       import { formBody } from './shared/http/multipart.ts';
       const parser = formBody(v.any(), { maxFileBytes: 1024 });
       const forms = [];
       for (const name of JSON.parse(readFileSync(0, 'utf8'))) {
         const body = '--b\\r\\nContent-Disposition: form-data; name="' + name + '"\\r\\n\\r\\nv\\r\\n' +
           '--b\\r\\nContent-Disposition: form-data; name="file"; filename="f.pdf"\\r\\n\\r\\n%PDF\\r\\n--b--\\r\\n';
         const form = await parser.parse({ headers: { 'content-type': 'multipart/form-data; boundary=b' }, body });
         forms.push(Object.keys(form));
       }
       console.log(JSON.stringify(forms));`,
      JSON.stringify(names),
    );
    assert.deepEqual(read, [['file'], ['file'], ['file']]);
    for (const name of names) {
      const alone = await send(GENERATE, named(name, 'hello'));
      assert.equal(alone.status, 422, alone.text.slice(0, 300));
      assert.deepEqual(alone.body, MISSING_FILE);
      const res = await send(GENERATE, named(name, 'hello'), named('file', pdf, 'a.pdf'));
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.body.name, 'Acme Rocket');
    }
    const video = named('video', mp4(), 'me.mp4');
    const consent = named('consent_attestation', 'true');
    const res = await send(uploadUrl(await avatarTeam(h.owner.id)), video, consent, named(names[0]!, 'x'));
    assert.equal(res.status, 202, res.text.slice(0, 300));
  });
});

describe('the header and the body, read directly', () => {
  it('multipartBoundary: the boundary of every legal header, undefined otherwise', () => {
    const read: [string, string | undefined][] = [
      ['multipart/form-data; boundary=abc', 'abc'],
      ['multipart/form-data; boundary="abc"', 'abc'],
      ['multipart/form-data; boundary="a\\"b"', undefined], // `"` is no RFC 2046 bchar
      ['multipart/form-data; boundary="a\\bc"', 'abc'], // a quoted-pair stands for its character
      ['multipart/form-data; boundary=abc;', 'abc'], // RFC 9110 allows empty parameters
      ['multipart/form-data ;; boundary=abc ; ', 'abc'],
      ['multipart/form-data;\tboundary=abc', 'abc'],
      ['multipart/form-data; boundary=abc; charset=utf-8', 'abc'],
      [`multipart/form-data; boundary=${'b'.repeat(70)}`, 'b'.repeat(70)],
      ['multipart/form-data; boundary="a b"', 'a b'],
      ['multipart/mixed; boundary=abc', undefined],
      ['application/json; boundary=abc', undefined],
      ['multipart/form-data; boundary = abc', undefined], // no whitespace around `=` in RFC 9110
      ['multipart/form-data; boundary=abc junk', undefined],
      ['multipart/form-data; boundary="abc"junk', undefined],
      ['multipart/form-data; boundary=é', undefined],
      ['multipart/form-data, boundary=abc', undefined],
      ['', undefined],
    ];
    for (const [header, boundary] of read) assert.equal(multipartBoundary(header), boundary, header);
    assert.equal(multipartBoundary(undefined), undefined);
  });

  it('multipartBoundary: linear on long hostile headers (no catastrophic backtracking)', () => {
    for (const header of [
      `multipart/form-data${';  '.repeat(4000)}\u0001`,
      `multipart/form-data${'; a=b'.repeat(4000)} x`,
      `multipart/form-data; boundary=${'a'.repeat(20000)} x`,
      `multipart/form-data${'; b="x"'.repeat(3000)}"`,
    ]) {
      const t0 = performance.now();
      assert.equal(multipartBoundary(header), undefined);
      assert.ok(performance.now() - t0 < 250, `${Math.round(performance.now() - t0)} ms`);
    }
  });

  const parser = formParser(v.any(), { maxFileBytes: 1024 });
  const parse = (contentType: string, body: Buffer, base64 = true) =>
    parser.parse({
      headers: { 'content-type': contentType },
      body: body.toString(base64 ? 'base64' : 'utf8'),
      isBase64Encoded: base64,
    } as unknown as Parameters<typeof parser.parse>[0]);
  const file = (name: string, filename: string, content: string): FormPart => ({
    name,
    content,
    filename,
    type: 'text/plain',
  });
  const text = (name: string, content: string): FormPart => ({ name, content });
  /** Each field as text: `file:<filename>:<content>` for a file part, the value for a text part. */
  const contents = (form: Record<string, unknown> | undefined) =>
    Object.fromEntries(
      Object.entries(form ?? {}).map(([name, value]) => [
        name,
        isUploadedFile(value) ? `file:${value.filename}:${value.content.toString('latin1')}` : value,
      ]),
    );

  it('a name sent more than once reads as its last part, file or text, in any order', async () => {
    const ct = 'multipart/form-data; boundary=order';
    const cases: [FormPart[], string][] = [
      [[file('x', 'a', 'A'), file('x', 'b', 'B')], 'file:b:B'],
      [[file('x', 'a', 'A'), file('x', 'b', 'B'), file('x', 'c', 'C')], 'file:c:C'],
      [[file('x', 'a', 'A'), text('x', 'T')], 'T'],
      [[text('x', 'T'), file('x', 'a', 'A')], 'file:a:A'],
      [[file('x', 'a', 'A'), text('x', 'T'), file('x', 'b', 'B')], 'file:b:B'],
      [[text('x', 'T1'), file('x', 'a', 'A'), text('x', 'T2')], 'T2'],
      [[text('x', 'T1'), text('x', 'T2')], 'T2'],
    ];
    for (const [parts, expected] of cases)
      assert.deepEqual(
        contents(await parse(ct, formBody('order', ...parts))),
        { x: expected },
        JSON.stringify(parts),
      );
    // The last part empty: absent, as FastAPI reads an empty field.
    for (const parts of [
      [file('x', 'a', 'A'), text('x', '')],
      [file('x', 'a', 'A'), file('x', 'b', 'B'), text('x', '')],
      [text('x', 'T'), file('x', 'a', 'A'), text('x', '')],
    ])
      assert.deepEqual(contents(await parse(ct, formBody('order', ...parts))), {}, JSON.stringify(parts));
    assert.deepEqual(contents(await parse(ct, formBody('order', text('x', ''), file('x', 'a', 'A')))), {
      x: 'file:a:A',
    });
  });

  it('a file over the limit anywhere in the form is 413, even when a later part of its name is small', async () => {
    const body = formBody('big', file('x', 'a', 'A'.repeat(2048)), file('x', 'b', 'B'));
    await assert.rejects(parse('multipart/form-data; boundary=big', body), { status: 413 });
  });

  it('a file part reads in JSON as its descriptor; its own fields are untouched', async () => {
    const form = await parse(
      'multipart/form-data; boundary="j_s.o:n"',
      formBody('j_s.o:n', file('f', 'a.txt', 'hello')),
    );
    assert.deepEqual(JSON.parse(JSON.stringify(form)), {
      f: { filename: 'a.txt', content_type: 'text/plain', size: 5 },
    });
    assert.deepEqual(Object.keys(form!.f as object).sort(), [
      'content',
      'encoding',
      'filename',
      'mimetype',
      'truncated',
    ]);
  });

  it('a part is a file when it names a filename, as Starlette reads it, not by its Content-Type', async () => {
    // busboy's default took any application/octet-stream part for a file: a boolean sent so was a
    // bool_type error, and eleven such fields "Too many files".
    const octet = (name: string, value: string) =>
      `--bare\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n${value}\r\n`;
    const fields = Array.from({ length: FORM_LIMITS.files + 1 }, (_, i) => octet(`x${i}`, 'true'));
    const bare = await parse(
      'multipart/form-data; boundary=bare',
      Buffer.from(`${fields.join('')}${octet('f', 'xyz')}--bare--\r\n`),
    );
    assert.equal(bare!.f, 'xyz');
    assert.equal(bare![`x${FORM_LIMITS.files}`], 'true');
    // With a filename, even an empty one, it is a file whatever its type.
    const named = await parse(
      'multipart/form-data; boundary=b',
      Buffer.from(
        '--b\r\nContent-Disposition: form-data; name="f"; filename=""\r\nContent-Type: text/plain\r\n\r\nxyz\r\n--b--\r\n',
      ),
    );
    assert.deepEqual(JSON.parse(JSON.stringify(named)), {
      f: { filename: '', content_type: 'text/plain', size: 3 },
    });
  });

  it('a boundary Middy would refuse: preamble, epilogue, text bodies and boundary-like content all read alike', async () => {
    // Only CRLF "--b_" delimits: `--b_` elsewhere, even at a line start after a lone LF, is content.
    const parts = [file('f', 'a.txt', 'x --b_ y\n--b_\r\n- -b_'), text('t', 'a --b_--')];
    const expected = { f: 'file:a.txt:x --b_ y\n--b_\r\n- -b_', t: 'a --b_--' };
    const body = formBody('b_', ...parts);
    for (const [title, bytes] of [
      ['plain', body],
      [
        'preamble and epilogue',
        Buffer.concat([Buffer.from('preamble --b_ text\r\n'), body, Buffer.from('epilogue\r\n--b_')]),
      ],
      ['CRLF first', Buffer.concat([Buffer.from('\r\n'), body])],
    ] as const) {
      assert.deepEqual(contents(await parse('multipart/form-data; boundary=b_', bytes)), expected, title);
      assert.deepEqual(
        contents(await parse('multipart/form-data; boundary=b_', bytes, false)),
        expected,
        `${title}, text`,
      );
    }
    // The same body under a boundary Middy takes reads the same.
    const plain = formBody('plain0', ...parts);
    assert.deepEqual(contents(await parse('multipart/form-data; boundary=plain0', plain)), expected);
  });

  it('a malformed body under an odd boundary is still 415, as under a plain one', async () => {
    const cut = formBody('c.d', file('f', 'a.txt', 'abc')).subarray(0, 40);
    for (const ct of ['multipart/form-data; boundary=c.d', 'multipart/form-data; boundary="c.d"'])
      await assert.rejects(parse(ct, cut), { status: 415 });
  });
});
