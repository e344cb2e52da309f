import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../infra/local/tokens.ts';
import { isKeyUnder } from '../../shared/uploads/keys.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const sign = (
  claims: {
    iss?: string;
    aud?: string;
    exp?: number;
    nbf?: number;
    iat?: number;
    sub?: string;
    // A Cognito access token's: what it is, and the app client it was issued to.
    token_use?: string;
    client_id?: string;
  },
  secret = h.secret,
) => {
  const { token_use, client_id } = claims; // left out of the token when undefined
  const jwt = new SignJWT({ token_use, client_id })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(claims.iat);
  jwt.setSubject(claims.sub ?? h.owner.id);
  jwt.setIssuer(claims.iss ?? LOCAL_ISSUER);
  jwt.setAudience(claims.aud ?? LOCAL_AUDIENCE);
  jwt.setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600);
  if (claims.nbf) jwt.setNotBefore(claims.nbf);
  return jwt.sign(new TextEncoder().encode(secret));
};

const NOT_AUTHENTICATED = { detail: 'Not authenticated' };
const INVALID = { detail: 'Could not validate credentials' };

describe('bearer authentication', () => {
  const cases: [string, () => Promise<string | undefined>, object][] = [
    ['no header', async () => undefined, NOT_AUTHENTICATED],
    ['wrong scheme', async () => `Basic ${Buffer.from('a:b').toString('base64')}`, NOT_AUTHENTICATED],
    ['empty token', async () => 'Bearer   ', NOT_AUTHENTICATED],
    ['scheme only', async () => 'Bearer', NOT_AUTHENTICATED],
    ['garbage', async () => 'Bearer not.a.jwt', INVALID],
    ['wrong key', async () => `Bearer ${await sign({}, 'x'.repeat(64))}`, INVALID],
    ['expired', async () => `Bearer ${await sign({ exp: Math.floor(Date.now() / 1000) - 60 })}`, INVALID],
    [
      'not yet valid',
      async () => `Bearer ${await sign({ nbf: Math.floor(Date.now() / 1000) + 600 })}`,
      INVALID,
    ],
    // Issued later than a minute of clock skew explains.
    [
      'issued in the future',
      async () => `Bearer ${await sign({ iat: Math.floor(Date.now() / 1000) + 600 })}`,
      INVALID,
    ],
    [
      // A `client_id` stands for the audience only in a Cognito access token (`token_use: access`).
      'no audience, a client_id naming ours, no token_use',
      async () =>
        `Bearer ${await new SignJWT({ client_id: LOCAL_AUDIENCE })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(h.owner.id)
          .setIssuer(LOCAL_ISSUER)
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(new TextEncoder().encode(h.secret))}`,
      INVALID,
    ],
    [
      // Its `client_id` names ours, but an `aud` it carries names another API: the `aud` decides.
      'a Cognito access token with client_id ours and aud another API',
      async () =>
        `Bearer ${await sign({ aud: 'other-api', token_use: 'access', client_id: LOCAL_AUDIENCE })}`,
      INVALID,
    ],
    ['wrong issuer', async () => `Bearer ${await sign({ iss: 'https://evil.example' })}`, INVALID],
    ['wrong audience', async () => `Bearer ${await sign({ aud: 'another-api' })}`, INVALID],
    [
      'alg none',
      async () =>
        `Bearer ${new UnsecuredJWT({}).setSubject(h.owner.id).setIssuer(LOCAL_ISSUER).setAudience(LOCAL_AUDIENCE).setExpirationTime('1h').encode()}`,
      INVALID,
    ],
  ];
  for (const [title, header, detail] of cases) {
    it(`401 with WWW-Authenticate: Bearer for ${title}`, async () => {
      const authorization = await header();
      const res = await h.call('POST', '/api/v1/brands', {
        json: { name: '' },
        ...(authorization === undefined ? { token: null } : { authorization }),
      });
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      assert.deepEqual(res.body, detail); // and nothing about the invalid body
    });
  }

  it('refuses a subject that could alias another user’s keys, and takes every usual issuer’s ids', async () => {
    // A sub `<victim>/<upload id>` would own the prefix uploads/<victim>/<upload id>/ of a victim's upload.
    const upload = await h.call('POST', '/api/v1/uploads', {
      json: { filename: 'brand.pdf', content_type: 'application/pdf', size: 10 },
    });
    assert.equal(upload.status, 200, upload.text);
    const [, victim, uploadId] = (upload.body.key as string).split('/');
    for (const sub of [
      `${victim}/${uploadId}`,
      `${victim}#BRAND`,
      'has space',
      'é',
      '\u0000',
      'x'.repeat(256),
      // uploads/./<victim>/… was a `.` user's key, which the embedded S3 resolved to the victim's.
      '.',
      '..',
      '...',
    ]) {
      const res = await h.call('GET', '/api/v1/brands', { authorization: `Bearer ${await sign({ sub })}` });
      assert.equal(res.status, 401, sub);
      assert.deepEqual(res.body, INVALID);
    }
    // And a key under a prefix holding a `.` segment is nobody's, whoever the prefix's user.
    assert.equal(isKeyUnder('uploads/./', `uploads/./${victim}/${uploadId}/brand.pdf`), false);
    assert.equal(isKeyUnder(`uploads/${victim}/`, `uploads/${victim}/${uploadId}/brand.pdf`), true);
    for (const sub of [
      'auth0|5f7c8ec7c33c6c004bbafe82',
      'j.doe',
      'google-oauth2|10769150350006150715',
      'ana@example.com',
    ]) {
      const res = await h.call('GET', '/api/v1/brands', { authorization: `Bearer ${await sign({ sub })}` });
      assert.equal(res.status, 200, sub);
    }
  });

  it('accepts a token issued up to a minute ahead of this clock (an issuer’s skew)', async () => {
    const ahead = await sign({ iat: Math.floor(Date.now() / 1000) + 30 });
    const res = await h.call('GET', '/api/v1/brands', { authorization: `Bearer ${ahead}` });
    assert.equal(res.status, 200);
  });

  it('refuses a token it accepted once its exp has passed, though this container verified it before', async (t) => {
    const exp = Math.floor(Date.now() / 1000) + 5;
    const token = await sign({ exp });
    const call = () => h.call('GET', '/api/v1/brands', { authorization: `Bearer ${token}` });
    assert.equal((await call()).status, 200);
    // The clock moved a second past exp rather than waited for: the cache of verified tokens and jose read it alike.
    t.mock.timers.enable({ apis: ['Date'], now: (exp + 1) * 1000 });
    const res = await call();
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, INVALID);
  });

  it('accepts a valid token with a case-insensitive scheme', async () => {
    const res = await h.call('GET', '/api/v1/brands', { authorization: `bEaReR ${h.owner.token}` });
    assert.equal(res.status, 200);
  });
});
