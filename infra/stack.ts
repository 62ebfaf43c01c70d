// The stack `npx cdk deploy` deploys: the PipelineController construct and its outputs. Everything it takes is a
// plain value (so CDK context can configure it, see infra/context.ts); the ARNs of an alarm topic and the
// notification sinks are imported here.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { NewsKind } from '../lib/pipeline/model.js';
import { formatNotificationSinks } from '../lib/runtime/notification-sinks.js';
import { PipelineController, type PipelineControllerProps } from './pipeline-controller.js';

export interface PipelineControllerStackProps extends StackProps {
  /** The construct's props; the ARNs below fill in `alarmTopic` and `notification` where given. */
  readonly controller?: PipelineControllerProps;
  /** An SNS topic for the alarms. */
  readonly alarmTopicArn?: string;
  /** A customer managed KMS key (`encryptionKey`), imported: its policy must already let CloudWatch Logs use it. */
  readonly encryptionKeyArn?: string;
  /** The notification strategy's HTTP endpoint. */
  readonly notificationWebhookUrl?: string;
  /** The complete ARN (with its 6-character suffix) of the secret whose `token` signs the webhook. */
  readonly notificationWebhookSecretArn?: string;
  /** An EventBridge bus the notification strategy puts events on. */
  readonly notificationEventBusArn?: string;
  /** A Flux notification-controller's event receiver the notification strategy POSTs to, as Weave did. */
  readonly notificationControllerUrl?: string;
  /** Notifications to people: the complete ARN of the secret `{"url": …}` of a Slack incoming webhook. */
  readonly notifySlackSecretArn?: string;
  /** The complete ARN of the secret `{"url": …, "token"?: …}` of the news webhook. */
  readonly notifyWebhookSecretArn?: string;
  /** An EventBridge bus the news are put on. */
  readonly notifyEventBusArn?: string;
  /** The kinds of news sent; default all. */
  readonly notifyNews?: readonly NewsKind[];
}

/** The outputs' logical ids, which `aws cloudformation describe-stacks` and the README name. */
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

export class PipelineControllerStack extends Stack {
  readonly controller: PipelineController;

  constructor(scope: Construct, id: string, props: PipelineControllerStackProps = {}) {
    super(scope, id, props);
    const given = props.controller ?? {};
    const notification = {
      ...given.notification,
      ...(props.notificationWebhookUrl !== undefined && { webhookUrl: props.notificationWebhookUrl }),
      ...(props.notificationWebhookSecretArn !== undefined && {
        webhookSecret: Secret.fromSecretCompleteArn(
          this,
          'NotificationWebhookSecret',
          props.notificationWebhookSecretArn,
        ),
      }),
      ...(props.notificationEventBusArn !== undefined && {
        eventBus: EventBus.fromEventBusArn(this, 'NotificationEventBus', props.notificationEventBusArn),
      }),
      ...(props.notificationControllerUrl !== undefined && {
        notificationControllerUrl: props.notificationControllerUrl,
      }),
    };
    const notify = {
      ...given.notify,
      ...(props.notifySlackSecretArn !== undefined && {
        slackWebhook: Secret.fromSecretCompleteArn(this, 'NotifySlackSecret', props.notifySlackSecretArn),
      }),
      ...(props.notifyWebhookSecretArn !== undefined && {
        webhook: Secret.fromSecretCompleteArn(this, 'NotifyWebhookSecret', props.notifyWebhookSecretArn),
      }),
      ...(props.notifyEventBusArn !== undefined && {
        eventBus: EventBus.fromEventBusArn(this, 'NotifyEventBus', props.notifyEventBusArn),
      }),
      ...(props.notifyNews !== undefined && { news: props.notifyNews }),
    };
    const controller = new PipelineController(this, 'Controller', {
      ...given,
      notify,
      ...(props.alarmTopicArn !== undefined && {
        alarmTopic: Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn),
      }),
      ...(props.encryptionKeyArn !== undefined && {
        encryptionKey: Key.fromKeyArn(this, 'EncryptionKey', props.encryptionKeyArn),
      }),
      notification,
    });
    this.controller = controller;

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
    for (const [name, output] of Object.entries(outputs)) new CfnOutput(this, name, output);
    if (controller.defaultCluster !== undefined) {
      new CfnOutput(this, DEFAULT_CLUSTER_OUTPUT, {
        value: controller.defaultCluster,
        description: 'The GitopsCluster a target without clusterRef runs on (read by pipelinectl apply)',
      });
    }
  }
}
