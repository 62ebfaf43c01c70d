// The row of an environment promoted by notification: a promotion with no sink to deliver to fails for good, so the
// deployment must have one (docs/notifications.md). Which sinks it has is only known where it says so (a running
// serve, a stack with the NotificationSinks output): otherwise the row is a warning.
import type { CheckRow } from './check-row.js';
import type { NotificationSinksAnswer } from './ports.js';

export function notificationRow(
  place: { pipeline: string; environment: string },
  sinks: NotificationSinksAnswer | undefined,
): CheckRow {
  const row = { ...place, kind: 'notification-sinks' as const };
  if (!sinks) {
    return {
      ...row,
      outcome: 'warning',
      reason: 'sinks-unknown',
      message: 'cannot tell whether a notification sink is configured: this deployment does not say',
    };
  }
  if (!sinks.known) {
    return {
      ...row,
      outcome: 'warning',
      reason: 'sinks-unknown',
      message:
        `cannot tell whether a notification sink is configured (${sinks.reason}); without one a promotion to ` +
        `${place.environment} fails for good (${sinks.remedy})`,
    };
  }
  if (sinks.kinds.length === 0) {
    return {
      ...row,
      outcome: 'failed',
      reason: 'no-sinks',
      message: `no notification sink is configured: a promotion to ${place.environment} would fail for good (${sinks.remedy})`,
    };
  }
  return {
    ...row,
    outcome: 'ok',
    reason: 'sinks-configured',
    message: `notification sinks: ${sinks.kinds.join(', ')}`,
  };
}
