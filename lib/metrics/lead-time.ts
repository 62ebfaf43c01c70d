// Lead time: for each revision that reached the last environment in the window, the time from the first environment
// first seen passed on it to the last environment first seen passed on it. With one environment the two are the
// same event, so every lead time is zero.
import type { HealthEvent } from './health-timeline.js';
import { median, percentile } from './percentile.js';
import { inWindow, type MetricsWindow } from './window.js';

export interface LeadTime {
  /** Revisions that reached the last environment in the window and whose start in the first one is recorded. */
  revisions: number;
  medianMs: number | null;
  p90Ms: number | null;
}

export function leadTimeSamples(
  first: readonly HealthEvent[],
  last: readonly HealthEvent[],
  window: MetricsWindow,
): number[] {
  const started = new Map<string, number>();
  for (const event of first) {
    if (event.kind === 'passed' && event.revision !== undefined && !started.has(event.revision)) {
      started.set(event.revision, event.at);
    }
  }
  const samples: number[] = [];
  const arrived = new Set<string>();
  for (const event of last) {
    if (event.kind !== 'passed' || event.revision === undefined || arrived.has(event.revision)) continue;
    const start = started.get(event.revision);
    // Only the first arrival after the start counts; an arrival with no recorded start (older than what was read)
    // is left out rather than guessed.
    if (start === undefined || event.at < start) continue;
    arrived.add(event.revision);
    if (inWindow(event.at, window)) samples.push(event.at - start);
  }
  return samples;
}

export function leadTime(first: readonly HealthEvent[], last: readonly HealthEvent[], window: MetricsWindow): LeadTime {
  const samples = leadTimeSamples(first, last, window);
  return { revisions: samples.length, medianMs: median(samples), p90Ms: percentile(samples, 90) };
}
