// The period the metrics look at, and their defaults (docs/cli.md, "Metrics", docs/cli.md "metrics").

export const DAY_MS = 86_400_000;

/** How far back the metrics look by default. */
export const DEFAULT_WINDOW_MS = 30 * DAY_MS;

/** How long after a deployment a regression on it or a rollback of it makes it a failed change, by default. */
export const DEFAULT_FAILURE_WINDOW_MS = 3_600_000;

export interface MetricsWindow {
  /** Milliseconds since the epoch: the end of the period (now). */
  end: number;
  /** The period's length in milliseconds. */
  lengthMs: number;
}

export function windowStart(window: MetricsWindow): number {
  return window.end - window.lengthMs;
}

/** Whether `at` falls in the period: after its start, up to and including its end. */
export function inWindow(at: number, window: MetricsWindow): boolean {
  return at > windowStart(window) && at <= window.end;
}
