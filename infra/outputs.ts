// The CloudFormation outputs of a stack holding the construct: `pipelinectl --aws --stack NAME` reads the table, the
// queues, the master key and what to warn about from them (lib/cli/backends/aws.ts, by these exact keys), and a
// person reads the receiver's URL and the verifier's role. The construct publishes them itself, so that any stack it
// is put in (a CDK app's own, as the README shows, or PipelineControllerStack) works with the CLI.
import { CfnOutput } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { formatNotificationSinks } from '../lib/runtime/notification-sinks.js';
import type { PipelineController } from './pipeline-controller.js';

/** The outputs' keys, which `aws cloudformation describe-stacks`, `pipelinectl --stack` and the README name. */
export const OUTPUTS = [
  'ReceiverUrl',
  'TableName',
  'QueueUrl',
  'DeadLetterQueueUrl',
  'MasterKeySecretArn',
  'VerifierRoleArn',
  'NotificationSinks',
] as const;

/**
 * The kinds of the notification sinks (`webhook,event-bus`), or `none`: `pipelinectl apply --aws --stack` reads it to
 * warn about a notification pipeline that nothing would carry out.
 */
export const NOTIFICATION_SINKS_OUTPUT = 'NotificationSinks';

/** Published only when the controller has a `defaultCluster`: `pipelinectl apply --aws --stack` reads it. */
export const DEFAULT_CLUSTER_OUTPUT = 'DefaultCluster';

type Published = Pick<
  PipelineController,
  | 'receiverUrl'
  | 'table'
  | 'queue'
  | 'deadLetterQueue'
  | 'masterKeySecret'
  | 'roles'
  | 'notificationSinks'
  | 'defaultCluster'
>;

/**
 * Adds the outputs under `scope`, each keyed by its name in the stack (not by its construct path, which the CLI
 * cannot know): one controller per stack publishes them.
 */
export function publishOutputs(scope: Construct, controller: Published): void {
  const outputs: Record<(typeof OUTPUTS)[number], { value: string; description: string }> = {
    ReceiverUrl: {
      value: controller.receiverUrl.url,
      description: 'The receiver: Flux Providers post to <url>v1/events/<clusterNs>/<clusterName>',
    },
    TableName: { value: controller.table.tableName, description: 'The DynamoDB table' },
    QueueUrl: { value: controller.queue.queueUrl, description: 'The work queue' },
    DeadLetterQueueUrl: {
      value: controller.deadLetterQueue.queueUrl,
      description: 'The dead-letter queue (alarmed when not empty)',
    },
    MasterKeySecretArn: {
      value: controller.masterKeySecret.secretArn,
      description: 'The master HMAC key the per-cluster keys derive from: {"current": …, "previous"?: …}',
    },
    VerifierRoleArn: {
      value: controller.roles.verifier.roleArn,
      description: 'The role the verifier reads leaf clusters with (grant it in EKS access entries)',
    },
    [NOTIFICATION_SINKS_OUTPUT]: {
      value: formatNotificationSinks(controller.notificationSinks),
      description: 'The notification sinks by kind, or none (read by pipelinectl apply to warn)',
    },
  };
  const group = new Construct(scope, 'Outputs');
  const publish = (name: string, output: { value: string; description: string }) =>
    new CfnOutput(group, name, output).overrideLogicalId(name);
  for (const [name, output] of Object.entries(outputs)) publish(name, output);
  if (controller.defaultCluster !== undefined) {
    publish(DEFAULT_CLUSTER_OUTPUT, {
      value: controller.defaultCluster,
      description: 'The GitopsCluster a target without clusterRef runs on (read by pipelinectl apply)',
    });
  }
}
