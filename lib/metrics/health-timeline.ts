// The recorded facts the metrics are computed from, per environment and in time order: when the environment was
// first seen with every target Ready on a revision (`environment-passed`), when one of its targets failed
// (`environment-regressed`) or its verification failed (`verification-failed`), when a promotion into it succeeded
// (`promotion-succeeded`) and when a rollback of a failed revision was started (`rollback-started`, its `revision`
// the failed one). Plain audit entries in, plain events out, so every metric is a pure function over the same
// timeline.
import type { AuditEntry } from '../store/port.js';

export type HealthEventKind = 'passed' | 'regressed' | 'promoted' | 'rolled-back';

export interface HealthEvent {
  kind: HealthEventKind;
  /** Milliseconds since the epoch. */
  at: number;
  /**
   * The revision passed, promoted or rolled back from; absent on a regression whose failed targets ran no single
   * known revision.
   */
  revision?: string;
}

const KIND_OF: Partial<Record<AuditEntry['type'], HealthEventKind>> = {
  'environment-passed': 'passed',
  'environment-regressed': 'regressed',
  // Its checks found the service broken on the revision: a regression like a failed target (docs/verification.md).
  'verification-failed': 'regressed',
  'promotion-succeeded': 'promoted',
  'rollback-started': 'rolled-back',
};

/** Each environment's events, oldest first; entries of other types, without an environment or a time, are skipped. */
export function healthTimelines(entries: readonly AuditEntry[]): Map<string, HealthEvent[]> {
  const timelines = new Map<string, HealthEvent[]>();
  for (const entry of entries) {
    const kind = KIND_OF[entry.type];
    const at = Date.parse(entry.at);
    if (kind === undefined || entry.env === undefined || Number.isNaN(at)) continue;
    const event: HealthEvent = { kind, at, ...(entry.revision === undefined ? {} : { revision: entry.revision }) };
    const timeline = timelines.get(entry.env) ?? [];
    timeline.push(event);
    timelines.set(entry.env, timeline);
  }
  // A stable sort: events recorded at the same instant keep the order they were read in.
  for (const timeline of timelines.values()) timeline.sort((a, b) => a.at - b.at);
  return timelines;
}

export interface Deployment {
  revision: string;
  at: number;
}

/**
 * The deployments of one environment: each `passed` event whose revision differs from the one before it. A revision
 * seen passed again (after a regression, or recorded twice) is the same deployment; going back to an older revision
 * is a new one.
 */
export function deploymentsOf(timeline: readonly HealthEvent[]): Deployment[] {
  const deployments: Deployment[] = [];
  let running: string | undefined;
  for (const event of timeline) {
    if (event.kind !== 'passed' || event.revision === undefined || event.revision === running) continue;
    running = event.revision;
    deployments.push({ revision: event.revision, at: event.at });
  }
  return deployments;
}
