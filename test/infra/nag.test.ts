// cdk-nag's AwsSolutions pack over the stack: no finding is left unacknowledged, each acknowledgement has a reason,
// and the check is live (a wildcard the construct did not acknowledge fails the synth).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { ACCOUNT, importedVpc, REGION, synth, synthConstruct } from './synth.js';

interface Acknowledgement {
  id: string;
  reason: string;
}

function acknowledgements(app: ReturnType<typeof synth>['app']): Acknowledgement[] {
  const found: Acknowledgement[] = [];
  for (const node of app.node.findAll()) {
    for (const entry of node.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      // Recorded as { '<pack>::<rule id>': reason }.
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) found.push({ id, reason });
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions', () => {
  it('passes on the default stack', () => {
    const { app } = synth({}, { nag: true });
    assert.doesNotThrow(() => app.synth({ force: true }));
  });

  it('passes with every option on (VPC, EKS, roles, checks, sinks, alarm topic, tracing, a key, an operator)', () => {
    const { app } = synthConstruct(
      (stack) => ({
        vpc: importedVpc(stack),
        tracing: true,
        encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }),
        eksClusterArns: [`arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`],
        assumeRoleArns: [`arn:aws:iam::${ACCOUNT}:role/reader`],
        verification: {
          cloudwatchAlarmArns: [`arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:podinfo-5xx`],
          prometheusWorkspaceArns: [`arn:aws:aps:${REGION}:${ACCOUNT}:workspace/ws-1234`],
        },
        alarmTopic: Topic.fromTopicArn(stack, 'Topic', `arn:aws:sns:${REGION}:${ACCOUNT}:alarms`),
        secretsPrefix: 'pc/',
        notification: {
          webhookUrl: 'https://hooks.example.com/',
          webhookSecret: Secret.fromSecretCompleteArn(
            stack,
            'S',
            `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:h-AbCdEf`,
          ),
          eventBus: EventBus.fromEventBusArn(stack, 'B', `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/b`),
        },
      }),
      {
        nag: true,
        // An operator's role, granted what `pipelinectl --aws status` needs: no wildcard there either.
        then: (controller, stack) =>
          controller.grantRead(new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() })),
      },
    );
    assert.doesNotThrow(() => app.synth({ force: true }));
    const found = acknowledgements(app).filter((a) => a.id.endsWith('AwsSolutions-IAM5[Resource::*]'));
    assert.equal(found.length, 3, 'one per role: X-Ray (and, on the verifier, the VPC) have no resource scoping');
    for (const acknowledgement of found) assert.match(acknowledgement.reason, /xray:PutTraceSegments/);
  });

  it('acknowledges each finding by its exact id, with a reason', () => {
    const { app } = synth({}, { nag: true });
    const found = acknowledgements(app);
    const ids = [...new Set(found.map((a) => a.id))].sort();
    assert.deepEqual(ids, [
      'AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:pipeline-controller/*]',
      'AwsSolutions::AwsSolutions-L1',
      'AwsSolutions::AwsSolutions-SMG4',
    ]);
    for (const acknowledgement of found) assert.ok(acknowledgement.reason.length > 80, acknowledgement.id);
  });

  it('fails the synth on a finding nobody acknowledged', () => {
    assert.throws(
      () => synth({ controller: { eksClusterArns: [`arn:aws:eks:${REGION}:${ACCOUNT}:cluster/*`] } }, { nag: true }),
      /Validation failed/,
    );
  });
});
