// The public API of lib/notify: notifications to people (docs/notifications.md, "Notifications to people").
export { approveCommand } from './approve-command.js';
export { NotificationDeliveryError, type DeliveryFailure } from './delivery-error.js';
export {
  NEWS_DETAIL_TYPE,
  NewsEventBusSink,
  type NewsEventBusSinkOptions,
  type PutEventsClient,
} from './eventbridge.js';
export {
  newsSinksOf,
  notificationListenerOf,
  peopleNotificationsOf,
  type NewsSinkOptions,
  type NotificationInstallation,
  type PeopleNotifications,
} from './installation.js';
export {
  NEWS_DOCUMENT_VERSION,
  newsDocument,
  newsId,
  type ConfigSourceNewsDocument,
  type NewsDocument,
  type PipelineNewsDocument,
} from './news-document.js';
export {
  configSyncNewsOf,
  isConfigSourceNews,
  NEWS_KINDS,
  newsOf,
  type ConfigSourceNews,
  type News,
  type NewsKind,
  type NewsOptions,
  type PipelineNews,
} from './news.js';
export {
  CONFIG_SOURCE_CLAIM_ENV,
  configSyncFailureListener,
  notificationListener,
  type ConfigSyncFailureListener,
  type ConfigSyncNotifierDeps,
  type NotifierDeps,
} from './notifier.js';
export {
  hasNewsSinks,
  installationSends,
  NotificationSettings,
  NotificationSettingsError,
  parseNewsKinds,
  parseNotificationSettings,
  wantsNews,
} from './settings.js';
export { DEFAULT_NEWS_TIMEOUT_MS, type NewsSink } from './sink.js';
export { slackMessage, type SlackBlock, type SlackMessage } from './slack-message.js';
export { SlackSink, type SlackSinkOptions } from './slack.js';
export { NewsWebhookSink, type NewsWebhookSinkOptions } from './webhook.js';
export {
  notificationSettingsFromSecrets,
  type NamedSecret,
  type SecretNotificationSources,
} from './secret-settings.js';
