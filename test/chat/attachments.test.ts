// Chat attachments on the real handler and the embedded S3: ownership, existence, media types,
// sizes and counts, and the content blocks they become.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { ATTACHMENT_LIMITS, ATTACHMENT_START_BYTES, documentName } from '../../shared/chat/content-blocks.ts';
import { chatKeys } from '../../shared/chat/keys.ts';
import { CHAT_LIMITS } from '../../shared/chat/schemas.ts';
import { config } from '../../shared/config.ts';
import { getItem, updateItem } from '../../shared/db/store.ts';
import { newId } from '../../shared/ids.ts';
import { userUploadPrefix } from '../../shared/uploads/keys.ts';
import { recordDynamoRequests, recordS3Requests, wavesOf } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let session: string;

before(async () => {
  h = await startHarness();
  session = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Files' } })).body.id;
});
after(() => h.close());

/** A JPEG marker segment: 0xFF, its code, its length (itself included) and its payload. */
const segment = (code: number, payload: Buffer) => {
  const head = Buffer.from([0xff, code, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
};

/** A frame header's payload (SOFn): precision, height, width, one component. */
const frame = (width: number, height: number) => {
  const payload = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  payload.writeUInt16BE(height, 1);
  payload.writeUInt16BE(width, 3);
  return payload;
};

/** An APP1 EXIF payload of `bytes`, optionally holding a thumbnail whose own frame header is 9000 × 10. */
const exif = (bytes: number, thumbnail = false) => {
  const payload = Buffer.alloc(bytes);
  payload.write('Exif\0\0', 'latin1');
  if (thumbnail) payload.set(Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xc0, frame(9000, 10))]), 100);
  return payload;
};

/**
 * A JPEG: SOI, APP0 (JFIF), the `before` segments, a frame header (SOF0 unless `code` says otherwise)
 * of the given size, a scan header, a few bytes of scan and EOI.
 */
const jpeg = (width = 1, height = 1, options: { before?: Buffer[]; code?: number } = {}) =>
  Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    ...(options.before ?? []),
    segment(options.code ?? 0xc0, frame(width, height)),
    segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0x34, 0xff, 0xd9]),
  ]);

/** An image header of the given size: PNG's signature and IHDR, a JPEG, GIF's logical screen, WebP's VP8X. */
const header = {
  png: (width = 1, height = 1) => {
    const bytes = Buffer.from([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      0,
      0,
      0,
      13,
      ...Buffer.from('IHDR'),
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
    ]);
    bytes.writeUInt32BE(width, 16);
    bytes.writeUInt32BE(height, 20);
    return bytes;
  },
  jpeg: (width = 1, height = 1) => jpeg(width, height),
  gif: (width = 1, height = 1) => {
    const bytes = Buffer.from([...Buffer.from('GIF89a'), 0, 0, 0, 0]);
    bytes.writeUInt16LE(width, 6);
    bytes.writeUInt16LE(height, 8);
    return bytes;
  },
  webp: (width = 1, height = 1) => {
    const bytes = Buffer.alloc(30);
    bytes.write('RIFF', 0);
    bytes.write('WEBPVP8X', 8);
    bytes.writeUInt32LE(10, 16);
    bytes.writeUIntLE(width - 1, 24, 3);
    bytes.writeUIntLE(height - 1, 27, 3);
    return bytes;
  },
};
type Signature = keyof typeof header;

/** How a binary document begins: a PDF's header, a ZIP (DOCX, XLSX), an OLE file (DOC, XLS). */
const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const documentMarks: Record<string, number[]> = {
  pdf: [...Buffer.from('%PDF-1.7\n')],
  docx: ZIP,
  xlsx: ZIP,
  doc: OLE,
  xls: OLE,
};
const documentOf: Record<string, string> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/msword': 'doc',
  'application/vnd.ms-excel': 'xls',
};

/**
 * Puts an object under a user's upload prefix (the owner's unless told) and returns its key. An image
 * (by its type, else its name) begins with a 1 × 1 header of its format unless `image` says otherwise;
 * a binary document with its format's mark.
 */
/** Throttles (after the SDK's own retries, as DynamoDB would) the requests `when` picks, until the
 * function answered is called. */
const throttleDynamo = (
  label: string,
  when: (command: string, input: Record<string, unknown>) => boolean,
) => {
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      if (when(context.commandName ?? '', args.input as Record<string, unknown>))
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException', $metadata: {} });
      return next(args);
    },
    { step: 'initialize', name: label },
  );
  return () => dynamo().middlewareStack.remove(label);
};

/**
 * Another send takes the document names a send of `chat` is about to claim (or the names `taking`
 * gives), when `when` says so: injected into the SDK client before the claim's UpdateItem. Returns
 * what removes it.
 */
const takeNamesBeforeClaim = (
  chat: string,
  when: (chosen: string[]) => boolean,
  taking: (chosen: string[]) => string[] = (chosen) => chosen,
) => {
  const name = `take-document-names-${chat}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        Key?: unknown;
        ConditionExpression?: string;
        ExpressionAttributeValues?: Record<string, unknown>;
      };
      const claim =
        context.commandName?.startsWith('Update') &&
        JSON.stringify(input.Key).includes('NAMES') &&
        input.ConditionExpression?.includes('contains');
      // The names claimed, as a Set (or marshalled, depending on where the client's stack runs this).
      const chosen = claim
        ? Object.values(input.ExpressionAttributeValues ?? {})
            .map((v) => (v instanceof Set ? [...v] : ((v as { SS?: string[] }).SS ?? [])))
            .find((members) => members.length > 0 && !String(members[0]).includes(':'))
        : undefined;
      if (chosen && when(chosen as string[]))
        await updateItem(chatKeys.documentNames(chat), { add: { document_names: new Set(taking(chosen)) } });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => dynamo().middlewareStack.remove(name);
};

const upload = async (
  name: string,
  options: { bytes?: number; type?: string; user?: string; image?: Signature | 'none' } = {},
) => {
  const key = `${userUploadPrefix(options.user ?? h.owner.id)}${newId()}/${name}`;
  const image =
    options.image ??
    (/^image\/(png|jpeg|gif|webp)$/.exec(options.type ?? '')?.[1] as Signature | undefined) ??
    (/\.(png|gif|webp)$/.exec(name)?.[1] as Signature | undefined);
  const body = Buffer.alloc(options.bytes ?? 64, 1);
  if (image && image !== 'none' && body.length > 0) body.set(header[image]());
  const document = documentOf[options.type ?? ''] ?? /\.(pdf|docx|xlsx|doc|xls)$/.exec(name)?.[1];
  if (!image && document && body.length > 0) body.set(documentMarks[document]!);
  await s3().send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, ContentType: options.type }),
  );
  return key;
};

/** Puts these exact bytes under the owner's upload prefix, with a stored type only when given. */
const put = async (name: string, body: Buffer, type?: string) => {
  const key = `${userUploadPrefix(h.owner.id)}${newId()}/${name}`;
  await s3().send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, ContentType: type }),
  );
  return key;
};

const send = (json: unknown, token?: string) =>
  h.call('POST', `/api/v1/chat/sessions/${session}/messages`, { json, token });

const uri = (key: string) => `s3://${config.bucketName}/${key}`;

const SESSION_FULL = `This chat session holds its limit of ${CHAT_LIMITS.sessionDocuments} documents; start a new session to attach more`;

const valueError = (loc: (string | number)[], input: unknown, reason: string) => ({
  type: 'value_error',
  loc,
  msg: `Value error, ${reason}`,
  input,
  ctx: { error: {} },
});

describe('chat attachments', () => {
  it('become a text block, then image and document blocks on their S3 locations', async () => {
    const png = await upload('photo.png', { type: 'image/png' });
    const pdf = await upload('Q3 report (final).pdf', { type: 'application/pdf' });
    const notes = await upload('notes.bin', { type: 'application/octet-stream' });
    const res = await send({
      content: 'What do you make of these?',
      attachments: [{ key: png }, { key: pdf }, { key: notes, name: 'meeting notes.md' }],
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.content, [
      { text: 'What do you make of these?' },
      { image: { format: 'png', source: { s3Location: { uri: uri(png) } } } },
      { document: { format: 'pdf', name: 'Q3 report (final)', source: { s3Location: { uri: uri(pdf) } } } },
      // An octet-stream object: the name's extension decides.
      { document: { format: 'md', name: 'meeting notes', source: { s3Location: { uri: uri(notes) } } } },
    ]);
    const listed = await h.call('GET', `/api/v1/chat/sessions/${session}/messages`);
    assert.deepEqual(listed.body.messages.at(-1), res.body);
  });

  it('the client’s media_type wins over the stored type, which wins over the extension', async () => {
    const image = await upload('scan.pdf', { type: 'image/jpeg' });
    const stored = await send({ content: 'x', attachments: [{ key: image }] });
    assert.deepEqual(stored.body.content[1], {
      image: { format: 'jpeg', source: { s3Location: { uri: uri(image) } } },
    });
    // A PDF stored as text/plain under a .csv name: a txt document, or a pdf when the client says so.
    const key = await upload('scan.csv', { type: 'text/plain' });
    await s3().send(
      new PutObjectCommand({
        Bucket: config.bucketName,
        Key: key,
        Body: '%PDF-1.4\n',
        ContentType: 'text/plain',
      }),
    );
    assert.equal(
      (await send({ content: 'x', attachments: [{ key }] })).body.content[1].document.format,
      'txt',
    );
    const told = await send({ content: 'x', attachments: [{ key, media_type: 'Application/PDF; x=1' }] });
    assert.equal(told.body.content[1].document.format, 'pdf');
  });

  it('refuses keys outside the caller’s upload prefix and keys with no object, at ["body","attachments",i,"key"]', async () => {
    const theirs = await upload('theirs.png', { type: 'image/png', user: h.other.id });
    const missing = `${userUploadPrefix(h.owner.id)}${newId()}/gone.png`;
    const mine = await upload('fine.png', { type: 'image/png' });
    const sneaky = `${userUploadPrefix(h.owner.id)}../${h.other.id}/x.png`;
    const res = await send({
      content: 'x',
      attachments: [
        { key: theirs },
        { key: mine },
        { key: missing },
        { key: sneaky },
        { key: 'brand-kits/logo.png' },
      ],
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 0, 'key'], theirs, 'key is not one of your uploads'),
      valueError(['body', 'attachments', 2, 'key'], missing, 'no uploaded file at this key'),
      valueError(['body', 'attachments', 3, 'key'], sneaky, 'key is not one of your uploads'),
      valueError(['body', 'attachments', 4, 'key'], 'brand-kits/logo.png', 'key is not one of your uploads'),
    ]);
    const listed = await h.call('GET', `/api/v1/chat/sessions/${session}/messages?limit=100`);
    assert.ok(
      listed.body.messages.every((m: { content: { text?: string }[] }) => m.content.length !== 6),
      'nothing stored',
    );
  });

  it('refuses keys holding a control character or a lone surrogate (no key of ours does; the S3 client cannot send them) as 422, not 500', async () => {
    const prefix = userUploadPrefix(h.owner.id);
    const keys = [`${prefix}${newId()}/a\u0000.png`, `${prefix}x/\u007f`];
    const res = await send({ content: 'x', attachments: keys.map((key) => ({ key })) });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.detail,
      keys.map((key, i) =>
        valueError(['body', 'attachments', i, 'key'], key, 'key is not one of your uploads'),
      ),
    );
    // A lone surrogate is no string at all: pydantic's string_unicode, echoed with U+FFFD, before
    // any attachment is looked at.
    const surrogate = `${prefix}${newId()}/\ud800.png`;
    const refused = await send({ content: 'x', attachments: [{ key: surrogate }, { key: keys[0] }] });
    assert.deepEqual(refused.body.detail, [
      {
        type: 'string_unicode',
        loc: ['body', 'attachments', 0, 'key'],
        msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
        input: surrogate.replace('\ud800', '\ufffd'),
      },
    ]);
  });

  it('refuses a key past S3’s 1,024 bytes (1,024 characters of several bytes each) as 422, not 500', async () => {
    // S3 answers any request naming such a key 400 KeyTooLongError (the embedded S3 does not): the
    // SDK client is made to answer as S3 does.
    const name = 'key-too-long';
    s3().middlewareStack.add(
      (next) => async (args) => {
        const key = (args.input as { Key?: string }).Key;
        if (key !== undefined && Buffer.byteLength(key) > 1024)
          throw Object.assign(new Error('Your key is too long'), {
            name: 'KeyTooLongError',
            $fault: 'client',
            $metadata: { httpStatusCode: 400 },
          });
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      // Parts of 50 × 'é' (100 bytes): each within the length a part of ours may have.
      const prefix = userUploadPrefix(h.owner.id);
      const parts = Array.from({ length: 10 }, () => 'é'.repeat(50));
      const key = `${prefix}${parts.join('/')}.png`;
      assert.ok([...key].length <= CHAT_LIMITS.key.max && Buffer.byteLength(key) > 1024);
      const res = await send({ content: 'x', attachments: [{ key }] });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.body.detail, [
        valueError(['body', 'attachments', 0, 'key'], key, 'key is not one of your uploads'),
      ]);
    } finally {
      s3().middlewareStack.remove(name);
    }
  });

  it('looks up a key with a part of 200 bytes and of 1,024 bytes in all; one byte more is not one of your uploads', async () => {
    // docs/uploads.md: no part below the prefix over 200 bytes, at most 1,024 bytes in all (UTF-8).
    const prefix = userUploadPrefix(h.owner.id);
    const part = (bytes: number) => `${'é'.repeat(Math.floor(bytes / 2))}${bytes % 2 ? 'p' : ''}`;
    const filled = (bytes: number) => {
      // Parts of 100 bytes and their slashes, then the rest (1 to 101 bytes).
      const rest = bytes - Buffer.byteLength(prefix);
      const full = Math.floor((rest - 1) / 101);
      return `${prefix}${`${part(100)}/`.repeat(full)}${part(rest - 101 * full)}`;
    };
    const [longPart, longKey] = [`${prefix}${part(200)}`, filled(1024)];
    assert.deepEqual([Buffer.byteLength(longPart) - prefix.length, Buffer.byteLength(longKey)], [200, 1024]);
    const lookedUp = await send({ content: 'x', attachments: [{ key: longPart }, { key: longKey }] });
    const past = [`${prefix}${part(201)}`, filled(1025)];
    const refused = await send({ content: 'x', attachments: past.map((key) => ({ key })) });
    assert.deepEqual(
      [lookedUp.body.detail, refused.body.detail],
      [
        [
          valueError(['body', 'attachments', 0, 'key'], longPart, 'no uploaded file at this key'),
          valueError(['body', 'attachments', 1, 'key'], longKey, 'no uploaded file at this key'),
        ],
        past.map((key, i) =>
          valueError(['body', 'attachments', i, 'key'], key, 'key is not one of your uploads'),
        ),
      ],
    );
  });

  it('refuses unsupported types at the key, or at media_type when the client named it', async () => {
    const video = await upload('clip.mp4', { type: 'video/mp4' });
    const unknown = await upload('data.bin');
    const png = await upload('ok.png', { type: 'image/png' });
    const res = await send({
      content: 'x',
      attachments: [{ key: video }, { key: unknown }, { key: png, media_type: 'image/tiff' }],
    });
    const supported =
      'images: png, jpeg, gif, webp; documents: pdf, csv, doc, docx, xls, xlsx, html, txt, md';
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 0, 'key'], video, `unsupported file type (supported: ${supported})`),
      valueError(
        ['body', 'attachments', 1, 'key'],
        unknown,
        `unsupported file type (supported: ${supported})`,
      ),
      valueError(
        ['body', 'attachments', 2, 'media_type'],
        'image/tiff',
        `unsupported media type (supported: ${supported})`,
      ),
    ]);
  });

  it('a stored type that names an unsupported format is refused, whatever the file is called', async () => {
    // An upload signed as video/mp4 under the name clip.png: its bytes are a video, so it is no PNG.
    const video = await upload('clip.png', { type: 'video/mp4' });
    const res = await send({ content: 'x', attachments: [{ key: video }] });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail, [
      valueError(
        ['body', 'attachments', 0, 'key'],
        video,
        'unsupported file type (supported: images: png, jpeg, gif, webp; documents: pdf, csv, doc, docx, xls, xlsx, html, txt, md)',
      ),
    ]);
    // A generic stored type still leaves it to the extension.
    const generic = await upload('chart.png', { type: 'binary/octet-stream' });
    const named = await send({ content: 'x', attachments: [{ key: generic }] });
    assert.deepEqual(named.body.content?.[1], {
      image: { format: 'png', source: { s3Location: { uri: uri(generic) } } },
    });
  });

  it('an image is in the format its bytes are in, whatever its name or declared type says', async () => {
    // Converse compares the bytes with the block's format and refuses a mismatch.
    const jpegNamedPng = await upload('photo.png', { type: 'image/png', image: 'jpeg' });
    const gifAsWebp = await upload('anim.webp', { type: 'application/octet-stream', image: 'gif' });
    const pngDeclaredJpg = await upload('shot', { type: 'binary/octet-stream', image: 'png' });
    const webp = await upload('pic.jpg', { image: 'webp' });
    const res = await send({
      content: 'x',
      attachments: [
        { key: jpegNamedPng },
        { key: gifAsWebp },
        { key: pngDeclaredJpg, media_type: 'image/jpg' },
        { key: webp },
      ],
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.content.slice(1), [
      { image: { format: 'jpeg', source: { s3Location: { uri: uri(jpegNamedPng) } } } },
      { image: { format: 'gif', source: { s3Location: { uri: uri(gifAsWebp) } } } },
      { image: { format: 'png', source: { s3Location: { uri: uri(pngDeclaredJpg) } } } },
      { image: { format: 'webp', source: { s3Location: { uri: uri(webp) } } } },
    ]);
  });

  it('a binary document whose first bytes are not of its format is refused at its key', async () => {
    // An HTML error page saved as report.pdf, a PDF named .docx, a ZIP named .xls; a PDF whose header
    // follows some leading bytes, as readers allow within the first KiB, is fine.
    const html = await put('report.pdf', Buffer.from('<!doctype html><title>404</title>'), 'application/pdf');
    const pdfAsDocx = await put('memo.docx', Buffer.from('%PDF-1.7\n'));
    const zipAsXls = await put('sheet.xls', Buffer.from([...ZIP, 1, 2, 3, 4]));
    const late = await put('late.pdf', Buffer.concat([Buffer.alloc(900, 0x20), Buffer.from('%PDF-1.7\n')]));
    // Past the first KiB is too late, though more of the file is read (a JPEG's frame header may be far).
    const tooLate = await put(
      'too-late.pdf',
      Buffer.concat([Buffer.alloc(1020, 0x20), Buffer.from('%PDF-1.7\n')]),
    );
    const res = await send({
      content: 'x',
      attachments: [{ key: html }, { key: pdfAsDocx }, { key: zipAsXls }, { key: late }, { key: tooLate }],
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 0, 'key'], html, 'the file is not in pdf format'),
      valueError(['body', 'attachments', 1, 'key'], pdfAsDocx, 'the file is not in docx format'),
      valueError(['body', 'attachments', 2, 'key'], zipAsXls, 'the file is not in xls format'),
      valueError(['body', 'attachments', 4, 'key'], tooLate, 'the file is not in pdf format'),
    ]);
    const ok = await send({
      content: 'x',
      attachments: [
        { key: late },
        {
          key: zipAsXls,
          name: 'sheet.xlsx',
          media_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        },
      ],
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(
      ok.body.content.slice(1).map((b: { document: { format: string } }) => b.document.format),
      ['pdf', 'xlsx'],
    );
  });

  it('a text document must read as UTF-8 text: a PDF or an image typed as text is refused at its key', async () => {
    // Converse parses a document's bytes as its format; one that fails would break every later turn.
    const NOT_TEXT = 'the file is not UTF-8 text';
    const pdf = await put(
      'scan.pdf',
      Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1'),
      'text/plain',
    );
    const png = await put('chart.csv', header.png(10, 10));
    const utf16 = await put('notes.txt', Buffer.from('\ufeffhello', 'utf16le'));
    const latin1 = await put('prices.csv', Buffer.from('caf\xe9;3\n', 'latin1'));
    // A whole file ending mid-character is not text; a longer one cut there by the bytes read is.
    const cutShort = await put('short.md', Buffer.from('# r\xc3', 'latin1'));
    const euro = Buffer.from('€'); // 3 bytes: one straddles the end of the bytes read
    const long = Buffer.concat([Buffer.alloc(ATTACHMENT_START_BYTES - 1, 0x61), euro, euro]);
    const cutByRead = await put('long.txt', long);
    const bom = await put('page.html', Buffer.from('\ufeff<!doctype html><p>Grüße</p>'));
    const res = await send({
      content: 'x',
      attachments: [{ key: pdf }, { key: png }, { key: utf16 }, { key: latin1 }, { key: cutShort }],
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(
      res.body.detail,
      [pdf, png, utf16, latin1, cutShort].map((key, i) =>
        valueError(['body', 'attachments', i, 'key'], key, NOT_TEXT),
      ),
    );
    const ok = await send({ content: 'x', attachments: [{ key: cutByRead }, { key: bom }] });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(
      ok.body.content.slice(1).map((b: { document: { format: string } }) => b.document.format),
      ['txt', 'html'],
    );
  });

  it('an image wider or taller than 8000 pixels is refused, where its header states the size', async () => {
    const edge = await put('edge.png', header.png(8000, 8000));
    const wide = await put('wide.png', header.png(8001, 10));
    const tall = await put('tall.gif', header.gif(10, 8001));
    const canvas = await put('canvas.webp', header.webp(9000, 1));
    const res = await send({
      content: 'x',
      attachments: [{ key: edge }, { key: wide }, { key: tall }, { key: canvas }],
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail, [
      valueError(
        ['body', 'attachments', 1, 'key'],
        wide,
        'image is larger than 8000 × 8000 pixels (8001 × 10)',
      ),
      valueError(
        ['body', 'attachments', 2, 'key'],
        tall,
        'image is larger than 8000 × 8000 pixels (10 × 8001)',
      ),
      valueError(
        ['body', 'attachments', 3, 'key'],
        canvas,
        'image is larger than 8000 × 8000 pixels (9000 × 1)',
      ),
    ]);
    // Lossless and lossy WebP state it too; exactly 8000 is fine.
    const lossless = Buffer.alloc(30);
    lossless.write('RIFF', 0);
    lossless.write('WEBPVP8L', 8);
    lossless[20] = 0x2f;
    lossless.writeUInt32LE((8001 - 1) | ((100 - 1) << 14), 21);
    const lossy = Buffer.alloc(30);
    lossy.write('RIFF', 0);
    lossy.write('WEBPVP8 ', 8);
    lossy.set([0x9d, 0x01, 0x2a], 23);
    lossy.writeUInt16LE(8000, 26);
    lossy.writeUInt16LE(8000, 28);
    const [l1, l2] = [await put('l1.webp', lossless), await put('l2.webp', lossy)];
    const webps = await send({ content: 'x', attachments: [{ key: l1 }, { key: l2 }] });
    assert.deepEqual(webps.body.detail, [
      valueError(
        ['body', 'attachments', 0, 'key'],
        l1,
        'image is larger than 8000 × 8000 pixels (8001 × 100)',
      ),
    ]);
    assert.equal((await send({ content: 'x', attachments: [{ key: edge }, { key: l2 }] })).status, 201);
  });

  it('a JPEG wider or taller than 8000 pixels is refused: its frame header is found past its metadata', async () => {
    const wide = await put('wide.jpg', jpeg(9000, 10));
    const tall = await put('tall.jpg', jpeg(10, 8001, { code: 0xc2 })); // progressive
    // Its frame header 60 KB in, after an EXIF segment (a phone photo's metadata is kilobytes).
    const afterExif = await put('exif.jpg', jpeg(9000, 10, { before: [segment(0xe1, exif(60_000))] }));
    // A Huffman table (C4, in the frame headers' range) before the frame is no frame header.
    const huffman = Buffer.from([0x00, 0, 1, ...Array(14).fill(0), 0]);
    const afterTable = await put('table.jpg', jpeg(9000, 10, { before: [segment(0xc4, huffman)] }));
    // The EXIF thumbnail's own frame header (9000 × 10) is inside a segment: skipped, not taken.
    const thumbnail = await put('thumb.jpg', jpeg(100, 100, { before: [segment(0xe1, exif(2000, true))] }));
    // Fill bytes (0xFF) before a marker are allowed; exactly 8000 is fine.
    const edge = await put('edge.jpg', jpeg(8000, 8000, { before: [Buffer.from([0xff, 0xff])] }));
    const res = await send({
      content: 'x',
      attachments: [
        { key: wide },
        { key: tall },
        { key: afterExif },
        { key: afterTable },
        { key: thumbnail },
        { key: edge },
      ],
    });
    assert.equal(res.status, 422, res.text);
    const larger = (size: string) => `image is larger than 8000 × 8000 pixels (${size})`;
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 0, 'key'], wide, larger('9000 × 10')),
      valueError(['body', 'attachments', 1, 'key'], tall, larger('10 × 8001')),
      valueError(['body', 'attachments', 2, 'key'], afterExif, larger('9000 × 10')),
      valueError(['body', 'attachments', 3, 'key'], afterTable, larger('9000 × 10')),
    ]);
    const fine = await send({ content: 'x', attachments: [{ key: thumbnail }, { key: edge }] });
    assert.equal(fine.status, 201, fine.text);
    assert.deepEqual(
      fine.body.content.slice(1).map((b: { image: { format: string } }) => b.image.format),
      ['jpeg', 'jpeg'],
    );
  });

  it('a JPEG whose frame header is past the first 64 KiB is taken unchecked; one with none before its end is refused', async () => {
    // 130 KB of metadata (EXIF, an ICC profile) before a 9000 × 10 frame: past what is read, so taken.
    const far = await put(
      'far.jpg',
      jpeg(9000, 10, { before: [segment(0xe1, exif(65_000)), segment(0xe2, Buffer.alloc(65_000))] }),
    );
    // Cut short inside its EXIF segment; a scan, or the end, before any frame header.
    const cut = await put(
      'cut.jpg',
      jpeg(100, 100, { before: [segment(0xe1, exif(5000))] }).subarray(0, 3000),
    );
    const scanFirst = await put(
      'scan.jpg',
      Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])), jpeg()]),
    );
    const noFrame = await put('end.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    // A segment length below 2 (it counts its own two bytes): no decoder reads on to the frame.
    const badLength = await put(
      'length.jpg',
      jpeg(100, 100, { before: [Buffer.from([0xff, 0xe1, 0x00, 0x01])] }),
    );
    const res = await send({
      content: 'x',
      attachments: [{ key: far }, { key: cut }, { key: scanFirst }, { key: noFrame }, { key: badLength }],
    });
    assert.equal(res.status, 422, res.text);
    const reason = 'the file is a damaged or incomplete jpeg image (no frame header)';
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 1, 'key'], cut, reason),
      valueError(['body', 'attachments', 2, 'key'], scanFirst, reason),
      valueError(['body', 'attachments', 3, 'key'], noFrame, reason),
      valueError(['body', 'attachments', 4, 'key'], badLength, reason),
    ]);
    assert.equal((await send({ content: 'x', attachments: [{ key: far }] })).status, 201);
  });

  it('a file taken for an image whose bytes are no PNG, JPEG, GIF or WebP is refused at its key', async () => {
    const html = await upload('page.png', { type: 'image/png', image: 'none' });
    const pdfAsImage = await upload('scan.pdf', { type: 'application/pdf' });
    const res = await send({
      content: 'x',
      attachments: [{ key: html }, { key: pdfAsImage, media_type: 'image/jpeg' }],
    });
    assert.equal(res.status, 422, res.text);
    const reason = 'the file is not a png, jpeg, gif or webp image';
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 0, 'key'], html, reason),
      valueError(['body', 'attachments', 1, 'key'], pdfAsImage, reason),
    ]);
    // An empty object has no first bytes to read (S3 answers a range over it with 416): an empty
    // image is refused the same way, an empty text file still found.
    const emptyPng = await upload('empty.png', { type: 'image/png', bytes: 0 });
    const emptyText = await upload('empty.txt', { type: 'text/plain', bytes: 0 });
    const empty = await send({ content: 'x', attachments: [{ key: emptyPng }, { key: emptyText }] });
    assert.deepEqual(empty.body.detail, [valueError(['body', 'attachments', 0, 'key'], emptyPng, reason)]);
    const text = await send({ content: 'x', attachments: [{ key: emptyText }] });
    assert.equal(text.body.content[1].document.format, 'txt');
    // An empty object's stored type decides as any object's does: a text file named .png is text, a
    // video is unsupported.
    const textAsPng = await upload('empty-text.png', { type: 'text/plain', bytes: 0 });
    const video = await upload('clip.png', { type: 'video/mp4', bytes: 0 });
    const stored = await send({ content: 'x', attachments: [{ key: textAsPng }, { key: video }] });
    assert.deepEqual(stored.body.detail, [
      valueError(
        ['body', 'attachments', 1, 'key'],
        video,
        'unsupported file type (supported: images: png, jpeg, gif, webp; documents: pdf, csv, doc, docx, xls, xlsx, html, txt, md)',
      ),
    ]);
    const typed = await send({ content: 'x', attachments: [{ key: textAsPng }] });
    assert.equal(typed.body.content[1].document.format, 'txt');
  });

  it('the embedded S3 answers a range over an empty object as S3 does: 416 InvalidRange', async () => {
    // What the attachment check relies on: one ranged GET answers every object but an empty one.
    const key = await upload('empty.bin', { bytes: 0 });
    const read = (Range: string) =>
      s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: key, Range }));
    for (const range of ['bytes=0-31', 'bytes=0-0'])
      await assert.rejects(read(range), (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
        assert.deepEqual([error.name, error.$metadata?.httpStatusCode], ['InvalidRange', 416]);
        return true;
      });
    // A range past a short object's end answers what there is, with the whole size.
    const short = await upload('short.bin', { bytes: 10 });
    const part = await s3().send(
      new GetObjectCommand({ Bucket: config.bucketName, Key: short, Range: 'bytes=0-1023' }),
    );
    assert.deepEqual([part.ContentLength, part.ContentRange], [10, 'bytes 0-9/10']);
    assert.equal((await part.Body!.transformToByteArray()).length, 10);
  });

  it('checks each attachment with one S3 request beside the session read: two waves in all', async () => {
    // A ranged GET answers the type, the whole size (Content-Range) and the first bytes at once.
    const keys = [
      await upload('photo.png', { type: 'image/png' }),
      await upload('report.pdf', { type: 'application/pdf' }),
      await upload('notes.md', { type: 'text/markdown' }),
    ];
    const dynamo = recordDynamoRequests();
    const objects = recordS3Requests();
    try {
      const res = await send({ content: 'x', attachments: keys.map((key) => ({ key })) });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(objects.commands(), ['GetObjectCommand', 'GetObjectCommand', 'GetObjectCommand']);
      assert.equal(wavesOf([...dynamo.requests, ...objects.requests]), 2);
    } finally {
      dynamo.stop();
      objects.stop();
    }
  });

  it('a message sorts by when it was written: a poller’s `after` past a quicker later send still finds it', async () => {
    // Its id was taken before its attachment was read: a send answered meanwhile got a newer one, and
    // a poller holding that newer id never saw the slower message.
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Poll' } })).body.id;
    const png = await upload('slow.png', { type: 'image/png' });
    const name = 'slow-attachment-read';
    // The slow send's attachment read waits until the quick send is answered and polled for.
    let reading: () => void = () => undefined;
    let release: () => void = () => undefined;
    const read = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'GetObjectCommand') return next(args);
        reading();
        await released;
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const url = `/api/v1/chat/sessions/${chat}/messages`;
      const slow = h.call('POST', url, { json: { content: 'with a file', attachments: [{ key: png }] } });
      await read;
      const quick = await h.call('POST', url, { json: { content: 'quick' } });
      assert.equal(quick.status, 201);
      const polled = await h.call('GET', `${url}?after=${quick.body.id}`);
      assert.deepEqual(polled.body.messages, []);
      release();
      const answered = await slow;
      assert.equal(answered.status, 201);
      const next = await h.call('GET', `${url}?after=${quick.body.id}`);
      assert.deepEqual(
        next.body.messages.map((message: { id: string }) => message.id),
        [answered.body.id],
      );
    } finally {
      release(); // a failed assertion must not leave the slow send waiting
      s3().middlewareStack.remove(name);
    }
  });

  it('a document’s name loses only an extension that names a type, not the end of a version number', async () => {
    const pdf = await upload('notes.pdf', { type: 'application/pdf' });
    const res = await send({
      content: 'x',
      attachments: [
        { key: pdf, name: 'Release notes v1.2' },
        { key: pdf, name: 'Budget 2025.XLSX' },
        { key: pdf, name: 'minutes.2024.11.md' },
      ],
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      res.body.content.slice(1).map((b: { document: { name: string } }) => b.document.name),
      ['Release notes v1 2', 'Budget 2025', 'minutes 2024 11'],
    );
  });

  it('document names are unique within the session, which the agent replays to Converse as one request', async () => {
    // Converse refuses a request whose messages hold two documents of one name ("Messages can't
    // contain duplicate document names"), and the agent sends the session's history with each turn.
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Re-sent' } })).body.id;
    const sendTo = (id: string, attachments: unknown[]) =>
      h.call('POST', `/api/v1/chat/sessions/${id}/messages`, { json: { content: 'x', attachments } });
    type Message = { content: { document?: { name: string } }[] };
    const namesIn = (message: Message) => message.content.slice(1).map((b) => b.document?.name);
    const names = (res: { body: Message }) => namesIn(res.body);
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const report = await upload('報告書.pdf', { type: 'application/pdf' });
    assert.deepEqual(names(await sendTo(chat, [{ key: notes }, { key: report }])), ['notes', 'document']);
    assert.deepEqual(names(await sendTo(chat, [{ key: notes }])), ['notes (2)']);
    assert.deepEqual(names(await sendTo(chat, [{ key: report }, { key: notes, name: 'NOTES.txt' }])), [
      'document (2)',
      'NOTES (3)',
    ]);
    // Another session starts afresh; a refused message takes no name.
    const other = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Fresh' } })).body.id;
    const refused = await sendTo(other, [
      { key: notes },
      { key: `${userUploadPrefix(h.owner.id)}x/gone.md` },
    ]);
    assert.equal(refused.status, 422);
    assert.deepEqual(names(await sendTo(other, [{ key: notes }])), ['notes']);
    // What is stored is what was answered.
    const listed = await h.call('GET', `/api/v1/chat/sessions/${chat}/messages`);
    assert.deepEqual(listed.body.messages.flatMap(namesIn), [
      'notes',
      'document',
      'notes (2)',
      'document (2)',
      'NOTES (3)',
    ]);
  });

  it('sends at the same moment take distinct document names, and every message is stored', async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Racing' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const sent = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.call('POST', url, { json: { content: 'x', attachments: [{ key: notes }] } }),
      ),
    );
    assert.deepEqual(
      sent.map((res) => res.status),
      sent.map(() => 201),
    );
    const nameOf = (message: { content: { document?: { name: string } }[] }) =>
      message.content[1]!.document!.name;
    // Numbered in the order the claims land; a send overtaken three times takes its own mark instead.
    const names = sent.map((res) => nameOf(res.body)).sort();
    assert.equal(new Set(names).size, 5, names.join());
    assert.ok(names.includes('notes'), names.join());
    for (const name of names) assert.match(name, /^notes(?: \([2-5]\)| \([0-9a-f]{6}\))?$/);
    // Stored as answered, and the session holds exactly these names.
    const listed = (await h.call('GET', url)).body.messages;
    assert.deepEqual(
      listed,
      sent.map((res) => res.body).sort((a, b) => a.id.localeCompare(b.id)),
    );
    const item = await getItem<{ document_names: Set<string> }>(chatKeys.documentNames(chat));
    assert.deepEqual([...item!.document_names].sort(), names);
  });

  it('twin requests with one Idempotency-Key claim their document names once, without renaming', async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Twins' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const json = { content: 'x', attachments: [{ key: notes }] };
    const sent = await Promise.all(
      Array.from({ length: 6 }, () => h.call('POST', url, { json, headers: { 'idempotency-key': 'twins' } })),
    );
    assert.deepEqual(new Set(sent.map((res) => JSON.stringify([res.status, res.body]))).size, 1);
    assert.equal(sent[0]!.body.content[1].document.name, 'notes');
    assert.deepEqual((await h.call('GET', url)).body.messages, [sent[0]!.body]);
    const item = await getItem<{ document_names: Set<string> }>(chatKeys.documentNames(chat));
    assert.deepEqual([...item!.document_names], ['notes']);
  });

  it('a twin that reads the session after its first request claimed the names chooses the same ones: none leaks', async () => {
    // The first request's names claim lands and its message's put is held; the twin reads the session
    // then. The names its own message id holds are its own, not taken (before: it chose `notes (2)`,
    // and the session held `notes` for no message).
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Late twin' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const request = {
      json: { content: 'x', attachments: [{ key: notes }] },
      headers: { 'idempotency-key': 'late' },
    };
    const name = `hold-first-message-put-${chat}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = true;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const key = JSON.stringify((args.input as { Item?: { sk?: string } }).Item?.sk ?? '');
        if (holding && context.commandName?.startsWith('Put') && key.includes('MSG#')) {
          holding = false;
          await held;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const first = h.call('POST', url, request);
      const claimed = async () =>
        (await getItem<{ document_names?: Set<string> }>(chatKeys.documentNames(chat)))?.document_names?.has(
          'notes',
        );
      while (!(await claimed())) await setTimeout(5);
      const twin = await h.call('POST', url, request);
      release();
      const answers = [await first, twin];
      assert.deepEqual(
        answers.map((res) => [res.status, res.body.content?.[1]?.document?.name]),
        [
          [201, 'notes'],
          [201, 'notes'],
        ],
      );
      assert.deepEqual((await h.call('GET', url)).body.messages, [answers[0]!.body]);
      const item = await getItem<{ document_names: Set<string> }>(chatKeys.documentNames(chat));
      assert.deepEqual([...item!.document_names], ['notes']);
    } finally {
      release();
      dynamo().middlewareStack.remove(name);
    }
  });

  it('keeps document names beside the session item, not on it: its reads and its owner’s list stay small', async () => {
    // Up to 1,000 names and their owners (about 240 KB) on the session item made every message list's
    // session check and the owner's session list read them (50 such sessions: 12 MB for 6 KB of list).
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Light' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const sent = await h.call('POST', url, { json: { content: 'x', attachments: [{ key: notes }] } });
    assert.equal(sent.status, 201, sent.text);
    const session = await getItem<Record<string, unknown>>(chatKeys.session(chat));
    assert.deepEqual([session!.document_names, session!.document_name_owners], [undefined, undefined]);
    const names = await getItem<{ kind: string; document_names: Set<string> }>(chatKeys.documentNames(chat));
    assert.deepEqual([names!.kind, [...names!.document_names]], ['chat_document_names', ['notes']]);
    // A session that kept its names on its own item, as sessions did before, still has them counted.
    const older = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Older' } })).body.id;
    await updateItem(chatKeys.session(older), { add: { document_names: new Set(['notes']) } });
    const next = await h.call('POST', `/api/v1/chat/sessions/${older}/messages`, {
      json: { content: 'x', attachments: [{ key: notes }] },
    });
    assert.equal(next.body.content[1].document.name, 'notes (2)');
  });

  it('a message whose document name was taken after the session read is renamed before it is answered', async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Overtaken' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    // Another send takes the names just before ours claims them: once, then (below) every time.
    let overtake = 1;
    const stop = takeNamesBeforeClaim(chat, () => overtake-- > 0);
    try {
      const renamed = await h.call('POST', url, { json: { content: 'x', attachments: [{ key: notes }] } });
      assert.equal(renamed.status, 201, renamed.text);
      assert.equal(renamed.body.content[1].document.name, 'notes (2)');
      assert.deepEqual((await h.call('GET', url)).body.messages, [renamed.body]);
      // Overtaken on every round: 503 (retry), and no message left with a name another holds.
      overtake = Number.POSITIVE_INFINITY;
      const refused = await h.call('POST', url, { json: { content: 'y', attachments: [{ key: notes }] } });
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual((await h.call('GET', url)).body.messages, [renamed.body]);
    } finally {
      stop();
    }
  });

  it('a send whose document names cannot be claimed (a fault) leaves no message; its keyed retry claims them', async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Faulty' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const json = { content: 'x', attachments: [{ key: notes }] };
    // The names' claim (the session's UpdateItem) fails once per send, after the SDK's own retries;
    // the message's PutItem beside it succeeds.
    let failures = 0;
    const stop = throttleDynamo(
      `fail-name-claim-${chat}`,
      (command, input) =>
        command.startsWith('Update') &&
        JSON.stringify(input.Key).includes(chat) &&
        String(input.ConditionExpression).includes('contains') &&
        failures-- > 0,
    );
    try {
      failures = 1;
      const plain = await h.call('POST', url, { json });
      assert.equal(plain.status, 503, plain.text);
      // No message holds a name the session does not: a resend (or the next file) names it anew.
      assert.deepEqual((await h.call('GET', url)).body.messages, []);
      failures = 1;
      const headers = { 'idempotency-key': 'faulty' };
      assert.equal((await h.call('POST', url, { json, headers })).status, 503);
      const retried = await h.call('POST', url, { json, headers });
      assert.equal(retried.status, 201, retried.text);
      const next = await h.call('POST', url, { json });
      assert.equal(next.status, 201, next.text);
      const names = (await h.call('GET', url)).body.messages.map(
        (m: { content: { document?: { name: string } }[] }) => m.content[1]!.document!.name,
      );
      assert.equal(new Set(names).size, names.length, `duplicate document names: ${names.join(', ')}`);
      assert.equal(names.length, 2);
    } finally {
      stop();
    }
  });

  it('a send without a key whose renamed message cannot be rewritten (a fault) gives back the name it claimed', async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Unwritten' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const json = { content: 'x', attachments: [{ key: notes }] };
    // Another send takes `notes` just before ours claims it; ours claims `notes (2)`, then the rewrite
    // of its message with that name fails (after the SDK's own retries).
    let overtake = 1;
    const stop = takeNamesBeforeClaim(chat, () => overtake-- > 0);
    const unthrottle = throttleDynamo(
      `fail-rewrite-${chat}`,
      (command, input) => command.startsWith('Update') && JSON.stringify(input.Key).includes('MSG#'),
    );
    try {
      const failed = await h.call('POST', url, { json });
      assert.equal(failed.status, 503, failed.text);
    } finally {
      stop();
      unthrottle();
    }
    assert.deepEqual((await h.call('GET', url)).body.messages, []);
    // Only the other send's name stays (before, `notes (2)` too, held by no message: the retry's
    // was `notes (3)`).
    const item = await getItem<{ document_names: Set<string> }>(chatKeys.documentNames(chat));
    assert.deepEqual([...item!.document_names], ['notes']);
    const retry = await h.call('POST', url, { json });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.content[1].document.name, 'notes (2)');
  });

  it("a send whose plain names keep being taken gets a name marked with its message's id, not a 503", async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Crowded' } })).body.id;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    // Other sends take every plain name ours chooses ("notes", "notes (2)", …) just before it claims.
    const plain = /^notes(?: \([1-9]\d{0,2}\))?$/;
    const stop = takeNamesBeforeClaim(chat, (chosen) => chosen.every((name) => plain.test(name)));
    try {
      const sent = await h.call('POST', url, { json: { content: 'x', attachments: [{ key: notes }] } });
      assert.equal(sent.status, 201, sent.text);
      const mark = sent.body.id.replaceAll('-', '').slice(-6);
      assert.equal(sent.body.content[1].document.name, `notes (${mark})`);
      assert.deepEqual((await h.call('GET', url)).body.messages, [sent.body]);
    } finally {
      stop();
    }
  });

  it('a session holds at most its limit of documents: past it, 409 and nothing written', async () => {
    // Every document name stays on the session's names item (above), which DynamoDB caps at 400 KB.
    // Half of them on the session item itself, where sessions kept them before: they count too.
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Full' } })).body.id;
    const held = Array.from({ length: CHAT_LIMITS.sessionDocuments - 2 }, (_, i) => `held ${i}`);
    const half = held.length / 2;
    await updateItem(chatKeys.session(chat), { add: { document_names: new Set(held.slice(0, half)) } });
    await updateItem(chatKeys.documentNames(chat), { add: { document_names: new Set(held.slice(half)) } });
    const docs = await Promise.all(
      ['a.md', 'b.md', 'c.md'].map((name) => upload(name, { type: 'text/markdown' })),
    );
    const sendTo = (keys: string[]) =>
      h.call('POST', `/api/v1/chat/sessions/${chat}/messages`, {
        json: { content: 'x', attachments: keys.map((key) => ({ key })) },
      });
    const refused = await sendTo(docs);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, { detail: SESSION_FULL });
    assert.deepEqual((await h.call('GET', `/api/v1/chat/sessions/${chat}/messages`)).body.messages, []);
    // Up to the limit exactly, and a message without documents after it, are fine.
    assert.equal((await sendTo(docs.slice(0, 2))).status, 201);
    assert.equal((await sendTo([])).status, 201);
    assert.equal((await sendTo(docs.slice(2))).status, 409);
  });

  it('sends at the same moment take only the places left: the limit holds, and the refused store nothing', async () => {
    // Each send reads the session with room for its document; the claim of its name decides. Before,
    // every send that read room landed (5 parallel sends for 1 place: 5 stored, 1,004 names).
    const limit = CHAT_LIMITS.sessionDocuments;
    type Message = { id: string; content: { document?: { name: string } }[] };
    const ids = (messages: Message[]) => messages.map((m) => m.id).sort();
    const held = (from: number, count: number) =>
      new Set(Array.from({ length: count }, (_, i) => `held ${from + i}`));
    /** `kept` names on the session item (where sessions kept them before: they count), `named` on its
     * names item, then one parallel send of each file. */
    const race = async (kept: number, named: number, files: string[]) => {
      const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Limit' } })).body.id;
      if (kept > 0) await updateItem(chatKeys.session(chat), { add: { document_names: held(0, kept) } });
      await updateItem(chatKeys.documentNames(chat), { add: { document_names: held(kept, named) } });
      const url = `/api/v1/chat/sessions/${chat}/messages`;
      const sent = await Promise.all(
        files.map((key) => h.call('POST', url, { json: { content: 'x', attachments: [{ key }] } })),
      );
      const landed = sent.filter((res) => res.status === 201);
      for (const res of sent.filter((res) => res.status !== 201))
        assert.deepEqual([res.status, res.body], [409, { detail: SESSION_FULL }]);
      const listed: Message[] = (await h.call('GET', url)).body.messages;
      const names = (await getItem<{ document_names: Set<string> }>(chatKeys.documentNames(chat)))!
        .document_names;
      const stored = listed.flatMap((m) => m.content.slice(1).map((b) => b.document!.name.toLowerCase()));
      return {
        landed: landed.length,
        names: kept + names.size,
        // Every stored message was answered, and holds names the session holds.
        answered: ids(listed).join() === ids(landed.map((res) => res.body)).join(),
        claimed: stored.every((name) => names.has(name)),
      };
    };
    const distinct = await Promise.all(
      ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'].map((name) => upload(name, { type: 'text/markdown' })),
    );
    const same = await upload('notes.md', { type: 'text/markdown' });
    const full = { names: limit, answered: true, claimed: true };
    // One place left, five distinct documents.
    assert.deepEqual(await race(0, limit - 1, distinct), { landed: 1, ...full });
    const half = (limit - 2) / 2;
    // One place left, half the names kept on the session item: the claims' room counts them too.
    assert.deepEqual(await race(half, half + 1, distinct), { landed: 1, ...full });
    // Two places, half the names kept on the session item; five sends of one name, renamed as they race.
    assert.deepEqual(await race(half, half, [same, same, same, same, same]), { landed: 2, ...full });
  });

  it('a send whose claim finds the last place taken since its read answers 409 and leaves no message', async () => {
    const limit = CHAT_LIMITS.sessionDocuments;
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const json = { content: 'x', attachments: [{ key: notes }] };
    for (const headers of [{}, { 'idempotency-key': 'last place' }] as Record<string, string>[]) {
      const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Overtaken' } })).body.id;
      const held = Array.from({ length: limit - 1 }, (_, i) => `held ${i}`);
      await updateItem(chatKeys.documentNames(chat), { add: { document_names: new Set(held) } });
      const url = `/api/v1/chat/sessions/${chat}/messages`;
      // Another send takes the last place (under another name) just before ours claims: no name clash.
      const stop = takeNamesBeforeClaim(
        chat,
        () => true,
        () => ['theirs'],
      );
      try {
        const refused = await h.call('POST', url, { json, headers });
        assert.deepEqual([refused.status, refused.body], [409, { detail: SESSION_FULL }]);
      } finally {
        stop();
      }
      assert.deepEqual((await h.call('GET', url)).body.messages, []);
      const item = await getItem<{ document_names: Set<string> }>(chatKeys.documentNames(chat));
      assert.deepEqual([item!.document_names.size, item!.document_names.has('notes')], [limit, false]);
      // A keyed retry reads the session full: the same 409, and still no message.
      const retried = await h.call('POST', url, { json, headers });
      assert.deepEqual([retried.status, retried.body], [409, { detail: SESSION_FULL }]);
      assert.deepEqual((await h.call('GET', url)).body.messages, []);
    }
  });

  it('names kept on the session item that its names item holds too count once, in the claim as in the read', async () => {
    // A session whose older names (on its own item) were claimed again on its names item (a send of the
    // code before the move racing one of the code after): the read counts the union, and so must the
    // claim's room, or the last places are refused as taken (5 rounds of renaming, then 503).
    const limit = CHAT_LIMITS.sessionDocuments;
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Both' } })).body.id;
    const names = (from: number, to: number) =>
      new Set(Array.from({ length: to - from }, (_, i) => `held ${from + i}`));
    // 600 on the session item, 499 on the names item, 100 of them on both: 999 names, one place left.
    await updateItem(chatKeys.session(chat), { add: { document_names: names(0, 600) } });
    await updateItem(chatKeys.documentNames(chat), { add: { document_names: names(500, limit - 1) } });
    const docs = await Promise.all(['a.md', 'b.md'].map((name) => upload(name, { type: 'text/markdown' })));
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const sendOne = (key: string) => h.call('POST', url, { json: { content: 'x', attachments: [{ key }] } });
    const last = await sendOne(docs[0]!);
    assert.equal(last.status, 201, last.text);
    const full = await sendOne(docs[1]!);
    assert.deepEqual([full.status, full.body], [409, { detail: SESSION_FULL }]);
    assert.deepEqual(
      (await h.call('GET', url)).body.messages.map((m: { id: string }) => m.id),
      [last.body.id],
    );
  });

  it('twin requests with one Idempotency-Key share the last place: one message, answered to each', async () => {
    const chat = (await h.call('POST', '/api/v1/chat/sessions', { json: { title: 'Twins at the limit' } }))
      .body.id;
    const held = Array.from({ length: CHAT_LIMITS.sessionDocuments - 1 }, (_, i) => `held ${i}`);
    await updateItem(chatKeys.documentNames(chat), { add: { document_names: new Set(held) } });
    const notes = await upload('notes.md', { type: 'text/markdown' });
    const url = `/api/v1/chat/sessions/${chat}/messages`;
    const json = { content: 'x', attachments: [{ key: notes }] };
    const sent = await Promise.all(
      Array.from({ length: 6 }, () => h.call('POST', url, { json, headers: { 'idempotency-key': 'last' } })),
    );
    assert.deepEqual(new Set(sent.map((res) => JSON.stringify([res.status, res.body]))).size, 1);
    assert.equal(sent[0]!.status, 201, sent[0]!.text);
    assert.deepEqual((await h.call('GET', url)).body.messages, [sent[0]!.body]);
  });

  it('refuses images over 3.75 MB and documents over 4.5 MB; exactly at the limit is fine', async () => {
    const bigImage = await upload('big.webp', {
      type: 'image/webp',
      bytes: ATTACHMENT_LIMITS.imageBytes + 1,
    });
    const bigDoc = await upload('big.csv', { type: 'text/csv', bytes: ATTACHMENT_LIMITS.documentBytes + 1 });
    const res = await send({ content: 'x', attachments: [{ key: bigImage }, { key: bigDoc }] });
    assert.deepEqual(res.body.detail, [
      valueError(['body', 'attachments', 0, 'key'], bigImage, 'image is larger than 3.75 MB (3932160 bytes)'),
      valueError(['body', 'attachments', 1, 'key'], bigDoc, 'document is larger than 4.5 MB (4718592 bytes)'),
    ]);
    const atLimit = await upload('edge.gif', { type: 'image/gif', bytes: ATTACHMENT_LIMITS.imageBytes });
    assert.equal((await send({ content: 'x', attachments: [{ key: atLimit }] })).status, 201);
  });

  it('takes a document of exactly 4.5 MB, a key of 1,024 characters, a name and a media_type of 255; one more is string_too_long', async () => {
    // docs/chat.md: documents ≤ 4,718,592 bytes; key 1–1024, name 1–255, media_type 1–255.
    const edge = await upload('edge.txt', { type: 'text/plain', bytes: 4_718_592 });
    const name = '😀'.repeat(255);
    assert.equal((await send({ content: 'x', attachments: [{ key: edge, name }] })).status, 201);
    const prefix = userUploadPrefix(h.owner.id);
    const rest = 1024 - prefix.length;
    const key = `${prefix}${'k'.repeat(rest % 100 || 100)}${'/'.padEnd(100, 'k').repeat(Math.ceil(rest / 100) - 1)}`;
    assert.equal(key.length, 1024);
    const mediaType = `image/${'p'.repeat(249)}`;
    const atLimits = await send({
      content: 'x',
      attachments: [{ key }, { key: edge, media_type: mediaType }],
    });
    // Past the length checks: no object there, and a type no model reads.
    assert.deepEqual(
      atLimits.body.detail.map((d: { loc: unknown[]; msg: string }) => [d.loc, d.msg.split(' (')[0]]),
      [
        [['body', 'attachments', 0, 'key'], 'Value error, no uploaded file at this key'],
        [['body', 'attachments', 1, 'media_type'], 'Value error, unsupported media type'],
      ],
    );
    const listed = async () =>
      (await h.call('GET', `/api/v1/chat/sessions/${session}/messages?limit=100`)).body.messages.length;
    const before = await listed();
    const past = await send({
      content: 'x',
      attachments: [{ key: `${key}k` }, { key: edge, name: `${name}x`, media_type: `${mediaType}p` }],
    });
    assert.equal(past.status, 422);
    const tooLong = (loc: (string | number)[], max: number, input: string) => ({
      type: 'string_too_long',
      loc: ['body', 'attachments', ...loc],
      msg: `String should have at most ${max} characters`,
      input,
      ctx: { max_length: max },
    });
    assert.deepEqual(past.body.detail, [
      tooLong([0, 'key'], 1024, `${key}k`),
      tooLong([1, 'name'], 255, `${name}x`),
      tooLong([1, 'media_type'], 255, `${mediaType}p`),
    ]);
    assert.equal(await listed(), before);
  });

  it('takes at most 20 images and 5 documents; more than 25 attachments is a list error', async () => {
    const image = await upload('one.png', { type: 'image/png' });
    const doc = await upload('one.txt', { type: 'text/plain' });
    const images = Array.from({ length: 20 }, () => ({ key: image }));
    const docs = Array.from({ length: 5 }, () => ({ key: doc }));
    const full = await send({ content: 'x', attachments: [...images, ...docs] });
    assert.equal(full.status, 201);
    assert.equal(full.body.content.length, 26);
    assert.deepEqual(
      full.body.content.slice(21, 23).map((b: { document: { name: string } }) => b.document.name),
      ['one', 'one (2)'],
      'document names are unique within a message',
    );

    const tooMany = await send({ content: 'x', attachments: [...images, { key: image }, ...docs.slice(1)] });
    assert.deepEqual(tooMany.body.detail, [
      valueError(['body', 'attachments', 20, 'key'], image, 'a message takes at most 20 images'),
    ]);
    const sixDocs = await send({ content: 'x', attachments: [...docs, { key: doc }] });
    assert.deepEqual(sixDocs.body.detail, [
      valueError(['body', 'attachments', 5, 'key'], doc, 'a message takes at most 5 documents'),
    ]);
    const list = [...images, ...docs, { key: doc }];
    const overall = await send({ content: 'x', attachments: list });
    assert.equal(overall.status, 422);
    assert.deepEqual(overall.body.detail, [
      {
        type: 'too_long',
        loc: ['body', 'attachments'],
        msg: 'List should have at most 25 items after validation, not 26',
        input: list, // the list as sent, as FastAPI echoes it
        ctx: { field_type: 'List', max_length: 25, actual_length: 26 },
      },
    ]);
  });

  it('validates the shape of each attachment', async () => {
    const res = await send({ content: 'x', attachments: [{ name: 'no key' }, 'photo.png', { key: '' }] });
    assert.deepEqual(res.body.detail, [
      {
        type: 'missing',
        loc: ['body', 'attachments', 0, 'key'],
        msg: 'Field required',
        input: { name: 'no key' },
      },
      {
        type: 'model_attributes_type',
        loc: ['body', 'attachments', 1],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: 'photo.png',
      },
      {
        type: 'string_too_short',
        loc: ['body', 'attachments', 2, 'key'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ]);
    assert.equal((await send({ content: 'x', attachments: null })).status, 201);
    assert.equal((await send({ content: 'x', attachments: [] })).status, 201);
  });

  it("another user's session is 404 before anything about its attachments", async () => {
    const theirs = await upload('x.png', { type: 'image/png', user: h.other.id });
    const res = await send({ content: 'x', attachments: [{ key: theirs }] }, h.other.token);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Chat session not found' });
  });

  it('document names keep only what Bedrock accepts', () => {
    const taken = new Set<string>();
    assert.equal(documentName('Réunion_été — notes!!.docx', taken), 'Reunion ete notes');
    assert.equal(documentName('uploads/u/1/[draft] plan-v2.PDF', taken), '[draft] plan-v2');
    assert.equal(documentName('???.pdf', taken), 'document');
    assert.equal(documentName('reunion ete notes.txt', taken), 'reunion ete notes (2)');
  });

  it('document names stay within Converse’s 200 characters, however often a session repeats one', () => {
    const taken = new Set<string>();
    const names = Array.from({ length: 120 }, () => documentName(`${'x'.repeat(300)}.pdf`, taken));
    assert.equal(names[0], 'x'.repeat(200));
    assert.equal(names[1], `${'x'.repeat(196)} (2)`);
    assert.equal(names[99], `${'x'.repeat(194)} (100)`);
    assert.ok(
      names.every((name) => name.length <= 200),
      String(names.map((n) => n.length)),
    );
    assert.equal(new Set(names).size, 120);
  });
});
