// The CDK app the infra tests synthesize in: the context `npx cdk synth` and `npx cdk deploy` read from
// cdk.json (its feature flags change resources: with `serverAccessLogsUseBucketPolicy` the access-log
// bucket takes S3's log delivery by bucket policy, without it by ACL), plus the test's own values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';

const cdkJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};

export const CDK_CONTEXT: Readonly<Record<string, unknown>> = cdkJson.context;

/** An app with cdk.json's context, as the CLI builds it, and `context` on top. */
export const cdkApp = (context: Record<string, unknown> = {}) =>
  new App({ context: { ...CDK_CONTEXT, 'cli-telemetry': false, ...context } });
