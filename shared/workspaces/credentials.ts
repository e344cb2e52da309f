// The ads integration's secrets: the user's own OAuth application credentials (spec endpoint 2)
// and the provider-side data the OAuth callback brings (access tokens of the user and of each
// page). Both are sealed with envelope encryption (shared/crypto/envelope.ts) in their own
// attributes, bound to workspace, provider and field; neither is ever part of a response.
import { nowIso } from '../clock.ts';
import { openJson, type SealContext, sealJson } from '../crypto/envelope.ts';
import { getItem, type ItemUpdate, updateItem } from '../db/store.ts';
import { ConflictError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { type IntegrationItem, toIntegrationStatus } from './integrations.ts';
import { workspaceKeys } from './keys.ts';
import { requireMember } from './members.ts';
import {
  ADS_PROVIDER,
  type IntegrationState,
  type IntegrationStatus,
  type SaveCredentialsInput,
} from './schemas.ts';

type SecretField = 'oauth_credentials' | 'provider_data';

/** The AAD of a sealed field: a ciphertext copied to another workspace, provider or field won't open. */
const sealContext = (workspaceId: string, provider: string, field: SecretField): SealContext => [
  'workspace',
  workspaceId,
  'integration',
  provider,
  field,
];

export interface OAuthCredentials {
  client_id: string;
  client_secret: string;
}

/**
 * Saves (upserts) the caller's OAuth application credentials. One atomic UpdateItem: the first save
 * creates the integration (`pending_authorization`, empty scopes, null account fields), later saves
 * replace only the credentials and keep every connection field, and concurrent saves end as if they
 * had run one after another (the last one's credentials win).
 */
export async function saveAdsCredentials(
  userId: string,
  workspaceId: string,
  input: SaveCredentialsInput,
): Promise<IntegrationStatus> {
  const credentials: OAuthCredentials = { client_id: input.client_id, client_secret: input.client_secret };
  // Sealing runs beside the member check: a data-key request to KMS adds no round trip.
  const [, sealed] = await Promise.all([
    requireMember(userId, workspaceId),
    sealJson(credentials, sealContext(workspaceId, ADS_PROVIDER, 'oauth_credentials')),
  ]);
  const at = nowIso();
  const item = await writeIntegration(workspaceId, {
    set: { oauth_credentials: sealed, updated_at: at },
    setIfAbsent: {
      kind: 'integration',
      id: newId(),
      workspace_id: workspaceId,
      provider: ADS_PROVIDER,
      status: 'pending_authorization' satisfies IntegrationState,
      account_id: null,
      account_name: null,
      scopes: [],
      last_synced_at: null,
      token_expires_at: null,
      social_pages: [],
      social_user_id: null,
      created_at: at,
    },
  });
  return toIntegrationStatus(item!);
}

/**
 * One write to the ads integration, counted once in `revision` (`updateItem`'s `once`: the SDK's resend
 * of a write that landed adds nothing). Answers the item as written, or undefined where `exists`
 * refused it. Refused otherwise, the write landed and another has followed it: the item as read.
 */
async function writeIntegration(
  workspaceId: string,
  update: Pick<ItemUpdate, 'set' | 'setIfAbsent' | 'exists'>,
): Promise<IntegrationItem | undefined> {
  const keys = workspaceKeys.integration(workspaceId, ADS_PROVIDER);
  const written = await updateItem<IntegrationItem>(keys, { ...update, add: { revision: 1 }, once: true });
  return written ?? (update.exists ? undefined : getItem<IntegrationItem>(keys));
}

/** What the provider's OAuth callback hands over when the user authorises the app. */
export interface AdsConnection {
  account_id: string;
  account_name: string;
  scopes: string[];
  token_expires_at: string | null;
  social_user_id: string | null;
  user_access_token: string;
  pages: { id: string; name: string; access_token: string }[];
}

/** Provider-side extra data, sealed in `provider_data`. */
export interface AdsProviderData {
  user_access_token: string;
  page_access_tokens: Record<string, string>;
}

/**
 * The OAuth callback's write path: marks the integration connected, keeps the pages' public
 * references in `social_pages` and seals every token in `provider_data`. Refused (409) before the
 * user has saved their OAuth application credentials.
 */
export async function connectAdsAccount(
  workspaceId: string,
  connection: AdsConnection,
): Promise<IntegrationStatus> {
  // Answered as every timestamp is (UTC, milliseconds), whatever form the provider used; not a time
  // at all, a RangeError before anything is written.
  const tokenExpiresAt =
    connection.token_expires_at === null ? null : new Date(connection.token_expires_at).toISOString();
  const providerData: AdsProviderData = {
    user_access_token: connection.user_access_token,
    page_access_tokens: Object.fromEntries(connection.pages.map((page) => [page.id, page.access_token])),
  };
  const sealed = await sealJson(providerData, sealContext(workspaceId, ADS_PROVIDER, 'provider_data'));
  const at = nowIso();
  const item = await writeIntegration(workspaceId, {
    set: {
      status: 'connected' satisfies IntegrationState,
      account_id: connection.account_id,
      account_name: connection.account_name,
      scopes: connection.scopes,
      token_expires_at: tokenExpiresAt,
      social_user_id: connection.social_user_id,
      social_pages: connection.pages.map((page) => ({ id: page.id, name: page.name })),
      provider_data: sealed,
      last_synced_at: at,
      updated_at: at,
    },
    exists: ['oauth_credentials'],
  });
  if (!item) throw new ConflictError('Save the OAuth application credentials first');
  return toIntegrationStatus(item);
}

/** The saved OAuth application credentials, decrypted (for the authorisation flow only). */
export async function readAdsCredentials(workspaceId: string): Promise<OAuthCredentials | undefined> {
  const item = await getItem<IntegrationItem>(workspaceKeys.integration(workspaceId, ADS_PROVIDER));
  if (!item?.oauth_credentials) return undefined;
  return openJson<OAuthCredentials>(
    item.oauth_credentials,
    sealContext(workspaceId, ADS_PROVIDER, 'oauth_credentials'),
  );
}

/** The provider's tokens, decrypted (for the agents that post to pages). */
export async function readAdsProviderData(workspaceId: string): Promise<AdsProviderData | undefined> {
  const item = await getItem<IntegrationItem>(workspaceKeys.integration(workspaceId, ADS_PROVIDER));
  if (!item?.provider_data) return undefined;
  return openJson<AdsProviderData>(
    item.provider_data,
    sealContext(workspaceId, ADS_PROVIDER, 'provider_data'),
  );
}
