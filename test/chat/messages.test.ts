// Chat sessions and messages on the real handlers and the embedded DynamoDB: creation, paging,
// idempotent retries, 200 concurrent sends, and other users' sessions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { chatKeys } from '../../shared/chat/keys.ts';
import { CHAT_LIMITS } from '../../shared/chat/schemas.ts';
import { addAssistantMessage, SESSION_DOCUMENTS_FULL } from '../../shared/chat/store.ts';
import { config } from '../../shared/config.ts';
import { updateItem } from '../../shared/db/store.ts';
import { sha256 } from '../../shared/digest.ts';
import { newId } from '../../shared/ids.ts';
import { userUploadPrefix } from '../../shared/uploads/keys.ts';
import { recordDynamoRequests, shortDynamoPages } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const newSession = async (json: object = { title: 'Chat' }, token?: string) =>
  (await h.call('POST', '/api/v1/chat/sessions', { json, token })).body.id as string;
const messagesUrl = (id: string) => `/api/v1/chat/sessions/${id}/messages`;
const send = (id: string, json: unknown, headers?: Record<string, string>, token?: string) =>
  h.call('POST', messagesUrl(id), { json, headers, token });
/** Every item of the session's partition (messages, claims, the session). */
const allItemsOf = async (sessionId: string) =>
  (
    await dynamo().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': chatKeys.partition(sessionId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('chat sessions', () => {
  it('creates a session, optionally about one of the caller’s projects', async () => {
    const project = await h.call('POST', '/api/v1/projects', { json: { title: 'Launch' } });
    const res = await h.call('POST', '/api/v1/chat/sessions', {
      json: { title: 'About the launch', project_id: project.body.id },
    });
    assert.equal(res.status, 201);
    assert.match(res.body.id, UUID_V7);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        title: 'About the launch',
        team_id: null,
        project_id: project.body.id,
      },
    );
  });

  it("refuses another user's project or an unknown team like a missing one", async () => {
    const theirs = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Theirs' },
      token: h.other.token,
    });
    const project = await h.call('POST', '/api/v1/chat/sessions', {
      json: { title: 't', project_id: theirs.body.id },
    });
    assert.equal(project.status, 404);
    assert.deepEqual(project.body, { detail: 'Project not found' });
    const team = await h.call('POST', '/api/v1/chat/sessions', {
      json: { title: 't', team_id: '01a1fc6e-0000-7000-8000-0000000000aa' },
    });
    assert.deepEqual([team.status, team.body], [404, { detail: 'Team not found' }]);
  });

  it('with both a team and a project not the caller’s, answers for the team however the reads finish', async () => {
    const theirs = await h.call('POST', '/api/v1/projects', {
      json: { title: 'Theirs' },
      token: h.other.token,
    });
    const json = { title: 't', team_id: '01a1fc6e-0000-7000-8000-0000000000ab', project_id: theirs.body.id };
    // The team's read answers last (it came first locally every time; on AWS either may).
    const name = 'team-read-last';
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const key = JSON.stringify((args.input as { Key?: unknown }).Key ?? '');
        if (key.includes(json.team_id)) await new Promise((resolve) => setTimeout(resolve, 100));
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const res = await h.call('POST', '/api/v1/chat/sessions', { json });
      assert.deepEqual([res.status, res.body], [404, { detail: 'Team not found' }]);
    } finally {
      dynamo().middlewareStack.remove(name);
    }
  });

  it('validates the session body', async () => {
    const res = await h.call('POST', '/api/v1/chat/sessions', { json: { title: '', team_id: 'x' } });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.detail.map((d: { type: string; loc: unknown }) => [d.type, d.loc]),
      [
        ['string_too_short', ['body', 'title']],
        ['uuid_parsing', ['body', 'team_id']],
      ],
    );
  });
});

describe('POST /chat/sessions/{id}/messages', () => {
  it('answers 201 with the stored message: id, session_id, role, content blocks, created_at', async () => {
    const id = await newSession();
    const res = await send(id, { content: 'Hello there' });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['content', 'created_at', 'id', 'role', 'session_id']);
    assert.match(res.body.id, UUID_V7);
    assert.equal(res.body.session_id, id);
    assert.equal(res.body.role, 'user');
    assert.deepEqual(res.body.content, [{ text: 'Hello there' }]);
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
  });

  it('content is 1 to 10,000 code points', async () => {
    const id = await newSession();
    const astral = '😀'.repeat(10_000);
    assert.equal((await send(id, { content: astral })).status, 201);
    const long = await send(id, { content: `${'a'.repeat(10_000)}b` });
    assert.deepEqual(long.body.detail[0].ctx, { max_length: 10000 });
    assert.equal(long.body.detail[0].msg, 'String should have at most 10000 characters');
    const empty = await send(id, { content: '' });
    assert.deepEqual(empty.body.detail, [
      {
        type: 'string_too_short',
        loc: ['body', 'content'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ]);
    const missing = await send(id, { attachments: [] });
    assert.deepEqual(missing.body.detail, [
      { type: 'missing', loc: ['body', 'content'], msg: 'Field required', input: { attachments: [] } },
    ]);
    const notText = await send(id, { content: 5 });
    assert.equal(notText.body.detail[0].type, 'string_type');
  });

  it('content of whitespace alone is refused (Converse refuses the blank text block on every later turn)', async () => {
    const id = await newSession();
    // Whitespace to JavaScript, Python or Java: U+001C–U+001F are Python's and Java's, U+0085 Python's (they
    // were stored); U+FEFF is JavaScript's alone.
    for (const content of [' ', '\n\t ', '\u00a0\u3000', '\u0085', '\u001c\u001f', ' \ufeff']) {
      const res = await send(id, { content });
      assert.equal(res.status, 422, JSON.stringify(content));
      assert.deepEqual(res.body.detail, [
        {
          type: 'value_error',
          loc: ['body', 'content'],
          msg: 'Value error, content must hold some text, not only whitespace',
          input: content,
          ctx: { error: {} },
        },
      ]);
    }
    // Text around whitespace is stored as sent; a length error is reported alone.
    assert.deepEqual((await send(id, { content: ' hi \n' })).body.content, [{ text: ' hi \n' }]);
    const long = await send(id, { content: ' '.repeat(10_001) });
    assert.deepEqual(
      long.body.detail.map((d: { type: string }) => d.type),
      ['string_too_long'],
    );
    assert.deepEqual((await h.call('GET', messagesUrl(id))).body.messages.length, 1);
  });

  it('an Idempotency-Key retry returns the first message, 201 again, and stores one', async () => {
    const id = await newSession();
    const headers = { 'idempotency-key': 'retry-1' };
    const first = await send(id, { content: 'Only once' }, headers);
    const again = await send(id, { content: 'Only once' }, headers);
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body);
    const other = await send(id, { content: 'Only once' }, { 'idempotency-key': 'retry-2' });
    assert.notEqual(other.body.id, first.body.id);
    const listed = await h.call('GET', messagesUrl(id));
    assert.deepEqual(
      listed.body.messages.map((m: { id: string }) => m.id),
      [first.body.id, other.body.id],
    );
    // Keys are per session: the same key elsewhere is a new message.
    const elsewhere = await send(await newSession(), { content: 'Only once' }, headers);
    assert.notEqual(elsewhere.body.id, first.body.id);
  });

  it('the same key with a different message is a conflict', async () => {
    const id = await newSession();
    await send(id, { content: 'first' }, { 'idempotency-key': 'k' });
    const res = await send(id, { content: 'second' }, { 'idempotency-key': 'k' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { detail: 'Idempotency-Key was already used with a different message' });
  });

  it('concurrent retries with one key all answer with the same single message', async () => {
    const id = await newSession();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => send(id, { content: 'racing' }, { 'idempotency-key': 'same' })),
    );
    assert.ok(results.every((r) => r.status === 201));
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
    assert.equal((await h.call('GET', messagesUrl(id))).body.messages.length, 1);
  });

  it('a retry after the first request failed between its two writes stores the message once', async () => {
    const id = await newSession();
    let failed = false;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        // Matched on the item (marshalled or not, depending on where the client's stack runs it).
        const sk = JSON.stringify((args.input as { Item?: unknown }).Item ?? {});
        if (context.commandName?.startsWith('Put') && sk.includes('"MSG#') && !failed) {
          failed = true;
          throw Object.assign(new Error('throttled'), { name: 'ThrottlingException', $metadata: {} });
        }
        return next(args);
      },
      { step: 'initialize', name: 'failMessageWrite' },
    );
    let first: Awaited<ReturnType<typeof send>>;
    try {
      first = await send(id, { content: 'flaky' }, { 'idempotency-key': 'flaky-1' });
    } finally {
      dynamo().middlewareStack.remove('failMessageWrite');
    }
    assert.equal(first.status, 503);
    assert.equal((await h.call('GET', messagesUrl(id))).body.messages.length, 0);
    const retry = await send(id, { content: 'flaky' }, { 'idempotency-key': 'flaky-1' });
    assert.equal(retry.status, 201);
    const again = await send(id, { content: 'flaky' }, { 'idempotency-key': 'flaky-1' });
    assert.deepEqual(again.body, retry.body);
    const listed = await h.call('GET', messagesUrl(id));
    assert.deepEqual(listed.body.messages, [retry.body]);
  });

  it('sends in two DynamoDB waves with or without a key, and a retry in two as well', async () => {
    const id = await newSession();
    const recorder = recordDynamoRequests();
    try {
      await send(id, { content: 'plain' });
      assert.equal(recorder.waves(), 2, recorder.commands().join(', '));
      recorder.clear();
      const first = await send(id, { content: 'keyed' }, { 'idempotency-key': 'waves-1' });
      // Session read (with its document names: one Query), key claim and the read of an earlier claim
      // side by side; then the message.
      assert.deepEqual(recorder.commands().sort(), [
        'GetItemCommand',
        'PutItemCommand',
        'PutItemCommand',
        'QueryCommand',
      ]);
      assert.equal(recorder.waves(), 2);
      recorder.clear();
      const retry = await send(id, { content: 'keyed' }, { 'idempotency-key': 'waves-1' });
      assert.deepEqual(retry.body, first.body);
      assert.equal(recorder.waves(), 2);
    } finally {
      recorder.stop();
    }
  });

  it('a request refused before writing gives its key back: the corrected request is not a conflict', async () => {
    const id = await newSession();
    const headers = { 'idempotency-key': 'fix-and-resend' };
    const refused = await send(
      id,
      { content: 'see file', attachments: [{ key: 'uploads/not-mine/x.png' }] },
      headers,
    );
    assert.equal(refused.status, 422);
    const fixed = await send(id, { content: 'see file' }, headers);
    assert.equal(fixed.status, 201, fixed.text);
    assert.deepEqual((await send(id, { content: 'see file' }, headers)).body, fixed.body);
  });

  /**
   * A is refused (its attachment is not uploaded yet) and gives its claim back while its twin B, sent
   * once the file landed, writes the message: B seals A's claim first (A's release then fails), or A's
   * release lands first (B's seal fails and B claims the key afresh). Either way C, the next retry,
   * finds B's message: a black-box audit had 2-3 copies stored per key before claims were sealed.
   */
  async function refusedTwinRace(first: 'seal' | 'release') {
    const id = await newSession();
    const key = `${userUploadPrefix(h.owner.id)}${newId()}/photo.png`;
    const body = { content: 'see photo', attachments: [{ key }] };
    const headers = { 'idempotency-key': `twin-race-${first}` };
    const signal = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      return { open, opened };
    };
    // A's release waits until B has read A's claim and asks to seal it; then one of the two goes first.
    const releaseAsked = signal();
    const sealAsked = signal();
    const done = { seal: signal(), release: signal() };
    const after = async <T>(write: 'seal' | 'release', run: () => Promise<T>) => {
      if (write !== first) await done[first].opened;
      try {
        return await run();
      } finally {
        done[write].open();
      }
    };
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const claim = JSON.stringify((args.input as { Key?: unknown }).Key ?? {}).includes('IDEMPOTENCY#');
        if (claim && context.commandName?.startsWith('Delete')) {
          releaseAsked.open();
          await sealAsked.opened;
          return after('release', () => next(args));
        }
        if (claim && context.commandName?.startsWith('Update')) {
          sealAsked.open();
          return after('seal', () => next(args));
        }
        return next(args);
      },
      { step: 'initialize', name: 'orderClaimWrites' },
    );
    try {
      const a = send(id, body, headers);
      await releaseAsked.opened;
      await s3().send(
        new PutObjectCommand({
          Bucket: config.bucketName,
          Key: key,
          Body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), // a PNG's signature
          ContentType: 'image/png',
        }),
      );
      const b = await send(id, body, headers);
      assert.equal(b.status, 201, b.text);
      assert.equal((await a).status, 422);
      const c = await send(id, body, headers);
      assert.deepEqual([c.status, c.body], [201, b.body]);
      const listed = await h.call('GET', messagesUrl(id));
      assert.deepEqual(listed.body.messages, [b.body]);
    } finally {
      sealAsked.open();
      done.seal.open();
      done.release.open();
      dynamo().middlewareStack.remove('orderClaimWrites');
    }
  }

  // Bounded: without sealing, A's held release would wait for a seal that never comes.
  it(
    'a twin that seals a refused request’s claim before it is given back: one message',
    { timeout: 10_000 },
    () => refusedTwinRace('seal'),
  );

  it(
    'a twin whose claim was given back under it claims the key afresh: one message',
    { timeout: 10_000 },
    () => refusedTwinRace('release'),
  );

  it('parallel twins that are all refused each answer 422, never a 500, and store nothing', async () => {
    const id = await newSession();
    const body = {
      content: 'see photo',
      attachments: [{ key: `${userUploadPrefix(h.owner.id)}${newId()}/gone.png` }],
    };
    // Refused twins give the key back under each other: one found it given back twice (a 500).
    for (let round = 0; round < 3; round++) {
      const headers = { 'idempotency-key': `refused-twins-${round}` };
      const statuses = await Promise.all(Array.from({ length: 10 }, () => send(id, body, headers)));
      assert.deepEqual(
        statuses.map((res) => res.status),
        statuses.map(() => 422),
      );
    }
    assert.deepEqual((await h.call('GET', messagesUrl(id))).body.messages, []);
  });

  it("a stranger's request with the owner's key neither blocks nor answers the owner's", async () => {
    const id = await newSession();
    const headers = { 'idempotency-key': 'shared-key' };
    const stranger = await send(id, { content: 'mine now?' }, headers, h.other.token);
    assert.deepEqual([stranger.status, stranger.body], [404, { detail: 'Chat session not found' }]);
    const owner = await send(id, { content: 'the owner' }, headers);
    assert.equal(owner.status, 201, owner.text);
    const claims = (await allItemsOf(id)).filter((item) => String(item.sk).startsWith('IDEMPOTENCY#'));
    assert.equal(claims.length, 1, 'the refused request gave its claim back');
  });

  it("the longest Idempotency-Key keeps its claim's sort key within DynamoDB's 1,024 bytes", async () => {
    // 255 characters of 4 UTF-8 bytes each: 1,020 bytes of key alone. dynalite counts a key's UTF-16
    // units, not its bytes, so the limit is asserted on the key itself.
    const key = '🔁'.repeat(255);
    const longestCaller = 'u'.repeat(255);
    const sortKeyBytes = (userId: string) =>
      Buffer.byteLength(chatKeys.idempotency(newId(), userId, key).sk, 'utf8');
    assert.ok(sortKeyBytes(longestCaller) <= 1024, `${sortKeyBytes(longestCaller)} bytes`);
    const id = await newSession();
    const first = await send(id, { content: 'emoji key' }, { 'idempotency-key': key });
    const retry = await send(id, { content: 'emoji key' }, { 'idempotency-key': key });
    assert.deepEqual([first.status, retry.status], [201, 201], first.text);
    assert.equal(retry.body.id, first.body.id, 'the retry answers the same message');
    const other = await send(id, { content: 'emoji key' }, { 'idempotency-key': `${key.slice(0, -2)}🔂` });
    assert.notEqual(other.body.id, first.body.id, 'another key is another message');
  });

  it('a keyed send refused for a session full of documents gives its key back: the corrected send uses it', async () => {
    const id = await newSession();
    const held = Array.from({ length: CHAT_LIMITS.sessionDocuments }, (_, i) => `held ${i}`);
    await updateItem(chatKeys.documentNames(id), { add: { document_names: new Set(held) } });
    const key = `${userUploadPrefix(h.owner.id)}${newId()}/notes.md`;
    await s3().send(
      new PutObjectCommand({
        Bucket: config.bucketName,
        Key: key,
        Body: '# notes',
        ContentType: 'text/markdown',
      }),
    );
    const headers = { 'idempotency-key': 'full-then-corrected' };
    const refused = await send(id, { content: 'see notes', attachments: [{ key }] }, headers);
    assert.deepEqual([refused.status, refused.body], [409, { detail: SESSION_DOCUMENTS_FULL }]);
    const corrected = await send(id, { content: 'see notes' }, headers);
    assert.equal(corrected.status, 201, corrected.text);
  });

  it('a retry answers the first message even after its attachment was deleted', async () => {
    const id = await newSession();
    const key = `${userUploadPrefix(h.owner.id)}${newId()}/photo.png`;
    const object = { Bucket: config.bucketName, Key: key };
    await s3().send(
      new PutObjectCommand({
        ...object,
        Body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), // a PNG's signature
        ContentType: 'image/png',
      }),
    );
    const body = { content: 'see photo', attachments: [{ key }] };
    const headers = { 'idempotency-key': 'photo-then-deleted' };
    const first = await send(id, body, headers);
    assert.equal(first.status, 201, first.text);
    await s3().send(new DeleteObjectCommand(object));
    const retry = await send(id, body, headers);
    assert.deepEqual([retry.status, retry.body], [201, first.body]);
    // Without the key, the same body is a new message, and its attachment is checked.
    assert.equal((await send(id, body)).status, 422);
  });

  it('a claim holds the message id and a fingerprint of the request, and expires after 24 hours', async () => {
    const id = await newSession();
    const before = Math.floor(Date.now() / 1000);
    const sent = await send(id, { content: 'secret plans' }, { 'idempotency-key': 'kept-a-day' });
    assert.equal(sent.status, 201, sent.text);
    const claims = (await allItemsOf(id)).filter((item) => String(item.sk).startsWith('IDEMPOTENCY#'));
    assert.equal(claims.length, 1);
    const claim = claims[0]!;
    assert.deepEqual(
      [claim.message_id, claim.created_at, claim.id],
      [sent.body.id, sent.body.created_at, undefined],
    );
    assert.ok(
      !JSON.stringify(claim).includes('secret plans') && !JSON.stringify(claim).includes('kept-a-day'),
    );
    const ttl = Number(claim.expires_at) - before;
    assert.ok(ttl >= 24 * 3600 && ttl <= 24 * 3600 + 60, String(ttl));
  });

  it('a claim stored before claims expired still answers: its message is written once, under its id', async () => {
    const id = await newSession();
    const key = 'claimed-before-expiry';
    const content = 'from an older deployment';
    // As sends stored their claims until 2026-11-26: the key itself, no expiry; the first attempt died.
    const claim = { message_id: newId(), created_at: '2026-11-25T09:00:00.000Z' };
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName,
        Item: {
          ...chatKeys.idempotency(id, h.owner.id, key),
          kind: 'chat_idempotency',
          key,
          fingerprint: sha256(JSON.stringify([content, []])),
          ...claim,
        },
      }),
    );
    const retry = await send(id, { content }, { 'idempotency-key': key });
    assert.equal(retry.status, 201, retry.text);
    assert.deepEqual([retry.body.id, retry.body.created_at], [claim.message_id, claim.created_at]);
    assert.deepEqual((await send(id, { content }, { 'idempotency-key': key })).body, retry.body);
    assert.equal((await send(id, { content: 'another' }, { 'idempotency-key': key })).status, 409);
    assert.equal((await h.call('GET', messagesUrl(id))).body.messages.length, 1);
  });

  it('an Idempotency-Key longer than 255 characters is refused as a header error', async () => {
    const id = await newSession();
    const key = 'k'.repeat(256);
    const res = await send(id, { content: 'x' }, { 'idempotency-key': key });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'string_too_long',
        loc: ['header', 'idempotency-key'],
        msg: 'String should have at most 255 characters',
        input: key,
        ctx: { max_length: 255 },
      },
    ]);
    // Reported with the body's errors, in FastAPI's order (path, query, header, body).
    const both = await send(id, { content: '' }, { 'idempotency-key': '' });
    assert.deepEqual(
      both.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
      [
        ['string_too_short', ['header', 'idempotency-key']],
        ['string_too_short', ['body', 'content']],
      ],
    );
  });

  it('200 concurrent sends to one session store 200 messages, listed in order', async () => {
    const id = await newSession();
    const sent = await Promise.all(
      Array.from({ length: 200 }, (_, i) => send(id, { content: `message ${i}` })),
    );
    assert.ok(sent.every((r) => r.status === 201));
    const first = await h.call('GET', `${messagesUrl(id)}?limit=100`);
    assert.equal(first.body.messages.length, 100);
    assert.equal(first.body.next_after, first.body.messages[99].id);
    const second = await h.call('GET', `${messagesUrl(id)}?limit=100&after=${first.body.next_after}`);
    assert.equal(second.body.messages.length, 100);
    assert.equal(second.body.next_after, null, 'the last page says so');
    const listed = [...first.body.messages, ...second.body.messages];
    const ids = listed.map((m: { id: string }) => m.id);
    assert.deepEqual(ids, [...ids].sort(), 'oldest first');
    assert.deepEqual(new Set(ids), new Set(sent.map((r) => r.body.id)), 'none lost');
    const times = listed.map((m: { created_at: string }) => m.created_at);
    assert.deepEqual(times, [...times].sort());
  });
});

describe('GET /chat/sessions/{id}/messages', () => {
  it('lists oldest first with the agent’s replies, paged by limit and after', async () => {
    const id = await newSession();
    const a = await send(id, { content: 'one' });
    const reply = await addAssistantMessage(id, 'two');
    const c = await send(id, { content: 'three' });
    const page1 = await h.call('GET', `${messagesUrl(id)}?limit=2`);
    assert.equal(page1.status, 200);
    assert.deepEqual(page1.body, { messages: [a.body, reply], next_after: reply.id });
    assert.equal(reply.role, 'assistant');
    const page2 = await h.call('GET', `${messagesUrl(id)}?limit=2&after=${reply.id}`);
    assert.deepEqual(page2.body, { messages: [c.body], next_after: null });
    const all = await h.call('GET', messagesUrl(id));
    assert.equal(all.body.messages.length, 3, 'default page of 50');
  });

  it('pages past DynamoDB’s 1 MB page: big messages never cut a list short', async () => {
    // 60 messages of 10,000 emoji (40 KB each in DynamoDB, 20 KB as dynalite counts) are more than
    // one DynamoDB page.
    const id = await newSession();
    const content = '😀'.repeat(10_000);
    for (let i = 0; i < 60; i++) assert.equal((await send(id, { content })).status, 201);
    const all = await h.call('GET', `${messagesUrl(id)}?limit=100`);
    assert.equal(all.body.messages.length, 60);
    assert.equal(all.body.next_after, null);
    const first = await h.call('GET', `${messagesUrl(id)}?limit=59`);
    assert.equal(first.body.messages.length, 59);
    assert.equal(first.body.next_after, first.body.messages[58].id, 'a next page follows');
    // Without a limit, the page holds 50 (docs/chat.md: limit 1–100, default 50).
    const byDefault = await h.call('GET', messagesUrl(id));
    assert.deepEqual(
      [byDefault.body.messages.length, byDefault.body.next_after],
      [50, byDefault.body.messages[49].id],
    );
  });

  it('ends a page of heavy messages before Lambda’s response limit, with next_after to go on', async () => {
    // Control characters grow sevenfold as Lambda sends them (`\u0001` escaped again): 5 replies of
    // 300,000 are about 2.1 MB each on the wire, so a page holds 2.
    const id = await newSession();
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await addAssistantMessage(id, '\u0001'.repeat(300_000)));
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page = await h.call('GET', `${messagesUrl(id)}?limit=50${after ? `&after=${after}` : ''}`);
      assert.equal(page.status, 200);
      assert.ok(page.body.messages.length <= 2, `${page.body.messages.length} messages on one page`);
      seen.push(...page.body.messages.map((m: { id: string }) => m.id));
      after = page.body.next_after;
    } while (after);
    assert.deepEqual(
      seen,
      replies.map((r) => r.id),
    );
  });

  it('validates limit and after', async () => {
    const id = await newSession();
    const res = await h.call('GET', `${messagesUrl(id)}?limit=101&after=abc`);
    assert.deepEqual(
      res.body.detail.map((d: { type: string; loc: unknown }) => [d.type, d.loc]),
      [
        ['less_than_equal', ['query', 'limit']],
        ['uuid_parsing', ['query', 'after']],
      ],
    );
    assert.equal(
      (await h.call('GET', `${messagesUrl(id)}?limit=0`)).body.detail[0].type,
      'greater_than_equal',
    );
  });
});

describe("another user's chat session", () => {
  it('reads one page of messages before its 404, not the whole list', async () => {
    // Pages of 2, as DynamoDB's 1 MB page ends them over large messages: the list read on, page
    // after page, beside the session check that refused it.
    const id = await newSession();
    for (let i = 0; i < 9; i++) await addAssistantMessage(id, `m${i}`);
    const undoShortPages = shortDynamoPages(2);
    const recorder = recordDynamoRequests();
    try {
      const theirs = await h.call('GET', `${messagesUrl(id)}?limit=50`, { token: h.other.token });
      assert.equal(theirs.status, 404);
      assert.equal(recorder.commands().filter((c) => c === 'QueryCommand').length, 1);
      recorder.clear();
      const mine = await h.call('GET', `${messagesUrl(id)}?limit=50`);
      assert.equal(mine.body.messages.length, 9);
      assert.equal(recorder.commands().filter((c) => c === 'QueryCommand').length, 5);
    } finally {
      recorder.stop();
      undoShortPages();
    }
  });

  it('answers 404 on every route, exactly like a missing one', async () => {
    const id = await newSession();
    await send(id, { content: 'private' });
    const missing = '01a1fc6e-0000-7000-8000-0000000000ff';
    for (const [method, json] of [
      ['GET', undefined],
      ['POST', { content: 'hi' }],
    ] as const) {
      const theirs = await h.call(method, messagesUrl(id), { json, token: h.other.token });
      const none = await h.call(method, messagesUrl(missing), { json });
      assert.equal(theirs.status, 404);
      assert.deepEqual(theirs.body, { detail: 'Chat session not found' });
      assert.equal(theirs.text, none.text);
    }
    // Their retry key cannot reach our session's message either.
    const retried = await send(id, { content: 'private' }, { 'idempotency-key': 'x' }, h.other.token);
    assert.equal(retried.status, 404);
    assert.equal((await h.call('GET', messagesUrl(id))).body.messages.length, 1);
  });
});

describe('the demo seed', () => {
  it('writes a session with a short conversation, a document attached to the first message', async () => {
    const { seedChat } = await import('../../infra/local/seed/chat.ts');
    const ids = await seedChat({ owner: h.owner.id, other: h.other.id }, {});
    const res = await h.call('GET', messagesUrl(ids.chat_session_id!));
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.messages.map((m: { role: string }) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(res.body.messages[0].content[1].document.format, 'md');
    assert.equal(res.body.messages[0].content[1].document.name, 'Launch brief');
  });
});
