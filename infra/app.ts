// The CDK app: one stack. `npx cdk synth` works offline; `npx cdk deploy` needs an AWS account.
import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { TeamContentStack } from './stack.ts';

const { AwsSolutionsChecks, NIST80053R5Checks } = cdkNag;
const app = new App();
new TeamContentStack(app, 'TeamContentService', {
  issuerUrl: app.node.tryGetContext('issuerUrl'),
  audience: app.node.tryGetContext('audience'),
  jwksUrl: app.node.tryGetContext('jwksUrl'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
Validations.of(app).addPlugins(new NIST80053R5Checks(app, { verbose: true }));
