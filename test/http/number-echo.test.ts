// A 422 echoes a JSON body's float literals as Python prints them (fastapi-errors.md §1.2: `-1.0`,
// `1e2` → `100.0`, `1e20` → `1e+20`), integer literals past 2^53 exactly (Python ints have no size),
// and a float field's bound in ctx as a float (§2.2: `"ge":0.0`,
// msg `... to 0`). JSON.parse, the fast path, cannot tell `1.0` from `1`: only a refused body is read
// again. The raw response text is compared, since parsing it would lose the difference again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ValidationItem } from '../../shared/http/errors.ts';
import { echoNumberLiterals } from '../../shared/http/validation.ts';
import { newId } from '../../shared/ids.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const send = (method: string, url: string, body: string, type = 'application/json') =>
  h.call(method, url, { body, headers: { 'content-type': type } });
const postProject = (body: string) => send('POST', '/api/v1/projects', body);

describe('number literals echoed in a 422', () => {
  it('keep their Python repr in input, and a float field bound is a float in ctx', async () => {
    const res = await postProject('{"title":"p","tasks":[{"title":"t","budget_usd":-1.0}]}');
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.text,
      '{"detail":[{"type":"greater_than_equal","loc":["body","tasks",0,"budget_usd"],' +
        '"msg":"Input should be greater than or equal to 0","input":-1.0,"ctx":{"ge":0.0}}]}',
    );
    const over = await postProject('{"title":"p","tasks":[{"title":"t","budget_usd":1E10}]}');
    assert.equal(over.status, 422, over.text);
    assert.match(
      over.text,
      /"msg":"Input should be less than or equal to 1000000000","input":10000000000\.0,"ctx":\{"le":1000000000\.0\}/,
    );
  });

  it('render every float form as Python does', async () => {
    const res = await postProject(
      '{"title":1e2,"description":-0.0,"composer_prompt":1e20,"bundle_template":0.00001}',
    );
    assert.equal(res.status, 422, res.text);
    assert.match(
      res.text,
      /"loc":\["body","title"\],"msg":"Input should be a valid string","input":100\.0\}/,
    );
    assert.match(res.text, /"loc":\["body","description"\],[^}]*"input":-0\.0\}/);
    assert.match(res.text, /"loc":\["body","composer_prompt"\],[^}]*"input":1e\+20\}/);
    assert.match(res.text, /"loc":\["body","bundle_template"\],[^}]*"input":1e-05\}/);
  });

  it('leave integer literals as integers (ctx stays the field bound)', async () => {
    const res = await postProject('{"title":5,"tasks":[{"title":"t","budget_usd":-1}]}');
    assert.equal(res.status, 422, res.text);
    assert.match(res.text, /"loc":\["body","title"\],"msg":"Input should be a valid string","input":5\}/);
    assert.match(res.text, /"input":-1,"ctx":\{"ge":0\.0\}/);
  });

  it('echo integer literals past 2^53 exactly, as Python ints', async () => {
    const res = await postProject(
      '{"title":99999999999999999999,"tasks":[{"title":"t","budget_usd":-12345678901234567891}],' +
        '"description":9007199254740993}',
    );
    assert.equal(res.status, 422, res.text);
    assert.match(res.text, /"loc":\["body","title"\],[^}]*"input":99999999999999999999\}/);
    assert.match(res.text, /"loc":\["body","description"\],[^}]*"input":9007199254740993\}/);
    assert.match(res.text, /"input":-12345678901234567891,"ctx":\{"ge":0\.0\}/);
  });

  it('keep floats in the parent object echoed for a missing field, at every level', async () => {
    const res = await postProject(
      '{"tasks":[{"budget_usd":2.0,"status":"pending"}],"extra":[1.0,{"y":-0.0,"z":7}],"n":3}',
    );
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.text,
      '{"detail":[' +
        '{"type":"missing","loc":["body","title"],"msg":"Field required",' +
        '"input":{"tasks":[{"budget_usd":2.0,"status":"pending"}],"extra":[1.0,{"y":-0.0,"z":7}],"n":3}},' +
        '{"type":"missing","loc":["body","tasks",0,"title"],"msg":"Field required",' +
        '"input":{"budget_usd":2.0,"status":"pending"}}]}',
    );
  });

  it('still mask secret fields, a float secret included', async () => {
    const url = `/api/v1/workspaces/${newId()}/integrations/ads-provider/credentials`;
    const missing = await send('PUT', url, '{"client_secret":"s3cret-value","n":3.0}');
    assert.equal(missing.status, 422, missing.text);
    assert.equal(
      missing.text,
      '{"detail":[{"type":"missing","loc":["body","client_id"],"msg":"Field required",' +
        '"input":{"client_secret":"**********","n":3.0}}]}',
    );
    const wrong = await send('PUT', url, '{"client_id":1.5,"client_secret":2.0}');
    assert.equal(wrong.status, 422, wrong.text);
    assert.deepEqual(
      wrong.body.detail.map((item: { input: unknown }) => item.input),
      [1.5, '**********'],
    );
    assert.match(wrong.text, /"input":"\*{10}"/);
  });

  it('do not touch a body sent as text (echoed as the string it is)', async () => {
    const res = await send('POST', '/api/v1/projects', '{"title":1.0}', 'text/plain');
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.detail[0].input, '{"title":1.0}');
  });
});

describe('echoNumberLiterals', () => {
  it('leaves items as they are when the body cannot be read again', () => {
    const item = (): ValidationItem => ({
      type: 'missing',
      loc: ['body', 'x'],
      msg: 'Field required',
      input: null,
    });
    for (const text of ['['.repeat(1001) + ']'.repeat(1001), `[${'1'.repeat(4301)}]`, '{"a":', undefined]) {
      const items = [item()];
      echoNumberLiterals(items, text);
      assert.deepEqual(items, [item()]);
    }
  });
});
