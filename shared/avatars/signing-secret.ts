// The secret shared with the avatar provider: it signs its callbacks with it, we sign the jobs we send
// it. In AWS it is a Secrets Manager secret the stack creates (its name in AVATAR_PROVIDER_SECRET_NAME;
// only the callback function may read it, and the upload function when a provider URL is configured);
// locally and in tests the value itself is in AVATAR_PROVIDER_SECRET.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sdkLogger } from '../aws/sdk-logger.ts';
import { config } from '../config.ts';

/** A rotated secret reaches warm containers within this time. */
const CACHE_MS = 5 * 60 * 1000;

let client: SecretsManagerClient | undefined;
let cached: { name: string; value: string; until: number } | undefined;

/** undefined when no secret is configured (the callback then refuses to work). */
export async function providerSigningSecret(): Promise<string | undefined> {
  const value = process.env.AVATAR_PROVIDER_SECRET;
  if (value) return value;
  const name = process.env.AVATAR_PROVIDER_SECRET_NAME;
  if (!name) return undefined;
  if (cached && cached.name === name && Date.now() < cached.until) return cached.value;
  client ??= new SecretsManagerClient({ region: config.region, maxAttempts: 3, logger: sdkLogger });
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: name }));
  if (!SecretString) return undefined;
  cached = { name, value: SecretString, until: Date.now() + CACHE_MS };
  return SecretString;
}
