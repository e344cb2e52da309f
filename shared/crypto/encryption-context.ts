// The KMS encryption context of integration secrets: sent by shared/crypto/kms.ts with every
// GenerateDataKey and Decrypt, and required by the stack's key grants (infra/grants.ts). A module of
// its own so the route table can name it without loading the KMS client.
export const SECRETS_ENCRYPTION_CONTEXT = { purpose: 'integration-secrets' } as const;
