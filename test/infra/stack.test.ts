// Synthesizes the real stack (bundling every function, cdk-nag packs attached) and checks the template.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { functionId, routeKey, routes } from '../../infra/routes.ts';
import { TeamContentStack } from '../../infra/stack.ts';
import { TABLE_INDEXES } from '../../shared/db/table.ts';

const { AwsSolutionsChecks, NIST80053R5Checks } = cdkNag;
let template: Template;
let stack: TeamContentStack;
let synthError: unknown;

before(() => {
  const app = new App({ context: { 'cli-telemetry': false } });
  stack = new TeamContentStack(app, 'TestStack', { env: { account: '123456789012', region: 'eu-west-1' } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new NIST80053R5Checks(app));
  try {
    // Synthesis fails when a cdk-nag finding is not acknowledged.
    template = Template.fromJSON(app.synth().getStackByName(stack.stackName).template);
  } catch (error) {
    synthError = error;
  }
});

const logicalIdOf = (entry: string) =>
  stack.getLogicalId(stack.functions.get(entry)!.node.defaultChild as never);

describe('CDK stack', () => {
  it('synthesizes with no unacknowledged AwsSolutions or NIST 800-53 rev 5 finding', () => {
    assert.equal(synthError, undefined);
  });

  it('has one function per route and per event-driven job, on arm64 and a current Node.js runtime, and one API route each', () => {
    // + 1: the `$default` route's function (FastAPI-style 404/405 for unmatched requests).
    template.resourceCountIs('AWS::Lambda::Function', routes.length + stack.eventFunctions.size + 1);
    template.allResourcesProperties('AWS::Lambda::Function', {
      Architectures: ['arm64'],
      Runtime: Match.stringLikeRegexp('^nodejs(2[2-9]|[3-9]\\d)\\.x$'),
    });
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
    });
    for (const route of routes) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey(route),
        AuthorizationType: route.auth === false ? 'NONE' : 'JWT',
      });
      assert.ok(stack.functions.has(route.entry), `no function for ${functionId(route)}`);
    }
  });

  it('loads no source maps at cold start unless deployed with -c sourceMaps=true', () => {
    const nodeOptions = (t: Template, s: TeamContentStack) =>
      [...s.functions.keys()].map(
        (entry) =>
          t.toJSON().Resources[s.getLogicalId(s.functions.get(entry)!.node.defaultChild as never)].Properties
            .Environment.Variables.NODE_OPTIONS,
      );
    assert.deepEqual(new Set(nodeOptions(template, stack)), new Set([undefined]));
    // Bundling skipped: only the environment is looked at.
    const app = new App({
      context: { 'cli-telemetry': false, sourceMaps: 'true', 'aws:cdk:bundling-stacks': [] },
    });
    const mapped = new TeamContentStack(app, 'MappedStack', {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    assert.deepEqual(
      new Set(nodeOptions(Template.fromStack(mapped), mapped)),
      new Set(['--enable-source-maps']),
    );
  });

  it('builds the table from the shared key definition, with PITR, deletion protection and a stream', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Object.entries(TABLE_INDEXES).map(([IndexName, keys]) =>
        Match.objectLike({
          IndexName,
          KeySchema: [
            { AttributeName: keys.partitionKey, KeyType: 'HASH' },
            { AttributeName: keys.sortKey, KeyType: 'RANGE' },
          ],
        }),
      ),
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
    });
  });

  it('grants each function only what its route declares', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    for (const route of routes) {
      const role = stack.getLogicalId(stack.functions.get(route.entry)!.role!.node.defaultChild as never);
      const policy = Object.values(policies).find((p) =>
        (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role),
      );
      const actions = JSON.stringify(policy?.Properties.PolicyDocument.Statement ?? []);
      assert.equal(
        actions.includes('dynamodb:PutItem'),
        route.table === 'write' || route.table === 'readWrite',
        route.entry,
      );
      assert.equal(
        actions.includes('dynamodb:Query'),
        route.table === 'read' || route.table === 'readWrite',
        route.entry,
      );
      assert.equal(
        actions.includes('s3:PutObject'),
        route.bucket === 'write' || route.bucket === 'readWrite',
        route.entry,
      );
      assert.equal(actions.includes('kms:Decrypt'), route.secrets === true, route.entry);
    }
    assert.ok(logicalIdOf(routes[0]!.entry));
  });

  it('imports catalogue feeds on S3 "Object Created" events under catalog/feeds/, with least privilege', () => {
    const fn = stack.getLogicalId(
      stack.eventFunctions.get('shopping/import-catalog-feed')!.node.defaultChild as never,
    );
    template.hasResourceProperties('AWS::S3::Bucket', {
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({
        source: ['aws.s3'],
        'detail-type': ['Object Created'],
        detail: Match.objectLike({ object: { key: [{ prefix: 'catalog/feeds/' }] } }),
      }),
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn, 'Arn'] }, DeadLetterConfig: Match.anyValue() })],
    });
    const { DeadLetterConfig, Environment } = template.toJSON().Resources[fn].Properties;
    assert.ok(DeadLetterConfig, 'failed events are kept');
    assert.deepEqual(Object.keys(Environment.Variables).sort(), ['BUCKET_NAME']);
    const role = stack.getLogicalId(
      stack.eventFunctions.get('shopping/import-catalog-feed')!.role!.node.defaultChild as never,
    );
    const policy = Object.values(template.findResources('AWS::IAM::Policy')).find((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role),
    );
    assert.ok(policy, 'the import function has a policy');
    const granted = policy.Properties.PolicyDocument.Statement as {
      Action: string | string[];
      Resource: unknown;
    }[];
    const statements = JSON.stringify(granted);
    assert.ok(!statements.includes('dynamodb:'), 'no table access');
    assert.ok(!statements.includes('kms:'), 'no key access');
    assert.match(statements, /catalog\/feeds\/\*/);
    const puts = granted
      .filter((st) => [st.Action].flat().includes('s3:PutObject'))
      .map((st) => JSON.stringify(st.Resource));
    assert.ok(puts.length > 0 && puts.every((r) => r.includes('/catalog/snapshots/*')), puts.join());
  });

  it('keeps the bucket private and TLS-only, with lifecycle rules for abandoned uploads', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('protects the API with a JWT authorizer, access logs and throttling', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', { AuthorizerType: 'JWT' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: Match.anyValue() }),
    });
    template.allResourcesProperties('AWS::Logs::LogGroup', {
      RetentionInDays: 90,
      KmsKeyId: Match.anyValue(),
    });
  });
});
