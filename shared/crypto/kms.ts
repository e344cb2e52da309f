// The KMS side of envelope encryption. The SDK client is imported on first use only, so bundles
// and local runs that never reach KMS do not load it.
import type { KMSClient } from '@aws-sdk/client-kms';
import { sdkLogger } from '../aws/sdk-logger.ts';
import { config } from '../config.ts';
import { SECRETS_ENCRYPTION_CONTEXT } from './encryption-context.ts';

let client: KMSClient | undefined;

export async function kms(): Promise<KMSClient> {
  if (!client) {
    const { KMSClient } = await import('@aws-sdk/client-kms');
    client = new KMSClient({ region: config.region, maxAttempts: 3, logger: sdkLogger });
  }
  return client;
}

export const resetKms = () => {
  client?.destroy();
  client = undefined;
};

export interface DataKey {
  plaintext: Buffer;
  /** The same key encrypted under the KMS key, stored beside the ciphertext. */
  wrapped: Buffer;
}

export async function generateDataKey(keyId: string): Promise<DataKey> {
  const { GenerateDataKeyCommand } = await import('@aws-sdk/client-kms');
  const out = await (await kms()).send(
    new GenerateDataKeyCommand({
      KeyId: keyId,
      KeySpec: 'AES_256',
      EncryptionContext: SECRETS_ENCRYPTION_CONTEXT,
    }),
  );
  if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS returned no data key');
  return { plaintext: Buffer.from(out.Plaintext), wrapped: Buffer.from(out.CiphertextBlob) };
}

export async function decryptDataKey(wrapped: Buffer, keyId: string | undefined): Promise<Buffer> {
  const { DecryptCommand } = await import('@aws-sdk/client-kms');
  const out = await (await kms()).send(
    new DecryptCommand({
      CiphertextBlob: wrapped,
      EncryptionContext: SECRETS_ENCRYPTION_CONTEXT,
      ...(keyId ? { KeyId: keyId } : {}),
    }),
  );
  if (!out.Plaintext) throw new Error('KMS returned no plaintext');
  return Buffer.from(out.Plaintext);
}
