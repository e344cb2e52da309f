// OWASP API1 (broken object level authorization): two users each own one of every resource (written
// through the domain seeders); every route that takes an id — in its path or in its body — is called
// by the other user with the first user's id, and must answer exactly as it does for a random id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SeedIds } from '../../infra/local/seed/index.ts';
import { newId } from '../../shared/ids.ts';
import { type CallResult, type Harness, startHarness } from '../support/harness.ts';
import {
  authenticatedRoutes,
  figure,
  routeKey,
  sampleEvent,
  sampleRequest,
  seedResourcesFor,
  startExposureScan,
  takesId,
} from './support.ts';

let h: Harness;
let scan: ReturnType<typeof startExposureScan>;
let mine: SeedIds;
let theirs: SeedIds;
let pairs = 0;

before(async () => {
  h = await startHarness();
  scan = startExposureScan();
  mine = await seedResourcesFor(h.owner.id);
  theirs = await seedResourcesFor(h.other.id);
});
after(async () => {
  scan.stop();
  figure('object-authorization pairs', pairs);
  await h.close();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Every seed id replaced by a fresh random one (same shapes, nobody's: an upload key keeps its
 * form, with random ids in it). */
const randomIds = (ids: SeedIds): SeedIds =>
  Object.fromEntries(
    Object.entries(ids).map(([k, v]) => [k, k === 'asset' ? v : v.replace(UUID, () => newId())]),
  );

/** A 422 echoes the value sent (FastAPI's `input`): each caller's own, which tells them nothing. */
const withoutEcho = (result: CallResult, sent: SeedIds, keys: string[]): CallResult => ({
  ...result,
  text: keys.reduce((text, key) => text.replaceAll(sent[key]!, `{{${key}}}`), result.text),
});

const send = async (spec: ReturnType<typeof sampleRequest>, token: string): Promise<CallResult> =>
  h.call(spec.method, spec.url, { ...spec.options, token });

/** The response a missing resource gets, and what the intruder got: byte-identical. */
const assertLikeMissing = (intruder: CallResult, missing: CallResult, where: string) => {
  assert.ok(intruder.status >= 400, `${where}: the intruder got ${intruder.status} ${intruder.text}`);
  assert.equal(intruder.status, missing.status, where);
  assert.equal(intruder.text, missing.text, where);
  assert.deepEqual(intruder.headers, missing.headers, where);
};

const bodyIdKeys = (route: (typeof authenticatedRoutes)[number]) => {
  const body = sampleEvent(route).isBase64Encoded ? '' : (sampleEvent(route).body ?? '');
  return [...body.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!);
};

describe('object-level authorization matrix', () => {
  const pathRoutes = authenticatedRoutes.filter(takesId);
  it(`walks ${pathRoutes.length} routes with ids in the path`, () => {
    assert.ok(pathRoutes.length >= 10, 'the route table has routes with ids');
  });

  for (const route of pathRoutes) {
    it(`${routeKey(route)}: another user's path id answers like a random id`, async () => {
      // The intruder sends their own well-formed body; only the path names the owner's resource.
      const intruder = await send(sampleRequest(route, mine, theirs), h.other.token);
      const missing = await send(sampleRequest(route, randomIds(mine), theirs), h.other.token);
      pairs++;
      assertLikeMissing(intruder, missing, routeKey(route));
      // Control: the owner reaches the resource (so the matrix would notice a route that 404s always).
      const owner = await send(sampleRequest(route, mine, mine), h.owner.token);
      assert.ok(
        owner.status !== missing.status || owner.text !== missing.text,
        `${routeKey(route)}: the owner is refused like a stranger: ${owner.status} ${owner.text}`,
      );
    });
  }

  const bodyRoutes = authenticatedRoutes.filter((route) => bodyIdKeys(route).some((k) => k !== 'asset'));
  for (const route of bodyRoutes) {
    it(`${routeKey(route)}: another user's id in the body answers like a random id`, async () => {
      // Path: the intruder's own resource; body: the owner's ids (brand_id, project_id, upload keys…).
      const nobodys = randomIds(mine);
      const intruder = await send(sampleRequest(route, theirs, mine), h.other.token);
      const missing = await send(sampleRequest(route, theirs, nobodys), h.other.token);
      pairs++;
      const keys = bodyIdKeys(route);
      assertLikeMissing(
        withoutEcho(intruder, mine, keys),
        withoutEcho(missing, nobodys, keys),
        `${routeKey(route)} (body ${keys.join(', ')})`,
      );
    });
  }

  it('no response or log line carries a token or the signing secret', () => {
    const hits = scan.occurrences({
      owner_token: h.owner.token,
      other_token: h.other.token,
      signing_secret: h.secret,
    });
    assert.deepEqual(hits, { owner_token: 0, other_token: 0, signing_secret: 0 });
  });
});
