// The KMS encryption context of integration secrets: sent by shared/crypto/kms.ts with every
// GenerateDataKey and Decrypt, and required by the stack's key grants (infra/grant-statements.ts). A module of
// its own so the route table can name it without loading the KMS client. It names the purpose in KMS
// (and CloudTrail); records are bound to their ciphertext by AES-GCM's AAD.
export const SECRETS_ENCRYPTION_CONTEXT = { purpose: 'integration-secrets' } as const;
