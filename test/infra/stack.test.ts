// Synthesizes the real stack (bundling every function, cdk-nag packs attached) and checks the template.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { lambdaContext } from '../../infra/local/handlers.ts';
import { NIST_ACKNOWLEDGEMENTS } from '../../infra/nag.ts';
import { AVATAR_UPLOAD_ENTRY } from '../../infra/routes/avatars.ts';
import { CORS, functionId, routeKey, routes, unmatchedRoute } from '../../infra/routes.ts';
import { API_5XX_ALARM, TeamContentStack } from '../../infra/stack.ts';
import { type IndexName, projectionOf, TABLE_INDEXES, TABLE_TTL_ATTRIBUTE } from '../../shared/db/table.ts';
import { cdkApp } from './app.ts';
import {
  expectedPermissions,
  linesOf,
  OBJECT_PATTERNS,
  permissionsOf,
  policiesOf,
  render,
  roleIdOf,
  SECRETS_CONTEXT,
  stackIds,
  TABLE_ACTIONS,
} from './permissions.ts';

const { AwsSolutionsChecks, NIST80053R5Checks } = cdkNag;
let template: Template;
let stack: TeamContentStack;
let synthError: unknown;

before(() => {
  const app = cdkApp();
  stack = new TeamContentStack(app, 'TestStack', { env: { account: '123456789012', region: 'eu-west-1' } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new NIST80053R5Checks(app));
  try {
    // Synthesis fails when a cdk-nag finding is not acknowledged.
    template = Template.fromJSON(app.synth().getStackByName(stack.stackName).template);
  } catch (error) {
    synthError = error;
  }
});

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
    // No gateway authorizer answers for the functions: each checks the token itself (FastAPI's 401s).
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    for (const route of routes) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey(route),
        AuthorizationType: 'NONE',
      });
      assert.ok(stack.functions.has(route.entry), `no function for ${functionId(route)}`);
    }
  });

  it('gives each handler locally the memory and remaining time its function has on AWS', () => {
    for (const route of [...routes, unmatchedRoute]) {
      const fn = stack.functions.get(route.entry)!;
      const { MemorySize, Timeout } = template.toJSON().Resources[
        stack.getLogicalId(fn.node.defaultChild as never)
      ].Properties as { MemorySize: number; Timeout: number };
      const context = lambdaContext(route);
      assert.equal(context.memoryLimitInMB, String(MemorySize), route.entry);
      // The local deadline starts when the context is made, a moment before this read.
      const remaining = context.getRemainingTimeInMillis();
      assert.ok(
        remaining <= Timeout * 1000 && remaining > Timeout * 1000 - 1000,
        `${route.entry}: ${remaining} ms of ${Timeout} s`,
      );
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
    const app = cdkApp({ sourceMaps: 'true', 'aws:cdk:bundling-stacks': [] });
    const mapped = new TeamContentStack(app, 'MappedStack', {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    assert.deepEqual(
      new Set(nodeOptions(Template.fromStack(mapped), mapped)),
      new Set(['--enable-source-maps']),
    );
  });

  it('lets the avatar upload read the provider secret (to sign its jobs) only when it reaches a provider', () => {
    const uploadOf = (t: Template, s: TeamContentStack) => {
      const fn = s.functions.get(AVATAR_UPLOAD_ENTRY)!;
      return {
        env: t.toJSON().Resources[s.getLogicalId(fn.node.defaultChild as never)].Properties.Environment
          .Variables,
        secrets: permissionsOf(t, s, fn).filter((l) => l.startsWith('secretsmanager:')),
      };
    };
    const without = uploadOf(template, stack);
    assert.deepEqual([without.env.AVATAR_PROVIDER_SECRET_NAME, without.secrets], [undefined, []]);
    const app = cdkApp({ avatarProviderUrl: 'https://provider.example/jobs', 'aws:cdk:bundling-stacks': [] });
    const withProvider = new TeamContentStack(app, 'ProviderStack', {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    const upload = uploadOf(Template.fromStack(withProvider), withProvider);
    assert.equal(upload.env.AVATAR_PROVIDER_URL, 'https://provider.example/jobs');
    assert.ok(upload.env.AVATAR_PROVIDER_SECRET_NAME);
    assert.deepEqual(upload.secrets.map((l) => l.split(' ')[0]).sort(), [
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
  });

  it('raises alarms on a failed catalogue import and on the API answering 5xx, to an encrypted topic', () => {
    const alarmOn = (metric: string) =>
      Object.values(template.findResources('AWS::CloudWatch::Alarm')).find(
        (alarm) => alarm.Properties.MetricName === metric,
      )?.Properties;
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;
    const dlq = alarmOn('ApproximateNumberOfMessagesVisible');
    assert.equal(dlq?.Threshold, 1);
    assert.equal(JSON.stringify(dlq?.Dimensions).includes('CatalogImportFailures'), true);
    const errors = alarmOn('5xx');
    assert.deepEqual(
      [errors?.Namespace, errors?.Statistic, errors?.Period, errors?.Threshold],
      ['AWS/ApiGateway', 'Sum', 300, API_5XX_ALARM],
    );
    for (const alarm of [dlq, errors]) assert.deepEqual(alarm?.AlarmActions, [{ Ref: topicId }]);
    // CloudWatch may use the topic's key (AWS's own SNS key would refuse it); no subscriber by default.
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const keys = template.findResources('AWS::KMS::Key');
    assert.ok(
      Object.values(keys).some((key) =>
        JSON.stringify(key.Properties.KeyPolicy).includes('cloudwatch.amazonaws.com'),
      ),
    );
    // The topic's own policy (enforceSSL's) replaces SNS's default: it must let this account's alarms
    // publish, or no alarm could notify (CloudWatch's alarm history: "no resource-based policy allows").
    const [topicPolicy, ...others] = Object.values(template.findResources('AWS::SNS::TopicPolicy'));
    assert.equal(others.length, 0);
    const statements = topicPolicy?.Properties.PolicyDocument.Statement as {
      Effect: string;
      Action: string;
      Principal: unknown;
      Condition?: Record<string, Record<string, unknown>>;
    }[];
    const publish = statements.filter(({ Effect, Action }) => Effect === 'Allow' && Action === 'sns:Publish');
    assert.deepEqual(
      publish.map(({ Principal }) => Principal),
      [{ Service: 'cloudwatch.amazonaws.com' }],
    );
    assert.match(JSON.stringify(publish[0]?.Condition?.ArnLike?.['aws:SourceArn']), /:alarm:\*/);
    assert.deepEqual(topicPolicy?.Properties.Topics, [{ Ref: topicId }]);
    // `-c alarmEmail=…` subscribes that address.
    const app = cdkApp({ alarmEmail: 'ops@example.com', 'aws:cdk:bundling-stacks': [] });
    const withEmail = new TeamContentStack(app, 'AlarmStack', {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    Template.fromStack(withEmail).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('builds the table from the shared key definition, with PITR, deletion protection and a stream', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TimeToLiveSpecification: { AttributeName: TABLE_TTL_ATTRIBUTE, Enabled: true },
    });
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
          // gsi1_calendar holds only the calendar's fields, as the embedded table's does.
          Projection: projectionOf(IndexName as IndexName),
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

  it('grants each function exactly what its route declares, and its own log group', () => {
    for (const route of routes) {
      const granted = permissionsOf(template, stack, stack.functions.get(route.entry)!);
      assert.deepEqual(granted.sort(), expectedPermissions(template, stack, route).sort(), route.entry);
    }
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
    // Every S3 permission, written out: feeds read-only; snapshots and their pointer read, written,
    // listed and pruned (delete markers, never a version).
    const { bucket } = stackIds(template, stack);
    assert.deepEqual(
      permissionsOf(template, stack, stack.eventFunctions.get('shopping/import-catalog-feed')!)
        .filter((l) => l.startsWith('s3:'))
        .map((l) => l.replaceAll(`<${bucket}.Arn>`, '<bucket>'))
        .sort(),
      [
        's3:DeleteObject <bucket>/catalog/snapshots/*',
        's3:GetObject <bucket>/catalog/feeds/*',
        's3:GetObject <bucket>/catalog/snapshots/*',
        's3:ListBucket <bucket>',
        's3:PutObject <bucket>/catalog/snapshots/*',
      ],
    );
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
          // The bucket is versioned: an expired draft's bytes go with its noncurrent version.
          Match.objectLike({
            Prefix: 'drafts/',
            ExpirationInDays: 1,
            NoncurrentVersionExpiration: { NoncurrentDays: 1 },
          }),
          // Every other object's replaced versions are kept 30 days (docs/security.md), then go.
          Match.objectLike({
            ExpiredObjectDeleteMarker: true,
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
          }),
          Match.objectLike({
            Prefix: 'catalog/feeds/',
            ExpirationInDays: 30,
            NoncurrentVersionExpiration: { NoncurrentDays: 1 },
          }),
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

  it('configures CORS from the route table, exposing the headers clients read', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: [...CORS.allowOrigins],
        AllowMethods: ['GET', 'POST', 'PUT'], // the route table's, and no other
        AllowHeaders: [...CORS.allowHeaders],
        ExposeHeaders: ['www-authenticate', 'retry-after', 'allow'],
        MaxAge: CORS.maxAgeSeconds,
      },
    });
  });

  it('gives every function the token issuer, and the API access logs and throttling', () => {
    for (const [entry, fn] of stack.functions) {
      const route = routes.find((r) => r.entry === entry);
      if (route?.auth === false) continue;
      const env =
        template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties.Environment
          .Variables;
      for (const name of ['AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_JWKS_URL'])
        assert.ok(env[name], `${entry}: ${name}`);
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    // Throttling applies per route: the default, and lower ceilings for the heavy routes, each of
    // which the stage waits for (route settings may only name routes that exist).
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    assert.deepEqual(stage.Properties.DefaultRouteSettings, {
      ThrottlingRateLimit: 200,
      ThrottlingBurstLimit: 400,
    });
    const heavy = routes.filter((route) => route.throttle);
    assert.deepEqual(heavy.map((route) => route.entry).sort(), [
      'brand-kits/generate-from-upload',
      'teams/avatar-upload',
    ]);
    const routeIds = Object.fromEntries(
      Object.entries(template.findResources('AWS::ApiGatewayV2::Route')).map(([id, r]) => [
        r.Properties.RouteKey,
        id,
      ]),
    );
    for (const route of heavy) {
      assert.deepEqual(stage.Properties.RouteSettings[routeKey(route)], {
        ThrottlingRateLimit: route.throttle!.rate,
        ThrottlingBurstLimit: route.throttle!.burst,
      });
      assert.ok(route.throttle!.rate < 200 && route.throttle!.burst < 400);
      assert.ok(stage.DependsOn?.includes(routeIds[routeKey(route)]), `stage waits for ${routeKey(route)}`);
    }
    template.allResourcesProperties('AWS::Logs::LogGroup', {
      RetentionInDays: 90,
      KmsKeyId: Match.anyValue(),
    });
  });
});

// The audit of the synthesized template (one block per finding): each test fails on the stack as it was.
describe('least privilege in the synthesized template', () => {
  /** Every function of the stack (routes, `$default`, event jobs) with its permission lines. */
  const everyFunction = () =>
    [...stack.functions.entries(), ...stack.eventFunctions.entries()].map(([entry, fn]) => ({
      entry,
      lines: permissionsOf(template, stack, fn),
    }));
  const lineParts = (l: string) => {
    const [action = '', resource = '', ...rest] = l.split(' ');
    return { action, resource, condition: rest.join(' ') };
  };

  it('1. lets the credentials save only seal secrets (GenerateDataKey under its encryption context); no HTTP route decrypts', () => {
    const { secretsKey } = stackIds(template, stack);
    const save = permissionsOf(template, stack, stack.functions.get('workspaces/save-ads-credentials')!);
    assert.deepEqual(
      save.filter((l) => l.startsWith('kms:')),
      [`kms:GenerateDataKey <${secretsKey}.Arn> if ${JSON.stringify(SECRETS_CONTEXT)}`],
    );
    for (const { entry, lines } of everyFunction()) {
      const kms = lines.filter((l) => l.startsWith('kms:'));
      for (const l of kms) {
        const { action, condition } = lineParts(l);
        assert.ok(['kms:GenerateDataKey', 'kms:Decrypt'].includes(action), `${entry}: ${l}`);
        assert.equal(condition, `if ${JSON.stringify(SECRETS_CONTEXT)}`, `${entry}: ${l}`);
      }
      assert.ok(!kms.some((l) => l.startsWith('kms:Decrypt')), `${entry} may decrypt secrets`);
    }
    // The `open` kind exists for agents outside the HTTP API; no route takes it.
    assert.deepEqual(
      routes.filter((r) => r.secrets?.includes('open')).map((r) => r.entry),
      [],
    );
  });

  it('2. grants object actions one by one on declared key prefixes, never the whole bucket or a version delete', () => {
    const { bucket } = stackIds(template, stack);
    const objects = `<${bucket}.Arn>/`;
    for (const { entry, lines } of everyFunction())
      for (const l of lines.filter((x) => x.startsWith('s3:'))) {
        const { action, resource, condition } = lineParts(l);
        assert.ok(
          [
            's3:GetObject',
            's3:GetObjectVersion',
            's3:PutObject',
            's3:DeleteObject',
            's3:ListBucket',
          ].includes(action),
          `${entry}: ${l}`,
        );
        if (action === 's3:ListBucket') {
          assert.equal(resource, `<${bucket}.Arn>`, `${entry}: ${l}`);
          assert.equal(condition, '', `${entry}: ${l}`);
        } else {
          assert.ok(resource.startsWith(objects), `${entry}: ${l}`);
          assert.ok(OBJECT_PATTERNS.includes(resource.slice(objects.length)), `${entry}: ${l}`);
        }
      }
    const s3Of = (entry: string) =>
      permissionsOf(template, stack, stack.functions.get(entry)!)
        .filter((l) => l.startsWith('s3:'))
        .map((l) => l.replaceAll(`<${bucket}.Arn>`, '<bucket>'))
        .sort();
    // The audit's examples: HeadObject of the consent recording only; the catalogue snapshots only;
    // GetObject of the caller's uploads only; a presigned PUT under uploads/ only.
    const consent = 'teams/*/avatars/*/consent.*';
    assert.deepEqual(s3Of('avatar-provider/callback'), [
      `s3:GetObject <bucket>/${consent}`,
      's3:ListBucket <bucket>',
    ]);
    assert.deepEqual(s3Of('shopping/search-products'), [
      's3:GetObject <bucket>/catalog/snapshots/*',
      's3:ListBucket <bucket>',
    ]);
    assert.deepEqual(s3Of('chat/send-message'), [
      's3:GetObject <bucket>/uploads/*',
      's3:ListBucket <bucket>',
    ]);
    assert.deepEqual(s3Of('uploads/create-upload'), ['s3:PutObject <bucket>/uploads/*']);
    // Deletes: only objects a route itself wrote, as delete markers.
    assert.deepEqual(
      s3Of('teams/avatar-upload').filter((l) => l.startsWith('s3:DeleteObject')),
      ['s3:DeleteObject <bucket>/teams/*/avatars/*/source.*'],
    );
    // A brand-kit save copies a logo source once for every kit that names it: it deletes nothing.
    assert.deepEqual(s3Of('brand-kits/create-brand-kit'), [
      's3:GetObject <bucket>/brand-kits/*',
      's3:GetObject <bucket>/drafts/*',
      's3:GetObject <bucket>/uploads/*',
      's3:ListBucket <bucket>',
      's3:PutObject <bucket>/brand-kits/*',
    ]);
  });

  it('3. grants the table explicit item actions (never Scan or stream reads), on the indexes a route queries', () => {
    const { table } = stackIds(template, stack);
    for (const { entry, lines } of everyFunction())
      for (const l of lines.filter((x) => x.startsWith('dynamodb:'))) {
        const { action, resource } = lineParts(l);
        assert.ok(TABLE_ACTIONS.includes(action), `${entry}: ${l}`);
        assert.ok(
          resource === `<${table}.Arn>` ||
            Object.keys(TABLE_INDEXES).some((index) => resource === `<${table}.Arn>/index/${index}`),
          `${entry}: ${l}`,
        );
        if (resource.includes('/index/')) assert.equal(action, 'dynamodb:Query', `${entry}: ${l}`);
      }
    const dynamoOf = (entry: string) =>
      permissionsOf(template, stack, stack.functions.get(entry)!)
        .filter((l) => l.startsWith('dynamodb:'))
        .map((l) => l.replaceAll(`<${table}.Arn>`, '<table>'))
        .sort();
    // Each function gets the operations its code sends, no more (test/infra/grants.test.ts).
    assert.deepEqual(dynamoOf('brands/get-brand'), ['dynamodb:GetItem <table>']);
    // The list, and its offset walked on gsi1's slim view (shared/db/store.ts, queryWindow).
    assert.deepEqual(dynamoOf('brands/list-brands'), [
      'dynamodb:Query <table>/index/gsi1',
      'dynamodb:Query <table>/index/gsi1_calendar',
    ]);
    // The brand, and with an Idempotency-Key its claim: written and read, sealed by a retry.
    assert.deepEqual(dynamoOf('brands/create-brand'), [
      'dynamodb:GetItem <table>',
      'dynamodb:PutItem <table>',
      'dynamodb:UpdateItem <table>',
    ]);
  });

  it('4. gives no function a managed policy: each may write only to its own log group', () => {
    // The `$default` function is in `stack.functions` too (under its entry, system/not-found).
    const functions = [...stack.functions.entries(), ...stack.eventFunctions.entries()];
    assert.ok(functions.some(([, fn]) => fn === stack.unmatchedFunction));
    const ids = stackIds(template, stack);
    const logGroups = new Set<string>();
    for (const [entry, fn] of functions) {
      const { statements, managed } = policiesOf(template, roleIdOf(stack, fn));
      assert.deepEqual(managed, [], `${entry} has a managed policy`);
      const own = `<${ids.logGroupOf(fn)}.Arn>`;
      assert.deepEqual(
        linesOf(statements).filter((l) => l.startsWith('logs:')),
        [`logs:CreateLogStream ${own}`, `logs:PutLogEvents ${own}`],
        entry,
      );
      logGroups.add(own);
    }
    assert.equal(logGroups.size, functions.length, 'one log group per function');
  });

  it('5. leaves the Cognito app client no OAuth flows and no user-existence errors, keeping SRP and refresh', () => {
    const clients = template.findResources('AWS::Cognito::UserPoolClient');
    assert.equal(Object.keys(clients).length, 1);
    const client = Object.values(clients)[0]!.Properties;
    assert.equal(client.AllowedOAuthFlowsUserPoolClient ?? false, false);
    for (const setting of ['AllowedOAuthFlows', 'AllowedOAuthScopes', 'CallbackURLs', 'LogoutURLs'])
      assert.equal(client[setting], undefined, setting);
    assert.equal(client.PreventUserExistenceErrors, 'ENABLED');
    assert.deepEqual(client.ExplicitAuthFlows, ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']);
    assert.equal(client.GenerateSecret, false);
  });
});

describe('an external token issuer (-c issuerUrl, -c audience, -c jwksUrl)', () => {
  /** A stack with bundling skipped: only its settings are looked at. */
  const synthWith = (props: { issuerUrl?: string; audience?: string; jwksUrl?: string }) => {
    const app = cdkApp({ 'aws:cdk:bundling-stacks': [] });
    const s = new TeamContentStack(app, 'IssuerStack', {
      env: { account: '123456789012', region: 'eu-west-1' },
      ...props,
    });
    const t = Template.fromStack(s);
    const env =
      t.toJSON().Resources[s.getLogicalId(s.functions.get('brands/get-brand')!.node.defaultChild as never)]
        .Properties.Environment.Variables;
    return { t, env };
  };

  it('6. takes the JWKS from the issuer without its trailing slash by default (Auth0), or from -c jwksUrl', () => {
    const auth0 = synthWith({ issuerUrl: 'https://tenant.eu.auth0.com/', audience: 'https://api.example' });
    assert.equal(auth0.env.AUTH_JWKS_URL, 'https://tenant.eu.auth0.com/.well-known/jwks.json');
    // The issuer itself is kept as its tokens spell it (Auth0's `iss` ends in a slash).
    assert.equal(auth0.env.AUTH_ISSUER, 'https://tenant.eu.auth0.com/');
    assert.equal(auth0.env.AUTH_AUDIENCE, 'https://api.example');
    auth0.t.resourceCountIs('AWS::Cognito::UserPool', 0);
    // `-c jwksUrl=…` (infra/app.ts passes it on with the issuer and audience)
    const okta = synthWith({
      issuerUrl: 'https://example.okta.com/oauth2/default',
      audience: 'api://default',
      jwksUrl: 'https://example.okta.com/oauth2/default/v1/keys',
    });
    assert.equal(okta.env.AUTH_JWKS_URL, 'https://example.okta.com/oauth2/default/v1/keys');
    assert.equal(okta.env.AUTH_ISSUER, 'https://example.okta.com/oauth2/default');
    // The stack's own pool: its JWKS beside its issuer.
    const cognito = JSON.stringify(
      template.toJSON().Resources[
        stack.getLogicalId(stack.functions.get('brands/get-brand')!.node.defaultChild as never)
      ].Properties.Environment.Variables.AUTH_JWKS_URL,
    );
    assert.match(cognito, /cognito-idp\./);
    assert.match(cognito, /\/\.well-known\/jwks\.json"\]\]\}$/);
  });

  it('6. refuses to synthesize with only one of issuerUrl and audience, or a jwksUrl without an issuer', () => {
    assert.throws(
      () => synthWith({ issuerUrl: 'https://issuer.example' }),
      /needs both .*audience.*only issuerUrl/,
    );
    assert.throws(() => synthWith({ audience: 'client' }), /needs both -c issuerUrl.*only audience/);
    assert.throws(
      () => synthWith({ jwksUrl: 'https://issuer.example/keys' }),
      /jwksUrl applies only to an external issuer/,
    );
    assert.throws(
      () =>
        synthWith({
          issuerUrl: 'https://issuer.example',
          audience: 'client',
          jwksUrl: 'http://issuer.example/keys',
        }),
      /must be an https URL/,
    );
  });
});

// A second audit, of the deployed shape (logging, keys, buckets): each test fails on the stack as it was.
describe('the deployed shape in the synthesized template', () => {
  const resources = () =>
    template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
  const onlyOf = (type: string, prefix: string) => {
    const ids = Object.keys(resources()).filter(
      (id) => resources()[id]!.Type === type && id.startsWith(prefix),
    );
    assert.equal(ids.length, 1, `one ${type} ${prefix}*: ${ids.join()}`);
    return ids[0]!;
  };
  interface PolicyStatement {
    Effect: string;
    Principal?: { Service?: string; AWS?: unknown };
    Action: string | string[];
    Resource: unknown;
    Condition?: Record<string, Record<string, unknown>>;
  }
  /** A condition's values rendered as text (`<Uploads.Arn>`, joins joined). */
  const renderCondition = (condition: PolicyStatement['Condition'] = {}) =>
    Object.fromEntries(
      Object.entries(condition).map(([operator, keys]) => [
        operator,
        Object.fromEntries(Object.entries(keys).map(([key, value]) => [key, render(value)])),
      ]),
    );

  it('7. takes S3 access-log delivery by a bucket policy for the uploads bucket alone, with ACLs disabled', () => {
    const logs = onlyOf('AWS::S3::Bucket', 'AccessLogs');
    const uploads = onlyOf('AWS::S3::Bucket', 'Uploads');
    const bucket = resources()[logs]!.Properties;
    // As `npx cdk deploy` builds it (cdk.json's serverAccessLogsUseBucketPolicy): no log-delivery ACL,
    // and with ACLs disabled none can be added later.
    assert.equal(bucket.AccessControl, undefined);
    assert.deepEqual(bucket.OwnershipControls, { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    const policy = Object.values(resources()).find(
      (r) => r.Type === 'AWS::S3::BucketPolicy' && render(r.Properties.Bucket) === `<${logs}>`,
    )!;
    const statements = (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement;
    const delivery = statements.filter((s) => s.Principal?.Service === 'logging.s3.amazonaws.com');
    assert.equal(delivery.length, 1);
    assert.deepEqual(
      {
        ...delivery[0],
        Resource: render(delivery[0]!.Resource),
        Condition: renderCondition(delivery[0]!.Condition),
      },
      {
        Effect: 'Allow',
        Principal: { Service: 'logging.s3.amazonaws.com' },
        Action: 's3:PutObject',
        Resource: `<${logs}.Arn>/uploads/*`,
        Condition: {
          ArnLike: { 'aws:SourceArn': `<${uploads}.Arn>` },
          StringEquals: { 'aws:SourceAccount': '123456789012' },
        },
      },
    );
  });

  it("8. lets CloudWatch Logs use the logs key only for this account's log groups in this region", () => {
    const key = onlyOf('AWS::KMS::Key', 'LogsKey');
    const statements = (resources()[key]!.Properties.KeyPolicy as { Statement: PolicyStatement[] }).Statement;
    const logs = statements.filter((s) => s.Principal?.Service === 'logs.eu-west-1.amazonaws.com');
    assert.equal(logs.length, 1);
    assert.deepEqual(renderCondition(logs[0]!.Condition), {
      ArnLike: {
        'kms:EncryptionContext:aws:logs:arn': 'arn:<AWS::Partition>:logs:eu-west-1:123456789012:log-group:*',
      },
    });
    // Every other statement is the account's own (the key's administrators, through IAM).
    for (const s of statements.filter((x) => x !== logs[0])) assert.equal(s.Principal?.Service, undefined);
  });

  it("9. writes the method, path and protocol to the API access log (a `$default` line names neither), and the function's request id", () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format) as Record<string, string>;
    assert.deepEqual(
      Object.values(format).sort(),
      [
        '$context.requestId',
        '$context.identity.sourceIp',
        '$context.requestTime',
        '$context.httpMethod',
        '$context.path',
        '$context.protocol',
        '$context.routeKey',
        '$context.status',
        '$context.responseLength',
        '$context.responseLatency',
        // Lambda's own request id: its platform lines (timeouts, REPORT) carry this one, not the API's.
        '$context.integration.requestId',
        '$context.integration.latency',
        '$context.integrationErrorMessage',
      ].sort(),
    );
  });
  it('11. keeps the Cognito user pool, like the table, from being deleted by hand as well as by the stack', () => {
    const pools = Object.values(template.findResources('AWS::Cognito::UserPool'));
    assert.equal(pools.length, 1);
    assert.equal(pools[0]!.DeletionPolicy, 'Retain');
    assert.equal(pools[0]!.Properties.DeletionProtection, 'ACTIVE');
  });
});

describe('cdk-nag acknowledgements', () => {
  it('10. the LambdaInsideVPC reason names every service the functions reach, and the internet endpoints they call', () => {
    const reason = NIST_ACKNOWLEDGEMENTS['NIST.800.53.R5-LambdaInsideVPC']!;
    const names: Record<string, string> = {
      dynamodb: 'DynamoDB',
      s3: 'S3',
      kms: 'KMS',
      secretsmanager: 'Secrets Manager',
    };
    // Lambda itself writes the logs and sends failed events to the queue, not the function's code.
    const byLambda = new Set(['logs', 'sqs']);
    const services = new Set(
      [...stack.functions.values(), ...stack.eventFunctions.values()].flatMap((fn) =>
        permissionsOf(template, stack, fn).map((l) => l.split(':')[0]!),
      ),
    );
    for (const service of services) {
      if (byLambda.has(service)) continue;
      assert.ok(names[service], `a name for ${service}`);
      assert.ok(reason.includes(names[service]!), `the reason names ${names[service]}`);
    }
    // The token issuer's JWKS (Cognito's or an external issuer's) and the avatar provider are reached
    // over the internet: in a VPC they would need a NAT gateway.
    assert.match(reason, /JWKS/);
    assert.match(reason, /avatar provider/);
  });
});
