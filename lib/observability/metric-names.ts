// The one home of the CloudWatch metrics' names, units and dimensions: the functions emit them through the
// MetricsSink port and the construct's dashboard (infra/dashboard.ts) graphs them from this table, so a renamed
// metric cannot leave an empty graph behind. docs/observability.md says what each one counts.

/** The CloudWatch namespace; the construct also sets it as POWERTOOLS_METRICS_NAMESPACE, where Powertools reads it. */
export const METRIC_NAMESPACE = 'PipelineController';

/** The function that emits a metric. Its `service` dimension is that function's name (docs/observability.md). */
export type MetricSource = 'receiver' | 'verifier' | 'poller';

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

/**
 * The only dimension besides `service`. No metric is per pipeline or per environment: at CloudWatch's price for a
 * custom metric, a per-pipeline figure for a fleet of 300 pipelines costs a hundred times the whole set (cost note in
 * docs/observability.md); `pipelinectl metrics` gives the per-pipeline figures from the audit trail instead.
 */
export type MetricDimension = 'Reason';

export type MetricDimensions = Partial<Record<MetricDimension, string>>;

export interface MetricDefinition {
  source: MetricSource;
  unit: MetricUnit;
  /** The dimension the metric is split by, when it has one. */
  dimension?: MetricDimension;
  /**
   * Published under `service` alone as well, whatever the dimension's value: the one total an alarm can watch (an
   * alarm's metric math names at most ten metrics, fewer than the dimension's values). Without it, a metric with a
   * dimension is published per value only.
   */
  withTotal?: true;
}

export const METRICS = {
  /** Requests to `POST /v1/events/…`, whatever became of them. */
  EventsReceived: { source: 'receiver', unit: 'Count' },
  /** Events that enqueued a `check-app`. */
  EventsEnqueued: { source: 'receiver', unit: 'Count' },
  /** Authentic events about an object no pipeline watches (202, nothing enqueued). */
  EventsIgnored: { source: 'receiver', unit: 'Count' },
  /** Refused events (401, 400, 405, 413), by the receiver's named reason. */
  EventsRejected: { source: 'receiver', unit: 'Count', dimension: 'Reason' },
  /** Events answered 500 (the store or the queue failed; Flux sends them again). */
  EventsFailed: { source: 'receiver', unit: 'Count' },
  /** `check-app` messages of an event that the verifier handled (it read the app and decided). */
  EventsVerified: { source: 'verifier', unit: 'Count' },
  /** Messages whose handling threw: each is delivered again later, and dead-lettered after the last receive. */
  MessagesFailed: { source: 'verifier', unit: 'Count' },
  /** Bodies the verifier could not decode and sent to the dead-letter queue itself. */
  DeadLetters: { source: 'verifier', unit: 'Count' },
  /** How long one `poll` message took: reading one app kind on one cluster and deciding. */
  ClusterPollDuration: { source: 'verifier', unit: 'Milliseconds' },
  PromotionsStarted: { source: 'verifier', unit: 'Count' },
  PromotionsSucceeded: { source: 'verifier', unit: 'Count' },
  /** Promotion attempts that failed and are tried again at a scheduled time, by failure kind and in total. */
  PromotionsFailedRetrying: { source: 'verifier', unit: 'Count', dimension: 'Reason', withTotal: true },
  /** Promotions that failed and are not retried (a person must act), by failure kind and in total. */
  PromotionsFailedForGood: { source: 'verifier', unit: 'Count', dimension: 'Reason', withTotal: true },
  ApprovalsRequested: { source: 'verifier', unit: 'Count' },
  /** First environment passed → last environment passed, once per revision (pipelines of two or more environments). */
  LeadTime: { source: 'verifier', unit: 'Milliseconds' },
  /** How long the scheduled poller took to enqueue its messages. */
  PollDuration: { source: 'poller', unit: 'Milliseconds' },
  /** `poll` messages the poller enqueued: one per (cluster, app kind) in use. */
  PollsEnqueued: { source: 'poller', unit: 'Count' },
  /** Approval markers waiting for a person, over the whole fleet, at the poller's run. */
  ApprovalsWaiting: { source: 'poller', unit: 'Count' },
  /** Age of the oldest waiting approval at the poller's run; 0 when none waits. */
  OldestApprovalAge: { source: 'poller', unit: 'Seconds' },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];
