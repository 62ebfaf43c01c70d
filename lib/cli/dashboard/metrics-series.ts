// What the metrics page draws, from the audit trail `readMetrics` read and with lib/metrics' own definitions, so a
// chart never counts differently from the figure beside it: deployments per day per environment (deploymentsOf, as
// deployment frequency counts them) and each revision's lead time (leadTimeSamples, asked one revision at a time so
// that each dot can be named).
import { deploymentsOf, healthTimelines, type HealthEvent } from '../../metrics/health-timeline.js';
import { leadTimeSamples } from '../../metrics/lead-time.js';
import { DAY_MS, inWindow, windowStart, type MetricsWindow } from '../../metrics/window.js';
import type { AuditEntry } from '../../store/port.js';

export interface DailyDeployments {
  env: string;
  /** Deployments per day of the window, oldest first: day i starts i days after the window's start. */
  perDay: number[];
}

export interface RevisionLeadTime {
  revision: string;
  /** Milliseconds since the epoch: first seen passed in the last environment within the window. */
  arrivedAt: number;
  leadTimeMs: number;
}

export interface MetricsSeries {
  deployments: DailyDeployments[];
  /** Oldest arrival first. */
  leadTimes: RevisionLeadTime[];
}

export function metricsSeries(
  environments: readonly string[],
  trail: readonly AuditEntry[],
  window: MetricsWindow,
): MetricsSeries {
  const timelines = healthTimelines(trail);
  const timelineOf = (env: string | undefined) => (env === undefined ? [] : (timelines.get(env) ?? []));
  return {
    deployments: environments.map((env) => ({ env, perDay: deploymentsPerDay(timelineOf(env), window) })),
    leadTimes: leadTimesByRevision(timelineOf(environments[0]), timelineOf(environments.at(-1)), window),
  };
}

function deploymentsPerDay(timeline: readonly HealthEvent[], window: MetricsWindow): number[] {
  const days = Math.max(1, Math.ceil(window.lengthMs / DAY_MS));
  const perDay = new Array<number>(days).fill(0);
  const start = windowStart(window);
  for (const deployment of deploymentsOf(timeline)) {
    if (!inWindow(deployment.at, window)) continue;
    // The window's end is in it: a deployment at that very instant belongs to the last day.
    const day = Math.min(days - 1, Math.floor((deployment.at - start) / DAY_MS));
    perDay[day] = (perDay[day] ?? 0) + 1;
  }
  return perDay;
}

function leadTimesByRevision(
  first: readonly HealthEvent[],
  last: readonly HealthEvent[],
  window: MetricsWindow,
): RevisionLeadTime[] {
  const arrivals = new Map<string, number>();
  for (const event of last) {
    if (event.kind !== 'passed' || event.revision === undefined || !inWindow(event.at, window)) continue;
    if (!arrivals.has(event.revision)) arrivals.set(event.revision, event.at);
  }
  const leadTimes: RevisionLeadTime[] = [];
  for (const [revision, arrivedAt] of arrivals) {
    const only = (timeline: readonly HealthEvent[]) => timeline.filter((event) => event.revision === revision);
    const [leadTimeMs] = leadTimeSamples(only(first), only(last), window);
    if (leadTimeMs !== undefined) leadTimes.push({ revision, arrivedAt, leadTimeMs });
  }
  return leadTimes.sort((a, b) => a.arrivedAt - b.arrivedAt);
}
