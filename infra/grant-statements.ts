// The route table's grant declarations (infra/grants.ts) as IAM statements. Every statement names
// its actions one by one (no `*` in an action) and its resources as narrowly as the keys allow: the
// table and the indexes the route queries, object key patterns in the bucket, the secrets key under
// the encryption context the code uses.
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { SECRETS_ENCRYPTION_CONTEXT } from '../shared/crypto/encryption-context.ts';
import type { Grants, SecretsUse } from './grants.ts';

const SECRETS_ACTIONS: Record<SecretsUse, string> = {
  seal: 'kms:GenerateDataKey',
  open: 'kms:Decrypt',
};

export interface GrantTargets {
  tableArn: string;
  bucket: IBucket;
  secretsKey: IKey;
}

/** The statements `grants` allows. */
function grantStatements(grants: Grants, targets: GrantTargets): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  const { table = [], indexes = [], bucket = {}, secrets = [] } = grants;
  if (table.length > 0)
    statements.push(
      new PolicyStatement({
        actions: table.map((operation) => `dynamodb:${operation}`),
        resources: [targets.tableArn],
      }),
    );
  if (indexes.length > 0)
    statements.push(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: indexes.map((index) => `${targets.tableArn}/index/${index}`),
      }),
    );
  const objects = (action: string, patterns: readonly string[] = []) => {
    if (patterns.length > 0)
      statements.push(
        new PolicyStatement({
          actions: [action],
          resources: patterns.map((pattern) => targets.bucket.arnForObjects(pattern)),
        }),
      );
  };
  objects('s3:GetObject', bucket.read);
  objects('s3:GetObjectVersion', bucket.readVersions);
  objects('s3:PutObject', bucket.write);
  objects('s3:DeleteObject', bucket.delete);
  if (bucket.list && bucket.list.length > 0)
    statements.push(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [targets.bucket.bucketArn],
      }),
    );
  if (secrets.length > 0)
    statements.push(
      new PolicyStatement({
        actions: secrets.map((use) => SECRETS_ACTIONS[use]),
        resources: [targets.secretsKey.keyArn],
        conditions: {
          StringEquals: Object.fromEntries(
            Object.entries(SECRETS_ENCRYPTION_CONTEXT).map(([key, value]) => [
              `kms:EncryptionContext:${key}`,
              value,
            ]),
          ),
        },
      }),
    );
  return statements;
}

export function grant(grantee: IGrantable, grants: Grants, targets: GrantTargets) {
  for (const statement of grantStatements(grants, targets))
    grantee.grantPrincipal.addToPrincipalPolicy(statement);
}
