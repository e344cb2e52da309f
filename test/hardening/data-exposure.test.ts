// OWASP API3 (excessive data exposure): with secrets saved through the API and the seeders (OAuth
// client secret, provider user and page tokens), every route is called by its owner, by another user
// and without a token, errors included; every response body, header and log line (LOG_LEVEL=info,
// captured) is scanned for those secrets, the bearer tokens and both signing secrets → zero.
// The other hardening files run the same scan over their own traffic (fuzzing, faults, matrices).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import {
  figure,
  routes,
  sampleRequest,
  seedResourcesFor,
  startExposureScan,
  WORKSPACE_SECRETS,
} from './support.ts';

const PROVIDER_SECRET = 'hardening-exposure-provider-secret-5d1e';
const API_CLIENT_SECRET = 'hardening-exposure-client-secret-77ab';

let h: Harness;
let scan: ReturnType<typeof startExposureScan>;
let ids: SeedIds;

before(async () => {
  process.env.AVATAR_PROVIDER_SECRET = PROVIDER_SECRET;
  h = await startHarness();
  scan = startExposureScan();
  ids = await seedResourcesFor(h.owner.id);
});
after(async () => {
  scan.stop();
  delete process.env.AVATAR_PROVIDER_SECRET;
  await h.close();
});

describe('data exposure', () => {
  it('every route, as owner, as another user and unauthenticated: no secret in any answer or log line', async () => {
    const saved = await h.call(
      'PUT',
      `/api/v1/workspaces/${ids.workspace_id}/integrations/ads-provider/credentials`,
      {
        json: { client_id: '5550001112223334', client_secret: API_CLIENT_SECRET },
      },
    );
    assert.equal(saved.status, 200, saved.text);
    // A bad token that carries the real one: refused without being echoed.
    const tokens = [h.owner.token, h.other.token, null, `${h.owner.token}x`];
    for (const route of routes)
      for (const token of tokens) {
        const spec = sampleRequest(route, ids);
        await h.call(spec.method, spec.url, { ...spec.options, token });
        // The same route with a body that fails validation (422 echoes the input).
        if (route.method !== 'GET')
          await h.call(spec.method, spec.url, {
            token,
            json: { client_secret: 42, name: { nested: true }, content: [1] },
          });
      }
    const hits = scan.occurrences({
      seeded_client_secret: WORKSPACE_SECRETS.clientSecret,
      api_client_secret: API_CLIENT_SECRET,
      provider_page_token: WORKSPACE_SECRETS.pageAccessToken,
      provider_user_token: WORKSPACE_SECRETS.userAccessToken,
      owner_bearer: h.owner.token,
      other_bearer: h.other.token,
      jwt_signing_secret: h.secret,
      provider_signing_secret: PROVIDER_SECRET,
    });
    figure('data exposure scanned', { responses: scan.responses, log_lines: scan.logLines, hits });
    assert.ok(scan.responses >= routes.length * tokens.length);
    assert.ok(scan.logLines >= routes.length, 'the log lines were captured');
    assert.deepEqual(
      Object.values(hits),
      Object.values(hits).map(() => 0),
      JSON.stringify(hits),
    );
  });
});
