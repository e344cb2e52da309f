// cdk-nag findings this stack accepts, each with its reason. Anything not listed here fails synth.
import { type Stack, Validations } from 'aws-cdk-lib';

const AWS_SOLUTIONS: Record<string, string> = {
  'AwsSolutions-COG8':
    'The Cognito Plus feature plan is a per-user cost decision for the operator; deployments that need threat protection can point the API at an external issuer by context (issuerUrl/audience).',
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
    'AWSLambdaBasicExecutionRole only allows creating and writing CloudWatch log streams, which every function needs; data access is granted separately per route.',
  'AwsSolutions-IAM5[Resource::<TableCD117FA1.Arn>/index/*]':
    "Read grants include the table's own global secondary indexes (Query on gsi1); the wildcard is limited to indexes of this one table.",
  'AwsSolutions-IAM5[Resource::<Uploads4F6EB0FD.Arn>/*]':
    "Object grants are per bucket; keys are per user and per draft, so they cannot be listed in a policy. Handlers enforce each caller's own prefix.",
  'AwsSolutions-IAM5[Resource::<Uploads4F6EB0FD.Arn>/catalog/feeds/*]':
    'The catalogue import reads the merchant feeds dropped under catalog/feeds/, whatever their names; nothing else of the bucket.',
  'AwsSolutions-IAM5[Resource::<Uploads4F6EB0FD.Arn>/catalog/snapshots/*]':
    'The catalogue import reads and writes versioned snapshots (new names each import) and their pointer under catalog/snapshots/ only.',
  'AwsSolutions-IAM5[Action::s3:GetObject*]':
    'CDK bucket read grants include GetObject variants (attributes, tagging) on this bucket only.',
  'AwsSolutions-IAM5[Action::s3:GetBucket*]':
    'CDK bucket read grants include bucket location/metadata reads on this bucket only.',
  'AwsSolutions-IAM5[Action::s3:List*]': 'CDK bucket read grants include listing this bucket only.',
  'AwsSolutions-IAM5[Action::s3:DeleteObject*]':
    'Read/write grants delete drafts and moved objects in this bucket only.',
  'AwsSolutions-IAM5[Action::s3:Abort*]': 'Write grants abort this bucket’s own incomplete uploads.',
  'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]':
    'Envelope encryption needs GenerateDataKey on the stack’s secrets key only.',
  'AwsSolutions-IAM5[Action::kms:ReEncrypt*]':
    'CDK encrypt/decrypt grants include ReEncrypt on the stack’s secrets key only.',
  'AwsSolutions-APIG4':
    'Only routes declared `auth: false` in the route table go without the JWT authorizer (test/infra/stack.test.ts checks every other one has it); each authenticates in its function or is public by design. The avatar provider callback verifies an HMAC-SHA256 signature over the raw body with a 5-minute timestamp tolerance and replay receipts.',
  'AwsSolutions-SMG4':
    'The avatar provider secret is shared with an external provider: rotating it is a coordinated change on both sides (the provider signs with old and new secret during the switch; the verifier accepts any matching v1), done by the operator on the provider’s schedule, not by a rotation Lambda.',
};

const NIST = {
  'NIST.800.53.R5-IAMNoInlinePolicy':
    'Each function role carries one inline policy generated from its route’s declared grants, scoped to this stack’s table, bucket and key: least privilege per route.',
  'NIST.800.53.R5-LambdaConcurrency':
    'Functions are synchronous API handlers; the HTTP API stage throttles requests and the account concurrency bounds them. Reserving per function would cap bursts of single routes. The catalogue import (S3 events) needs no cap either: racing imports are made safe by conditional writes of the catalogue pointer.',
  'NIST.800.53.R5-LambdaDLQ':
    'Functions are invoked synchronously by API Gateway, which returns the error to the caller; a DLQ only applies to asynchronous invocations.',
  'NIST.800.53.R5-LambdaInsideVPC':
    'Functions reach only DynamoDB, S3 and KMS through IAM-authorised TLS endpoints; a VPC would add NAT or endpoint cost and cold-start time without protecting any private resource.',
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

export function acknowledgeFindings(stack: Stack) {
  for (const [id, reason] of Object.entries(AWS_SOLUTIONS))
    Validations.of(stack).acknowledge({ id: `AwsSolutions::${id}`, reason });
  for (const [id, reason] of Object.entries(NIST))
    Validations.of(stack).acknowledge({ id: `NIST.800.53.R5::${id}`, reason });
}
