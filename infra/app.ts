// The CDK app of `npx cdk synth` / `npx cdk deploy` (cdk.json): one PipelineControllerStack configured from CDK
// context (infra/context.ts; infra/README.md lists the keys), checked by cdk-nag's AwsSolutions pack: an
// unacknowledged finding fails the synth. Synth needs no credentials, no network and no Docker.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ContextError, settingsFromContext, type AppSettings } from './context.js';
import { PipelineControllerStack } from './stack.js';

const app = new App();
const settings = settingsOf(app);
for (const warning of settings.warnings) console.error(`pipeline-controller: ${warning}`);
new PipelineControllerStack(app, settings.stackName, settings.props);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

/** The settings, or one readable message and exit 1: a bad key is a mistake on the command line or in cdk.json. */
function settingsOf(app: App): AppSettings {
  try {
    return settingsFromContext(app.node.getAllContext() as Record<string, unknown>);
  } catch (error) {
    if (!(error instanceof ContextError)) throw error;
    console.error(`pipeline-controller: ${error.message}`);
    process.exit(1);
  }
}
