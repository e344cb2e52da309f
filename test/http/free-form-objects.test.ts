// Free-form objects (a team's config, a task's trigger, a kit's social links) keep whatever keys a
// client sends, `constructor` and `toString` included, except `__proto__` and the empty key, which
// could not be stored: those are a 422 and nothing is written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../shared/ids.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const team = (extra: Record<string, unknown>) => ({
  team_type: 'content',
  display_name: 'Keys',
  tier: 'starter',
  operation_mode: 'auto',
  ...extra,
});

describe('free-form objects', () => {
  it('store and answer keys named after Object.prototype members', async () => {
    const config = {
      constructor: 'x',
      toString: 'y',
      nested: { constructor: { valueOf: 1 }, hasOwnProperty: [] },
    };
    const strategy = { constructor: { prototype: 'p' } };
    const created = await h.call('POST', '/api/v1/teams', {
      json: team({ config, content_strategy: strategy }),
    });
    assert.equal(created.status, 201, created.text);
    const read = await h.call('GET', `/api/v1/teams/${created.body.id}`);
    assert.deepEqual(read.body.config, { ...config, timezone: 'UTC' }); // the default time zone is added
    assert.deepEqual(read.body.content_strategy, strategy);
  });

  it('report only the first rule an object breaks, as pydantic stops at a failing validator', async () => {
    const res = await h.call('POST', '/api/v1/teams', {
      // A __proto__ key whose value is a lone surrogate, in an object past 16 KiB: three rules broken.
      body: JSON.stringify(team({ config: { pad: 'p'.repeat(20_000) } })).replace(
        /}}$/,
        ',"a":{"__proto__":"\\ud800"}}}',
      ),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(
      res.body.detail.map((d: { loc: unknown[]; msg: string }) => [d.loc, d.msg]),
      [[['body', 'config'], 'Value error, "__proto__" is not accepted as a key']],
    );
  });

  it('refuse a __proto__ key at any depth with a 422, writing nothing', async () => {
    const token = await h.tokenFor(newId());
    const res = await h.call('POST', '/api/v1/teams', {
      // As JSON text: an object literal's __proto__ would set a prototype, not send the key.
      body: JSON.stringify(team({})).replace(/}$/, ',"config":{"a":{"__proto__":{"b":1}}}}'),
      headers: { 'content-type': 'application/json' },
      token,
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.detail.length, 1);
    assert.deepEqual(
      [res.body.detail[0].type, res.body.detail[0].loc, res.body.detail[0].msg],
      ['value_error', ['body', 'config'], 'Value error, "__proto__" is not accepted as a key'],
    );
    assert.match(res.text, /"__proto__":\{"b":1\}/, 'the input is echoed as sent');
    assert.deepEqual((await h.call('GET', '/api/v1/teams', { token })).body, []);

    const workspace = await h.call('POST', '/api/v1/workspaces', { json: { name: 'w' }, token });
    const task = await h.call('POST', `/api/v1/workspaces/${workspace.body.id}/tasks`, {
      body: `{"skill_slug":"s","title":"t","hired_agent_id":"${newId()}","trigger":{"__proto__":"x"}}`,
      headers: { 'content-type': 'application/json' },
      token,
    });
    assert.equal(task.status, 422, task.text);
    assert.deepEqual(task.body.detail[0].loc, ['body', 'trigger']);
  });

  it('refuse an empty key at any depth with a 422, writing nothing (DynamoDB cannot store one)', async () => {
    // dynalite stores `{"": 1}`; DynamoDB answers "Empty attribute name", which was a 500 there.
    const token = await h.tokenFor(newId());
    const emptyKey = 'Value error, keys must not be empty';
    for (const config of [{ '': 1 }, { a: [{ b: { '': 'x' } }] }]) {
      const res = await h.call('POST', '/api/v1/teams', { json: team({ config }), token });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(
        res.body.detail.map((d: { type: string; loc: unknown[]; msg: string }) => [d.type, d.loc, d.msg]),
        [['value_error', ['body', 'config'], emptyKey]],
      );
    }
    assert.deepEqual((await h.call('GET', '/api/v1/teams', { token })).body, []);

    const workspace = await h.call('POST', '/api/v1/workspaces', { json: { name: 'w' }, token });
    const task = await h.call('POST', `/api/v1/workspaces/${workspace.body.id}/tasks`, {
      json: { skill_slug: 's', title: 't', hired_agent_id: newId(), trigger: { on: { '': 1 } } },
      token,
    });
    assert.equal(task.status, 422, task.text);
    assert.deepEqual([task.body.detail[0].loc, task.body.detail[0].msg], [['body', 'trigger'], emptyKey]);
    // A key of one space is a key: stored and answered as sent.
    const spaced = await h.call('POST', '/api/v1/teams', { json: team({ config: { ' ': 1 } }), token });
    assert.equal(spaced.status, 201, spaced.text);
    assert.equal(spaced.body.config[' '], 1);
  });
});
