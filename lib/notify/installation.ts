// Notifications as an installation configures them: the sinks its settings name and the listeners over them. This is
// what `serve`, the verifier Lambda and any other composition root call; they differ only in where the settings come
// from (flags and Secrets of the configuration, or the environment and Secrets Manager) and in the EventBridge client.
import type { EffectListener } from '../verifier/effect-listener.js';
import { NewsEventBusSink, type PutEventsClient } from './eventbridge.js';
import {
  configSyncFailureListener,
  notificationListener,
  type ConfigSyncFailureListener,
  type NotifierDeps,
} from './notifier.js';
import type { NotificationSettings } from './settings.js';
import type { NewsSink } from './sink.js';
import { SlackSink } from './slack.js';
import { NewsWebhookSink } from './webhook.js';

export interface NewsSinkOptions {
  /** Needed when the settings name an event bus (AWS). */
  eventBridge?: PutEventsClient;
  /** Of each HTTP sink; default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface NotificationInstallation extends NewsSinkOptions {
  settings: NotificationSettings;
  store: NotifierDeps['store'];
  logger: NotifierDeps['logger'];
  now?: () => Date;
  /** Where `pipelinectl approve` acts, after its arguments: e.g. `['--aws', '--stack', 'Pipelines']`. */
  approveFlags?: readonly string[];
}

/** The sinks the settings name, in the order Slack, webhook, event bus. Throws when a sink cannot be built. */
export function newsSinksOf(settings: NotificationSettings, options: NewsSinkOptions = {}): NewsSink[] {
  const http = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  const sinks: NewsSink[] = [];
  if (settings.slack) sinks.push(new SlackSink({ webhookUrl: settings.slack.webhookUrl, ...http }));
  if (settings.webhook) {
    const { url, hmacKey } = settings.webhook;
    sinks.push(new NewsWebhookSink({ url, ...(hmacKey === undefined ? {} : { hmacKey }), ...http }));
  }
  if (settings.eventBus) {
    if (!options.eventBridge) throw new Error('notifications: an event bus is configured but no EventBridge client');
    sinks.push(new NewsEventBusSink({ client: options.eventBridge, eventBusName: settings.eventBus.name }));
  }
  return sinks;
}

/** What tells people, built once from one set of sinks: the verifier's listener, and the ConfigSource sync's. */
export interface PeopleNotifications {
  /** Passed in the verifier's `listeners`: news about pipelines. */
  listener: EffectListener;
  /** The ConfigSource sync's `onFailure`: `config-sync-failed`, once per (source, commit). */
  onConfigSyncFailure: ConfigSyncFailureListener;
}

/** Both listeners over the same sinks, or undefined when the settings name no sink (nothing to tell or claim). */
export function peopleNotificationsOf(installation: NotificationInstallation): PeopleNotifications | undefined {
  const sinks = newsSinksOf(installation.settings, installation);
  if (sinks.length === 0) return undefined;
  installation.logger.info('notifications to people', {
    sinks: sinks.map((sink) => sink.name),
    news: installation.settings.news ?? 'all',
  });
  const shared = {
    store: installation.store,
    sinks,
    ...(installation.settings.news === undefined ? {} : { news: installation.settings.news }),
    logger: installation.logger,
    now: installation.now ?? (() => new Date()),
  };
  return {
    listener: notificationListener({
      ...shared,
      ...(installation.approveFlags === undefined ? {} : { approveFlags: installation.approveFlags }),
    }),
    onConfigSyncFailure: configSyncFailureListener(shared),
  };
}

/**
 * The listener to pass in the verifier's `listeners`, or undefined when the settings name no sink (nothing to tell,
 * nothing to claim).
 */
export function notificationListenerOf(installation: NotificationInstallation): EffectListener | undefined {
  return peopleNotificationsOf(installation)?.listener;
}
