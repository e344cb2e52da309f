// The brand-kit endpoints over HTTP: drafts from PDF/DOCX (multipart or a direct upload), every bad
// input of issue 5, saving a reviewed draft, reading it back. Real handlers on the embedded stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { strToU8, zipSync } from 'fflate';
import { buildEvent } from '../../infra/local/events.ts';
import { lambdaContext, loadHandler } from '../../infra/local/handlers.ts';
import { routes } from '../../infra/routes.ts';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { BRAND_KIT_LIMITS, BrandKitDraft, TEXT_MAX } from '../../shared/brand-kits/schemas.ts';
import { brandKeys } from '../../shared/brands/keys.ts';
import { setClock } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { DICT_MAX_DEPTH } from '../../shared/http/fields.ts';
import { FORM_LIMITS } from '../../shared/http/multipart.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../shared/http/route.ts';
import { CUT_ECHO_LENGTH } from '../../shared/http/validation.ts';
import { newId } from '../../shared/ids.ts';
import { draftPrefix } from '../../shared/uploads/keys.ts';
import { type RequestRecorder, recordS3Requests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { multipart } from '../support/multipart.ts';
import { scanTable } from '../support/table-scan.ts';
import {
  docxParts,
  encryptedPdf,
  guidelineDocx,
  guidelinePdf,
  paragraph,
  tintSheetPdf,
  withDeclared,
} from './fixtures.ts';

let h: Harness;
let pdf: Buffer;
before(async () => {
  h = await startHarness();
  pdf = Buffer.from(await guidelinePdf());
});
after(() => h.close());

const GENERATE = '/api/v1/brand-kits/generate-from-upload';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MiB = 1024 * 1024;

const fileForm = (content: Uint8Array | string, filename = 'guidelines.pdf', type = 'application/pdf') =>
  multipart({ name: 'file', content, filename, type });

const generate = (form: ReturnType<typeof multipart>, token?: string) =>
  h.call('POST', GENERATE, { ...form, token });

const documentRefused = (
  res: { status: number; body: { detail: { msg: string }[] } },
  loc: string[],
  input: unknown,
) => {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.detail.length, 1);
  const [item] = res.body.detail;
  assert.deepEqual(
    { ...item, msg: undefined },
    { type: 'value_error', loc, msg: undefined, input, ctx: { error: {} } },
  );
  // A plain reason a person can act on.
  assert.match(item!.msg, /^Value error, [A-Z].{10,}/);
  return item!.msg;
};

const tableItems = async () => (await scanTable({ ProjectionExpression: 'pk' })).length;

/** The owner's saved-kit logo copies. */
const kitLogos = async () =>
  (
    await s3().send(
      new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: `brand-kits/${h.owner.id}/` }),
    )
  ).KeyCount ?? 0;

/** A saved logo's copy: one per source under `logos/`, named by the source's digest and its type. */
const logoCopy = (ext: string) => new RegExp(`^brand-kits/${h.owner.id}/logos/[A-Za-z0-9_-]{43}\\.${ext}$`);

/** The keys a save's CopyObjects made (S3's 412 for a copy already there made none), sorted. */
const copiesMade = (recorder: RequestRecorder) =>
  recorder.requests
    .filter((r) => r.command === 'CopyObjectCommand' && r.answered)
    .map((r) => String(r.input.Key))
    .sort();

async function fetchPng(url: string) {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE);
  return bytes;
}

describe('POST /api/v1/brand-kits/generate-from-upload', () => {
  it('drafts a brand kit from a PDF and stores only its logo, under the caller’s draft prefix', async () => {
    const itemsBefore = await tableItems();
    const res = await generate(fileForm(pdf));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), Object.keys(BrandKitDraft.entries).sort());
    assert.equal(res.body.name, 'Acme Rocket');
    assert.equal(res.body.primary_color, '#E4572E');
    assert.deepEqual(res.body.color_palette, ['#E4572E', '#17408B', '#FFC914']);
    assert.equal(res.body.font_headings, 'Montserrat');
    assert.equal(res.body.font_body, 'Merriweather');
    assert.equal(res.body.website_url, 'https://acmerocket.io');
    assert.equal(res.body.social_links.instagram, 'https://www.instagram.com/acmerocket/');
    assert.equal(res.body.logo_fields_authoritative, true);
    assert.match(res.body.logo_key, new RegExp(`^${draftPrefix(h.owner.id)}[0-9a-f-]{36}/logo\\.png$`));
    const url = new URL(res.body.logo_url);
    assert.ok(url.pathname.endsWith(res.body.logo_key));
    assert.ok(Number(url.searchParams.get('X-Amz-Expires')) > 0, 'a time-limited URL');
    await fetchPng(res.body.logo_url);
    // Variants the document shows are stored beside the logo; the others are null, URL included.
    for (const role of ['icon', 'dark', 'square']) {
      const key = res.body[`logo_${role}_key`];
      if (key === null) assert.equal(res.body[`logo_${role}_url`], null, role);
      else {
        assert.equal(key, res.body.logo_key.replace(/logo\.png$/, `${role}.png`));
        await fetchPng(res.body[`logo_${role}_url`]);
      }
    }
    assert.equal(await tableItems(), itemsBefore, 'a draft writes nothing to the table');
  });

  it('detects the type from the bytes, not the file name or the part’s content type', async () => {
    const docx = await generate(fileForm(guidelineDocx(), 'guidelines.pdf', 'application/pdf'));
    assert.equal(docx.status, 200, docx.text);
    assert.equal(docx.body.name, 'Globex');
    assert.equal(docx.body.font_headings, 'Poppins');
    assert.equal(docx.body.font_body, 'Work Sans');
    assert.deepEqual(docx.body.competitors, ['Initech', 'Umbrella Energy', 'Hooli Power']);
    await fetchPng(docx.body.logo_url);
    const asText = await generate(fileForm(pdf, 'notes.txt', 'text/plain'));
    assert.equal(asText.status, 200);
    assert.equal(asText.body.name, 'Acme Rocket');
  });

  it('refuses a request without the file part: 422 missing at ["body","file"]', async () => {
    const missing = {
      detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }],
    };
    for (const res of [
      await generate(multipart({ name: 'note', content: 'no file here' })),
      await h.call('POST', GENERATE),
      await h.call('POST', GENERATE, { body: 'plain text', headers: { 'content-type': 'text/plain' } }),
    ]) {
      assert.equal(res.status, 422);
      assert.deepEqual(res.body, missing);
    }
  });

  it('cuts the echo of a huge text part named file rather than pass Lambda’s response limit', async () => {
    // 1 MiB of control characters, each six bytes once escaped (`\u0001`), and twelve inside Lambda's
    // own JSON: echoed whole, a response past 6 MB (a 500). The item stays; its input is cut.
    const content = '\u0001'.repeat(1024 * 1024);
    const res = await generate(multipart({ name: 'file', content }));
    assert.equal(res.status, 422, res.text.slice(0, 200));
    assert.deepEqual(res.body, {
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'file'],
          msg: "Value error, Expected UploadFile, received: <class 'str'>",
          input: `${content.slice(0, CUT_ECHO_LENGTH)}…`,
          ctx: { error: {} },
        },
      ],
    });
    // Below the limit, the echo is whole, as FastAPI's.
    const whole = await generate(multipart({ name: 'file', content: content.slice(0, 100_000) }));
    assert.equal(whole.body.detail[0].input, content.slice(0, 100_000));
  });

  it('refuses a text part named file as FastAPI does, in a multipart or a URL-encoded form', async () => {
    const notAFile = (input: string) => ({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'file'],
          msg: "Value error, Expected UploadFile, received: <class 'str'>",
          input,
          ctx: { error: {} },
        },
      ],
    });
    const res = await generate(multipart({ name: 'file', content: 'notafile' }));
    assert.deepEqual([res.status, res.body], [422, notAFile('notafile')]);
    // Starlette reads a URL-encoded body as a form too: the last value of a name, an empty one absent.
    const urlEncoded = (body: string) =>
      h.call('POST', GENERATE, { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const encoded = await urlEncoded('file=first&file=caf%C3%A9+notes&__proto__=x');
    assert.deepEqual([encoded.status, encoded.body], [422, notAFile('café notes')]);
    const empty = await urlEncoded('file=');
    assert.deepEqual(empty.body, {
      detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }],
    });
    const many = await urlEncoded(
      Array.from({ length: FORM_LIMITS.fields + 1 }, (_, i) => `f${i}=1`).join('&'),
    );
    assert.deepEqual(
      [many.status, many.body],
      [400, { detail: `Too many fields. Maximum number of fields is ${FORM_LIMITS.fields}.` }],
    );
  });

  it('refuses what is neither PDF nor DOCX with 415, whatever it is called', async () => {
    for (const content of [
      strToU8('just some text'),
      PNG_SIGNATURE,
      zipSync({ 'notes.txt': strToU8('a zip, but not a Word document') }),
    ]) {
      const res = await generate(fileForm(content, 'guidelines.pdf'));
      assert.equal(res.status, 415);
      assert.deepEqual(Object.keys(res.body), ['detail']);
      assert.match(res.body.detail, /PDF|DOCX|Word/);
    }
  });

  it('refuses an encrypted, corrupt or empty document with 422 value_error and a plain reason', async () => {
    const loc = ['body', 'file'];
    const reasons = [
      documentRefused(await generate(fileForm(encryptedPdf())), loc, null),
      documentRefused(
        await generate(fileForm('%PDF-1.7\nthis is not really a pdf at all\n%%EOF')),
        loc,
        null,
      ),
      documentRefused(await generate(fileForm(new Uint8Array(0))), loc, null),
      documentRefused(await generate(fileForm(guidelineDocx().subarray(0, 200), 'g.docx')), loc, null),
    ];
    assert.match(reasons[0]!, /encrypt|password/i);
    assert.match(reasons[2]!, /empty/i);
  });

  it('refuses a DOCX that would inflate past 50 MB or by more than 100× before inflating it', async () => {
    const declared = withDeclared(zipSync(docxParts()), 'word/document.xml', { size: 60 * MiB });
    documentRefused(await generate(fileForm(declared, 'big.docx')), ['body', 'file'], null);
    const parts = docxParts();
    parts['word/media/padding.bin'] = new Uint8Array(8 * MiB);
    const bomb = zipSync(parts, { level: 9 });
    assert.ok(bomb.length < 100 * 1024);
    documentRefused(await generate(fileForm(bomb, 'bomb.docx')), ['body', 'file'], null);
  });

  it('takes a file of exactly 4 MiB and refuses more with 413', async () => {
    const limit = BRAND_KIT_LIMITS.multipartFileBytes;
    const atLimit = await generate(fileForm(Buffer.alloc(limit, 0x41), 'junk.bin'));
    assert.equal(atLimit.status, 415, 'read (and found to be no document), not refused for its size');
    const over = await generate(fileForm(Buffer.alloc(limit + 1, 0x41), 'junk.bin'));
    assert.equal(over.status, 413);
    assert.deepEqual(over.body, { detail: `Request body too large: the limit is ${limit} bytes` });
    // A body past the file limit and its envelope is refused before anything is decoded.
    const huge = await generate(fileForm(Buffer.alloc(6 * MiB, 0x41), 'junk.bin'));
    assert.equal(huge.status, 413);
    assert.deepEqual(huge.body, {
      detail: `Request body too large: the limit is ${BRAND_KIT_LIMITS.multipartBodyBytes} bytes`,
    });
  });

  it('refuses a document that takes too long, within the time it was given', async () => {
    // The function has 2 s left: extraction gets what remains after the reserve for storing logos.
    const route = routes.find((r) => r.path === GENERATE)!;
    const form = fileForm(pdf);
    const event = buildEvent(
      route,
      {},
      {
        method: 'POST',
        url: GENERATE,
        headers: { authorization: `Bearer ${h.owner.token}`, ...form.headers },
        body: form.body,
      },
    );
    const handler = await loadHandler(route);
    const res = await handler(event, lambdaContext(route, 2));
    const body = JSON.parse(res.body ?? '');
    const msg = documentRefused({ status: res.statusCode ?? 0, body }, ['body', 'file'], null);
    // Nothing is left after the reserve, so extraction got its floor of 1 ms, not the usual 10 s.
    assert.equal(msg, 'Value error, Reading the document took longer than 1 ms.');
  });

  it('refuses an unauthenticated caller before reading the body', async () => {
    const res = await generate(fileForm(pdf), null as unknown as string);
    assert.equal(res.status, 401);
  });
});

/** A direct upload through its presigned PUT, as a client makes it; answers the key. */
async function upload(
  content: Uint8Array,
  token = h.owner.token,
  filename = 'guidelines.pdf',
  content_type = 'application/pdf',
) {
  const slot = await h.call('POST', '/api/v1/uploads', {
    json: { filename, content_type, size: content.length },
    token,
  });
  assert.equal(slot.status, 200, slot.text);
  const put = await fetch(slot.body.upload_url, {
    method: 'PUT',
    headers: slot.body.headers,
    body: content,
  });
  assert.equal(put.status, 200);
  return slot.body.key as string;
}

describe('generate-from-upload with a direct upload (upload_key)', () => {
  const fromUpload = (upload_key: unknown, token?: string) =>
    h.call('POST', GENERATE, { json: { upload_key }, token });

  it('drafts from the caller’s own upload', async () => {
    const key = await upload(pdf);
    const res = await fromUpload(key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'Acme Rocket');
    assert.ok(res.body.logo_key.startsWith(draftPrefix(h.owner.id)));
  });

  it('refuses keys outside the caller’s prefix, and missing ones, alike with 404', async () => {
    const othersKey = await upload(pdf, h.other.token);
    for (const key of [
      othersKey,
      `uploads/${h.owner.id}/00000000-0000-7000-8000-000000000000/none.pdf`,
      `uploads/${h.owner.id}/../${othersKey.split('/').slice(1).join('/')}`,
      `drafts/${h.owner.id}/x/logo.png`,
      'brand-kits/anything.png',
      `uploads/${h.owner.id}/x/a\u0000.pdf`, // the S3 client cannot encode it into a URL
    ]) {
      const res = await fromUpload(key);
      assert.equal(res.status, 404, key);
      assert.deepEqual(res.body, { detail: 'Upload not found' });
    }
    // A lone surrogate is no string at all: pydantic's string_unicode, before any key rule.
    const surrogate = await fromUpload(`uploads/${h.owner.id}/x/\ud800.pdf`);
    assert.equal(surrogate.status, 422);
    assert.deepEqual(surrogate.body.detail[0].loc, ['body', 'upload_key']);
    assert.equal(surrogate.body.detail[0].type, 'string_unicode');
    assert.equal((await fromUpload(othersKey, h.other.token)).status, 200);
  });

  it('refuses a key with an empty part or past S3’s 1,024 bytes with 404, before asking S3', async () => {
    // s3rver answers both 404 too, so the proof is that S3 is never asked: S3 answers a key over
    // 1,024 bytes 400 KeyTooLongError, and no key of ours has an empty part (`//`).
    const own = await upload(pdf);
    const [prefix, user, ...rest] = own.split('/');
    // 446 characters, 1,238 bytes of UTF-8, each part 198 bytes.
    const wide = `uploads/${h.owner.id}/${Array(6).fill('€'.repeat(66)).join('/')}`;
    assert.ok(wide.length < 1024 && Buffer.byteLength(wide) > 1024);
    const recorder = recordS3Requests();
    try {
      for (const key of [[prefix, user, '', ...rest].join('/'), wide]) {
        recorder.clear();
        const res = await fromUpload(key);
        assert.deepEqual([res.status, res.body], [404, { detail: 'Upload not found' }], key);
        assert.deepEqual(recorder.commands(), [], key);
      }
    } finally {
      recorder.stop();
    }
  });

  it('refuses an upload over 50 MiB with 413 before downloading it', async () => {
    const key = await upload(pdf);
    const client = s3();
    const seen: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        seen.push(context.commandName as string);
        const result = await next(args);
        // S3 reports the object as one byte over the limit.
        if (context.commandName === 'HeadObjectCommand')
          (result.output as { ContentLength?: number }).ContentLength = BRAND_KIT_LIMITS.uploadBytes + 1;
        return result;
      },
      { step: 'initialize', name: 'oversizedObject' },
    );
    try {
      const res = await fromUpload(key);
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, {
        detail: `Request body too large: the limit is ${BRAND_KIT_LIMITS.uploadBytes} bytes`,
      });
      assert.deepEqual(seen, ['HeadObjectCommand']);
    } finally {
      client.middlewareStack.remove('oversizedObject');
    }
  });

  it('refuses an unreadable upload at ["body","upload_key"], and a body without the key', async () => {
    const key = await upload(encryptedPdf());
    documentRefused(await fromUpload(key), ['body', 'upload_key'], key);
    const notADocument = await upload(strToU8('hello'));
    assert.equal((await fromUpload(notADocument)).status, 415);
    const missing = await h.call('POST', GENERATE, { json: {} });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body, {
      detail: [{ type: 'missing', loc: ['body', 'upload_key'], msg: 'Field required', input: {} }],
    });
    const wrongType = await fromUpload(42);
    assert.deepEqual(wrongType.body.detail[0].type, 'string_type');
  });
  it('holds a JSON body to the JSON limit, not the multipart form’s 4 MiB', async () => {
    const res = await h.call('POST', GENERATE, { json: { upload_key: 'k', pad: 'p'.repeat(300_000) } });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, {
      detail: `Request body too large: the limit is ${DEFAULT_BODY_LIMIT_BYTES} bytes`,
    });
  });
});

describe('POST /api/v1/brand-kits and GET /api/v1/brand-kits/{id}', () => {
  const save = (json: unknown, token?: string) => h.call('POST', '/api/v1/brand-kits', { json, token });
  const brandOf = async (token?: string) => {
    const res = await h.call('POST', '/api/v1/brands', { json: { name: 'Acme' }, token });
    assert.equal(res.status, 201);
    return res.body.id as string;
  };

  it('saves a reviewed draft for the caller’s brand: logos copied for the kit, the brand counts it', async () => {
    const draft = (await generate(fileForm(pdf))).body;
    const brandId = await brandOf();
    const reviewed = { ...draft, brand_id: brandId, tagline: 'To orbit, with joy', accent_color: 'fc0' };
    const res = await save(reviewed);
    assert.equal(res.status, 201, res.text);
    const kit = res.body;
    assert.equal(kit.brand_id, brandId);
    assert.equal(kit.tagline, 'To orbit, with joy');
    assert.equal(kit.accent_color, '#FFCC00');
    assert.equal(kit.name, 'Acme Rocket');
    assert.deepEqual(kit.color_palette, draft.color_palette);
    assert.deepEqual(kit.social_links, draft.social_links);
    assert.equal(kit.created_at, kit.updated_at);
    assert.match(kit.logo_key, logoCopy('png'));
    const head = await s3().send(new HeadObjectCommand({ Bucket: config.bucketName, Key: kit.logo_key }));
    assert.equal(head.ContentType, 'image/png');
    assert.deepEqual(await fetchPng(kit.logo_url), await fetchPng(draft.logo_url));
    assert.equal((await h.call('GET', `/api/v1/brands/${brandId}`)).body.brand_kit_count, 1);
    assert.equal((await save({ brand_id: brandId })).status, 201);
    assert.equal((await h.call('GET', `/api/v1/brands/${brandId}`)).body.brand_kit_count, 2);

    const read = await h.call('GET', `/api/v1/brand-kits/${kit.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual({ ...read.body, logo_url: undefined }, { ...kit, logo_url: undefined });
    await fetchPng(read.body.logo_url);
  });

  it('a kit counted on its brand moves the brand’s updated_at, in its read and in the list', async () => {
    const token = await h.tokenFor(newId());
    const brandId = await brandOf(token);
    const brand = (await h.call('GET', `/api/v1/brands/${brandId}`, { token })).body;
    const later = new Date(Date.parse(brand.created_at) + 60_000).toISOString();
    setClock(new Date(later));
    let kit: Awaited<ReturnType<typeof save>>;
    try {
      kit = await save({ brand_id: brandId, name: 'Counted' }, token);
    } finally {
      setClock(undefined);
    }
    assert.equal(kit.status, 201, kit.text);
    assert.equal(kit.body.created_at, later);
    const read = (await h.call('GET', `/api/v1/brands/${brandId}`, { token })).body;
    assert.deepEqual([read.created_at, read.updated_at, read.brand_kit_count], [brand.created_at, later, 1]);
    const [entry] = (await h.call('GET', '/api/v1/brands', { token })).body;
    assert.equal(entry.updated_at, later);
  });

  it('saves a kit with no brand and every field defaulted', async () => {
    const res = await save({});
    assert.equal(res.status, 201);
    const { id, created_at, updated_at, ...fields } = res.body;
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    assert.ok(created_at && updated_at);
    assert.deepEqual(fields, {
      brand_id: null,
      ...Object.fromEntries(Object.keys(BrandKitDraft.entries).map((k) => [k, null])),
      logo_fields_authoritative: false,
      tone_keywords: [],
      competitors: [],
      seo_keywords: [],
      content_pillars: [],
    });
  });

  it('saves a draft as it was returned, however long its texts, keywords or palette (a 422 before)', async () => {
    const industry =
      'We operate in the renewable energy retail sector, serving households and small businesses across Southern Europe with solar and battery products.';
    const location =
      'Our teams work from offices in Lisbon, Porto, Madrid, Barcelona, Seville, Valencia, Bilbao, Marseille, Lyon, Toulouse, Bordeaux, Nice, Milan, Turin and Rome, and from home across Southern Europe and North Africa.';
    const body = [
      paragraph('Globex Brand Guidelines', 'Title'),
      paragraph('Industry', 'Heading1'),
      paragraph(industry),
      paragraph('Location', 'Heading1'),
      paragraph(location),
      paragraph('Competitors', 'Heading1'),
      paragraph(`Initech, ${'Umbrella'.repeat(30)}, Hooli`),
    ].join('');
    const fromDocx = await generate(fileForm(zipSync(docxParts({ body, withLogo: false }))));
    assert.equal(fromDocx.status, 200, fromDocx.text);
    // A keyword item past the save's 200 characters is left out, not cut: a cut name is another name.
    assert.deepEqual(fromDocx.body.competitors, ['Initech', 'Hooli']);
    for (const [field, stated] of [
      ['industry', industry],
      ['location', location],
    ] as const) {
      const drafted: string = fromDocx.body[field];
      assert.ok([...drafted].length <= TEXT_MAX[field], `${field}: ${drafted}`);
      assert.ok(drafted.endsWith('…') && stated.startsWith(drafted.slice(0, -1)), drafted);
    }
    const { pdf: sheet, colours } = await tintSheetPdf(BRAND_KIT_LIMITS.palette + 10);
    const fromPdf = await generate(fileForm(sheet));
    assert.equal(fromPdf.status, 200, fromPdf.text);
    assert.deepEqual(fromPdf.body.color_palette, colours.slice(0, BRAND_KIT_LIMITS.palette));
    for (const draft of [fromDocx.body, fromPdf.body]) {
      const saved = await save(draft);
      assert.equal(saved.status, 201, saved.text);
      assert.deepEqual(
        [saved.body.industry, saved.body.location, saved.body.competitors, saved.body.color_palette],
        [draft.industry, draft.location, draft.competitors, draft.color_palette],
      );
    }
  });

  it('saves a draft as it was returned, however long the links it found (a 422 before)', async () => {
    // A link past a website_url's limit is left out with the handle read from it; one at it stays. A
    // longer website is left out too, not cut (a cut URL names another page). The lengths are within
    // the 2,048 characters the extractor reads of an address, so that the draft's rule is what drops them.
    const parts = docxParts();
    const edit = (entry: string, from: string, to: string) => {
      parts[entry] = strToU8(new TextDecoder().decode(parts[entry]).replace(from, to));
    };
    const long = `https://www.linkedin.com/company/globex?ref=${'a'.repeat(1_000)}`;
    const atLimit = 'https://instagram.com/globex?ref=';
    const kept = atLimit + 'b'.repeat(BRAND_KIT_LIMITS.url - atLimit.length);
    const website = `https://globex.pt/energy/${'c'.repeat(BRAND_KIT_LIMITS.url)}`;
    edit('word/_rels/document.xml.rels', 'https://www.linkedin.com/company/globex', long);
    edit(
      'word/document.xml',
      '</w:body>',
      `${paragraph(`Instagram: ${kept}`)}${paragraph(`Visit ${website} today`)}</w:body>`,
    );
    const drafted = await generate(fileForm(zipSync(parts)));
    assert.equal(drafted.status, 200, drafted.text.slice(0, 200));
    assert.deepEqual(
      [drafted.body.website_url, drafted.body.social_links, drafted.body.social_profiles],
      [null, { instagram: kept }, { instagram: 'globex' }],
    );
    const saved = await save(drafted.body);
    assert.equal(saved.status, 201, saved.text.slice(0, 200));
    assert.deepEqual(
      [saved.body.website_url, saved.body.social_links, saved.body.social_profiles],
      [null, { instagram: kept }, { instagram: 'globex' }],
    );
  });

  it('keeps a logo URL given without a key as it is', async () => {
    const res = await save({ logo_url: 'https://cdn.example/logo.svg' });
    assert.equal(res.body.logo_url, 'https://cdn.example/logo.svg');
    assert.equal(res.body.logo_key, null);
  });

  it('refuses another user’s brand, and another user’s or a missing logo, with 404', async () => {
    const othersBrand = await brandOf(h.other.token);
    const res = await save({ brand_id: othersBrand });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Brand not found' });
    assert.equal(
      (await h.call('GET', `/api/v1/brands/${othersBrand}`, { token: h.other.token })).body.brand_kit_count,
      0,
    );

    const drafted = await generate(fileForm(pdf), h.other.token);
    assert.equal(drafted.status, 200, drafted.text);
    const othersDraft = drafted.body;
    assert.match(othersDraft.logo_key, new RegExp(`^${draftPrefix(h.other.id)}`));
    for (const logo_key of [
      othersDraft.logo_key,
      `${draftPrefix(h.owner.id)}00000000-0000-7000-8000-000000000000/logo.png`,
      `brand-kits/${h.owner.id}/logos/no-such-copy.png`,
      `${draftPrefix(h.owner.id)}../${othersDraft.logo_key.split('/').slice(2).join('/')}`,
    ]) {
      const refused = await save({ logo_key });
      assert.equal(refused.status, 404, logo_key);
      assert.deepEqual(refused.body, { detail: 'Logo not found' });
    }
  });

  describe(`a brand holds at most ${BRAND_KIT_LIMITS.perBrand} kits`, () => {
    const setKitCount = (brandId: string, count: number) =>
      dynamo().send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: brandKeys.brand(brandId),
          UpdateExpression: 'SET brand_kit_count = :n',
          ExpressionAttributeValues: { ':n': count },
        }),
      );
    /** A save that must be refused with 409 and leave no kit and the count as it was: at most its logo's
     * copy, which a save of that draft names (`logos` the copies there after it). */
    const assertRefused = async (brandId: string, draft: Record<string, unknown>, logos: number) => {
      const items = await tableItems();
      const res = await save({ ...draft, brand_id: brandId });
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.body, { detail: `A brand holds at most ${BRAND_KIT_LIMITS.perBrand} brand kits` });
      assert.deepEqual([await tableItems(), await kitLogos()], [items, logos]);
      const brand = (await h.call('GET', `/api/v1/brands/${brandId}`)).body;
      assert.equal(brand.brand_kit_count, BRAND_KIT_LIMITS.perBrand);
    };

    it('refuses the next kit of a full brand with 409; a kit without the brand is still saved', async () => {
      // The bound docs/brand-kits.md states (and the brand item's room is reckoned for).
      assert.equal(BRAND_KIT_LIMITS.perBrand, 1_000);
      const draft = (await generate(fileForm(pdf))).body;
      const brandId = await brandOf();
      await setKitCount(brandId, BRAND_KIT_LIMITS.perBrand - 1);
      assert.equal((await save({ ...draft, brand_id: brandId })).status, 201);
      await assertRefused(brandId, draft, await kitLogos());
      assert.equal((await save(draft)).status, 201);
    });

    it('with an Idempotency-Key: the retry of the save that took the last place answers that kit; a 409 gives the key back', async () => {
      const draft = (await generate(fileForm(pdf))).body;
      const brandId = await brandOf();
      await setKitCount(brandId, BRAND_KIT_LIMITS.perBrand - 1);
      const keyed = (body: Record<string, unknown>, key: string) =>
        h.call('POST', '/api/v1/brand-kits', { json: body, headers: { 'idempotency-key': key } });
      const last = await keyed({ ...draft, brand_id: brandId }, 'last place');
      assert.equal(last.status, 201, last.text);
      // The brand is full now, yet the retry is the same save: it answers the kit, not 409.
      const retry = await keyed({ ...draft, brand_id: brandId }, 'last place');
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.body.id, last.body.id);
      assert.equal(
        (await h.call('GET', `/api/v1/brands/${brandId}`)).body.brand_kit_count,
        BRAND_KIT_LIMITS.perBrand,
      );
      // Another save refused for the full brand frees its key for the corrected request.
      const refused = await keyed({ ...draft, brand_id: brandId }, 'refused');
      assert.equal(refused.status, 409, refused.text);
      const corrected = await keyed(draft, 'refused');
      assert.equal(corrected.status, 201, corrected.text);
      assert.equal(corrected.body.brand_id, null);
    });

    it('refuses a kit whose brand filled up between its read and its count, and undoes the kit', async () => {
      const draft = (await generate(fileForm(pdf))).body;
      const brandId = await brandOf();
      // Another save takes the last place while this one copies its logos (after the brand was read).
      const client = dynamo();
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'UpdateItemCommand') {
            client.middlewareStack.remove('lastPlaceTaken');
            await setKitCount(brandId, BRAND_KIT_LIMITS.perBrand);
          }
          return next(args);
        },
        { step: 'initialize', name: 'lastPlaceTaken' },
      );
      const logos = await kitLogos();
      try {
        await assertRefused(brandId, draft, logos + 1);
      } finally {
        client.middlewareStack.remove('lastPlaceTaken');
      }
      // The copy that stayed is the one the draft's next save names.
      const saved = await save(draft);
      assert.equal(saved.status, 201, saved.text);
      assert.equal(await kitLogos(), logos + 1);
    });
  });

  it('refuses a logo that is not an image with 422 at its field, and never copies it', async () => {
    const video = await upload(new Uint8Array(64), h.owner.token, 'logo.mp4', 'video/mp4');
    const png = await fetchPng((await generate(fileForm(pdf))).body.logo_url);
    const image = await upload(png, h.owner.token, 'mark.png', 'image/png');
    const before = await kitLogos();
    const res = await save({ name: 'Video logo', logo_key: image, logo_dark_key: video });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'logo_dark_key'],
          msg: 'Value error, a logo must be an image (image/png, image/jpeg, image/gif, image/webp)',
          input: video,
          ctx: { error: {} },
        },
      ],
    });
    // The image's copy stays (the video has none), and is the one its next save names.
    assert.equal(await kitLogos(), before + 1);
    const saved = await save({ name: 'Image logo', logo_key: image });
    assert.equal(saved.status, 201, saved.text);
    assert.match(saved.body.logo_key, logoCopy('png'));
    assert.equal(await kitLogos(), before + 1);
  });

  it('refuses a logo upload not there at its type check, even when its PUT lands before the copy', async () => {
    // The client PUTs a video to its URL right after the save's HeadObject found nothing.
    const video = new Uint8Array(64);
    const draftLogo = (await generate(fileForm(pdf))).body.logo_key;
    const slot = await h.call('POST', '/api/v1/uploads', {
      json: { filename: 'logo.mp4', content_type: 'video/mp4', size: video.length },
    });
    const client = s3();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'HeadObjectCommand') return next(args);
        client.middlewareStack.remove('putLandsAfterHead');
        try {
          return await next(args);
        } finally {
          const put = await fetch(slot.body.upload_url, {
            method: 'PUT',
            headers: slot.body.headers,
            body: video,
          });
          assert.equal(put.status, 200);
        }
      },
      { step: 'initialize', name: 'putLandsAfterHead' },
    );
    const before = await kitLogos();
    try {
      // The draft logo's copy, made beside the check, stays for a save that names it.
      const res = await save({ name: 'Late video', logo_key: slot.body.key, logo_icon_key: draftLogo });
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.body, { detail: 'Logo not found' });
    } finally {
      client.middlewareStack.remove('putLandsAfterHead');
    }
    assert.equal(await kitLogos(), before + 1);
    // Now that it is there, it is what it is: not an image.
    const again = await save({ name: 'Late video', logo_key: slot.body.key });
    assert.equal(again.status, 422, again.text);
  });

  it('names a logo copy by the image type it holds, not by the extension of the upload’s file name', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]);
    const noExtension = await upload(jpeg, h.owner.token, 'brand-mark', 'image/jpeg');
    const misnamed = await upload(PNG_SIGNATURE, h.owner.token, 'mark.jpeg', 'image/png');
    const webp = await upload(Buffer.from('RIFF\0\0\0\0WEBP'), h.owner.token, 'mark.v2', 'image/webp');
    const saved = await save({ logo_key: noExtension, logo_icon_key: misnamed, logo_dark_key: webp });
    assert.equal(saved.status, 201, saved.text);
    const copies = [saved.body.logo_key, saved.body.logo_icon_key, saved.body.logo_dark_key];
    for (const [i, ext] of ['jpg', 'png', 'webp'].entries()) assert.match(copies[i], logoCopy(ext));
    const types = async (keys: string[]) =>
      Promise.all(
        keys.map(
          async (Key) =>
            (await s3().send(new HeadObjectCommand({ Bucket: config.bucketName, Key }))).ContentType,
        ),
      );
    assert.deepEqual(await types(copies), ['image/jpeg', 'image/png', 'image/webp']);
    // A kit's logo saved again on another kit is that logo.
    const again = await save({ logo_square_key: saved.body.logo_key });
    assert.equal(again.body.logo_square_key, saved.body.logo_key);
  });

  it('copies a logo named in several roles once, and each of those roles names the one copy', async () => {
    const png = await fetchPng((await generate(fileForm(pdf))).body.logo_url);
    const image = await upload(png, h.owner.token, 'mark.png', 'image/png');
    const before = await kitLogos();
    const saved = await save({ logo_key: image, logo_icon_key: image, logo_square_key: image });
    assert.equal(saved.status, 201, saved.text);
    const copy = saved.body.logo_key;
    assert.match(copy, logoCopy('png'));
    assert.deepEqual(
      [saved.body.logo_key, saved.body.logo_icon_key, saved.body.logo_dark_key, saved.body.logo_square_key],
      [copy, copy, null, copy],
    );
    assert.equal(await kitLogos(), before + 1); // before, three copies of the same bytes
    const read = await h.call('GET', `/api/v1/brand-kits/${saved.body.id}`);
    for (const url of [read.body.logo_url, read.body.logo_icon_url, read.body.logo_square_url])
      assert.deepEqual(await fetchPng(url), png);

    // A video named in two roles is refused at both fields, and nothing is copied.
    const video = await upload(new Uint8Array(64), h.owner.token, 'logo.mp4', 'video/mp4');
    const refused = await save({ logo_key: image, logo_icon_key: video, logo_dark_key: video });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(
      refused.body.detail.map((d: { loc: string[] }) => d.loc),
      [
        ['body', 'logo_icon_key'],
        ['body', 'logo_dark_key'],
      ],
    );
    assert.equal(await kitLogos(), before + 1);
  });

  it('copies each logo source once, however many kits name it; a kit’s logo is named as it is (API4)', async () => {
    // Before, every save copied its logos again, outside the daily upload allowance: four uploads of
    // 20 MiB stored 80 MiB more with each ~300-byte save.
    const png = await fetchPng((await generate(fileForm(pdf))).body.logo_url);
    const image = await upload(png, h.owner.token, 'mark.png', 'image/png');
    const draftLogo = (await generate(fileForm(pdf))).body.logo_key;
    const recorder = recordS3Requests();
    const before = await kitLogos();
    const kits: Record<string, string>[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const saved = await save({ name: `Kit ${i}`, logo_key: image, logo_icon_key: draftLogo });
        assert.equal(saved.status, 201, saved.text);
        kits.push(saved.body);
      }
      const refused = await save({ brand_id: newId(), logo_key: image, logo_icon_key: draftLogo });
      assert.equal(refused.status, 404, refused.text);
      const named = await save({ logo_key: kits[0]!.logo_key, logo_dark_key: kits[0]!.logo_icon_key });
      assert.equal(named.status, 201, named.text);
      assert.deepEqual(
        [named.body.logo_key, named.body.logo_dark_key],
        [kits[0]!.logo_key, kits[0]!.logo_icon_key],
      );
    } finally {
      recorder.stop();
    }
    assert.deepEqual(
      kits.map((kit) => [kit.logo_key, kit.logo_icon_key]),
      kits.map(() => [kits[0]!.logo_key, kits[0]!.logo_icon_key]),
    );
    assert.deepEqual(copiesMade(recorder), [kits[0]!.logo_key, kits[0]!.logo_icon_key].sort());
    assert.equal(await kitLogos(), before + 2);
    for (const kit of kits) {
      const read = await h.call('GET', `/api/v1/brand-kits/${kit.id}`);
      assert.deepEqual(await fetchPng(read.body.logo_url), png);
    }
  });

  it('copies a source once when many saves name it at the same time, keyed or not (a conditional copy)', async () => {
    // Each save reads the copy's key first; concurrent first saves all found none and each copied,
    // on a versioned bucket one more version a copy (20 concurrent saves: 20 copies of one upload).
    const png = await fetchPng((await generate(fileForm(pdf))).body.logo_url);
    const image = await upload(png, h.owner.token, 'mark.png', 'image/png');
    const draftLogo = (await generate(fileForm(pdf))).body.logo_key;
    const recorder = recordS3Requests();
    try {
      const body = { logo_key: image, logo_icon_key: draftLogo };
      const saves = await Promise.all([
        ...Array.from({ length: 10 }, () => save(body)),
        ...Array.from({ length: 10 }, () =>
          h.call('POST', '/api/v1/brand-kits', { json: body, headers: { 'idempotency-key': 'twins' } }),
        ),
      ]);
      assert.deepEqual(
        saves.map((res) => res.status),
        saves.map(() => 201),
      );
      const keys = new Set(saves.flatMap((res) => [res.body.logo_key, res.body.logo_icon_key]));
      assert.equal(keys.size, 2);
      assert.deepEqual(copiesMade(recorder), [...keys].sort());
      assert.equal(new Set(saves.slice(10).map((res) => res.body.id)).size, 1);
    } finally {
      recorder.stop();
    }
  });

  it('validates the body with FastAPI’s error items', async () => {
    const res = await save({
      brand_id: 'nope',
      primary_color: 'red',
      name: 'n'.repeat(201),
      tone_keywords: Array(51).fill('bold'),
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      detail: [
        {
          type: 'uuid_parsing',
          loc: ['body', 'brand_id'],
          msg: 'Input should be a valid UUID, invalid character: found `n` at 1',
          input: 'nope',
          ctx: { error: 'invalid character: found `n` at 1' },
        },
        {
          type: 'string_too_long',
          loc: ['body', 'name'],
          msg: 'String should have at most 200 characters',
          input: 'n'.repeat(201),
          ctx: { max_length: 200 },
        },
        {
          type: 'value_error',
          loc: ['body', 'primary_color'],
          msg: 'Value error, a colour is a hex code such as #1A2B3C',
          input: 'red',
          ctx: { error: {} },
        },
        {
          type: 'too_long',
          loc: ['body', 'tone_keywords'],
          msg: 'List should have at most 50 items after validation, not 51',
          input: Array(51).fill('bold'),
          ctx: { field_type: 'List', max_length: 50, actual_length: 51 },
        },
      ],
    });
  });

  it('takes a colour only as the whole of a hex code', async () => {
    for (const colour of ['#1A2B3C0', '#1A2B3C; background: red', 'abcd', '#12']) {
      const res = await save({ primary_color: colour });
      assert.equal(res.status, 422, colour);
      assert.deepEqual(
        res.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
        [['value_error', ['body', 'primary_color']]],
        colour,
      );
    }
  });

  it('refuses free-form objects nested deeper than 16 levels (DynamoDB stops at 32; dynalite does not check)', async () => {
    const nested = (levels: number): unknown => (levels === 1 ? { at: 'bottom' } : { a: nested(levels - 1) });
    assert.equal((await save({ name: 'Deep', social_links: nested(DICT_MAX_DEPTH) })).status, 201);
    const res = await save({ name: 'Deep', social_links: nested(DICT_MAX_DEPTH + 1) });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.detail.map((d: { type: string; loc: unknown[]; msg: string }) => [d.type, d.loc, d.msg]),
      [['value_error', ['body', 'social_links'], 'Value error, object nests deeper than 16 levels']],
    );
  });

  it('refuses numbers in free-form objects that the table cannot store (past ±(2^53 − 1), or under 1e-130): a 500 before', async () => {
    const storable = [0, 1e-130, -1e-130, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.5, -3];
    assert.equal((await save({ name: 'Numbers', social_links: { n: storable } })).status, 201);
    for (const n of [1e20, -1e300, 2 ** 53, 1e-131, -1e-200]) {
      const res = await save({ name: 'Numbers', social_links: { deep: { list: [1, n] } } });
      assert.equal(res.status, 422, String(n));
      assert.deepEqual(
        res.body.detail.map((d: { type: string; loc: unknown[]; msg: string }) => [d.type, d.loc, d.msg]),
        [
          [
            'value_error',
            ['body', 'social_links'],
            `Value error, numbers must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, and 0 or at least 1e-130 in size`,
          ],
        ],
      );
    }
  });

  it('refuses social objects over 16 KiB as JSON: 64,000 `[1]` fit the body but not the 400 KB item (a 500)', async () => {
    const res = await save({
      name: 'Big',
      social_profiles: { x: Array.from({ length: 64_000 }, () => [1]) },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail[0].msg, 'Value error, object must be at most 16384 bytes as JSON');
    assert.deepEqual(res.body.detail[0].loc, ['body', 'social_profiles']);
  });

  it('refuses a save body over 256 KiB with 413', async () => {
    const res = await save({ brand_voice: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) });
    assert.equal(res.status, 413);
  });

  it('answers 404 for an unknown kit and another user’s kit alike, 422 for a malformed id', async () => {
    const kit = (await save({ name: 'Mine' })).body;
    const unknown = await h.call('GET', '/api/v1/brand-kits/01a1fc6e-0000-7000-8000-000000000000');
    const others = await h.call('GET', `/api/v1/brand-kits/${kit.id}`, { token: h.other.token });
    for (const res of [unknown, others]) {
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'Brand kit not found' });
    }
    const malformed = await h.call('GET', '/api/v1/brand-kits/abc');
    assert.equal(malformed.status, 422);
    assert.equal(malformed.body.detail[0].type, 'uuid_parsing');
  });
});
