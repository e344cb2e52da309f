// A lone UTF-16 surrogate (JSON `"\ud800"`) has no UTF-8: Python cannot read it (pydantic's
// `string_unicode`), strict JSON readers (jq, Python) refuse it, and FastAPI answers 500 when it would
// echo one. Here: string fields and free-form objects refuse it with a 422, nothing is stored, and no
// error body carries one (echoed as U+FFFD). Well-formed astral characters are untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../shared/ids.ts';
import { type CallResult, type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const NOT_UNICODE = 'Input should be a valid string, unable to parse raw data as a unicode string';
const DICT_NOT_UNICODE =
  'Value error, keys and strings must be valid Unicode: a lone surrogate (U+D800 to U+DFFF) is not accepted';

/** What jq or Python's json.loads would read: no escaped lone surrogate, nothing ill-formed. */
const assertStrictJson = (res: CallResult) => {
  assert.doesNotMatch(res.text, /\\ud[89a-f][0-9a-f]{2}/i, 'no lone surrogate escape');
  assert.ok(res.text.isWellFormed(), 'encodes as UTF-8');
  JSON.parse(res.text);
};

const team = (extra: Record<string, unknown>) => ({
  team_type: 'content',
  display_name: 'Text',
  tier: 'starter',
  operation_mode: 'auto',
  ...extra,
});

describe('lone surrogates in string fields', () => {
  it('are refused with string_unicode, echoed as U+FFFD, and nothing is stored', async () => {
    const token = await h.tokenFor(newId());
    const res = await h.call('POST', '/api/v1/brands', { json: { name: 'a\ud800b' }, token });
    assert.equal(res.status, 422, res.text);
    assertStrictJson(res);
    assert.equal(
      res.text,
      JSON.stringify({
        detail: [{ type: 'string_unicode', loc: ['body', 'name'], msg: NOT_UNICODE, input: 'a\ufffdb' }],
      }),
    );
    assert.deepEqual((await h.call('GET', '/api/v1/brands', { token })).body, []);
  });

  it('report only string_unicode: no length error, no rule piped after the field', async () => {
    const res = await h.call('POST', '/api/v1/brands', {
      json: { name: `${'a'.repeat(300)}\udc00`, industry: '\ud800' },
    });
    assert.equal(res.status, 422, res.text);
    assertStrictJson(res);
    assert.deepEqual(
      res.body.detail.map((item: { type: string; loc: unknown[] }) => [item.type, item.loc]),
      [
        ['string_unicode', ['body', 'name']],
        ['string_unicode', ['body', 'industry']],
      ],
    );
    // A time of the cadence is string() with a format rule piped after it.
    const cadence = { platform: 'blog', task_type: 'post', per_week: 1, preferred_times: ['09:0\ud800'] };
    const teamRes = await h.call('POST', '/api/v1/teams', { json: team({ content_cadence: [cadence] }) });
    assert.equal(teamRes.status, 422, teamRes.text);
    assertStrictJson(teamRes);
    assert.deepEqual(teamRes.body.detail, [
      {
        type: 'string_unicode',
        loc: ['body', 'content_cadence', 0, 'preferred_times', 0],
        msg: NOT_UNICODE,
        input: '09:0\ufffd',
      },
    ]);
  });

  it('accept a surrogate pair as one character, escaped or raw', async () => {
    const full = await h.call('POST', '/api/v1/brands', { json: { name: '😀'.repeat(200) } });
    assert.equal(full.status, 201, full.text);
    assert.equal(full.body.name, '😀'.repeat(200));
    const over = await h.call('POST', '/api/v1/brands', { json: { name: '😀'.repeat(201) } });
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.detail[0].type, 'string_too_long');
    assert.equal(over.body.detail[0].input, '😀'.repeat(201));
    const escaped = await h.call('POST', '/api/v1/brands', {
      body: '{"name":"\\ud83d\\ude00"}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(escaped.status, 201, escaped.text);
    assert.equal(escaped.body.name, '😀');
  });
});

describe('lone surrogates in free-form objects', () => {
  it('are refused in a value or a key at any depth, echoed as U+FFFD, nothing stored', async () => {
    const token = await h.tokenFor(newId());
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ a: '\ud800' }, { a: '\ufffd' }],
      [{ '\udfff': 1 }, { '\ufffd': 1 }],
      [{ a: [{ b: ['x\udbffy'] }] }, { a: [{ b: ['x\ufffdy'] }] }],
      [{ a: { 'k\udc00': true } }, { a: { 'k\ufffd': true } }],
    ];
    for (const [config, echoed] of cases) {
      const res = await h.call('POST', '/api/v1/teams', { json: team({ config }), token });
      assert.equal(res.status, 422, res.text);
      assertStrictJson(res);
      assert.deepEqual(res.body.detail, [
        {
          type: 'value_error',
          loc: ['body', 'config'],
          msg: DICT_NOT_UNICODE,
          input: echoed,
          ctx: { error: {} },
        },
      ]);
    }
    const strategy = await h.call('POST', '/api/v1/teams', {
      json: team({ content_strategy: { '\ud800': '\udc00' } }),
      token,
    });
    assert.equal(strategy.status, 422, strategy.text);
    assert.deepEqual(strategy.body.detail[0].loc, ['body', 'content_strategy']);
    assert.deepEqual((await h.call('GET', '/api/v1/teams', { token })).body, []);
  });

  it('keep well-formed astral characters in keys and values', async () => {
    const config = { '😀': '\ud83d\ude00 ok', nested: ['𝄞'] };
    const created = await h.call('POST', '/api/v1/teams', { json: team({ config }) });
    assert.equal(created.status, 201, created.text);
    const read = await h.call('GET', `/api/v1/teams/${created.body.id}`);
    assert.deepEqual(read.body.config, { ...config, timezone: 'UTC' });
  });
});
