// A client's next request sees what its last one wrote, on AWS too: every route that takes the id of
// a record just created answers for that record at once, with every eventually consistent read of the
// table served from a replica that has not applied the create yet (test/support/lagging-replica.ts).
// Index reads (the owner lists) are eventually consistent on AWS whatever is asked; docs/decisions.md.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { lagReplica } from '../support/lagging-replica.ts';
import { authenticatedRoutes, routeKey, sampleRequest, seedResourcesFor } from './support.ts';

let h: Harness;
let ids: SeedIds;

before(async () => {
  h = await startHarness();
  ids = await seedResourcesFor(h.owner.id);
});
after(() => h.close());

/** What a route answers for a fresh record that is not a 2xx: its own refusal, the record found. */
const REFUSALS: Record<string, [number, string]> = {
  'POST /api/v1/teams/{team_id}/avatar/upload': [
    403,
    'Studio avatars can only be trained for teams of the avatar-video kind',
  ],
  'GET /api/v1/teams/{team_id}/avatar/status': [404, 'Avatar not found'],
};

/** A create route, and each route under the record it makes (`<create path>/{id}…`). */
const creates = authenticatedRoutes
  .filter(
    (r) => r.method === 'POST' && /\/(brands|projects|teams|workspaces|sessions|brand-kits)$/.test(r.path),
  )
  .map((create) => ({
    create,
    uses: authenticatedRoutes.filter((r) => r.path.startsWith(`${create.path}/{`)),
  }));

describe('read your writes', () => {
  for (const { create, uses } of creates)
    it(`${routeKey(create)}, then ${uses.map(routeKey).join(', ')}`, async () => {
      const replica = await lagReplica();
      try {
        const spec = sampleRequest(create, ids);
        const made = await h.call(spec.method, spec.url, spec.options);
        assert.equal(made.status, 201, made.text);
        for (const use of uses) {
          const param = /^\{(\w+)\}/.exec(use.path.slice(create.path.length + 1))![1]!;
          const next = sampleRequest(use, ids, ids, { [param]: made.body.id });
          const res = await h.call(next.method, next.url, next.options);
          const refusal = REFUSALS[routeKey(use)];
          if (refusal) assert.deepEqual([res.status, res.body.detail], refusal, routeKey(use));
          else
            assert.ok(res.status >= 200 && res.status < 300, `${routeKey(use)}: ${res.status} ${res.text}`);
          if (use.method === 'GET' && use.path === `${create.path}/{${param}}`)
            assert.equal(res.body.id, made.body.id, routeKey(use));
        }
      } finally {
        await replica.stop();
      }
    });
});
