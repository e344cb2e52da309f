// Envelope encryption, on both key providers: the local key of the embedded runtime, and KMS (its
// answers supplied by a middleware on the real SDK client, which is how we inject faults elsewhere).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, it, type TestContext } from 'node:test';
import { build } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.ts';
import {
  DATA_KEY_LIMITS,
  forgetDataKeys,
  open,
  openJson,
  type Sealed,
  seal,
  sealJson,
} from '../../shared/crypto/envelope.ts';
import { useLocalSecretsKey } from '../../shared/crypto/local-key.ts';

const SECRET = 'sk_live_f00dfacecafe-the-secret';
const context = ['workspace', 'w1', 'integration', 'ads-provider', 'oauth_credentials'];

afterEach(() => {
  delete process.env.SECRETS_KEY_ID;
  useLocalSecretsKey(randomBytes(32).toString('hex'));
});

/**
 * A stand-in for KMS on the real SDK client (a middleware, for this test only): it "wraps" a data key
 * by XOR with a fixed pad, records each request, and answers the first `failingDecrypts` Decrypts with
 * KMS's internal error (a transient fault that outlasted the SDK's retries), once `failWhen` settles.
 */
async function useFakeKms(
  t: TestContext,
  {
    failingDecrypts = 0,
    failWhen = Promise.resolve(),
  }: { failingDecrypts?: number; failWhen?: Promise<void> } = {},
) {
  const { kms, resetKms } = await import('../../shared/crypto/kms.ts');
  t.after(resetKms);
  process.env.SECRETS_KEY_ID = 'arn:aws:kms:eu-west-1:123456789012:key/test';
  forgetDataKeys();
  const pad = createHash('sha256').update('kms').digest();
  const xor = (key: Uint8Array) => Buffer.from(key.map((byte, i) => byte ^ pad[i]!));
  const calls: { name: string; input: Record<string, unknown> }[] = [];
  const client = await kms();
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      calls.push({ name: context.commandName!, input });
      if (context.commandName === 'GenerateDataKeyCommand') {
        const key = randomBytes(32);
        return { output: { Plaintext: key, CiphertextBlob: xor(key), $metadata: {} }, response: {} };
      }
      if (context.commandName === 'DecryptCommand') {
        if (failingDecrypts-- > 0) {
          await failWhen;
          throw Object.assign(new Error('injected KMS fault'), {
            name: 'KMSInternalException',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        }
        return {
          output: { Plaintext: xor(input.CiphertextBlob as Uint8Array), $metadata: {} },
          response: {},
        };
      }
      throw new Error(`unexpected ${context.commandName}`);
    },
    { step: 'initialize', name: 'fakeKms' },
  );
  return calls;
}

/** How many requests of `calls` were `name` (e.g. DecryptCommand). */
const countOf = (calls: { name: string }[], name: string) => calls.filter((c) => c.name === name).length;

describe('envelope encryption with the local key', () => {
  it('round-trips, and the stored form holds no plaintext', async () => {
    useLocalSecretsKey(randomBytes(32).toString('hex'));
    const sealed = await seal(SECRET, context);
    assert.equal(sealed.kp, 'local');
    assert.equal(Buffer.from(sealed.iv, 'base64').length, 12);
    assert.equal(Buffer.from(sealed.tag, 'base64').length, 16);
    const stored = JSON.stringify(sealed);
    assert.ok(!stored.includes(SECRET), stored);
    assert.ok(!stored.includes(Buffer.from(SECRET).toString('base64').slice(0, 12)), stored);
    assert.equal((await open(sealed, context)).toString('utf8'), SECRET);
    assert.deepEqual(await openJson(await sealJson({ a: SECRET }, context), context), { a: SECRET });
  });

  it('refuses another record’s context (AAD), altered ciphertext, another key and a format it does not know', async () => {
    useLocalSecretsKey(randomBytes(32).toString('hex'));
    const sealed = await seal(SECRET, context);
    await assert.rejects(
      open(sealed, ['workspace', 'w2', 'integration', 'ads-provider', 'oauth_credentials']),
    );
    await assert.rejects(open(sealed, ['workspace', 'w1', 'integration', 'ads-provider', 'provider_data']));
    const flipped = Buffer.from(sealed.ct, 'base64');
    flipped[0]! ^= 1;
    await assert.rejects(open({ ...sealed, ct: flipped.toString('base64') }, context));
    // A later format is refused, not read as this one.
    await assert.rejects(open({ ...sealed, v: 2 } as unknown as Sealed, context), /Unknown sealed format 2/);
    useLocalSecretsKey(randomBytes(32).toString('hex'));
    await assert.rejects(open(sealed, context));
  });

  it('reuses one data key per container for a while, with a fresh IV per secret', async () => {
    useLocalSecretsKey(randomBytes(32).toString('hex'));
    const a = await seal(SECRET, context);
    const b = await seal(SECRET, context);
    assert.equal(a.dk, b.dk);
    assert.notEqual(a.iv, b.iv);
    assert.notEqual(a.ct, b.ct);
    forgetDataKeys();
    assert.notEqual((await seal(SECRET, context)).dk, a.dk);
  });

  it('replaces the data key after maxUses secrets', async () => {
    useLocalSecretsKey(randomBytes(32).toString('hex'));
    const first = await seal(SECRET, context);
    for (let use = 2; use < DATA_KEY_LIMITS.maxUses; use++) await seal(SECRET, context);
    assert.equal((await seal(SECRET, context)).dk, first.dk, 'the last of maxUses');
    const next = await seal(SECRET, context);
    assert.notEqual(next.dk, first.dk);
    assert.equal((await open(next, context)).toString('utf8'), SECRET);
  });

  it('replaces the data key once ttlMs has passed', async (t) => {
    useLocalSecretsKey(randomBytes(32).toString('hex'));
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const first = await seal(SECRET, context);
    t.mock.timers.tick(DATA_KEY_LIMITS.ttlMs - 1);
    assert.equal((await seal(SECRET, context)).dk, first.dk);
    t.mock.timers.tick(1);
    assert.notEqual((await seal(SECRET, context)).dk, first.dk);
  });

  it('fails loudly when no key is configured', async () => {
    delete process.env.LOCAL_SECRETS_KEY;
    forgetDataKeys();
    await assert.rejects(seal(SECRET, context), /No secrets key/);
  });
});

describe('envelope encryption with KMS', () => {
  it('asks KMS for an AES-256 data key under SECRETS_KEY_ID once, and decrypts it once', async (t) => {
    const calls = await useFakeKms(t);

    const sealed = await Promise.all([seal(SECRET, context), seal('two', context), seal('three', context)]);
    assert.deepEqual(
      calls.map((c) => c.name),
      ['GenerateDataKeyCommand'],
    );
    assert.deepEqual(calls[0]!.input, {
      KeyId: process.env.SECRETS_KEY_ID,
      KeySpec: 'AES_256',
      EncryptionContext: { purpose: 'integration-secrets' },
    });
    assert.ok(
      sealed.every((s) => s.kp === 'kms' && s.dk === sealed[0]!.dk),
      'one KMS data key',
    );

    forgetDataKeys(); // a new container: the wrapped key must come back from KMS
    const opened = await Promise.all(sealed.map((s) => open(s, context)));
    assert.deepEqual(
      opened.map((b) => b.toString()),
      [SECRET, 'two', 'three'],
    );
    assert.deepEqual(
      calls.map((c) => c.name),
      ['GenerateDataKeyCommand', 'DecryptCommand'],
    );
    assert.equal(calls[1]!.input.KeyId, process.env.SECRETS_KEY_ID);
    assert.deepEqual(calls[1]!.input.EncryptionContext, { purpose: 'integration-secrets' });
    await assert.rejects(open(sealed[0]!, ['workspace', 'other']));
  });

  it('asks KMS again after a failed Decrypt: the failure is not remembered', async (t) => {
    const calls = await useFakeKms(t, { failingDecrypts: 1 });
    const sealed = await seal(SECRET, context);
    await assert.rejects(open(sealed, context), /injected KMS fault/);
    assert.equal((await open(sealed, context)).toString('utf8'), SECRET);
    assert.equal(countOf(calls, 'DecryptCommand'), 2);
  });

  it('keeps a later unwrap of a data key when an earlier one, begun before it expired, fails', async (t) => {
    let failNow = () => {};
    const calls = await useFakeKms(t, {
      failingDecrypts: 1,
      failWhen: new Promise((resolve) => {
        failNow = resolve;
      }),
    });
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const sealed = await seal(SECRET, context);
    forgetDataKeys();
    const first = open(sealed, context); // its Decrypt still in flight when the entry expires
    t.mock.timers.tick(DATA_KEY_LIMITS.ttlMs);
    assert.equal((await open(sealed, context)).toString('utf8'), SECRET);
    failNow();
    await assert.rejects(first, /injected KMS fault/);
    assert.equal((await open(sealed, context)).toString('utf8'), SECRET);
    assert.equal(countOf(calls, 'DecryptCommand'), 2, 'the later unwrap is still remembered');
  });

  it('unwraps a data key again once ttlMs has passed, so a key revoked in KMS stops opening', async (t) => {
    const calls = await useFakeKms(t);
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const sealed = await seal(SECRET, context);
    await open(sealed, context);
    t.mock.timers.tick(DATA_KEY_LIMITS.ttlMs - 1);
    await open(sealed, context);
    assert.equal(countOf(calls, 'DecryptCommand'), 1, 'remembered within ttlMs');
    t.mock.timers.tick(1);
    assert.equal((await open(sealed, context)).toString('utf8'), SECRET);
    assert.equal(countOf(calls, 'DecryptCommand'), 2);
  });
});

describe('bundles', () => {
  it('keep KMS and the crypto code out of every workspace function except the credentials save', async () => {
    const entries = [
      'create-workspace',
      'get-workspace',
      'list-integrations',
      'list-workspace-tasks',
      'create-workspace-task',
      'save-ads-credentials',
    ];
    for (const entry of entries) {
      const result = await build({
        ...esbuildOptions,
        external: [...esbuildOptions.external],
        mainFields: [...esbuildOptions.mainFields],
        entryPoints: [`functions/workspaces/${entry}.ts`],
        write: false,
        metafile: true,
        sourcemap: false,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      const bytes = result.outputFiles[0]!.contents.length;
      const sealing = entry === 'save-ads-credentials';
      assert.equal(
        inputs.some((path) => path.includes('@aws-sdk/client-kms')),
        sealing,
        entry,
      );
      assert.equal(
        inputs.some((path) => path.includes('shared/crypto/')),
        sealing,
        entry,
      );
      assert.ok(bytes <= 350 * 1024, `${entry}: ${bytes} bytes`);
    }
  });
});
