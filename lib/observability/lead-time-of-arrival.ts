// The lead time of one revision, measured when it arrives in a pipeline's last environment: the one event where
// CloudWatch gets a lead time, and the only time the verifier's metrics read the audit trail. The arithmetic is
// lib/metrics' (what `pipelinectl metrics` reports), over the entries read back to where the revision started.
import { healthTimelines } from '../metrics/health-timeline.js';
import { leadTimeSamples } from '../metrics/lead-time.js';
import { DEFAULT_WINDOW_MS } from '../metrics/window.js';
import { pipelineKeyOf, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import type { AuditEntry, AuditLog } from '../store/port.js';
import { walkAuditTrail } from '../store/index.js';

/** Audit entries read per page. */
const PAGE_SIZE = 100;
/** Pages read at most: a start further back than this is not found, and that arrival gives no lead time. */
const MAX_PAGES = 10;
/** How far back a start is looked for: as far as `pipelinectl metrics` looks by default. */
const LOOKBACK_MS = DEFAULT_WINDOW_MS;

/**
 * Milliseconds from the first environment's first `environment-passed` on the arrival's revision to `arrival`, the
 * last environment's `environment-passed` on it. Undefined when `arrival` is not that, when the pipeline has a single
 * environment (its lead time is zero by definition, which would only dilute the fleet's figure), when the revision
 * arrived in the last environment before (it is counted once, like `pipelinectl metrics` counts it), or when its
 * start was not found.
 */
export async function leadTimeOfArrival(
  audit: Pick<AuditLog, 'listAudit'>,
  pipeline: Pipeline,
  arrival: AuditEntry,
): Promise<number | undefined> {
  const first = pipeline.environments[0]?.name;
  const last = pipeline.environments.at(-1)?.name;
  const { revision } = arrival;
  const arrivedAt = Date.parse(arrival.at);
  if (first === undefined || last === undefined || first === last) return undefined;
  if (arrival.type !== 'environment-passed' || arrival.env !== last) return undefined;
  if (revision === undefined || Number.isNaN(arrivedAt)) return undefined;

  const key = pipelineKeyOf(pipeline);
  const horizon = new Date(arrivedAt - LOOKBACK_MS).toISOString();
  // The arrival itself is added: a trail read right after it was appended may not show it yet.
  const timelines = healthTimelines([...(await entriesSinceStart(audit, key, first, revision, horizon)), arrival]);
  // A window of one millisecond ending at the arrival: leadTimeSamples gives a revision's lead time at its first
  // arrival only, so this yields nothing when the revision had already arrived (e.g. passed again after a regression).
  const [sample] = leadTimeSamples(timelines.get(first) ?? [], timelines.get(last) ?? [], {
    end: arrivedAt,
    lengthMs: 1,
  });
  return sample;
}

/**
 * The trail, newest first, back to the first environment's passing on another revision before it passed on
 * `revision` (by then every entry the lead time needs has been read), or to the horizon, or the page budget.
 */
async function entriesSinceStart(
  audit: Pick<AuditLog, 'listAudit'>,
  key: ObjectKey,
  firstEnv: string,
  revision: string,
  horizon: string,
): Promise<AuditEntry[]> {
  const read: AuditEntry[] = [];
  let started = false;
  await walkAuditTrail(audit, key, { pageSize: PAGE_SIZE, maxPages: MAX_PAGES }, (entry) => {
    if (entry.at < horizon) return 'stop';
    const passedFirst = entry.type === 'environment-passed' && entry.env === firstEnv;
    if (passedFirst && entry.revision === revision) started = true;
    else if (passedFirst && started) return 'stop';
    read.push(entry);
    return 'continue';
  });
  return read;
}
