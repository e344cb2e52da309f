// One stack: the table, the bucket, the HTTP API, the token issuer, and one function per route of the
// route table, each granted only what its route declares.
import { join } from 'node:path';
import {
  ArnFormat,
  CfnOutput,
  type CfnResource,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AccountRecovery, Mfa, UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  type IndexName,
  projectionOf,
  TABLE_INDEXES,
  TABLE_KEYS,
  TABLE_TTL_ATTRIBUTE,
} from '../shared/db/table.ts';
import { CATALOG_KEYS } from '../shared/shopping/keys.ts';
import { DRAFTS_PREFIX } from '../shared/uploads/keys.ts';
import { cdkBundling } from './bundling.ts';
import { type GrantTargets, grant } from './grant-statements.ts';
import { acknowledgeFindings } from './nag.ts';
import { AVATAR_CALLBACK_ENTRY, AVATAR_UPLOAD_ENTRY } from './routes/avatars.ts';
import {
  CATALOG_IMPORT_ENTRY,
  CATALOG_IMPORT_GRANTS,
  CORS,
  DEFAULT_THROTTLE,
  FUNCTION_DEFAULTS,
  functionId,
  type Route,
  routeKey,
  routes,
  unmatchedRoute,
} from './routes.ts';

export interface TeamContentStackProps extends StackProps {
  /** An external OIDC issuer instead of the stack's Cognito user pool (`-c issuerUrl=…`), exactly as
   * its tokens' `iss` claim spells it; needs `audience` too (infra/app.ts reads both from context). */
  issuerUrl?: string;
  audience?: string;
  /** The external issuer's JWKS (`-c jwksUrl=…`); default: the issuer
   * without a trailing slash, then `/.well-known/jwks.json` (right for Cognito and Auth0; Okta, Entra
   * ID, Keycloak and Google publish theirs elsewhere: the `jwks_uri` of the issuer's
   * `/.well-known/openid-configuration`). */
  jwksUrl?: string;
}

const ROOT = join(import.meta.dirname, '..');

/** 5xx answers in five minutes that raise the alarm: one or two a client retries are noise, five a pattern. */
export const API_5XX_ALARM = 5;

export class TeamContentStack extends Stack {
  readonly functions = new Map<string, NodejsFunction>();
  /** Functions invoked by events rather than HTTP routes, by handler entry. */
  readonly eventFunctions = new Map<string, NodejsFunction>();
  /** The `$default` route's function: FastAPI-style 404/405 (and 307 to the path without a trailing slash) for paths the route table lacks. */
  readonly unmatchedFunction: NodejsFunction;
  private logsKey!: Key;

  constructor(scope: Construct, id: string, props: TeamContentStackProps = {}) {
    super(scope, id, props);

    const table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      globalSecondaryIndexes: Object.entries(TABLE_INDEXES).map(([indexName, keys]) => {
        const projection = projectionOf(indexName as IndexName);
        return {
          indexName,
          partitionKey: { name: keys.partitionKey, type: AttributeType.STRING },
          sortKey: { name: keys.sortKey, type: AttributeType.STRING },
          ...(projection.ProjectionType === 'INCLUDE'
            ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: projection.NonKeyAttributes }
            : {}),
        };
      }),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // Items that outlive their use carry an expiry: Idempotency-Key claims, daily upload allowances.
      timeToLiveAttribute: TABLE_TTL_ATTRIBUTE,
      // New chat messages reach the answering agent, which lives outside this service, by the stream.
      dynamoStream: StreamViewType.NEW_IMAGE,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // S3 delivers the uploads bucket's access logs under a bucket policy naming that bucket (cdk.json's
      // `serverAccessLogsUseBucketPolicy`), not an ACL: ACLs stay disabled.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const bucket = new Bucket(this, 'Uploads', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      versioned: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'uploads/',
      // Browsers PUT directly to presigned URLs.
      cors: [
        { allowedMethods: [HttpMethods.PUT], allowedOrigins: [...CORS.allowOrigins], allowedHeaders: ['*'] },
      ],
      lifecycleRules: [
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // On a versioned bucket an expiry only hides the object behind a delete marker: its bytes go
        // with the noncurrent version, a day later for drafts (their promise is "gone after a day").
        {
          prefix: DRAFTS_PREFIX,
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
        // Markers left with no version behind them are removed too.
        { noncurrentVersionExpiration: Duration.days(30), expiredObjectDeleteMarker: true },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Data key for secrets kept in the table (ads credentials); granted only to routes that ask.
    const secretsKey = new Key(this, 'SecretsKey', {
      enableKeyRotation: true,
      description: 'Envelope key for integration secrets stored in the table',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Logs are encrypted with their own key: request lines carry ids and IP addresses. CloudWatch Logs
    // may use it only for this account's log groups in this region (the encryption context it sends
    // names the log group), so no other account's log group can be pointed at it.
    this.logsKey = new Key(this, 'LogsKey', { enableKeyRotation: true, removalPolicy: RemovalPolicy.RETAIN });
    this.logsKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal(`logs.${this.region}.amazonaws.com`)],
        actions: ['kms:Decrypt', 'kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': this.formatArn({
              service: 'logs',
              resource: 'log-group',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );

    // No API Gateway authorizer: each function checks the bearer token itself (shared/http/auth.ts), so
    // a refused token gets FastAPI's 401 body and `WWW-Authenticate: Bearer`, a key-set outage a 503,
    // and ES256 issuers and Cognito's token_use work, none of which an HTTP API JWT authorizer (its
    // own {"message":"Unauthorized"}, RSA only) would allow.
    const auth = this.tokenIssuer(props);

    const apiLogs = this.logGroup('ApiAccessLogs');
    const api = new HttpApi(this, 'Api', {
      description: 'Team Content Service',
      corsPreflight: {
        allowOrigins: [...CORS.allowOrigins],
        allowMethods: CORS.allowMethods.map((m) => CorsHttpMethod[m]),
        allowHeaders: [...CORS.allowHeaders],
        exposeHeaders: [...CORS.exposeHeaders],
        maxAge: Duration.seconds(CORS.maxAgeSeconds),
      },
    });
    const stage = api.defaultStage?.node.defaultChild as CfnStage;
    stage.accessLogSettings = {
      destinationArn: apiLogs.logGroupArn,
      // The method and path too: a request the `$default` route answers (a probe of unknown paths) has
      // no other route key, and one API Gateway refuses (429, 413) never reaches a function's log. The
      // function's own request id ties the line to Lambda's platform lines (a timeout, REPORT).
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        time: '$context.requestTime',
        method: '$context.httpMethod',
        path: '$context.path',
        protocol: '$context.protocol',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseLength: '$context.responseLength',
        latency: '$context.responseLatency',
        functionRequestId: '$context.integration.requestId',
        functionLatency: '$context.integration.latency',
        integrationError: '$context.integrationErrorMessage',
      }),
    };
    // A ceiling on request rate for each route (OWASP API4: unrestricted resource consumption), lower
    // for the heavy ones.
    // Written in CloudFormation's own spelling: `routeSettings` is untyped JSON that CDK passes on as
    // it is, so both settings are set the same way.
    const throttling = ({ rate, burst }: { rate: number; burst: number }) => ({
      ThrottlingRateLimit: rate,
      ThrottlingBurstLimit: burst,
    });
    stage.addPropertyOverride('DefaultRouteSettings', throttling(DEFAULT_THROTTLE));
    const routeSettings: Record<string, ReturnType<typeof throttling>> = {};

    // Source maps are bundled but not loaded: `--enable-source-maps` reads and parses a function's
    // map at every cold start (about a fifth of its import time, docs/performance.md). Deploy with
    // `-c sourceMaps=true` to turn them on while chasing a stack trace.
    const nodeOptions: Record<string, string> =
      String(this.node.tryGetContext('sourceMaps')) === 'true'
        ? { NODE_OPTIONS: '--enable-source-maps' }
        : {};
    const environment = {
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      SECRETS_KEY_ID: secretsKey.keyId,
      AUTH_ISSUER: auth.issuer,
      AUTH_AUDIENCE: auth.audience,
      AUTH_JWKS_URL: auth.jwksUrl,
      ...nodeOptions,
    };

    const targets: GrantTargets = { tableArn: table.tableArn, bucket, secretsKey };
    for (const route of routes) {
      const fn = this.routeFunction(route, environment);
      grant(fn, route, targets);
      const [httpRoute] = api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${functionId(route)}Integration`, fn),
        authorizer: new HttpNoneAuthorizer(),
      });
      if (route.throttle) {
        routeSettings[routeKey(route)] = throttling(route.throttle);
        // A stage's route settings name routes that must exist when the stage is written.
        stage.addResourceDependency(httpRoute!.node.defaultChild as CfnResource);
      }
    }
    stage.routeSettings = routeSettings;

    // Requests no route matches: API Gateway would answer its own {"message":"Not Found"}; clients of
    // the FastAPI original expect {"detail":"Not Found"} (404) or {"detail":"Method Not Allowed"} (405), and a 307 to a
    // known route's path when only a trailing slash differs.
    this.unmatchedFunction = this.routeFunction(unmatchedRoute, environment);
    new HttpRoute(this, 'UnmatchedRoute', {
      httpApi: api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('UnmatchedIntegration', this.unmatchedFunction),
      authorizer: new HttpNoneAuthorizer(),
    });

    // Studio avatars: the provider signs its callbacks with this shared secret and we sign the jobs we
    // send it; only the callback function may read it, and the upload function when it reaches a
    // provider (at `-c avatarProviderUrl=…`).
    const avatarProviderSecret = new Secret(this, 'AvatarProviderSecret', {
      description: 'HMAC-SHA256 secret shared with the avatar provider (signs its callbacks)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const avatarCallback = this.functions.get(AVATAR_CALLBACK_ENTRY)!;
    avatarProviderSecret.grantRead(avatarCallback);
    avatarCallback.addEnvironment('AVATAR_PROVIDER_SECRET_NAME', avatarProviderSecret.secretName);
    const avatarProviderUrl: string | undefined = this.node.tryGetContext('avatarProviderUrl');
    if (avatarProviderUrl) {
      // The upload signs the jobs it sends the provider with the same secret.
      const avatarUpload = this.functions.get(AVATAR_UPLOAD_ENTRY)!;
      avatarUpload.addEnvironment('AVATAR_PROVIDER_URL', avatarProviderUrl);
      avatarProviderSecret.grantRead(avatarUpload);
      avatarUpload.addEnvironment('AVATAR_PROVIDER_SECRET_NAME', avatarProviderSecret.secretName);
    }
    new CfnOutput(this, 'AvatarProviderSecretName', { value: avatarProviderSecret.secretName });

    // Catalogue import (not an HTTP route): a merchant feed put under catalog/feeds/ raises S3's
    // "Object Created" event on EventBridge, which invokes the import function. It may read feeds,
    // read, write and prune snapshots (CATALOG_IMPORT_GRANTS), nothing else; events it keeps failing on
    // wait in a queue.
    // EventBridge notifications are set on the bucket itself: CDK's notification API would add a
    // custom-resource Lambda, and a direct S3 → Lambda notification would be a dependency cycle.
    (bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };
    bucket.addLifecycleRule({
      prefix: CATALOG_KEYS.feedsPrefix,
      expiration: Duration.days(30),
      noncurrentVersionExpiration: Duration.days(1),
    });
    const importFailures = new Queue(this, 'CatalogImportFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const catalogImportLogs = this.logGroup('ShoppingImportCatalogFeedLogs');
    const catalogImport = new NodejsFunction(this, 'ShoppingImportCatalogFeed', {
      entry: join(ROOT, 'functions', `${CATALOG_IMPORT_ENTRY}.ts`),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      // A 40,000-product feed and two snapshots are held in memory while they are merged.
      memorySize: 2048,
      timeout: Duration.minutes(5),
      bundling: cdkBundling,
      projectRoot: ROOT,
      depsLockFilePath: join(ROOT, 'package-lock.json'),
      environment: { BUCKET_NAME: bucket.bucketName, ...nodeOptions },
      deadLetterQueue: importFailures,
      loggingFormat: LoggingFormat.JSON,
      logGroup: catalogImportLogs,
      role: this.functionRole('ShoppingImportCatalogFeed', catalogImportLogs),
    });
    grant(catalogImport, CATALOG_IMPORT_GRANTS, targets);
    new Rule(this, 'CatalogFeedCreated', {
      description: 'Imports merchant feeds put under catalog/feeds/',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [bucket.bucketName] },
          object: { key: [{ prefix: CATALOG_KEYS.feedsPrefix }] },
        },
      },
      targets: [new LambdaFunction(catalogImport, { deadLetterQueue: importFailures, retryAttempts: 4 })],
    });
    this.eventFunctions.set(CATALOG_IMPORT_ENTRY, catalogImport);

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });

    // Alarms, to a topic an operator subscribes to (`-c alarmEmail=…`, or any subscription added by
    // hand): a feed whose import failed every retry (it waits in the dead-letter queue), and the API
    // answering 5xx (a 500 is a bug; a 503, AWS throttling or unreachable past the SDK's retries).
    // CloudWatch publishes to an encrypted topic only with a key it may use: AWS's own SNS key is not.
    const alarmsKey = new Key(this, 'AlarmsKey', {
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    alarmsKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    const alarms = new Topic(this, 'Alarms', { masterKey: alarmsKey, enforceSSL: true });
    // enforceSSL gives the topic a policy of its own, which replaces SNS's default (the one that let the
    // account's alarms publish): this account's alarms are let in by name, or none could notify.
    alarms.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [alarms.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:*`,
          },
        },
      }),
    );
    const alarmEmail: string | undefined = this.node.tryGetContext('alarmEmail');
    if (alarmEmail) alarms.addSubscription(new EmailSubscription(alarmEmail));
    const notify = new SnsAction(alarms);
    importFailures
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' })
      .createAlarm(this, 'CatalogImportFailed', {
        alarmDescription: 'A catalogue feed failed to import after every retry: see CatalogImportFailures.',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      })
      .addAlarmAction(notify);
    api
      .metricServerError({ period: Duration.minutes(5), statistic: 'Sum' })
      .createAlarm(this, 'ApiServerErrors', {
        alarmDescription: `The API answered ${API_5XX_ALARM} or more 5xx in 5 minutes: see the API access log.`,
        threshold: API_5XX_ALARM,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      })
      .addAlarmAction(notify);
    new CfnOutput(this, 'AlarmsTopicArn', { value: alarms.topicArn });
    acknowledgeFindings(this, bucket);
  }

  private routeFunction(route: Route, environment: Record<string, string>) {
    const id = functionId(route);
    const logGroup = this.logGroup(`${id}Logs`);
    const fn = new NodejsFunction(this, id, {
      entry: join(ROOT, 'functions', `${route.entry}.ts`),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: route.memoryMb ?? FUNCTION_DEFAULTS.memoryMb,
      timeout: Duration.seconds(route.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds),
      bundling: route.bundleFiles
        ? {
            ...cdkBundling,
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (input: string, output: string) =>
                route.bundleFiles!.map((file) => `cp ${join(input, file)} ${output}/`),
            },
          }
        : cdkBundling,
      projectRoot: ROOT,
      depsLockFilePath: join(ROOT, 'package-lock.json'),
      environment,
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      role: this.functionRole(id, logGroup),
    });
    this.functions.set(route.entry, fn);
    return fn;
  }

  /** A function's role: it may write to its own log group, nothing else until its grants are added
   * (no AWSLambdaBasicExecutionRole, whose log permissions cover every log group of the account). */
  private functionRole(id: string, logGroup: ILogGroup) {
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    // The group exists (the stack creates it), so no logs:CreateLogGroup; its ARN ends in `:*`,
    // which covers its streams.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    return role;
  }

  private logGroup(id: string) {
    return new LogGroup(this, id, {
      retention: RetentionDays.THREE_MONTHS,
      encryptionKey: this.logsKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });
  }

  /** Whose tokens the functions accept: an external issuer's by context, else the stack's own pool. */
  private tokenIssuer(props: TeamContentStackProps) {
    const { issuerUrl, audience, jwksUrl } = props;
    if (Boolean(issuerUrl) !== Boolean(audience))
      throw new Error(
        `An external token issuer needs both -c issuerUrl=<issuer> and -c audience=<client id>; only ${issuerUrl ? 'issuerUrl' : 'audience'} was given. Give both, or neither to use the stack's Cognito user pool.`,
      );
    if (jwksUrl && !issuerUrl)
      throw new Error(
        '-c jwksUrl applies only to an external issuer (-c issuerUrl=<issuer> -c audience=<client id>); the Cognito user pool publishes its own JWKS.',
      );
    if (issuerUrl && audience) {
      const jwks = jwksUrl ?? `${issuerUrl.replace(/\/+$/, '')}/.well-known/jwks.json`;
      if (!/^https:\/\/[^/]/.test(jwks))
        throw new Error(
          `The JWKS URL must be an https URL, got ${JSON.stringify(jwks)} (set -c jwksUrl=https://…).`,
        );
      return { issuer: issuerUrl, audience, jwksUrl: jwks };
    }
    const pool = new UserPool(this, 'Users', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      passwordPolicy: {
        minLength: 12,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      // Every user's identity lives here: kept when the stack lets it go, and refused to a hand's delete.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Tokens come from the SRP sign-in (plus refresh) against the Cognito API, as the README shows: no
    // hosted UI, so no OAuth flows, callback URLs or OAuth scopes; and sign-in errors do not reveal
    // whether a user exists.
    const client = new UserPoolClient(this, 'ApiClient', {
      userPool: pool,
      authFlows: { userSrp: true },
      generateSecret: false,
      disableOAuth: true,
      preventUserExistenceErrors: true,
    });
    const issuer = `https://cognito-idp.${this.region}.amazonaws.com/${pool.userPoolId}`;
    new CfnOutput(this, 'UserPoolId', { value: pool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: client.userPoolClientId });
    return {
      issuer,
      audience: client.userPoolClientId,
      jwksUrl: `${issuer}/.well-known/jwks.json`,
    };
  }
}
