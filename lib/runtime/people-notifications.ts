// The verifier Lambda's notifications to people (docs/notifications.md, "Notifications to people"): the Slack and
// webhook URLs are Secrets Manager secrets named by the function's environment (the construct's `notify` props),
// read once per warm container; no variable set means nobody is told.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Logger } from '../logging/logger.js';
import {
  notificationSettingsFromSecrets,
  parseNewsKinds,
  peopleNotificationsOf,
  type PeopleNotifications,
} from '../notify/index.js';
import type { AwsDependencies } from './aws-dependencies.js';

/**
 * An EventBridge client with the SDK's defaults, for a process given a bus (people's news, a promotion's events): the
 * SDK's client is loaded then, not at every cold start.
 */
export async function newEventBridgeClient(): Promise<EventBridgeClient> {
  const { EventBridgeClient } = await import('@aws-sdk/client-eventbridge');
  return new EventBridgeClient({});
}

export async function peopleNotifications(
  aws: Pick<AwsDependencies, 'environment' | 'secrets' | 'table'>,
  logger: Logger,
  /** Makes the EventBridge client, called only when a bus is configured: the SDK's client is loaded then. */
  eventBridge: () => Promise<EventBridgeClient>,
): Promise<PeopleNotifications | undefined> {
  const env = aws.environment;
  const secret = async (id: string | undefined) =>
    id === undefined ? undefined : { name: `secret ${id}`, values: await aws.secrets.getById(id) };
  const [slack, webhook] = await Promise.all([
    secret(env.NOTIFY_SLACK_SECRET_ID),
    secret(env.NOTIFY_WEBHOOK_SECRET_ID),
  ]);
  const settings = notificationSettingsFromSecrets({
    ...(slack ? { slack } : {}),
    ...(webhook ? { webhook } : {}),
    ...(env.NOTIFY_EVENT_BUS === undefined ? {} : { eventBus: env.NOTIFY_EVENT_BUS }),
    ...(env.NOTIFY_NEWS === undefined ? {} : { news: parseNewsKinds(env.NOTIFY_NEWS, 'NOTIFY_NEWS') }),
  });
  const approveFlags = (env.NOTIFY_APPROVE_FLAGS ?? '').split(' ').filter((word) => word !== '');
  return peopleNotificationsOf({
    settings,
    store: aws.table.store,
    logger,
    approveFlags,
    ...(settings.eventBus ? { eventBridge: await eventBridge() } : {}),
  });
}
