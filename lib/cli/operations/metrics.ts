// What `pipelinectl metrics` does: the DORA metrics of one pipeline or of every one, computed (lib/metrics) from each
// pipeline's audit trail, read newest first back to twice the window: a lead time that ends in the window may have
// started before it, and the deployment before the window's first one tells whether that one is new.
import {
  DAY_MS,
  pipelineMetrics,
  windowStart,
  type ChangeFailureRate,
  type LeadTime,
  type MetricsWindow,
  type PipelineMetrics,
  type TimeToRestore,
} from '../../metrics/index.js';
import { objectKeyString, type ObjectKey, pipelineKeyOf } from '../../pipeline/model.js';
import type { AuditEntry, Store, StoredPipeline } from '../../store/port.js';
import { walkAuditTrail } from '../../store/index.js';
import { mapLimit } from '../../util/map-limit.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { formatTable } from '../output.js';
import { listAll } from '../../util/paged.js';

/** Entries asked of the store at a time. */
const PAGE_SIZE = 500;
/** Trails read at once. */
const CONCURRENT_READS = 8;

export interface MetricsQuery {
  /** One pipeline; undefined: every stored pipeline. */
  pipeline?: ObjectKey;
  windowMs: number;
  failureWindowMs: number;
  now: Date;
}

export interface PipelineMetricsView {
  pipeline: ObjectKey;
  environments: string[];
  metrics: PipelineMetrics;
  /** The audit entries the metrics were computed from (newest first): the dashboard draws its charts from them. */
  trail: AuditEntry[];
}

export interface MetricsReport {
  window: MetricsWindow;
  failureWindowMs: number;
  pipelines: PipelineMetricsView[];
}

export async function readMetrics(backend: Backend, query: MetricsQuery): Promise<MetricsReport> {
  const stored = query.pipeline ? [await backend.store.getPipeline(query.pipeline)] : await allPipelines(backend.store);
  if (query.pipeline && !stored[0]) {
    throw new CliError(`pipeline ${objectKeyString(query.pipeline)} not found in ${backend.description}`);
  }
  const window: MetricsWindow = { end: query.now.getTime(), lengthMs: query.windowMs };
  const since = new Date(windowStart(window) - query.windowMs).toISOString();
  const pipelines = await mapLimit(
    stored.flatMap((entry) => (entry ? [entry] : [])),
    CONCURRENT_READS,
    async ({ pipeline }) => {
      const key = pipelineKeyOf(pipeline);
      const environments = pipeline.environments.map((env) => env.name);
      const entries = await trailSince(backend.store, key, since);
      const metrics = pipelineMetrics({ environments, entries, window, failureWindowMs: query.failureWindowMs });
      return { pipeline: key, environments, metrics, trail: entries };
    },
  );
  return { window, failureWindowMs: query.failureWindowMs, pipelines };
}

async function allPipelines(store: Store): Promise<StoredPipeline[]> {
  return listAll((page) => store.listPipelines(page));
}

/** A pipeline's entries at or after `since`: the trail is newest first, so reading stops at the first older one. */
async function trailSince(store: Pick<Store, 'listAudit'>, key: ObjectKey, since: string): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  await walkAuditTrail(store, key, { pageSize: PAGE_SIZE }, (entry) => {
    if (entry.at < since) return 'stop';
    entries.push(entry);
    return 'continue';
  });
  return entries;
}

// ---------------------------------------------------------------- -o json

/**
 * What `pipelinectl metrics -o json` prints. Durations are milliseconds, times ISO 8601 (UTC), a value that cannot
 * be computed (no sample) is null. docs/cli.md shows it.
 */
export interface MetricsJson {
  windowStart: string;
  windowEnd: string;
  windowMs: number;
  failureWindowMs: number;
  pipelines: PipelineMetricsJson[];
}

export interface PipelineMetricsJson {
  namespace: string;
  name: string;
  leadTime: { revisions: number; medianMs: number | null; p90Ms: number | null };
  environments: EnvironmentMetricsJson[];
}

export interface EnvironmentMetricsJson {
  name: string;
  deployments: number;
  deploymentsPerDay: number;
  promotions: number;
  changeFailureRate: ChangeFailureRate;
  timeToRestore: { restores: number; medianMs: number | null; unhealthySince: string | null };
}

export function metricsJson(report: MetricsReport): MetricsJson {
  return {
    windowStart: new Date(windowStart(report.window)).toISOString(),
    windowEnd: new Date(report.window.end).toISOString(),
    windowMs: report.window.lengthMs,
    failureWindowMs: report.failureWindowMs,
    pipelines: report.pipelines.map(({ pipeline, metrics }) => ({
      namespace: pipeline.namespace,
      name: pipeline.name,
      leadTime: metrics.leadTime,
      environments: metrics.environments.map((env) => ({
        name: env.env,
        deployments: env.frequency.deployments,
        deploymentsPerDay: env.frequency.perDay,
        promotions: env.frequency.promotions,
        changeFailureRate: env.changeFailureRate,
        timeToRestore: restoreJson(env.timeToRestore),
      })),
    })),
  };
}

function restoreJson(restore: TimeToRestore): EnvironmentMetricsJson['timeToRestore'] {
  const { unhealthySince } = restore;
  return { ...restore, unhealthySince: unhealthySince === null ? null : new Date(unhealthySince).toISOString() };
}

// ---------------------------------------------------------------- table

const COLUMNS = [
  { header: 'ENVIRONMENT', max: 30 },
  { header: 'DEPLOYS' },
  { header: 'PER DAY' },
  { header: 'PROMOTIONS' },
  { header: 'FAILURE RATE' },
  { header: 'RESTORES' },
  { header: 'TIME TO RESTORE' },
] as const;

/** One pipeline: a heading line with its lead time, then a row per environment. */
export function metricsTable(view: PipelineMetricsView, report: MetricsReport): string[] {
  const { leadTime } = view.metrics;
  const heading = `${objectKeyString(view.pipeline)}  last ${span(report.window.lengthMs)}  lead time ${leadTimeText(leadTime)}`;
  const rows = view.metrics.environments.map((env) => [
    env.env,
    String(env.frequency.deployments),
    env.frequency.perDay.toFixed(2),
    String(env.frequency.promotions),
    failureRate(env.changeFailureRate),
    String(env.timeToRestore.restores),
    restoreCell(env.timeToRestore, report.window.end),
  ]);
  return [heading, ...formatTable(COLUMNS, rows)];
}

/** A lead time as `metrics` and the dashboard show it: `median 2h15m, p90 4h over 2 revisions`, or why there is none. */
export function leadTimeText(leadTime: LeadTime): string {
  return leadTime.revisions === 0
    ? 'n/a (no revision reached the last environment)'
    : `median ${span(leadTime.medianMs)}, p90 ${span(leadTime.p90Ms)} over ${leadTime.revisions} revisions`;
}

/** A change failure rate as `metrics` and the dashboard show it: `50% (1/2) (1 pending)`, or `n/a`. */
export function failureRate(rate: ChangeFailureRate): string {
  const pending = rate.pending > 0 ? ` (${rate.pending} pending)` : '';
  if (rate.rate === null) return `n/a${pending}`;
  return `${Math.round(rate.rate * 100)}% (${rate.failed}/${rate.deployments - rate.pending})${pending}`;
}

/** A time to restore as `metrics` and the dashboard show it: the median, and how long it has been unhealthy. */
export function restoreCell(restore: TimeToRestore, now: number): string {
  const median = restore.medianMs === null ? 'n/a' : `median ${span(restore.medianMs)}`;
  return restore.unhealthySince === null ? median : `${median}; unhealthy for ${span(now - restore.unhealthySince)}`;
}

/** A duration in its two largest units: `3d4h`, `2h15m`, `45s`; `0s` for none. */
export function span(ms: number | null): string {
  if (ms === null) return 'n/a';
  const units = [
    ['d', DAY_MS],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const;
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    } else if (parts.length > 0) break;
  }
  return parts.length === 0 ? '0s' : parts.join('');
}
