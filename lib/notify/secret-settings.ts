// The installation's settings from where the URLs are kept: a Secret each (the local mode's configuration Secrets,
// Secrets Manager on AWS), because a Slack incoming-webhook URL is a credential by itself. One home for which key
// holds what, so `serve` and the verifier Lambda read them alike.
import type { NewsKind } from '../pipeline/model.js';
import { NotificationSettingsError, parseNotificationSettings, type NotificationSettings } from './settings.js';

/** A Secret's values, named as a person finds it (`Secret flux-system/slack`, `secret arn:…`). */
export interface NamedSecret {
  name: string;
  /** Undefined: no such Secret. */
  values: Readonly<Record<string, string>> | undefined;
}

export interface SecretNotificationSources {
  /** Key `url`: the Slack incoming webhook. */
  slack?: NamedSecret;
  /** Key `url`, and optionally `token`: the HMAC key that signs the body like Flux's generic-hmac. */
  webhook?: NamedSecret;
  /** An EventBridge bus name or ARN. */
  eventBus?: string;
  news?: readonly NewsKind[];
}

export function notificationSettingsFromSecrets(sources: SecretNotificationSources): NotificationSettings {
  const slackUrl = sources.slack && requiredUrl('Slack', sources.slack);
  const webhookUrl = sources.webhook && requiredUrl('webhook', sources.webhook);
  const token = sources.webhook?.values?.token;
  return parseNotificationSettings({
    ...(slackUrl === undefined ? {} : { slack: { webhookUrl: slackUrl } }),
    ...(webhookUrl === undefined ? {} : { webhook: { url: webhookUrl, ...(token ? { hmacKey: token } : {}) } }),
    ...(sources.eventBus === undefined ? {} : { eventBus: { name: sources.eventBus } }),
    ...(sources.news === undefined ? {} : { news: [...sources.news] }),
  });
}

function requiredUrl(sink: string, secret: NamedSecret): string {
  if (secret.values === undefined) {
    throw new NotificationSettingsError(`the ${sink} notification ${secret.name} does not exist`);
  }
  const url = secret.values.url;
  if (!url) throw new NotificationSettingsError(`the ${sink} notification ${secret.name} has no "url" key`);
  return url;
}
