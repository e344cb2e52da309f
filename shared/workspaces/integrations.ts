// Integration status, the read side. The item also holds sealed secrets (the user's OAuth
// application credentials, the provider's extra data such as page access tokens); responses are
// built from the spec's allow-list below, so nothing else can reach a client.
import { now } from '../clock.ts';
import type { Sealed } from '../crypto/envelope.ts';
import { queryPartition } from '../db/store.ts';
import { workspaceKeys } from './keys.ts';
import { getMember, workspaceNotFound } from './members.ts';
import {
  type IntegrationState,
  type IntegrationStatus,
  type SocialPage,
  WORKSPACE_LIMITS,
} from './schemas.ts';

export interface IntegrationItem {
  kind: 'integration';
  id: string;
  workspace_id: string;
  provider: string;
  status: IntegrationState;
  account_id: string | null;
  account_name: string | null;
  scopes: string[];
  last_synced_at: string | null;
  token_expires_at: string | null;
  social_pages: SocialPage[];
  social_user_id: string | null;
  created_at: string;
  updated_at: string;
  /** Sealed `{client_id, client_secret}`: present once the user saved their own OAuth app. */
  oauth_credentials?: Sealed;
  /** Sealed provider-side extra data (access tokens of the user and of each page). */
  provider_data?: Sealed;
  /** Bumped by every write, so concurrent writers can be told apart. */
  revision: number;
  /** The id of the write that last changed the item: its resend (answer lost) is refused by it. */
  last_write?: string;
}

/** A connection is `expired` from its token's expiry on: no write marks that moment, so every
 * answer reads it off the clock (a new connection through the OAuth callback makes it current). */
const statusNow = (item: IntegrationItem): IntegrationState =>
  item.status === 'connected' &&
  typeof item.token_expires_at === 'string' &&
  Date.parse(item.token_expires_at) <= now().getTime()
    ? 'expired'
    : item.status;

export const toIntegrationStatus = (item: IntegrationItem): IntegrationStatus => ({
  id: item.id,
  provider: item.provider,
  account_id: item.account_id ?? null,
  account_name: item.account_name ?? null,
  status: statusNow(item),
  scopes: [...(item.scopes ?? [])],
  last_synced_at: item.last_synced_at ?? null,
  token_expires_at: item.token_expires_at ?? null,
  created_at: item.created_at,
  has_oauth_credentials: item.oauth_credentials !== undefined,
  social_pages: (item.social_pages ?? []).map((page) => ({ id: page.id, name: page.name })),
  social_user_id: item.social_user_id ?? null,
});

export const queryIntegrations = (workspaceId: string) =>
  queryPartition<IntegrationItem>(workspaceKeys.partition(workspaceId), {
    prefix: workspaceKeys.integrationPrefix,
    limit: WORKSPACE_LIMITS.integrationsShown,
  });

/** One wave: the member check and the integrations, in provider order. */
export async function listIntegrations(userId: string, workspaceId: string): Promise<IntegrationStatus[]> {
  const [member, items] = await Promise.all([getMember(userId, workspaceId), queryIntegrations(workspaceId)]);
  if (!member) throw workspaceNotFound();
  return items.map(toIntegrationStatus);
}
