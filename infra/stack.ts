// The stack `npx cdk deploy` deploys: the PipelineController construct, which publishes the outputs the CLI reads
// (infra/outputs.ts). Everything it takes is a plain value (so CDK context can configure it, see infra/context.ts);
// the ARNs of an alarm topic and the notification sinks are imported here.
import { Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { NewsKind } from '../lib/pipeline/model.js';
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

export { DEFAULT_CLUSTER_OUTPUT, NOTIFICATION_SINKS_OUTPUT, OUTPUTS } from './outputs.js';

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
  }
}
