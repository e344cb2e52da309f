// POST /api/v1/uploads: presigned PUT URLs under the caller's own prefix, checked against the embedded S3.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { accountKeys } from '../../shared/accounts/keys.ts';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { setClock } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { getItem } from '../../shared/db/store.ts';
import { TABLE_TTL_ATTRIBUTE } from '../../shared/db/table.ts';
import { userUploadPrefix } from '../../shared/uploads/keys.ts';
import { UPLOAD_CONTENT_TYPES, UPLOAD_LIMITS, UPLOAD_MAX_BYTES } from '../../shared/uploads/schemas.ts';
import { recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const request = (json: unknown, token?: string) => h.call('POST', '/api/v1/uploads', { json, token });
const PDF = 'application/pdf';

describe('POST /api/v1/uploads', () => {
  it('answers a presigned PUT for exactly the announced size and type, valid 15 minutes', async () => {
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      const res = await request({ filename: 'Brand Guidelines 2026.pdf', content_type: PDF, size: 11 });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'expires_at',
        'headers',
        'key',
        'method',
        'size',
        'upload_url',
      ]);
      assert.match(
        res.body.key,
        new RegExp(`^${userUploadPrefix(h.owner.id)}[0-9a-f-]{36}/Brand_Guidelines_2026\\.pdf$`),
      );
      assert.equal(res.body.method, 'PUT');
      assert.deepEqual(res.body.headers, { 'content-type': PDF, 'if-none-match': '*' });
      assert.equal(res.body.size, 11);
      assert.equal(res.body.expires_at, '2026-11-21T10:15:00.000Z');
      const url = new URL(res.body.upload_url);
      assert.equal(url.searchParams.get('X-Amz-Expires'), String(UPLOAD_LIMITS.urlSeconds));
      assert.equal(url.searchParams.get('X-Amz-Date'), '20261121T100000Z');
      // AWS refuses a PUT whose signed headers differ: the length and type are part of the signature.
      assert.deepEqual(url.searchParams.get('X-Amz-SignedHeaders')?.split(';'), [
        'content-length',
        'content-type',
        'host',
        'if-none-match',
      ]);
      assert.ok(url.pathname.endsWith(res.body.key), url.pathname);
    } finally {
      setClock(undefined);
    }
  });

  it('signs If-None-Match: * so a URL stores its bytes once, not once per PUT for 15 minutes', async () => {
    // A presigned URL may be used until it expires, and the bucket is versioned (noncurrent versions
    // kept 30 days): without the condition, one URL counted once against the daily allowance could
    // store its size again with every PUT. S3 refuses a PUT with If-None-Match: * (412
    // PreconditionFailed) once an object is at the key; the header is signed, so a PUT without it
    // fails the signature. (s3rver checks neither: the URL's signed headers are what is tested here.)
    const res = await request({ filename: 'clip.mp4', content_type: 'video/mp4', size: 2048 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.headers['if-none-match'], '*');
    const signed = new URL(res.body.upload_url).searchParams.get('X-Amz-SignedHeaders')?.split(';');
    assert.ok(signed?.includes('if-none-match'), String(signed));
  });

  it('signs the announced size: S3, recomputing the signature over the PUT a client sends, accepts it', async () => {
    // s3rver checks no signature: the check S3 makes is made here, over the length and the headers a
    // client sends (the URL's own query, signature aside, is what S3 signs again).
    const size = 2048;
    const res = await request({ filename: 'clip.mp4', content_type: 'video/mp4', size });
    const url = new URL(res.body.upload_url);
    const signatureFor = async (length: number) => {
      const { credentials, region, sha256 } = s3().config;
      const query = Object.fromEntries(url.searchParams);
      const signed = await new S3RequestPresigner({ credentials, region, sha256 }).presign(
        {
          method: 'PUT',
          protocol: url.protocol,
          hostname: url.hostname,
          port: Number(url.port),
          path: decodeURIComponent(url.pathname),
          query: Object.fromEntries(Object.entries(query).filter(([name]) => !name.startsWith('X-Amz-'))),
          headers: { ...res.body.headers, 'content-length': String(length), host: url.host },
        },
        {
          signingDate: new Date(
            query['X-Amz-Date']!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'),
          ),
          expiresIn: Number(query['X-Amz-Expires']),
          // The headers the URL names as signed, as S3 reads them.
          signableHeaders: new Set(query['X-Amz-SignedHeaders']!.split(';')),
        },
      );
      return signed.query?.['X-Amz-Signature'];
    };
    assert.equal(await signatureFor(size), url.searchParams.get('X-Amz-Signature'));
    assert.notEqual(await signatureFor(size + 1), url.searchParams.get('X-Amz-Signature'));
  });

  it('stores what the client PUTs to the URL', async () => {
    const content = Buffer.from('%PDF-1.7\nhello');
    const res = await request({ filename: 'doc.pdf', content_type: PDF, size: content.length });
    const put = await fetch(res.body.upload_url, {
      method: 'PUT',
      headers: res.body.headers,
      body: content,
    });
    assert.equal(put.status, 200);
    const stored = await s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: res.body.key }));
    assert.equal(stored.ContentType, PDF);
    assert.deepEqual(Buffer.from(await stored.Body!.transformToByteArray()), content);
  });

  it('keeps every key under the caller’s own prefix, whatever the file name', async () => {
    for (const [filename, last] of [
      ['../../other-user/secret.pdf', 'secret.pdf'],
      ['..\\..\\x.pdf', 'x.pdf'],
      ['résumé final..pdf', 'resume_final.pdf'],
      ['...', 'file'],
      ['図.pdf', '_.pdf'],
      // The last 100 characters begin with a dot: it goes too, as any leading dot does.
      [`${'a'.repeat(150)}.${'b'.repeat(95)}.pdf`, `${'b'.repeat(95)}.pdf`],
    ]) {
      const res = await request({ filename, content_type: PDF, size: 1 });
      assert.equal(res.status, 200, filename);
      assert.ok(res.body.key.startsWith(userUploadPrefix(h.owner.id)), res.body.key);
      assert.equal(res.body.key.split('/').at(-1), last, filename);
      assert.ok(!res.body.key.includes('..'));
    }
    const other = await request({ filename: 'a.pdf', content_type: PDF, size: 1 }, h.other.token);
    assert.ok(other.body.key.startsWith(userUploadPrefix(h.other.id)));
  });

  it('holds each user to a daily allowance of bytes and uploads, counted when the URL is issued (429 past it)', async () => {
    const { bytes, uploads } = UPLOAD_LIMITS.daily;
    const video = 'video/mp4';
    const largest = UPLOAD_MAX_BYTES[video];
    const user = await h.tokenFor('01a1fc6e-0000-7000-8000-0000000000d1');
    const other = await h.tokenFor('01a1fc6e-0000-7000-8000-0000000000d2');
    setClock(new Date('2026-11-21T22:00:00.000Z'));
    try {
      // Up to the byte limit exactly: ten of the largest videos, then one byte short of one more.
      const fits = Math.floor(bytes / largest);
      for (let i = 0; i < fits; i++)
        assert.equal(
          (await request({ filename: 'v.mp4', content_type: video, size: largest }, user)).status,
          200,
        );
      const refused = await request({ filename: 'v.mp4', content_type: video, size: 1 }, user);
      assert.equal(refused.status, 429, refused.text);
      assert.deepEqual(refused.body, {
        detail: `Daily upload allowance used: at most ${bytes} bytes in ${uploads} uploads per UTC day; try again after midnight UTC`,
      });
      assert.equal(refused.headers['retry-after'], String(2 * 60 * 60));
      // Half a second before midnight: rounded up to a whole second, never 0 (a retry at once).
      setClock(new Date('2026-11-21T23:59:59.500Z'));
      const lastMoment = await request({ filename: 'v.mp4', content_type: video, size: 1 }, user);
      assert.deepEqual([lastMoment.status, lastMoment.headers['retry-after']], [429, '1']);
      // Kept until the table's TTL removes it, a day after its day: nothing reads it after.
      const day = await getItem<Record<string, unknown>>(
        accountKeys.uploadAllowance('01a1fc6e-0000-7000-8000-0000000000d1', '2026-11-21'),
      );
      assert.equal(day?.[TABLE_TTL_ATTRIBUTE], Date.parse('2026-11-23T00:00:00Z') / 1000);
      // Another user's allowance is their own; the next UTC day starts afresh.
      assert.equal((await request({ filename: 'v.mp4', content_type: video, size: 1 }, other)).status, 200);
      setClock(new Date('2026-11-22T00:00:01.000Z'));
      assert.equal(
        (await request({ filename: 'v.mp4', content_type: video, size: largest }, user)).status,
        200,
      );
    } finally {
      setClock(undefined);
    }
    // The count of uploads has its own limit: a day of small files stops at it.
    const smalls = await h.tokenFor('01a1fc6e-0000-7000-8000-0000000000d3');
    const statuses: number[] = [];
    for (let i = 0; i <= uploads; i++)
      statuses.push(
        (await request({ filename: 'n.txt', content_type: 'text/plain', size: 1 }, smalls)).status,
      );
    assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.at(-1)], [uploads, 429]);
  });

  it('a lost answer on the allowance update (the SDK resends it) counts the upload once, and never 429s it', async () => {
    const userId = '01a1fc6e-0000-7000-8000-0000000000d4';
    const user = await h.tokenFor(userId);
    const video = 'video/mp4';
    const largest = UPLOAD_MAX_BYTES[video];
    const { bytes } = UPLOAD_LIMITS.daily;
    const upload = (size: number) => request({ filename: 'v.mp4', content_type: video, size }, user);
    // While armed, the allowance's next update lands and its answer is lost (a timeout): the SDK
    // sends it again.
    let armed = false;
    let lost = 0;
    const name = 'allowance-answer-lost';
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input ?? {});
        if (!armed || !context.commandName?.startsWith('Update') || !input.includes('UPLOADS#'))
          return next(args);
        armed = false;
        lost++;
        await next(args);
        throw Object.assign(new Error('answer lost'), { name: 'TimeoutError', $metadata: {} });
      },
      { step: 'finalizeRequest', priority: 'low', name },
    );
    setClock(new Date('2026-11-21T09:00:00.000Z'));
    const statuses: number[] = [];
    try {
      armed = true;
      statuses.push((await upload(1)).status);
      for (let i = 0; i < bytes / largest - 1; i++) statuses.push((await upload(largest)).status);
      // What is left of the day's bytes, exactly: it fits, though its update is resent.
      armed = true;
      statuses.push((await upload(largest - 1)).status);
      statuses.push((await upload(1)).status);
    } finally {
      dynamo().middlewareStack.remove(name);
      setClock(undefined);
    }
    assert.equal(lost, 2, 'the fault reached the allowance twice');
    assert.deepEqual(statuses, [200, ...Array(bytes / largest - 1).fill(200), 200, 429]);
    const day = await getItem<{ bytes: number; uploads: number }>(
      accountKeys.uploadAllowance(userId, '2026-11-21'),
    );
    assert.deepEqual([day?.bytes, day?.uploads], [bytes, bytes / largest + 1]);
  });

  it('a key with a part longer than any we issue names no upload: 404, where the embedded S3 failed (a 503)', async () => {
    const long = `${userUploadPrefix(h.owner.id)}${'a'.repeat(245)}`;
    // The part is a folder S3 already has for this user, which is where s3rver answered 500.
    await request({ filename: 'doc.pdf', content_type: PDF, size: 1 });
    const draft = await h.call('POST', '/api/v1/brand-kits/generate-from-upload', {
      json: { upload_key: long },
    });
    assert.deepEqual([draft.status, draft.body], [404, { detail: 'Upload not found' }]);
    const fits = `${userUploadPrefix(h.owner.id)}${'a'.repeat(200)}`;
    assert.equal(
      (await h.call('POST', '/api/v1/brand-kits/generate-from-upload', { json: { upload_key: fits } }))
        .status,
      404,
    );
  });

  it('accepts each listed content type up to its own limit, and refuses a byte more', async () => {
    for (const content_type of UPLOAD_CONTENT_TYPES) {
      const max = UPLOAD_MAX_BYTES[content_type];
      assert.equal((await request({ filename: 'f', content_type, size: max })).status, 200, content_type);
      if (max === UPLOAD_LIMITS.maxBytes) continue; // past the largest limit: less_than_equal, below
      const over = await request({ filename: 'f', content_type, size: max + 1 });
      assert.equal(over.status, 422);
      assert.deepEqual(over.body, {
        detail: [
          {
            type: 'value_error',
            loc: ['body', 'size'],
            msg: `Value error, ${content_type} uploads are at most ${max} bytes`,
            input: max + 1,
            ctx: { error: {} },
          },
        ],
      });
    }
    // The limits above are the code's: each is held here to docs/uploads.md's table.
    const [document, image, chatDocument, video] = [52_428_800, 20_971_520, 4_718_592, 2_147_483_648];
    assert.deepEqual(UPLOAD_MAX_BYTES, {
      'application/pdf': document,
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document': document,
      'image/png': image,
      'image/jpeg': image,
      'image/gif': image,
      'image/webp': image,
      'text/plain': chatDocument,
      'text/csv': chatDocument,
      'text/markdown': chatDocument,
      'text/html': chatDocument,
      'application/msword': chatDocument,
      'application/vnd.ms-excel': chatDocument,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': chatDocument,
      'video/mp4': video,
      'video/quicktime': video,
      'video/webm': video,
    });
  });

  it('takes every type a chat attachment takes; a document only chat reads, up to what chat takes', async () => {
    // docs/chat.md: images png, jpeg, gif, webp; documents pdf, csv, doc, docx, xls, xlsx, html, txt, md,
    // each document at most 4.5 MiB. An upload is the only way to put a file where chat reads it.
    const chatOnly = [
      'text/csv',
      'application/msword',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'text/html',
      'text/plain',
      'text/markdown',
    ];
    const documentBytes = 4_718_592;
    for (const content_type of chatOnly) {
      const fits = await request({ filename: 'f', content_type, size: documentBytes });
      assert.equal(fits.status, 200, `${content_type}: ${fits.text}`);
      const over = await request({ filename: 'f', content_type, size: documentBytes + 1 });
      assert.deepEqual(
        over.body.detail?.[0]?.msg,
        `Value error, ${content_type} uploads are at most ${documentBytes} bytes`,
        content_type,
      );
    }
    // PDF and DOCX are read by generate-from-upload too, up to 50 MiB; images are also logos.
    for (const content_type of [
      'application/pdf',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
    ])
      assert.equal((await request({ filename: 'f', content_type, size: documentBytes + 1 })).status, 200);
  });

  const expected = UPLOAD_CONTENT_TYPES.map((t) => `'${t}'`);
  const choices = `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}`;
  const cases: [string, unknown, object[]][] = [
    [
      'every field missing',
      {},
      ['filename', 'content_type', 'size'].map((name) => ({
        type: 'missing',
        loc: ['body', name],
        msg: 'Field required',
        input: {},
      })),
    ],
    [
      'a content type that is not listed',
      { filename: 'x.exe', content_type: 'application/x-msdownload', size: 10 },
      [
        {
          type: 'literal_error',
          loc: ['body', 'content_type'],
          msg: `Input should be ${choices}`,
          input: 'application/x-msdownload',
          ctx: { expected: choices },
        },
      ],
    ],
    [
      'an empty file',
      { filename: 'x.pdf', content_type: PDF, size: 0 },
      [
        {
          type: 'greater_than_equal',
          loc: ['body', 'size'],
          msg: 'Input should be greater than or equal to 1',
          input: 0,
          ctx: { ge: 1 },
        },
      ],
    ],
    [
      'a size over the largest limit',
      { filename: 'x.mp4', content_type: 'video/mp4', size: UPLOAD_LIMITS.maxBytes + 1 },
      [
        {
          type: 'less_than_equal',
          loc: ['body', 'size'],
          msg: `Input should be less than or equal to ${UPLOAD_LIMITS.maxBytes}`,
          input: UPLOAD_LIMITS.maxBytes + 1,
          ctx: { le: UPLOAD_LIMITS.maxBytes },
        },
      ],
    ],
    [
      'an empty file name',
      { filename: '', content_type: PDF, size: 1 },
      [
        {
          type: 'string_too_short',
          loc: ['body', 'filename'],
          msg: 'String should have at least 1 character',
          input: '',
          ctx: { min_length: 1 },
        },
      ],
    ],
    [
      'a file name over 255 characters',
      { filename: 'é'.repeat(256), content_type: PDF, size: 1 },
      [
        {
          type: 'string_too_long',
          loc: ['body', 'filename'],
          msg: 'String should have at most 255 characters',
          input: 'é'.repeat(256),
          ctx: { max_length: 255 },
        },
      ],
    ],
  ];
  for (const [name, body, detail] of cases) {
    it(`refuses ${name} with 422`, async () => {
      const res = await request(body);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body, { detail });
    });
  }
});

describe('Idempotency-Key on POST /api/v1/uploads', () => {
  const VIDEO = 'video/mp4';
  /** A user of its own per test, so the day's allowance item is the test's alone. */
  const userOf = async (n: number) => {
    const id = `01a1fc6e-0000-7000-8000-0000000000e${n}`;
    return { id, token: await h.tokenFor(id) };
  };
  const keyed = (json: unknown, key: string | undefined, token: string) =>
    h.call('POST', '/api/v1/uploads', {
      json,
      token,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const counted = async (userId: string, day = '2026-11-21') => {
    const item = await getItem<{ bytes?: number; uploads?: number }>(
      accountKeys.uploadAllowance(userId, day),
    );
    return [item?.bytes ?? 0, item?.uploads ?? 0];
  };
  const body = (size: number) => ({ filename: 'Clip.mp4', content_type: VIDEO, size });

  it('a retry with the key answers the same upload key, signed afresh, counted once; another key is another upload', async () => {
    const user = await userOf(1);
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      const first = await keyed(body(1000), 'retry', user.token);
      assert.equal(first.status, 200, first.text);
      setClock(new Date('2026-11-21T10:05:00.000Z'));
      const again = await keyed(body(1000), 'retry', user.token);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.key, first.body.key);
      // Signed again for the same object key (one PUT still: If-None-Match), valid from now.
      assert.ok(new URL(again.body.upload_url).pathname.endsWith(first.body.key), again.body.upload_url);
      assert.equal(again.body.expires_at, '2026-11-21T10:20:00.000Z');
      assert.deepEqual(
        { ...again.body, upload_url: undefined, expires_at: undefined },
        { ...first.body, upload_url: undefined, expires_at: undefined },
      );
      assert.deepEqual(await counted(user.id), [1000, 1]);
      const other = await keyed(body(1000), 'retry-2', user.token);
      assert.notEqual(other.body.key, first.body.key);
      const unkeyed = await keyed(body(1000), undefined, user.token);
      assert.notEqual(unkeyed.body.key, first.body.key);
      assert.deepEqual(await counted(user.id), [3000, 3]);
    } finally {
      setClock(undefined);
    }
  });

  it('the same key with another body is 409, and counts nothing', async () => {
    const user = await userOf(2);
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      assert.equal((await keyed(body(10), 'conflict', user.token)).status, 200);
      const changed = await keyed(body(11), 'conflict', user.token);
      assert.equal(changed.status, 409, changed.text);
      assert.deepEqual(changed.body, { detail: 'Idempotency-Key was already used with a different request' });
      assert.deepEqual(await counted(user.id), [10, 1]);
    } finally {
      setClock(undefined);
    }
  });

  it('a 429 gives the key back: the next day the same key counts the upload afresh', async () => {
    const user = await userOf(3);
    const largest = UPLOAD_MAX_BYTES[VIDEO];
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      for (let i = 0; i < UPLOAD_LIMITS.daily.bytes / largest; i++)
        assert.equal((await keyed(body(largest), undefined, user.token)).status, 200);
      const refused = await keyed(body(5), 'after-429', user.token);
      assert.equal(refused.status, 429, refused.text);
      setClock(new Date('2026-11-22T10:00:00.000Z'));
      const next = await keyed(body(5), 'after-429', user.token);
      assert.equal(next.status, 200, next.text);
      assert.deepEqual(await counted(user.id, '2026-11-22'), [5, 1]);
      assert.deepEqual(await counted(user.id), [
        UPLOAD_LIMITS.daily.bytes,
        UPLOAD_LIMITS.daily.bytes / largest,
      ]);
    } finally {
      setClock(undefined);
    }
  });

  /** While armed, each update of the allowance lands and its answer is lost (a timeout); `once`
   * disarms after the first, so the SDK's resend is answered. Answers how many were lost. */
  const losingAllowanceAnswers = async (once: boolean, during: () => Promise<void>) => {
    let armed = true;
    let lost = 0;
    const name = 'keyed-allowance-answers-lost';
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input ?? {});
        if (!armed || !context.commandName?.startsWith('Update') || !input.includes('UPLOADS#'))
          return next(args);
        if (once) armed = false;
        lost++;
        await next(args).catch(() => undefined);
        throw Object.assign(new Error('answer lost'), { name: 'TimeoutError', $metadata: {} });
      },
      { step: 'finalizeRequest', priority: 'low', name },
    );
    try {
      await during();
    } finally {
      armed = false;
      dynamo().middlewareStack.remove(name);
    }
    return lost;
  };

  it("a lost answer on the allowance's update (the SDK resends it) with a key: counted once, and the retry answers the same key", async () => {
    const user = await userOf(4);
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      let first: Awaited<ReturnType<typeof keyed>> | undefined;
      const lost = await losingAllowanceAnswers(true, async () => {
        first = await keyed(body(700), 'lost-once', user.token);
      });
      assert.equal(lost, 1);
      assert.equal(first?.status, 200, first?.text);
      const retried = await keyed(body(700), 'lost-once', user.token);
      assert.equal(retried.body.key, first?.body.key);
      assert.deepEqual(await counted(user.id), [700, 1]);
    } finally {
      setClock(undefined);
    }
  });

  it("every answer of the allowance's updates lost (the request fails): the client's retry with the key is counted once", async () => {
    const user = await userOf(7);
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      // The count lands, every answer to it and to its take-back is lost: the request fails.
      const lost = await losingAllowanceAnswers(false, async () => {
        const failed = await keyed(body(700), 'lost-all', user.token);
        assert.ok(failed.status >= 500, failed.text);
      });
      assert.ok(lost >= 2, String(lost));
      const retried = await keyed(body(700), 'lost-all', user.token);
      assert.equal(retried.status, 200, retried.text);
      const again = await keyed(body(700), 'lost-all', user.token);
      assert.equal(again.body.key, retried.body.key);
      assert.deepEqual(await counted(user.id), [700, 1]);
    } finally {
      setClock(undefined);
    }
  });

  it('20 concurrent sends with one key answer one upload key, counted once', async () => {
    const user = await userOf(5);
    setClock(new Date('2026-11-21T10:00:00.000Z'));
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => keyed(body(3), 'twins', user.token)),
      );
      assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([200]));
      assert.equal(new Set(answers.map((res) => res.body.key)).size, 1);
      assert.deepEqual(await counted(user.id), [3, 1]);
    } finally {
      setClock(undefined);
    }
  });

  it('a keyed request and its retry take two DynamoDB waves each; without a key, one', async () => {
    const user = await userOf(6);
    const recorder = recordDynamoRequests();
    try {
      await keyed(body(1), undefined, user.token);
      assert.equal(recorder.waves(), 1, recorder.commands().join(', '));
      recorder.clear();
      const first = await keyed(body(1), 'waves', user.token);
      assert.equal(recorder.waves(), 2, recorder.commands().join(', '));
      recorder.clear();
      const retry = await keyed(body(1), 'waves', user.token);
      assert.equal(retry.body.key, first.body.key);
      assert.equal(recorder.waves(), 2, recorder.commands().join(', '));
    } finally {
      recorder.stop();
    }
  });
});
