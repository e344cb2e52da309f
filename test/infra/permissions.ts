// A function's IAM permissions read back from a synthesized template, one line per action and resource
// (`s3:GetObject <Uploads4F6EB0FD.Arn>/uploads/*`, then ` if <condition>` when there is one), so a test
// compares what a role may do however CDK merged its statements. Expected lines are written from the
// route table here, independently of infra/grant-statements.ts.
import type { Template } from 'aws-cdk-lib/assertions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OBJECTS } from '../../infra/grants.ts';
import { AVATAR_CALLBACK_ENTRY } from '../../infra/routes/avatars.ts';
import type { Route } from '../../infra/routes.ts';
import type { TeamContentStack } from '../../infra/stack.ts';

type Json = unknown;
// biome-ignore lint/suspicious/noExplicitAny: template properties are read freely in tests
type Resources = Record<string, { Type: string; Properties: any }>;

/** `{"Fn::GetAtt": ["Table", "Arn"]}` → `<Table.Arn>`, `{"Ref": "X"}` → `<X>`, joins joined. */
export function render(value: Json): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, Json>;
  if (v['Fn::GetAtt']) return `<${(v['Fn::GetAtt'] as string[]).join('.')}>`;
  if (v.Ref) return `<${v.Ref as string}>`;
  if (v['Fn::Join']) {
    const [separator, parts] = v['Fn::Join'] as [string, Json[]];
    return parts.map(render).join(separator);
  }
  return JSON.stringify(value);
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: Json | Json[];
  Condition?: Json;
}

/** Every statement of the inline policies attached to `roleId`, and its managed policy ARNs. */
export function policiesOf(template: Template, roleId: string) {
  const resources = template.toJSON().Resources as Resources;
  const statements = Object.values(resources)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        (r.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap((r) => r.Properties.PolicyDocument.Statement as Statement[]);
  const managed = ((resources[roleId]?.Properties.ManagedPolicyArns ?? []) as Json[]).map(render);
  return { statements, managed };
}

export const line = (action: string, resource: string, condition?: Json) =>
  `${action} ${resource}${condition ? ` if ${JSON.stringify(condition)}` : ''}`;

/** One line per (action, resource) the statements allow. */
export const linesOf = (statements: Statement[]) =>
  statements.flatMap((statement) => {
    if (statement.Effect !== 'Allow') throw new Error(`unexpected ${statement.Effect} statement`);
    return [statement.Action]
      .flat()
      .flatMap((action) =>
        [statement.Resource].flat().map((resource) => line(action, render(resource), statement.Condition)),
      );
  });

const logicalId = (stack: TeamContentStack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

export function roleIdOf(stack: TeamContentStack, fn: NodejsFunction) {
  return logicalId(stack, fn.role as never);
}

/** What `fn`'s role may do, as lines. */
export function permissionsOf(template: Template, stack: TeamContentStack, fn: NodejsFunction) {
  return linesOf(policiesOf(template, roleIdOf(stack, fn)).statements);
}

/** The stack's resources the expectations name. */
export function stackIds(template: Template, stack: TeamContentStack) {
  const resources = template.toJSON().Resources as Resources;
  const only = (type: string, prefix: string) => {
    const ids = Object.keys(resources).filter((id) => resources[id]!.Type === type && id.startsWith(prefix));
    if (ids.length !== 1) throw new Error(`expected one ${type} ${prefix}*, found ${ids.join()}`);
    return ids[0]!;
  };
  return {
    table: only('AWS::DynamoDB::GlobalTable', 'Table'),
    bucket: only('AWS::S3::Bucket', 'Uploads'),
    secretsKey: only('AWS::KMS::Key', 'SecretsKey'),
    providerSecret: only('AWS::SecretsManager::Secret', 'AvatarProviderSecret'),
    /** The log group a function writes to (its LoggingConfig). */
    logGroupOf: (fn: NodejsFunction) =>
      (resources[logicalId(stack, fn)]!.Properties.LoggingConfig.LogGroup as { Ref: string }).Ref,
  };
}

/** The item actions any function may be granted on the table (no Scan, no stream reads). */
export const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
export const SECRETS_CONTEXT = { StringEquals: { 'kms:EncryptionContext:purpose': 'integration-secrets' } };

/** The lines a route's declarations should produce, written out independently of the stack's code. */
export function expectedPermissions(template: Template, stack: TeamContentStack, route: Route) {
  const ids = stackIds(template, stack);
  const fn = stack.functions.get(route.entry)!;
  const table = `<${ids.table}.Arn>`;
  const objects = (pattern: string) => `<${ids.bucket}.Arn>/${pattern}`;
  const logs = `<${ids.logGroupOf(fn)}.Arn>`;
  const lines = [line('logs:CreateLogStream', logs), line('logs:PutLogEvents', logs)];
  for (const operation of route.table ?? []) lines.push(line(`dynamodb:${operation}`, table));
  for (const index of route.indexes ?? []) lines.push(line('dynamodb:Query', `${table}/index/${index}`));
  for (const pattern of route.bucket?.read ?? []) lines.push(line('s3:GetObject', objects(pattern)));
  for (const pattern of route.bucket?.readVersions ?? [])
    lines.push(line('s3:GetObjectVersion', objects(pattern)));
  for (const pattern of route.bucket?.write ?? []) lines.push(line('s3:PutObject', objects(pattern)));
  for (const pattern of route.bucket?.delete ?? []) lines.push(line('s3:DeleteObject', objects(pattern)));
  if (route.bucket?.list?.length) lines.push(line('s3:ListBucket', `<${ids.bucket}.Arn>`));
  const kms = { seal: 'kms:GenerateDataKey', open: 'kms:Decrypt' } as const;
  for (const use of route.secrets ?? [])
    lines.push(line(kms[use], `<${ids.secretsKey}.Arn>`, SECRETS_CONTEXT));
  if (route.entry === AVATAR_CALLBACK_ENTRY)
    for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'])
      lines.push(line(action, `<${ids.providerSecret}>`));
  return lines;
}

/** Every object key pattern the route table may name. */
export const OBJECT_PATTERNS: readonly string[] = Object.values(OBJECTS);
