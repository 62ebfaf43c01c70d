// Time to restore: how long an environment stayed unhealthy, from its regression (the first `regressed` event after
// it last passed) to the next time it was seen passed, on any revision. Restores that ended in the window count; an
// environment unhealthy now is reported with the time it has been so since.
import type { HealthEvent } from './health-timeline.js';
import { median } from './percentile.js';
import { inWindow, type MetricsWindow } from './window.js';

export interface TimeToRestore {
  /** Restores that ended in the window. */
  restores: number;
  medianMs: number | null;
  /** Milliseconds since the epoch: the environment regressed then and has not passed since; null when healthy. */
  unhealthySince: number | null;
}

export function timeToRestore(timeline: readonly HealthEvent[], window: MetricsWindow): TimeToRestore {
  const samples: number[] = [];
  let down: number | undefined;
  for (const event of timeline) {
    if (event.kind === 'regressed' && down === undefined) down = event.at;
    else if (event.kind === 'passed' && down !== undefined) {
      if (inWindow(event.at, window)) samples.push(event.at - down);
      down = undefined;
    }
  }
  return { restores: samples.length, medianMs: median(samples), unhealthySince: down ?? null };
}
