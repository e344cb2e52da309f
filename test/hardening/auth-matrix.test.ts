// OWASP API2 (broken authentication): every authenticated route of the route table, walked, against
// every malformed or forged credential, on both verifiers (HS256 development secret, RS256/ES256
// JWKS served by this test on loopback) → 401, `WWW-Authenticate: Bearer`, nothing else said.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, useDevAuth } from '../../infra/local/tokens.ts';
import { resetAuthKeys } from '../../shared/http/auth.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { authenticatedRoutes, figure, routeKey, sampleRequest, startExposureScan } from './support.ts';

const NOT_AUTHENTICATED = { detail: 'Not authenticated' };
const INVALID = { detail: 'Could not validate credentials' };
const secondsFromNow = (s: number) => Math.floor(Date.now() / 1000) + s;

type Case = [title: string, header: () => Promise<string | undefined>, expected: object];

let h: Harness;
let scan: ReturnType<typeof startExposureScan>;
let requests = 0;

before(async () => {
  h = await startHarness();
  scan = startExposureScan();
});
after(async () => {
  scan.stop();
  figure('auth matrix requests', requests);
  await h.close();
});

/** Every authenticated route with `authorization` (undefined: no header) answers exactly `expected`. */
async function assertEveryRouteRefuses(authorization: string | undefined, expected: object) {
  for (const route of authenticatedRoutes) {
    const { method, url, options } = sampleRequest(route, {});
    const res = await h.call(method, url, {
      ...options,
      ...(authorization === undefined ? { token: null } : { authorization }),
    });
    requests++;
    const where = `${routeKey(route)} with ${authorization?.slice(0, 40)}`;
    assert.equal(res.status, 401, where);
    assert.deepEqual(res.body, expected, where);
    // Nothing beyond the challenge (and no-store): no hint of which check failed, no schema leaked.
    assert.deepEqual(
      Object.keys(res.headers).sort(),
      ['cache-control', 'content-type', 'www-authenticate'],
      where,
    );
    assert.equal(res.headers['www-authenticate'], 'Bearer', where);
    assert.equal(res.headers['cache-control'], 'no-store', where);
  }
}

/** A valid token passes on every route (the positive control: the matrix can fail). */
async function assertEveryRouteAccepts(token: string) {
  for (const route of authenticatedRoutes) {
    const { method, url, options } = sampleRequest(route, {});
    const res = await h.call(method, url, { ...options, authorization: `Bearer ${token}` });
    requests++;
    assert.notEqual(res.status, 401, `${routeKey(route)} refused a valid token: ${res.text}`);
    // The caller's own data, whatever the answer: kept by no browser or shared cache.
    assert.equal(res.headers['cache-control'], 'no-store', `${routeKey(route)} answered ${res.status}`);
  }
}

describe('authentication matrix, HS256 development verifier', () => {
  const sign = (claims: JWTPayload & { omit?: string[] }, secret = h.secret, alg = 'HS256') => {
    const payload: JWTPayload = {
      sub: h.owner.id,
      iss: LOCAL_ISSUER,
      aud: LOCAL_AUDIENCE,
      iat: secondsFromNow(0),
      exp: secondsFromNow(600),
      ...claims,
    };
    for (const name of claims.omit ?? []) delete payload[name];
    delete (payload as { omit?: unknown }).omit;
    return new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
  };
  const cases: Case[] = [
    ['no header', async () => undefined, NOT_AUTHENTICATED],
    ['wrong scheme', async () => `Basic ${Buffer.from('a:b').toString('base64')}`, NOT_AUTHENTICATED],
    ['token without scheme', async () => h.owner.token, NOT_AUTHENTICATED],
    ['empty token', async () => 'Bearer ', NOT_AUTHENTICATED],
    ['garbage', async () => 'Bearer ey.garbage.%%%', INVALID],
    ['bad signature', async () => `Bearer ${await sign({}, 'k'.repeat(64))}`, INVALID],
    [
      'tampered payload',
      async () => {
        const [head, , signature] = (await sign({})).split('.');
        const forged = Buffer.from(JSON.stringify({ sub: h.other.id, exp: secondsFromNow(600) })).toString(
          'base64url',
        );
        return `Bearer ${head}.${forged}.${signature}`;
      },
      INVALID,
    ],
    ['wrong issuer', async () => `Bearer ${await sign({ iss: 'https://evil.example' })}`, INVALID],
    ['wrong audience', async () => `Bearer ${await sign({ aud: 'another-api' })}`, INVALID],
    ['expired', async () => `Bearer ${await sign({ exp: secondsFromNow(-60) })}`, INVALID],
    ['not yet valid', async () => `Bearer ${await sign({ nbf: secondsFromNow(600) })}`, INVALID],
    ['no subject', async () => `Bearer ${await sign({ omit: ['sub'] })}`, INVALID],
    ['no expiry', async () => `Bearer ${await sign({ omit: ['exp'] })}`, INVALID],
    ['HS512 instead of HS256', async () => `Bearer ${await sign({}, undefined, 'HS512')}`, INVALID],
    [
      'alg none',
      async () =>
        `Bearer ${new UnsecuredJWT({ sub: h.owner.id }).setIssuer(LOCAL_ISSUER).setAudience(LOCAL_AUDIENCE).setExpirationTime('1h').encode()}`,
      INVALID,
    ],
  ];
  for (const [title, header, expected] of cases)
    it(`every route: 401 for ${title}`, async () => assertEveryRouteRefuses(await header(), expected));

  it('every route accepts a valid token (positive control)', () => assertEveryRouteAccepts(h.owner.token));
});

describe('authentication matrix, RS256/ES256 JWKS verifier (JWKS served on loopback)', () => {
  const ISSUER = 'https://issuer.hardening.test';
  const AUDIENCE = 'hardening-app-client';
  let server: Server;
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
  let ec: Awaited<ReturnType<typeof generateKeyPair>>;
  let stranger: Awaited<ReturnType<typeof generateKeyPair>>;
  let jwksFetches = 0;

  before(async () => {
    rsa = await generateKeyPair('RS256', { extractable: true });
    ec = await generateKeyPair('ES256', { extractable: true });
    stranger = await generateKeyPair('RS256', { extractable: true });
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
    server = createServer((req, res) => {
      jwksFetches++;
      res.writeHead(req.url === '/.well-known/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    Object.assign(process.env, {
      AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
    });
    resetAuthKeys();
  });
  after(async () => {
    useDevAuth(h.secret); // back to the harness's verifier (drops AUTH_JWKS_URL, resets the keys)
    figure('jwks fetches', jwksFetches);
    await new Promise((resolve) => server.close(resolve));
  });

  const claims = (extra: JWTPayload = {}): JWTPayload => ({
    sub: h.owner.id,
    iss: ISSUER,
    aud: AUDIENCE,
    iat: secondsFromNow(0),
    exp: secondsFromNow(600),
    ...extra,
  });
  const rs256 = (extra: JWTPayload = {}, key = rsa.privateKey, kid = 'rsa-1') =>
    new SignJWT(claims(extra)).setProtectedHeader({ alg: 'RS256', kid }).sign(key);

  it('every route accepts RS256, ES256 and a Cognito-style access token (client_id, no aud)', async () => {
    await assertEveryRouteAccepts(await rs256());
    await assertEveryRouteAccepts(
      await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: 'ec-1' }).sign(ec.privateKey),
    );
    const { aud: _, ...cognito } = claims({ client_id: AUDIENCE, token_use: 'access' });
    await assertEveryRouteAccepts(
      await new SignJWT(cognito).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(rsa.privateKey),
    );
  });

  const cases: Case[] = [
    [
      // Algorithm confusion: the public key's bytes used as an HMAC secret.
      'HS256 signed with the RSA public key (PEM)',
      async () => {
        const pem = await exportSPKI(rsa.publicKey);
        const token = await new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
          .sign(new TextEncoder().encode(pem));
        return `Bearer ${token}`;
      },
      INVALID,
    ],
    [
      'HS256 signed with the JWK modulus',
      async () => {
        const { n } = await exportJWK(rsa.publicKey);
        const token = await new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
          .sign(Buffer.from(n!, 'base64url'));
        return `Bearer ${token}`;
      },
      INVALID,
    ],
    [
      'RS256 by another key with a known kid',
      async () => `Bearer ${await rs256({}, stranger.privateKey)}`,
      INVALID,
    ],
    ['unknown kid', async () => `Bearer ${await rs256({}, rsa.privateKey, 'nobody')}`, INVALID],
    ['wrong issuer', async () => `Bearer ${await rs256({ iss: 'https://evil.example' })}`, INVALID],
    ['wrong audience', async () => `Bearer ${await rs256({ aud: 'another-client' })}`, INVALID],
    ['expired', async () => `Bearer ${await rs256({ exp: secondsFromNow(-60) })}`, INVALID],
    ['not yet valid', async () => `Bearer ${await rs256({ nbf: secondsFromNow(600) })}`, INVALID],
    ['alg none', async () => `Bearer ${new UnsecuredJWT(claims()).encode()}`, INVALID],
    // A Cognito ID token names the app client in `aud` too; it is not an API credential.
    ['a Cognito ID token (token_use id)', async () => `Bearer ${await rs256({ token_use: 'id' })}`, INVALID],
    // The development verifier's token is refused once a JWKS is configured.
    ['a development HS256 token', async () => `Bearer ${h.owner.token}`, INVALID],
  ];
  for (const [title, header, expected] of cases)
    it(`every route: 401 for ${title}`, async () => assertEveryRouteRefuses(await header(), expected));

  it('a key set that cannot be fetched is a 503 (our outage), not a 401, and the next request recovers', async () => {
    const url = process.env.AUTH_JWKS_URL!;
    try {
      process.env.AUTH_JWKS_URL = url.replace('/.well-known/jwks.json', '/missing.json'); // answers 404
      resetAuthKeys();
      const notFound = await h.call('GET', '/api/v1/brands', { token: await rs256({ jti: 'a' }) });
      assert.deepEqual(
        [notFound.status, notFound.body],
        [503, { detail: 'Service temporarily unavailable, retry later' }],
      );
      process.env.AUTH_JWKS_URL = 'http://127.0.0.1:9/.well-known/jwks.json'; // nothing listens there
      resetAuthKeys();
      const logged = scan.texts.length;
      const refused = await h.call('GET', '/api/v1/brands', { token: await rs256({ jti: 'b' }) });
      assert.deepEqual([refused.status, refused.headers['retry-after']], [503, '1']);
      // One log line for the outage, saying what failed (not a second one for the 503 it became).
      const outage = scan.texts.slice(logged).filter((line) => /"level".*unavailable/.test(line));
      assert.equal(outage.length, 1, outage.join('\n'));
      assert.match(outage[0]!, /token signing keys unavailable/);
    } finally {
      process.env.AUTH_JWKS_URL = url;
      resetAuthKeys();
    }
    assert.equal((await h.call('GET', '/api/v1/brands', { token: await rs256({ jti: 'c' }) })).status, 200);
  });

  it('no response or log line carries a token', () => {
    const hits = scan.occurrences({ owner_token: h.owner.token, signing_secret: h.secret });
    assert.deepEqual(hits, { owner_token: 0, signing_secret: 0 });
  });
});
