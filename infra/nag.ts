// cdk-nag findings this stack accepts, each with its reason. Anything not listed here fails synth.
import { type Stack, Validations } from 'aws-cdk-lib';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { OBJECTS } from './grants.ts';

const AWS_SOLUTIONS: Record<string, string> = {
  'AwsSolutions-COG8':
    'The Cognito Plus feature plan is a per-user cost decision for the operator; deployments that need threat protection can point the API at an external issuer by context (issuerUrl/audience).',
  'AwsSolutions-APIG4':
    'No route has an API Gateway authorizer: every route not declared `auth: false` verifies the bearer token in its function (shared/http/auth.ts: signature against the issuer\'s JWKS, issuer, audience, expiry, algorithm, token_use; test/hardening/auth-matrix.test.ts), so clients get FastAPI\'s 401 bodies and a key-set outage a 503; an HTTP API JWT authorizer would answer its own {"message":"Unauthorized"} first and accepts RSA keys only. The `auth: false` routes are public by design. The avatar provider callback verifies an HMAC-SHA256 signature over the raw body with a 5-minute timestamp tolerance and replay receipts.',
  'AwsSolutions-SMG4':
    'The avatar provider secret is shared with an external provider: rotating it is a coordinated change on both sides (the provider signs with old and new secret during the switch; the verifier accepts any matching v1), done by the operator on the provider’s schedule, not by a rotation Lambda.',
};

/**
 * Object grants are per key pattern (infra/grants.ts): each wildcard stands for ids minted per request
 * (users, uploads, drafts, kits, teams, avatars, catalogue versions) or a file name or extension, which
 * no policy can list. Which of those keys a caller may name is the handler's check, on every route.
 */
const OBJECT_PATTERNS: Record<keyof typeof OBJECTS, string> = {
  uploads:
    "Direct uploads are `uploads/<user id>/<upload id>/<file name>`. Only the presigned PUT of POST /uploads (under the caller's own prefix) writes there; the routes that read an upload accept only a key under the caller's own `uploads/<user id>/` and answer any other exactly as a missing one.",
  drafts:
    "Draft logos are `drafts/<user id>/<draft id>/<role>.png`, written by generate-from-upload under the caller's prefix; a brand-kit save copies only keys under the caller's own `drafts/<user id>/`.",
  brandKitLogos:
    "Saved logos are `brand-kits/<user id>/logos/<source digest>.<ext>`, one copy per logo source, written only under the caller's own prefix by a brand-kit save and never deleted; read only as the caller's own (a presigned URL of a kit they own, or a logo a save names under their own prefix).",
  avatarSources:
    'An avatar’s source video is `teams/<team id>/avatars/<avatar id>/source.<ext>`: only the upload route touches it (write, then delete on rollback, presigned GET for the provider), for a team the caller owns and an avatar id it has just minted.',
  avatarConsents:
    'An avatar’s consent recording is `teams/<team id>/avatars/<avatar id>/consent.<ext>`: the upload route presigns its PUT for the avatar it has just created; the status route (a team the caller owns) and the signed provider callback only HeadObject it.',
  catalogSnapshots:
    'Catalogue snapshots get a new name (a UUIDv7 version) at each import, beside their `latest.json` pointer: the import reads and writes them and deletes all but the newest few (never the one the pointer names), the search function only reads them.',
  catalogFeeds:
    'The catalogue import reads the merchant feeds operators drop under catalog/feeds/<merchant type>/<domain>/, whatever their names; nothing else of the bucket.',
};

export const NIST_ACKNOWLEDGEMENTS: Record<string, string> = {
  'NIST.800.53.R5-IAMNoInlinePolicy':
    'Each function role carries one inline policy: writing to its own log group, plus what its route declares in the route table (explicit actions on this stack’s table and indexes, object key patterns of the bucket, the secrets key under its encryption context): least privilege per route.',
  'NIST.800.53.R5-LambdaConcurrency':
    'Functions are synchronous API handlers; the HTTP API stage throttles requests and the account concurrency bounds them. Reserving per function would cap bursts of single routes. The catalogue import (S3 events) needs no cap either: racing imports are made safe by conditional writes of the catalogue pointer.',
  'NIST.800.53.R5-LambdaDLQ':
    'Functions are invoked synchronously by API Gateway, which returns the error to the caller; a DLQ only applies to asynchronous invocations.',
  'NIST.800.53.R5-LambdaInsideVPC':
    "Functions reach AWS only through its IAM-authorised TLS endpoints (DynamoDB, S3, KMS, and Secrets Manager for the avatar provider secret), and the internet for the token issuer's JWKS (Cognito's or an external issuer's) and the avatar provider when one is configured; in a VPC those would need a NAT gateway (and the AWS services endpoints or the same NAT), adding cost and cold-start time without protecting any private resource: the stack has none.",
  'NIST.800.53.R5-S3BucketReplicationEnabled':
    'A single-region service: uploads are versioned with a 30-day noncurrent retention; cross-region replication is an operator choice.',
  'NIST.800.53.R5-S3BucketVersioningEnabled':
    'The access-log bucket is written only by the S3 logging service and expires entries after 90 days; versioning it would only multiply log copies.',
  'NIST.800.53.R5-SecretsManagerRotationEnabled':
    'The avatar provider secret is rotated together with the external provider that holds it (see AwsSolutions-SMG4), not by a rotation Lambda.',
  'NIST.800.53.R5-SecretsManagerUsingKMSKey':
    'The avatar provider secret uses the AWS-managed Secrets Manager key: it is encrypted at rest either way, and only the callback function’s role may read it (an IAM grant on this one secret). Reusing the stack’s secrets key would let that public-facing function decrypt integration credentials; a dedicated customer key for one secret adds cost and a key policy without narrowing who can read it.',
  'NIST.800.53.R5-S3DefaultEncryptionKMS':
    'Buckets use SSE-S3 (AES-256, encrypted at rest, TLS enforced by bucket policy). SSE-KMS would add kms:Decrypt/GenerateDataKey to every function role that reads or writes objects (including the roles that sign browser upload URLs) and a KMS request per object operation, for user documents that are not secrets; integration secrets are envelope-encrypted with their own customer-managed key.',
};

export function acknowledgeFindings(stack: Stack, uploads: IBucket) {
  for (const [id, reason] of Object.entries(AWS_SOLUTIONS))
    Validations.of(stack).acknowledge({ id: `AwsSolutions::${id}`, reason });
  const bucketArn = `<${stack.getLogicalId(uploads.node.defaultChild as never)}.Arn>`;
  for (const [name, reason] of Object.entries(OBJECT_PATTERNS))
    Validations.of(stack).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${bucketArn}/${OBJECTS[name as keyof typeof OBJECTS]}]`,
      reason,
    });
  for (const [id, reason] of Object.entries(NIST_ACKNOWLEDGEMENTS))
    Validations.of(stack).acknowledge({ id: `NIST.800.53.R5::${id}`, reason });
}
