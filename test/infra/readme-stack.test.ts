// The README's CDK app (a Stack of the app's own holding `new PipelineController(stack, 'Controller', {...})`)
// deploys a stack `pipelinectl --aws --stack NAME` can use: the construct itself publishes the outputs the CLI reads
// (the table, the queues, the master key, the notification sinks), under the names it reads them by. The stack's
// outputs, as CloudFormation would answer DescribeStacks once deployed, are handed to the CLI's own AWS backend.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Template as Templates } from 'aws-cdk-lib/assertions';
import { PipelineController } from '../../infra/index.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';
import { ACCOUNT, REGION, testApp } from './synth.js';

/** The app entry of the README, "Deploying to AWS". */
function readmeApp(controllerProps: ConstructorParameters<typeof PipelineController>[2] = {}): Template {
  const app = testApp();
  const stack = new Stack(app, 'FleetPromotions', { env: { account: ACCOUNT, region: REGION } });
  new PipelineController(stack, 'Controller', {
    eksClusterArns: [`arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod-eu`],
    ...controllerProps,
  });
  return Templates.fromStack(stack);
}

/**
 * The value CloudFormation gives an output once deployed: a literal as is, a queue's Ref as its URL, any other Ref
 * as the resource's physical id (here its logical id), a GetAtt as `id.attribute`.
 */
function deployedValue(template: Template, value: unknown): string {
  if (typeof value === 'string') return value;
  const resourcesOf = (type: string) => Object.keys(template.findResources(type));
  const intrinsic = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (intrinsic.Ref !== undefined) {
    return resourcesOf('AWS::SQS::Queue').includes(intrinsic.Ref)
      ? `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${intrinsic.Ref}`
      : intrinsic.Ref;
  }
  if (intrinsic['Fn::GetAtt']) return intrinsic['Fn::GetAtt'].join('.');
  return JSON.stringify(value);
}

function deployedOutputs(template: Template): Record<string, string> {
  const outputs = template.findOutputs('*') as Record<string, { Value: unknown }>;
  return Object.fromEntries(Object.entries(outputs).map(([key, { Value }]) => [key, deployedValue(template, Value)]));
}

describe("the README's CDK app and pipelinectl --aws --stack", () => {
  const template = readmeApp();
  const table = Object.keys(template.findResources('AWS::DynamoDB::Table'));
  const queues = template.findResources('AWS::SQS::Queue') as Record<string, { Properties: Record<string, unknown> }>;
  const workQueue = Object.keys(queues).find((id) => queues[id]?.Properties.RedrivePolicy !== undefined);
  const deadLetterQueue = Object.keys(queues).find((id) => id !== workQueue);
  const secrets = Object.keys(template.findResources('AWS::SecretsManager::Secret'));

  it("is the README's app", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)]
      .map((match) => match[1] ?? '')
      .find((block) => block.includes("from 'pipeline-controller/infra'"));
    assert.match(example ?? '', /new Stack\(app, 'FleetPromotions', /);
    assert.match(example ?? '', /new PipelineController\(stack, 'Controller', \{/);
  });

  it('has the outputs the CLI reads, naming the table, the queues and the master key', () => {
    assert.equal(table.length, 1);
    assert.equal(secrets.length, 1);
    template.hasOutput('TableName', { Value: { Ref: table[0] } });
    template.hasOutput('QueueUrl', { Value: { Ref: workQueue } });
    template.hasOutput('DeadLetterQueueUrl', { Value: { Ref: deadLetterQueue } });
    template.hasOutput('MasterKeySecretArn', { Value: { Ref: secrets[0] } });
    template.hasOutput('NotificationSinks', { Value: 'none' });
    assert.ok(template.findOutputs('ReceiverUrl'));
    assert.ok(template.findOutputs('VerifierRoleArn'));
  });

  describe('deployed', () => {
    let aws: AwsStandIn;
    let cloudFormation: CloudFormationClient;
    // Never called: opening the backend reads the stack's outputs only.
    const dynamodb = new DynamoDBClient({ region: REGION, endpoint: 'http://127.0.0.1:9' });
    before(async () => {
      aws = await startAwsStandIn();
      cloudFormation = new CloudFormationClient({
        endpoint: aws.endpoint,
        region: REGION,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
    });
    after(async () => {
      cloudFormation.destroy();
      dynamodb.destroy();
      await aws.stop();
    });

    it('is a stack pipelinectl --aws --stack opens: its table, and what it knows of the notification sinks', async () => {
      aws.stacks.set('FleetPromotions', deployedOutputs(template));
      const backend = await openAwsBackend({ stack: 'FleetPromotions' }, { cloudFormation, dynamodb });
      try {
        assert.equal(backend.description, `stack FleetPromotions (table ${table[0]})`);
        const sinks = await backend.notificationSinks?.();
        assert.deepEqual(sinks?.known ? sinks.kinds : sinks, []);
      } finally {
        await backend.close();
      }
    });
  });

  it('publishes the default cluster when given, and no outputs with stackOutputs: false', () => {
    readmeApp({ defaultCluster: 'flux-system/prod-eu' }).hasOutput('DefaultCluster', {
      Value: 'flux-system/prod-eu',
    });
    assert.deepEqual(readmeApp({ stackOutputs: false }).findOutputs('*'), {});
  });
});
