// Spec endpoint 2 and Authentication points 2–3: the ads credentials are sealed at rest, and no
// response of any workspace route ever carries a secret, a provider token or a key beyond the spec's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { setClock } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import {
  connectAdsAccount,
  readAdsCredentials,
  readAdsProviderData,
} from '../../shared/workspaces/credentials.ts';
import { workspaceKeys } from '../../shared/workspaces/keys.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const CLIENT_ID = 'app-4711-client-id';
const SECRET = 'shh-ads-client-secret-0f9e8d7c6b5a';
const PAGE_TOKEN = 'EAAB-page-access-token-31337';
const USER_TOKEN = 'EAAB-user-access-token-42424';

/** The spec's integration status fields, all of them and nothing else. */
const INTEGRATION_KEYS = [
  'id',
  'provider',
  'account_id',
  'account_name',
  'status',
  'scopes',
  'last_synced_at',
  'token_expires_at',
  'created_at',
  'has_oauth_credentials',
  'social_pages',
  'social_user_id',
].sort();
const WORKSPACE_KEYS = ['id', 'name', 'owner_id', 'created_at', 'updated_at', 'integrations'].sort();
const TASK_KEYS = [
  'id',
  'workspace_id',
  'hired_agent_id',
  'skill_slug',
  'title',
  'schedule_type',
  'status',
  'priority',
  'approval_level',
  'description',
  'trigger',
  'output_data',
  'proposed_actions',
  'approved_by',
  'approved_at',
  'started_at',
  'completed_at',
  'cost_usd',
  'created_at',
].sort();

const newWorkspace = async (token = h.owner.token) => {
  const res = await h.call('POST', '/api/v1/workspaces', { json: { name: 'Ads team' }, token });
  assert.equal(res.status, 201);
  return res.body.id as string;
};
const credentialsUrl = (id: string) => `/api/v1/workspaces/${id}/integrations/ads-provider/credentials`;
const save = (id: string, json: unknown, token = h.owner.token) =>
  h.call('PUT', credentialsUrl(id), { json, token });

const rawIntegration = async (workspaceId: string) =>
  (
    await dynamo().send(
      new GetCommand({
        TableName: config.tableName,
        Key: workspaceKeys.integration(workspaceId, 'ads-provider'),
      }),
    )
  ).Item!;

/** Far enough ahead that the token has not expired while these tests run (the status says so). */
const TOKEN_EXPIRES_AT = '2099-01-01T00:00:00.000Z';

const connect = (workspaceId: string, token_expires_at: string | null = TOKEN_EXPIRES_AT) =>
  connectAdsAccount(workspaceId, {
    account_id: 'act_1001',
    account_name: 'Acme Ads',
    scopes: ['ads_management', 'pages_manage_posts'],
    token_expires_at,
    social_user_id: 'u-77',
    user_access_token: USER_TOKEN,
    pages: [{ id: 'p-1', name: 'Acme', access_token: PAGE_TOKEN }],
  });

describe('PUT …/integrations/ads-provider/credentials', () => {
  it('creates the integration on the first save and answers its status, without the secret', async () => {
    const id = await newWorkspace();
    const res = await save(id, { client_id: CLIENT_ID, client_secret: SECRET });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), INTEGRATION_KEYS);
    assert.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined },
      {
        id: undefined,
        provider: 'ads-provider',
        account_id: null,
        account_name: null,
        status: 'pending_authorization',
        scopes: [],
        last_synced_at: null,
        token_expires_at: null,
        created_at: undefined,
        has_oauth_credentials: true,
        social_pages: [],
        social_user_id: null,
      },
    );
    assert.ok(!('client_secret' in res.body) && !('client_id' in res.body), 'credential keys answered');
    assert.ok(!res.text.includes(SECRET) && !res.text.includes(CLIENT_ID), res.text);
  });

  it('stores ciphertext only: the raw item holds neither the secret nor the client id', async () => {
    const id = await newWorkspace();
    await save(id, { client_id: CLIENT_ID, client_secret: SECRET });
    await connect(id);
    const item = await rawIntegration(id);
    const raw = JSON.stringify(item);
    for (const plain of [SECRET, CLIENT_ID, PAGE_TOKEN, USER_TOKEN])
      assert.ok(!raw.includes(plain), `${plain} stored in plain text`);
    assert.equal(item.client_secret, undefined);
    assert.deepEqual(Object.keys(item.oauth_credentials).sort(), ['ct', 'dk', 'iv', 'kp', 'tag', 'v']);
    assert.equal(item.oauth_credentials.kp, 'local');
    assert.deepEqual(Object.keys(item.provider_data).sort(), ['ct', 'dk', 'iv', 'kp', 'tag', 'v']);
    // …and the authorisation flow gets the values back.
    assert.deepEqual(await readAdsCredentials(id), { client_id: CLIENT_ID, client_secret: SECRET });
    assert.deepEqual(await readAdsProviderData(id), {
      user_access_token: USER_TOKEN,
      page_access_tokens: { 'p-1': PAGE_TOKEN },
    });
  });

  it('binds each ciphertext to its workspace and field: a copy elsewhere does not open', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await save(a, { client_id: CLIENT_ID, client_secret: SECRET });
    await save(b, { client_id: 'b', client_secret: 'b-secret' });
    const itemA = await rawIntegration(a);
    const itemB = await rawIntegration(b);
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...itemB, oauth_credentials: itemA.oauth_credentials },
      }),
    );
    await assert.rejects(readAdsCredentials(b));
    await dynamo().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...itemA, provider_data: itemA.oauth_credentials },
      }),
    );
    await assert.rejects(readAdsProviderData(a));
  });

  it('a later save replaces the credentials and keeps every connection field', async () => {
    const id = await newWorkspace();
    const first = await save(id, { client_id: CLIENT_ID, client_secret: SECRET });
    const connected = await connect(id);
    assert.equal(connected.status, 'connected');
    const second = await save(id, { client_id: 'app-2', client_secret: 'second-secret' });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, {
      id: first.body.id,
      provider: 'ads-provider',
      account_id: 'act_1001',
      account_name: 'Acme Ads',
      status: 'connected',
      scopes: ['ads_management', 'pages_manage_posts'],
      last_synced_at: connected.last_synced_at,
      token_expires_at: TOKEN_EXPIRES_AT,
      created_at: first.body.created_at,
      has_oauth_credentials: true,
      social_pages: [{ id: 'p-1', name: 'Acme' }],
      social_user_id: 'u-77',
    });
    assert.deepEqual(await readAdsCredentials(id), { client_id: 'app-2', client_secret: 'second-secret' });
    assert.deepEqual((await readAdsProviderData(id))?.page_access_tokens, { 'p-1': PAGE_TOKEN });
  });

  it('parallel saves end as some serial order would: one integration, the last credentials whole', async () => {
    const id = await newWorkspace();
    const inputs = Array.from({ length: 8 }, (_, i) => ({
      client_id: `app-${i}`,
      client_secret: `secret-${i}`,
    }));
    const results = await Promise.all([
      ...inputs.map((input) => save(id, input)),
      save(id, inputs[0]!).then(async (res) => {
        await connect(id);
        return res;
      }),
    ]);
    assert.ok(
      results.every((res) => res.status === 200),
      'a parallel save failed',
    );
    assert.equal(new Set(results.map((res) => res.body.id)).size, 1);
    assert.equal(new Set(results.map((res) => res.body.created_at)).size, 1);
    const item = await rawIntegration(id);
    assert.equal(item.revision, inputs.length + 2); // every save and the connection applied once
    const stored = await readAdsCredentials(id);
    assert.ok(
      inputs.some(
        (input) => input.client_id === stored?.client_id && input.client_secret === stored.client_secret,
      ),
      `stored credentials are one save's pair, not a mix: ${JSON.stringify(stored)}`,
    );
    assert.equal(item.status, 'connected');
    assert.equal(item.account_id, 'act_1001');
  });

  it('a connection whose token has expired reads expired in every answer, until the next connection', async () => {
    const id = await newWorkspace();
    await save(id, { client_id: CLIENT_ID, client_secret: SECRET });
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await connect(id, inAnHour)).status, 'connected');
    const statuses = async () => [
      (await h.call('GET', `/api/v1/workspaces/${id}/integrations`)).body[0].status,
      (await h.call('GET', `/api/v1/workspaces/${id}`)).body.integrations[0].status,
      (await save(id, { client_id: CLIENT_ID, client_secret: SECRET })).body.status,
    ];
    assert.deepEqual(await statuses(), ['connected', 'connected', 'connected']);
    try {
      // A millisecond before its expiry the token still holds; from the very instant, it has expired.
      setClock(new Date(Date.parse(inAnHour) - 1));
      assert.deepEqual(await statuses(), ['connected', 'connected', 'connected']);
      setClock(new Date(inAnHour));
      assert.deepEqual(await statuses(), ['expired', 'expired', 'expired']);
      // Two hours later the token is an hour past its expiry: nothing may still call the account connected.
      setClock(new Date(Date.now() + 2 * 3_600_000));
      assert.deepEqual(await statuses(), ['expired', 'expired', 'expired']);
    } finally {
      setClock(undefined);
    }
    // A token that expired before it was stored, and one without an expiry.
    assert.equal((await connect(id, new Date(Date.now() - 1000).toISOString())).status, 'expired');
    assert.equal((await connect(id, null)).status, 'connected');
    assert.equal((await connect(id)).status, 'connected');
  });

  it("stores the provider's token expiry as every timestamp is answered: UTC with milliseconds", async () => {
    const id = await newWorkspace();
    await save(id, { client_id: CLIENT_ID, client_secret: SECRET });
    // An expiry with an offset, and one without milliseconds, as a provider may hand them over.
    assert.equal(
      (await connect(id, '2098-12-25T10:00:00+02:00')).token_expires_at,
      '2098-12-25T08:00:00.000Z',
    );
    const listed = await h.call('GET', `/api/v1/workspaces/${id}/integrations`);
    assert.equal(listed.body[0].token_expires_at, '2098-12-25T08:00:00.000Z');
    assert.equal((await connect(id, '2099-01-01T00:00:00Z')).token_expires_at, TOKEN_EXPIRES_AT);
    // Not a time at all: refused before anything is written.
    await assert.rejects(connect(id, 'next tuesday'), RangeError);
    assert.equal((await rawIntegration(id)).token_expires_at, TOKEN_EXPIRES_AT);
  });

  it('the OAuth connection is refused before credentials were saved', async () => {
    const id = await newWorkspace();
    await assert.rejects(connect(id), { name: 'ConflictError', status: 409 });
    const listing = await h.call('GET', `/api/v1/workspaces/${id}/integrations`);
    assert.deepEqual(listing.body, []);
  });

  const MASK = '**********';
  const cases: [string, unknown, object[]][] = [
    [
      'client_secret missing',
      { client_id: CLIENT_ID },
      [
        {
          type: 'missing',
          loc: ['body', 'client_secret'],
          msg: 'Field required',
          input: { client_id: CLIENT_ID },
        },
      ],
    ],
    [
      'client_id missing (the echoed body masks the secret)',
      { client_secret: SECRET },
      [
        {
          type: 'missing',
          loc: ['body', 'client_id'],
          msg: 'Field required',
          input: { client_secret: MASK },
        },
      ],
    ],
    [
      'the secret is sent under another spelling (the echo masks it too)',
      { client_id: CLIENT_ID, Client_Secret: SECRET },
      [
        {
          type: 'missing',
          loc: ['body', 'client_secret'],
          msg: 'Field required',
          input: { client_id: CLIENT_ID, Client_Secret: MASK },
        },
      ],
    ],
    [
      "the secret's value is sent again inside client_id (the echo masks it wherever it appears)",
      { client_id: { app: CLIENT_ID, key: SECRET }, client_secret: SECRET },
      [
        {
          type: 'string_type',
          loc: ['body', 'client_id'],
          msg: 'Input should be a valid string',
          input: { app: CLIENT_ID, key: MASK },
        },
      ],
    ],
    [
      "the secret's value is sent again as a key inside client_id (the echo masks the key and, a key with 'secret' in it, its value)",
      { client_id: { [SECRET]: CLIENT_ID }, client_secret: SECRET },
      [
        {
          type: 'string_type',
          loc: ['body', 'client_id'],
          msg: 'Input should be a valid string',
          input: { [MASK]: MASK },
        },
      ],
    ],
    [
      "client_id missing, the secret's value also in a note (the echoed body masks both)",
      { client_secret: SECRET, note: `pasted from the console: ${SECRET}` },
      [
        {
          type: 'missing',
          loc: ['body', 'client_id'],
          msg: 'Field required',
          input: { client_secret: MASK, note: MASK },
        },
      ],
    ],
    [
      "the secret's digits are sent again as a number in client_id (the echo masks the number)",
      { client_id: 4815162342, client_secret: '4815162342' },
      [
        {
          type: 'string_type',
          loc: ['body', 'client_id'],
          msg: 'Input should be a valid string',
          input: MASK,
        },
      ],
    ],
    [
      'client_id missing, the secret sent inside a list and again in a note (the echoed body masks both)',
      { client_secret: ['listed-secret-7f3a9b'], note: 'copy: listed-secret-7f3a9b' },
      [
        {
          type: 'missing',
          loc: ['body', 'client_id'],
          msg: 'Field required',
          input: { client_secret: MASK, note: MASK },
        },
        {
          type: 'string_type',
          loc: ['body', 'client_secret'],
          msg: 'Input should be a valid string',
          input: MASK,
        },
      ],
    ],
    [
      'client_id missing, the secret sent as a number and again in a note (the echoed body masks both)',
      { client_secret: 4815162342, note: 'copy: 4815162342' },
      [
        {
          type: 'missing',
          loc: ['body', 'client_id'],
          msg: 'Field required',
          input: { client_secret: MASK, note: MASK },
        },
        {
          type: 'string_type',
          loc: ['body', 'client_secret'],
          msg: 'Input should be a valid string',
          input: MASK,
        },
      ],
    ],
    [
      'the body is a list',
      [CLIENT_ID, SECRET],
      [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: MASK,
        },
      ],
    ],
    [
      'both missing',
      {},
      [
        { type: 'missing', loc: ['body', 'client_id'], msg: 'Field required', input: {} },
        { type: 'missing', loc: ['body', 'client_secret'], msg: 'Field required', input: {} },
      ],
    ],
    [
      'client_id empty',
      { client_id: '', client_secret: SECRET },
      [
        {
          type: 'string_too_short',
          loc: ['body', 'client_id'],
          msg: 'String should have at least 1 character',
          input: '',
          ctx: { min_length: 1 },
        },
      ],
    ],
    [
      'client_secret empty',
      { client_id: CLIENT_ID, client_secret: '' },
      [
        {
          type: 'string_too_short',
          loc: ['body', 'client_secret'],
          msg: 'String should have at least 1 character',
          input: MASK,
          ctx: { min_length: 1 },
        },
      ],
    ],
    [
      // An empty secret is no text to mask: every string holds it, so every echoed input would be masked.
      'client_secret empty, client_id not a string (client_id echoed as sent)',
      { client_secret: '', client_id: 123 },
      [
        {
          type: 'string_type',
          loc: ['body', 'client_id'],
          msg: 'Input should be a valid string',
          input: 123,
        },
        {
          type: 'string_too_short',
          loc: ['body', 'client_secret'],
          msg: 'String should have at least 1 character',
          input: MASK,
          ctx: { min_length: 1 },
        },
      ],
    ],
    [
      'client_id not a string',
      { client_id: 12345, client_secret: SECRET },
      [
        {
          type: 'string_type',
          loc: ['body', 'client_id'],
          msg: 'Input should be a valid string',
          input: 12345,
        },
      ],
    ],
    [
      'client_secret not a string',
      { client_id: CLIENT_ID, client_secret: null },
      [
        {
          type: 'string_type',
          loc: ['body', 'client_secret'],
          msg: 'Input should be a valid string',
          input: MASK,
        },
      ],
    ],
    [
      'client_secret too long',
      { client_id: CLIENT_ID, client_secret: 's'.repeat(2049) },
      [
        {
          type: 'string_too_long',
          loc: ['body', 'client_secret'],
          msg: 'String should have at most 2048 characters',
          input: MASK,
          ctx: { max_length: 2048 },
        },
      ],
    ],
  ];
  for (const [title, body, detail] of cases) {
    it(`422 when ${title}, and nothing is saved`, async () => {
      const id = await newWorkspace();
      const res = await save(id, body);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body, { detail });
      assert.ok(!res.text.includes(SECRET), res.text);
      assert.deepEqual((await h.call('GET', `/api/v1/workspaces/${id}/integrations`)).body, []);
    });
  }

  it('masks a number whose digits hold the secret, every digit as sent (beyond a double)', async () => {
    const id = await newWorkspace();
    const digits = '98765432109876543210';
    const res = await h.call('PUT', credentialsUrl(id), {
      body: `{"client_id": ${digits}, "client_secret": "${digits}"}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      { type: 'string_type', loc: ['body', 'client_id'], msg: 'Input should be a valid string', input: MASK },
    ]);
    assert.ok(!res.text.includes(digits), res.text);
  });

  it('masks every echo whole for a body of more secret values than a client sends', async () => {
    // Each echoed text was looked for every value under a secret's name: 20,000 of them beside 20,000
    // numbers took 13 s for one 422 (audit). Past 16, the echoes are masked whole; up to it, as before.
    const id = await newWorkspace();
    const body = (values: number) => ({
      my_secret: Array.from({ length: values }, (_, i) => `q${i}`),
      other: [1, 2, 'plain'],
    });
    const detail = async (values: number) => {
      const res = await h.call('PUT', credentialsUrl(id), { json: body(values) });
      assert.equal(res.status, 422);
      return res.body.detail.map((item: { type: string; loc: unknown[]; input: unknown }) => [
        item.type,
        item.loc,
        item.input,
      ]);
    };
    const missing = (input: unknown) => [
      ['missing', ['body', 'client_id'], input],
      ['missing', ['body', 'client_secret'], input],
    ];
    assert.deepEqual(await detail(16), missing({ my_secret: MASK, other: [1, 2, 'plain'] }));
    assert.deepEqual(await detail(17), missing(MASK));
  });

  it('a missing body answers input null, as on every route (there is nothing to hide)', async () => {
    const id = await newWorkspace();
    const res = await h.call('PUT', credentialsUrl(id));
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      { type: 'missing', loc: ['body'], msg: 'Field required', input: null },
    ]);
  });

  it('a body sent as text is refused without echoing it', async () => {
    const id = await newWorkspace();
    const res = await h.call('PUT', credentialsUrl(id), {
      body: JSON.stringify({ client_id: CLIENT_ID, client_secret: SECRET }),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: MASK,
      },
    ]);
  });
});

describe('no workspace response leaks a secret or a key beyond the spec', () => {
  it('scans every response of every workspace route', async () => {
    const id = await newWorkspace();
    const responses = [
      await save(id, { client_id: CLIENT_ID, client_secret: SECRET }),
      await h.call('POST', `/api/v1/workspaces/${id}/tasks`, {
        json: { skill_slug: 'ad-copy', title: 'Ad', hired_agent_id: h.owner.id },
      }),
    ];
    await connect(id);
    responses.push(
      await save(id, { client_id: CLIENT_ID, client_secret: SECRET }),
      await h.call('GET', `/api/v1/workspaces/${id}`),
      await h.call('GET', `/api/v1/workspaces/${id}/integrations`),
      await h.call('GET', `/api/v1/workspaces/${id}/tasks`),
      await h.call('GET', `/api/v1/workspaces/${id}/tasks?status=pending&limit=1`),
      await h.call('POST', '/api/v1/workspaces', { json: { name: 'another' } }),
      await save(id, { client_secret: SECRET }),
    );
    assert.deepEqual(
      responses.map((res) => res.status),
      [200, 201, 200, 200, 200, 200, 200, 201, 422],
    );
    for (const res of responses)
      for (const secret of [SECRET, CLIENT_ID, PAGE_TOKEN, USER_TOKEN, 'access_token', 'provider_data'])
        assert.ok(!res.text.includes(secret), `${secret} in ${res.text}`);

    const [saved, , resaved, details, listing, tasks] = responses.map((res) => res.body);
    const integrations = [saved, resaved, ...details.integrations, ...listing];
    assert.equal(integrations.length, 4);
    for (const integration of integrations) {
      assert.deepEqual(Object.keys(integration).sort(), INTEGRATION_KEYS);
      for (const page of integration.social_pages) assert.deepEqual(Object.keys(page).sort(), ['id', 'name']);
    }
    assert.deepEqual(resaved.social_pages, [{ id: 'p-1', name: 'Acme' }]);
    assert.deepEqual(Object.keys(details).sort(), WORKSPACE_KEYS);
    for (const task of tasks) assert.deepEqual(Object.keys(task).sort(), TASK_KEYS);
  });
});
