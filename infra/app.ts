// The CDK app of `npx cdk synth` / `npx cdk deploy` (cdk.json): one PipelineControllerStack configured from CDK
// context (infra/context.ts; infra/README.md lists the keys), checked by cdk-nag's AwsSolutions pack: an
// unacknowledged finding fails the synth. Synth needs no credentials, no network and no Docker.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './context.js';
import { PipelineControllerStack } from './stack.js';

const app = new App();
const settings = settingsFromContext((key) => app.node.tryGetContext(key));
for (const warning of settings.warnings) console.error(`pipeline-controller: ${warning}`);
new PipelineControllerStack(app, settings.stackName, settings.props);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
