// Envelope encryption for secrets kept in the table: AES-256-GCM under a 256-bit data key, the data
// key itself stored beside the ciphertext, wrapped by a key provider. In AWS the provider is the
// stack's KMS key (SECRETS_KEY_ID); on the embedded runtime it is a local key in the data folder
// (LOCAL_SECRETS_KEY, hex). Every ciphertext is bound to its record by GCM's additional
// authenticated data, so a sealed value copied to another record or field does not open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The environment variable through which the embedded runtime hands over its local key. */
export const LOCAL_SECRETS_KEY_ENV = 'LOCAL_SECRETS_KEY';

/** A sealed secret, as stored in a DynamoDB map attribute (binary parts base64-encoded). */
export interface Sealed {
  v: 1;
  /** Who wrapped the data key. */
  kp: 'kms' | 'local';
  /** The data key, wrapped by its provider. */
  dk: string;
  iv: string;
  ct: string;
  tag: string;
}

/** What a sealed value belongs to (e.g. workspace id, provider, field name); checked on open. */
export type SealContext = readonly string[];

export const DATA_KEY_LIMITS = {
  /** A data key is reused for encryptions this long, then replaced. */
  ttlMs: 5 * 60_000,
  /** …or after this many encryptions (random 96-bit IVs stay far below the 2^32 GCM bound). */
  maxUses: 10_000,
  /** Unwrapped data keys remembered for decryption. */
  unwrappedEntries: 100,
} as const;

const IV_BYTES = 12;
const TAG_BYTES = 16;

interface DataKey {
  plaintext: Buffer;
  wrapped: Buffer;
}

interface KeyProvider {
  name: Sealed['kp'];
  /** Distinguishes keys of one provider in the caches (a KMS key id, a local key's fingerprint). */
  ref: string;
  generate(): Promise<DataKey>;
  unwrap(wrapped: Buffer): Promise<Buffer>;
}

// Read at every call (not once per module) so the tests and the local runtime can set them first.
const kmsKeyId = () => process.env.SECRETS_KEY_ID || undefined;
const localKey = (): Buffer | undefined => {
  const hex = process.env[LOCAL_SECRETS_KEY_ENV];
  if (!hex) return undefined;
  const key = Buffer.from(hex, 'hex');
  if (key.length !== 32) throw new Error(`${LOCAL_SECRETS_KEY_ENV} must be 32 bytes in hex`);
  return key;
};

const gcmSeal = (key: Buffer, plaintext: Buffer, aad: Buffer) => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ct, tag: cipher.getAuthTag() };
};

const gcmOpen = (key: Buffer, parts: { iv: Buffer; ct: Buffer; tag: Buffer }, aad: Buffer) => {
  const decipher = createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(parts.tag);
  return Buffer.concat([decipher.update(parts.ct), decipher.final()]);
};

const LOCAL_WRAP_AAD = Buffer.from('team-content-service/data-key');

const localProvider = (master: Buffer): KeyProvider => ({
  name: 'local',
  ref: createHash('sha256').update(master).digest('hex').slice(0, 16),
  generate: async () => {
    const plaintext = randomBytes(32);
    const { iv, ct, tag } = gcmSeal(master, plaintext, LOCAL_WRAP_AAD);
    return { plaintext, wrapped: Buffer.concat([iv, ct, tag]) };
  },
  unwrap: async (wrapped) =>
    gcmOpen(
      master,
      {
        iv: wrapped.subarray(0, IV_BYTES),
        ct: wrapped.subarray(IV_BYTES, wrapped.length - TAG_BYTES),
        tag: wrapped.subarray(wrapped.length - TAG_BYTES),
      },
      LOCAL_WRAP_AAD,
    ),
});

const kmsProvider = (keyId: string | undefined): KeyProvider => ({
  name: 'kms',
  ref: keyId ?? '',
  generate: async () => {
    if (!keyId) throw new Error('SECRETS_KEY_ID is not set');
    const { generateDataKey } = await import('./kms.ts');
    return generateDataKey(keyId);
  },
  unwrap: async (wrapped) => {
    const { decryptDataKey } = await import('./kms.ts');
    return decryptDataKey(wrapped, keyId);
  },
});

/** The provider new secrets are sealed with: KMS in AWS, else the embedded runtime's local key. */
function sealingProvider(): KeyProvider {
  const keyId = kmsKeyId();
  if (keyId) return kmsProvider(keyId);
  const local = localKey();
  if (local) return localProvider(local);
  throw new Error(`No secrets key: set SECRETS_KEY_ID (AWS) or ${LOCAL_SECRETS_KEY_ENV} (embedded runtime)`);
}

function openingProvider(name: Sealed['kp']): KeyProvider {
  if (name === 'kms') return kmsProvider(kmsKeyId());
  const local = localKey();
  if (!local) throw new Error(`${LOCAL_SECRETS_KEY_ENV} is not set`);
  return localProvider(local);
}

// ---- per-container data-key caches (one KMS call per few minutes, not per secret) -------------

interface CurrentKey {
  ref: string;
  key: Promise<DataKey>;
  expires: number;
  uses: number;
}
let current: CurrentKey | undefined;
const unwrapped = new Map<string, { key: Promise<Buffer>; expires: number }>();

/** Drops every cached data key (tests; a key change). */
export function forgetDataKeys() {
  current = undefined;
  unwrapped.clear();
}

function dataKeyFor(provider: KeyProvider): Promise<DataKey> {
  const ref = `${provider.name}:${provider.ref}`;
  const at = Date.now();
  if (!current || current.ref !== ref || current.expires <= at || current.uses >= DATA_KEY_LIMITS.maxUses) {
    const fresh: CurrentKey = { ref, key: provider.generate(), expires: at + DATA_KEY_LIMITS.ttlMs, uses: 0 };
    // A failed generation is not kept: the next call tries again.
    fresh.key.catch(() => {
      if (current === fresh) current = undefined;
    });
    current = fresh;
  }
  current.uses++;
  return current.key;
}

function unwrapFor(provider: KeyProvider, wrapped: Buffer): Promise<Buffer> {
  const id = `${provider.name}:${provider.ref}:${wrapped.toString('base64')}`;
  const at = Date.now();
  const known = unwrapped.get(id);
  if (known && known.expires > at) return known.key;
  if (unwrapped.size >= DATA_KEY_LIMITS.unwrappedEntries) unwrapped.delete(unwrapped.keys().next().value!);
  const entry = { key: provider.unwrap(wrapped), expires: at + DATA_KEY_LIMITS.ttlMs };
  // A failed unwrap is not kept, unless a later one has taken its place.
  entry.key.catch(() => {
    if (unwrapped.get(id) === entry) unwrapped.delete(id);
  });
  unwrapped.set(id, entry);
  return entry.key;
}

// ---- sealing ----------------------------------------------------------------------------------

const aadOf = (context: SealContext) => Buffer.from(JSON.stringify(['tcs-secret-v1', ...context]));

export async function seal(plaintext: string | Uint8Array, context: SealContext): Promise<Sealed> {
  const provider = sealingProvider();
  const key = await dataKeyFor(provider);
  const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : Buffer.from(plaintext);
  const { iv, ct, tag } = gcmSeal(key.plaintext, data, aadOf(context));
  return {
    v: 1,
    kp: provider.name,
    dk: key.wrapped.toString('base64'),
    iv: iv.toString('base64'),
    ct: ct.toString('base64'),
    tag: tag.toString('base64'),
  };
}

/** Opens a sealed value; throws when it was sealed for another context or was altered. */
export async function open(sealed: Sealed, context: SealContext): Promise<Buffer> {
  if (sealed.v !== 1) throw new Error(`Unknown sealed format ${String(sealed.v)}`);
  const provider = openingProvider(sealed.kp);
  const key = await unwrapFor(provider, Buffer.from(sealed.dk, 'base64'));
  return gcmOpen(
    key,
    {
      iv: Buffer.from(sealed.iv, 'base64'),
      ct: Buffer.from(sealed.ct, 'base64'),
      tag: Buffer.from(sealed.tag, 'base64'),
    },
    aadOf(context),
  );
}

export const sealJson = (value: unknown, context: SealContext) => seal(JSON.stringify(value), context);

export const openJson = async <T>(sealed: Sealed, context: SealContext): Promise<T> =>
  JSON.parse((await open(sealed, context)).toString('utf8')) as T;
