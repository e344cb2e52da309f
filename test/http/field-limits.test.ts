// The documented bounds of request fields at their edges (docs/decisions.md "Limits" and the domain
// pages), written out here as the docs state them, not read from the code's constants: the value at
// the limit is taken, one past it is FastAPI's 422 with the bound in its text, and the refusal writes
// nothing (no item in the table, no object in the bucket). Only the sides no other test sends: a bound
// whose edges are both sent elsewhere (a brand's fields, the chat content, the search query, …) is
// left to that test. Lengths are code points: the values at the limit are astral characters (two
// UTF-16 units each, four bytes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3 } from '../../shared/aws/s3.ts';
import { config } from '../../shared/config.ts';
import { newId } from '../../shared/ids.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { scanTable } from '../support/table-scan.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

/** What the table and the bucket hold: a refusal must leave both as they were. */
const stored = async () => [
  (await scanTable({ ProjectionExpression: 'pk' })).length,
  (await s3().send(new ListObjectsV2Command({ Bucket: config.bucketName }))).KeyCount,
];

type Loc = (string | number)[];
interface Edge {
  /** The value at the limit and the status it answers (a 404 where the field is valid but names
   * nothing there), where no other test sends it. */
  at?: { value: unknown; status: number };
  /** The value one past the limit and the 422 item it answers, where no other test sends it. */
  past?: { value: unknown; item: Record<string, unknown> };
}
interface Field extends Edge {
  name: string;
  method?: string;
  /** The route, given a fresh caller (who owns what the route needs). */
  url: (token: string) => string | Promise<string>;
  /** A valid body holding `value` at the field. */
  body: (value: unknown) => unknown;
  loc: Loc;
}

const astral = (n: number) => '😀'.repeat(n);

/** A string field of at most `max` code points; `sides` names the sides no other test sends. */
const chars = (max: number, sides: 'at' | 'past' | 'both', created = 201): Edge => ({
  ...(sides !== 'past' && { at: { value: astral(max), status: created } }),
  ...(sides !== 'at' && {
    past: {
      value: `${astral(max)}x`,
      item: {
        type: 'string_too_long',
        msg: `String should have at most ${max} characters`,
        input: `${astral(max)}x`,
        ctx: { max_length: max },
      },
    },
  }),
});

/** A list of at most `max` items, from `item(i)`. */
const items = (max: number, item: (i: number) => unknown, sides: 'past' | 'both'): Edge => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => item(i));
  return {
    ...(sides === 'both' && { at: { value: list(max), status: 201 } }),
    past: {
      value: list(max + 1),
      item: {
        type: 'too_long',
        msg: `List should have at most ${max} items after validation, not ${max + 1}`,
        input: list(max + 1),
        ctx: { field_type: 'List', max_length: max, actual_length: max + 1 },
      },
    },
  };
};

/** A number field of at most `max`. */
const atMost = (max: number, sides: 'past' | 'both'): Edge => ({
  ...(sides === 'both' && { at: { value: max, status: 201 } }),
  past: {
    value: max + 1,
    item: {
      type: 'less_than_equal',
      msg: `Input should be less than or equal to ${max}`,
      input: max + 1,
      ctx: { le: max },
    },
  },
});

/** A free-form object (docs/decisions.md "Limits"): at most 16 KiB as JSON. One byte past it here
 * (`{"pad":"…"}` of 16,385 bytes); 16,384 is taken by the team test at every maximum. */
const PAST_16_KIB = { pad: 'a'.repeat(16 * 1024 + 1 - '{"pad":""}'.length) };
const objectPast16KiB = (name = 'object'): Edge => ({
  past: {
    value: PAST_16_KIB,
    item: {
      type: 'value_error',
      msg: `Value error, ${name} must be at most 16384 bytes as JSON`,
      input: PAST_16_KIB,
      ctx: { error: {} },
    },
  },
});

const route = (url: string) => () => url;
const workspaceOf = async (token: string) =>
  (await h.call('POST', '/api/v1/workspaces', { json: { name: 'limits' }, token })).body.id as string;
const TEAM = { team_type: 'content', display_name: 'Limits', tier: 'growth', operation_mode: 'autopilot' };
const LINE = { platform: 'instagram', task_type: 'social_post', per_week: 1 };
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const hour = (i: number) => `${String(i % 24).padStart(2, '0')}:${i < 24 ? '00' : '30'}`;

const fields: Field[] = [
  // docs/chat.md: a session's title 1–200.
  {
    name: 'chat session title',
    url: route('/api/v1/chat/sessions'),
    body: (title) => ({ title }),
    loc: ['body', 'title'],
    ...chars(200, 'both'),
  },
  // docs/shopping.md: a session's title 1–200 (201 is sent by test/shopping/api.test.ts).
  {
    name: 'shopping session title',
    url: route('/api/v1/shopping/sessions'),
    body: (title) => ({ title }),
    loc: ['body', 'title'],
    ...chars(200, 'at'),
  },
  // docs/shopping.md: prices integers ≥ 0 (price_min_cents −1 is sent by test/shopping/api.test.ts).
  {
    name: 'search price_max_cents',
    url: async (token) =>
      `/api/v1/shopping/sessions/${(await h.call('POST', '/api/v1/shopping/sessions', { json: {}, token })).body.id}/search`,
    body: (price_max_cents) => ({ query: 'towel', price_max_cents }),
    loc: ['body', 'price_max_cents'],
    at: { value: 0, status: 200 },
    past: {
      value: -1,
      item: {
        type: 'greater_than_equal',
        msg: 'Input should be greater than or equal to 0',
        input: -1,
        ctx: { ge: 0 },
      },
    },
  },
  // docs/uploads.md: filename 1–255 (256 is sent by test/uploads/uploads.test.ts).
  {
    name: 'upload filename',
    url: route('/api/v1/uploads'),
    body: (filename) => ({ filename, content_type: 'text/plain', size: 1 }),
    loc: ['body', 'filename'],
    ...chars(255, 'at', 200),
  },
  // docs/decisions.md: project title / description / composer_prompt / bundle_template 1–200 /
  // ≤ 5,000 / ≤ 10,000 / ≤ 200, tasks' titles 1–200 and budget_usd 0–1,000,000,000 (each field at
  // its maximum is sent by test/foundation/projects.test.ts).
  ...(
    [
      ['title', 200],
      ['description', 5000],
      ['composer_prompt', 10_000],
      ['bundle_template', 200],
    ] as const
  ).map(
    ([field, max]): Field => ({
      name: `project ${field}`,
      url: route('/api/v1/projects'),
      body: (value) => ({ title: 'Limits', [field]: value }),
      loc: ['body', field],
      ...chars(max, 'past'),
    }),
  ),
  {
    name: 'project task title',
    url: route('/api/v1/projects'),
    body: (title) => ({ title: 'Limits', tasks: [{ title }] }),
    loc: ['body', 'tasks', 0, 'title'],
    ...chars(200, 'past'),
  },
  {
    name: 'project task budget_usd',
    url: route('/api/v1/projects'),
    body: (budget_usd) => ({ title: 'Limits', tasks: [{ title: 't', budget_usd }] }),
    loc: ['body', 'tasks', 0, 'budget_usd'],
    ...atMost(1_000_000_000, 'both'),
  },
  // docs/teams.md: team_type, tier, operation_mode 1–64, display_name 1–200, objects of 16 KiB,
  // content_cadence ≤ 20 lines of per_week 1–21, preferred_days 1–7, preferred_times 1–24, platform
  // and task_type 1–64, title 1–200 (each at its maximum is sent by test/teams/teams.test.ts).
  ...(
    [
      ['team_type', 64],
      ['display_name', 200],
      ['tier', 64],
      ['operation_mode', 64],
    ] as const
  ).map(
    ([field, max]): Field => ({
      name: `team ${field}`,
      url: route('/api/v1/teams'),
      body: (value) => ({ ...TEAM, [field]: value }),
      loc: ['body', field],
      ...chars(max, 'past'),
    }),
  ),
  ...(['content_strategy', 'orchestrator_cadence', 'config'] as const).map(
    (field): Field => ({
      name: `team ${field}`,
      url: route('/api/v1/teams'),
      body: (value) => ({ ...TEAM, [field]: value }),
      loc: ['body', field],
      ...objectPast16KiB(),
    }),
  ),
  {
    name: 'team content_cadence',
    url: route('/api/v1/teams'),
    body: (content_cadence) => ({ ...TEAM, content_cadence }),
    loc: ['body', 'content_cadence'],
    ...items(20, (i) => ({ ...LINE, platform: `p${i}` }), 'past'),
  },
  {
    name: 'cadence per_week',
    url: route('/api/v1/teams'),
    body: (per_week) => ({
      ...TEAM,
      content_cadence: [
        { ...LINE, per_week, preferred_days: WEEK, preferred_times: ['09:00', '12:00', '18:00', '21:00'] },
      ],
    }),
    loc: ['body', 'content_cadence', 0, 'per_week'],
    ...atMost(21, 'past'),
  },
  {
    name: 'cadence preferred_days',
    url: route('/api/v1/teams'),
    body: (preferred_days) => ({ ...TEAM, content_cadence: [{ ...LINE, preferred_days }] }),
    loc: ['body', 'content_cadence', 0, 'preferred_days'],
    ...items(7, (i) => WEEK[i % 7], 'past'),
  },
  {
    name: 'cadence preferred_times',
    url: route('/api/v1/teams'),
    body: (preferred_times) => ({ ...TEAM, content_cadence: [{ ...LINE, preferred_times }] }),
    loc: ['body', 'content_cadence', 0, 'preferred_times'],
    ...items(24, hour, 'past'),
  },
  ...(
    [
      ['platform', 64],
      ['task_type', 64],
      ['title', 200],
    ] as const
  ).map(
    ([field, max]): Field => ({
      name: `cadence ${field}`,
      url: route('/api/v1/teams'),
      body: (value) => ({ ...TEAM, content_cadence: [{ ...LINE, [field]: value }] }),
      loc: ['body', 'content_cadence', 0, field],
      ...chars(max, 'past'),
    }),
  ),
  // docs/workspaces.md: client_id 1–512, client_secret 1–2,048 (2,049 is sent by
  // test/workspaces/credentials.test.ts). The secret's value at the limit is not astral: the harness
  // keeps every secret sent and fails any answer that holds one, and an astral secret is inside the
  // astral values of the fields after it.
  {
    name: 'credentials client_id',
    method: 'PUT',
    url: async (token) =>
      `/api/v1/workspaces/${await workspaceOf(token)}/integrations/ads-provider/credentials`,
    body: (client_id) => ({ client_id, client_secret: 'limits-secret' }),
    loc: ['body', 'client_id'],
    ...chars(512, 'both', 200),
  },
  {
    name: 'credentials client_secret',
    method: 'PUT',
    url: async (token) =>
      `/api/v1/workspaces/${await workspaceOf(token)}/integrations/ads-provider/credentials`,
    body: (client_secret) => ({ client_id: 'limits', client_secret }),
    loc: ['body', 'client_secret'],
    at: { value: 'é'.repeat(2048), status: 200 },
  },
  // docs/workspaces.md: a task's skill_slug 1–100, title 1–200, description ≤ 5,000 (5,000 is sent
  // by test/workspaces/tasks.test.ts), trigger an object of at most 16 KiB.
  ...(
    [
      ['skill_slug', 100, 'both'],
      ['title', 200, 'both'],
      ['description', 5000, 'past'],
    ] as const
  ).map(
    ([field, max, sides]): Field => ({
      name: `workspace task ${field}`,
      url: async (token) => `/api/v1/workspaces/${await workspaceOf(token)}/tasks`,
      body: (value) => ({ skill_slug: 's', title: 't', hired_agent_id: newId(), [field]: value }),
      loc: ['body', field],
      ...chars(max, sides),
    }),
  ),
  {
    name: 'workspace task trigger',
    url: async (token) => `/api/v1/workspaces/${await workspaceOf(token)}/tasks`,
    body: (trigger) => ({ skill_slug: 's', title: 't', hired_agent_id: newId(), trigger }),
    loc: ['body', 'trigger'],
    ...objectPast16KiB('trigger'),
  },
  // docs/brand-kits.md: the upload_key of generate-from-upload and of the avatar upload, 1–1,024.
  // At the limit it is a key like any other: no object there, 404.
  {
    name: 'generate-from-upload upload_key',
    url: route('/api/v1/brand-kits/generate-from-upload'),
    body: (upload_key) => ({ upload_key }),
    loc: ['body', 'upload_key'],
    ...chars(1024, 'both', 404),
  },
  {
    name: 'avatar upload upload_key',
    url: async (token) => {
      const team = await h.call('POST', '/api/v1/teams', {
        json: { ...TEAM, team_type: 'avatar-video' },
        token,
      });
      return `/api/v1/teams/${team.body.id}/avatar/upload`;
    },
    body: (upload_key) => ({ upload_key, consent_attestation: true }),
    loc: ['body', 'upload_key'],
    // At the limit: a valid request, refused by the account's precondition (training not enabled).
    ...chars(1024, 'both', 403),
  },
];

// docs/brand-kits.md, "Saving a brand kit": every text field's bound, the keyword lists (≤ 50 items
// of 1–200), the palette (≤ 50) and the social objects (16 KiB). A name of 201 and 51 tone_keywords
// are sent by test/brand-kits/http.test.ts, a palette of 50 by its draft test.
const KIT_TEXTS: [string, number, 'at' | 'both'][] = [
  ['name', 200, 'at'],
  ['logo_wordmark', 200, 'both'],
  ['location', 200, 'both'],
  ['font_headings', 100, 'both'],
  ['font_body', 100, 'both'],
  ['logo_wordmark_font', 100, 'both'],
  ['industry', 100, 'both'],
  ['tagline', 500, 'both'],
  ['website_url', 500, 'both'],
  ['brand_voice', 5000, 'both'],
  ['target_audience', 5000, 'both'],
  ['imagery_style', 5000, 'both'],
  ['mission_statement', 5000, 'both'],
  ['logo_url', 4096, 'both'],
  ['logo_icon_url', 4096, 'both'],
  ['logo_dark_url', 4096, 'both'],
  ['logo_square_url', 4096, 'both'],
];
const kit = (
  field: string,
  edge: Edge,
  loc: Loc = ['body', field],
  body = (value: unknown) => ({ [field]: value }),
) =>
  fields.push({
    name: `brand kit ${loc.slice(1).join('.')}`,
    url: route('/api/v1/brand-kits'),
    body,
    loc,
    ...edge,
  });
for (const [field, max, sides] of KIT_TEXTS) kit(field, chars(max, sides));
// A logo key at the limit names no upload of the caller's: 404, as any such key.
for (const field of ['logo_key', 'logo_icon_key', 'logo_dark_key', 'logo_square_key'])
  kit(field, chars(1024, 'both', 404));
for (const field of ['tone_keywords', 'competitors', 'seo_keywords', 'content_pillars']) {
  const list = items(50, (i) => `k${i}`, 'both');
  kit(field, field === 'tone_keywords' ? { at: list.at } : list);
  kit(field, chars(200, 'both'), ['body', field, 0], (value) => ({ [field]: [value] }));
}
kit('color_palette', { past: items(50, () => '#1A2B3C', 'past').past });
for (const field of ['social_links', 'social_profiles']) kit(field, objectPast16KiB());

describe('request fields at their documented limits', () => {
  for (const field of fields) {
    const method = field.method ?? 'POST';
    if (field.at) {
      const { value, status } = field.at;
      it(`${field.name}: at the limit, ${status}`, async () => {
        const token = await h.tokenFor(newId());
        const res = await h.call(method, await field.url(token), { json: field.body(value), token });
        assert.equal(res.status, status, res.text.slice(0, 300));
      });
    }
    if (field.past) {
      const { value, item } = field.past;
      it(`${field.name}: one past it, 422 ${item.type}, nothing written`, async () => {
        const token = await h.tokenFor(newId());
        const url = await field.url(token);
        const before = await stored();
        const res = await h.call(method, url, { json: field.body(value), token });
        assert.equal(res.status, 422, res.text.slice(0, 300));
        assert.deepEqual(res.body.detail, [{ ...item, loc: field.loc }]);
        assert.deepEqual(await stored(), before);
      });
    }
  }

  // docs/uploads.md: an Idempotency-Key of 1–255 characters (the other creates send 256 and 0 in
  // test/http/idempotent-creates.test.ts).
  it('upload Idempotency-Key: 255 characters taken, 256 are 422 string_too_long, nothing counted', async () => {
    const token = await h.tokenFor(newId());
    const upload = (key: string) =>
      h.call('POST', '/api/v1/uploads', {
        json: { filename: 'a.txt', content_type: 'text/plain', size: 1 },
        headers: { 'idempotency-key': key },
        token,
      });
    assert.equal((await upload(astral(255))).status, 200);
    const before = await stored();
    const past = await upload(`${astral(255)}x`);
    assert.equal(past.status, 422);
    assert.deepEqual(past.body.detail, [
      {
        type: 'string_too_long',
        loc: ['header', 'idempotency-key'],
        msg: 'String should have at most 255 characters',
        input: `${astral(255)}x`,
        ctx: { max_length: 255 },
      },
    ]);
    assert.deepEqual(await stored(), before);
  });

  // docs/workspaces.md: the task list's `status` filter is at most 64 characters.
  it('workspace task list status: 64 characters filter, 65 are 422 string_too_long', async () => {
    const token = await h.tokenFor(newId());
    const url = `/api/v1/workspaces/${await workspaceOf(token)}/tasks`;
    const at = await h.call('GET', `${url}?status=${encodeURIComponent(astral(64))}`, { token });
    assert.deepEqual([at.status, at.body], [200, []]);
    const past = await h.call('GET', `${url}?status=${encodeURIComponent(`${astral(64)}x`)}`, { token });
    assert.equal(past.status, 422);
    assert.deepEqual(past.body.detail, [
      {
        type: 'string_too_long',
        loc: ['query', 'status'],
        msg: 'String should have at most 64 characters',
        input: `${astral(64)}x`,
        ctx: { max_length: 64 },
      },
    ]);
  });
});
