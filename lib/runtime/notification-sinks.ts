// Which notification sinks a deployment has, by kind: what `serve` records in serve.json and the stack publishes as
// its `NotificationSinks` output, so that `pipelinectl apply` can warn about a notification pipeline that nothing
// would carry out (docs/notifications.md). Only kinds, never an address or a key.

export const NOTIFICATION_SINK_KINDS = ['webhook', 'notification-controller', 'event-bus'] as const;
export type NotificationSinkKind = (typeof NOTIFICATION_SINK_KINDS)[number];

/** The stack output's value when no sink is configured. */
export const NO_NOTIFICATION_SINKS = 'none';

/** The kinds of the sinks these settings configure, in a fixed order. */
export function notificationSinkKinds(settings: {
  webhook?: unknown;
  notificationController?: unknown;
  eventBus?: unknown;
}): NotificationSinkKind[] {
  const configured: Record<NotificationSinkKind, boolean> = {
    webhook: settings.webhook !== undefined,
    'notification-controller': settings.notificationController !== undefined,
    'event-bus': settings.eventBus !== undefined,
  };
  return NOTIFICATION_SINK_KINDS.filter((kind) => configured[kind]);
}

/** `webhook,event-bus`, or `none`. */
export function formatNotificationSinks(kinds: readonly NotificationSinkKind[]): string {
  return kinds.length === 0 ? NO_NOTIFICATION_SINKS : kinds.join(',');
}

/** The kinds in a value written by `formatNotificationSinks` (a later version may name kinds this one does not know). */
export function parseNotificationSinks(text: string): string[] {
  const value = text.trim();
  if (value === NO_NOTIFICATION_SINKS) return [];
  return value
    .split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');
}
