// The local mode's notifications to people (docs/notifications.md, "Notifications to people"): the Slack and webhook
// URLs are Secrets of the configuration (`serve --notify-slack-secret NS/NAME`, key `url`), read once at start, and
// the approve command in a message names this data directory so that it works when pasted.
import type { Logger } from '../logging/logger.js';
import {
  notificationSettingsFromSecrets,
  peopleNotificationsOf,
  type PeopleNotifications,
  type PutEventsClient,
} from '../notify/index.js';
import { objectKeyString, type NewsKind, type ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from '../secrets/port.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import type { Store } from '../store/index.js';

export interface LocalPeopleNotifications {
  /** A Secret of the configuration whose `url` is a Slack incoming webhook. */
  slackSecret?: ObjectKey;
  /** A Secret whose `url` receives the news as JSON, signed with its optional `token` like generic-hmac. */
  webhookSecret?: ObjectKey;
  /** An EventBridge bus, with the AWS SDK's credentials and region. */
  eventBus?: string;
  /** The kinds sent; default all. */
  news?: readonly NewsKind[];
}

export interface PeopleNotificationDeps {
  secrets: SecretSource;
  store: Store;
  logger: Logger;
  now: () => Date;
  /** Named in the approve command unless it is the default. */
  dataDir: string;
  /** Made only when a bus is named. */
  eventBridge?: () => Promise<PutEventsClient>;
}

/** The verifier's and the ConfigSource sync's listeners, or undefined when no sink is configured. */
export async function peopleNotifications(
  options: LocalPeopleNotifications,
  deps: PeopleNotificationDeps,
): Promise<PeopleNotifications | undefined> {
  const named = async (key: ObjectKey | undefined) =>
    key === undefined
      ? undefined
      : { name: `Secret ${objectKeyString(key)} of the configuration`, values: await deps.secrets.getSecret(key) };
  const [slack, webhook] = await Promise.all([named(options.slackSecret), named(options.webhookSecret)]);
  const settings = notificationSettingsFromSecrets({
    ...(slack ? { slack } : {}),
    ...(webhook ? { webhook } : {}),
    ...(options.eventBus === undefined ? {} : { eventBus: options.eventBus }),
    ...(options.news === undefined ? {} : { news: options.news }),
  });
  const eventBridge = settings.eventBus && deps.eventBridge ? await deps.eventBridge() : undefined;
  return peopleNotificationsOf({
    settings,
    store: deps.store,
    logger: deps.logger,
    now: deps.now,
    approveFlags: deps.dataDir === DEFAULT_DATA_DIR ? [] : ['--data-dir', deps.dataDir],
    ...(eventBridge ? { eventBridge } : {}),
  });
}
