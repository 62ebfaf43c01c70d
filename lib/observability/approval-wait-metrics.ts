// How many approvals wait for a person over the whole fleet, and how long the oldest has waited: taken by the
// scheduled poller, the one place that already lists every pipeline in use on a fixed rhythm, so the gauge has one
// value per run. Markers are stored per pipeline (one Query each), so a run reads one page per pipeline: about
// 86,000 small reads a day for 300 pipelines polled every 5 minutes (docs/observability.md, "Cost").
import type { Logger } from '../logging/logger.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Approvals } from '../store/port.js';
import { mapLimit } from '../util/map-limit.js';
import type { MetricsSink } from './metrics-port.js';
import { errorMessage } from '../util/error-message.js';

/** Pipelines whose markers are read at once. */
const READ_CONCURRENCY = 8;

export interface ApprovalWait {
  waiting: number;
  /** 0 when none waits. */
  oldestAgeSeconds: number;
}

export interface ApprovalWaitDeps {
  store: Pick<Approvals, 'listApprovals'>;
  metrics: MetricsSink;
  logger: Pick<Logger, 'warn'>;
  now: Date;
}

/**
 * Records `ApprovalsWaiting` and `OldestApprovalAge` over `pipelines` (each read once, however often listed). A
 * marker waits until someone approves its revision. A failed read records nothing and is only logged: the gauge
 * misses one point, the poll it rides on has already been sent.
 */
export async function recordApprovalWait(
  deps: ApprovalWaitDeps,
  pipelines: readonly ObjectKey[],
): Promise<ApprovalWait | undefined> {
  const unique = [...new Map(pipelines.map((key) => [objectKeyString(key), key])).values()];
  let markers;
  try {
    markers = (await mapLimit(unique, READ_CONCURRENCY, (key) => deps.store.listApprovals(key))).flat();
  } catch (error) {
    deps.logger.warn('approvals waiting not measured: reading the approval markers failed', {
      error: errorMessage(error),
    });
    return undefined;
  }
  const waiting = markers.filter((marker) => marker.approvedAt === undefined);
  const since = waiting.map((marker) => Date.parse(marker.requestedAt)).filter((at) => !Number.isNaN(at));
  const oldestMs = since.length === 0 ? 0 : Math.max(0, deps.now.getTime() - Math.min(...since));
  const wait: ApprovalWait = { waiting: waiting.length, oldestAgeSeconds: Math.round(oldestMs / 1000) };
  deps.metrics.record('ApprovalsWaiting', wait.waiting);
  deps.metrics.record('OldestApprovalAge', wait.oldestAgeSeconds);
  return wait;
}
