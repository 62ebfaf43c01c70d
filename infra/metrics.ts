// The controller's CloudWatch metrics as CDK objects: what the construct's metric helpers return and what its
// dashboard and alarms graph and watch. The names, units and emitting functions come from
// lib/observability/metric-names.ts; this file only says how to look at them (statistic, dimensions, period).
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { EVENT_REJECTIONS, type EventRejection } from '../lib/http/event-outcome.js';
import { METRIC_NAMESPACE, METRICS, type MetricName, type MetricSource } from '../lib/observability/metric-names.js';

/** Metrics that are a level at the poller's run, not a count of things that happened: read as maxima. */
const GAUGES: ReadonlySet<MetricName> = new Set<MetricName>(['ApprovalsWaiting', 'OldestApprovalAge', 'PollsEnqueued']);

/** The period of every metric unless the caller asks for another: one point per poller run by default. */
export const DEFAULT_METRIC_PERIOD = Duration.minutes(5);

export class ControllerMetrics {
  constructor(
    private readonly input: {
      functions: Readonly<Record<MetricSource, lambda.IFunction>>;
      queue: sqs.IQueue;
      deadLetterQueue: sqs.IQueue;
    },
  ) {}

  /**
   * A metric the functions publish (Embedded Metric Format), under the `service` dimension of the function that
   * emits it. Counts are read as sums, levels (approvals waiting, oldest approval, polls enqueued) as maxima, and
   * durations as averages, unless `options.statistic` says otherwise. `options.dimensionsMap` adds to `service`.
   */
  metric(name: MetricName, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    const { dimensionsMap, ...rest } = options;
    const service = this.input.functions[METRICS[name].source].functionName;
    return new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName: name,
      statistic: defaultStatistic(name),
      period: DEFAULT_METRIC_PERIOD,
      ...rest,
      dimensionsMap: { service, ...dimensionsMap },
    });
  }

  /** One reason's share of a metric split by `Reason` (its `dimension` in metric-names.ts), labelled by the reason. */
  byReason(name: MetricName, reason: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(name, {
      label: reason,
      ...options,
      dimensionsMap: { ...options.dimensionsMap, Reason: reason },
    });
  }

  /** Events refused for one reason (EventsRejected is published per reason only). */
  eventsRejected(reason: EventRejection, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.byReason('EventsRejected', reason, options);
  }

  /** Events refused for any reason: the sum of the per-reason metrics. */
  eventsRejectedTotal(options: cloudwatch.MetricOptions = {}): cloudwatch.MathExpression {
    const usingMetrics = Object.fromEntries(
      EVENT_REJECTIONS.map((reason, i) => [`r${i}`, this.eventsRejected(reason, { ...options, label: undefined })]),
    );
    return new cloudwatch.MathExpression({
      expression: `SUM([${Object.keys(usingMetrics).join(', ')}])`,
      usingMetrics,
      label: options.label ?? 'events rejected',
      period: options.period ?? DEFAULT_METRIC_PERIOD,
    });
  }

  /**
   * Messages waiting in the dead-letter queue (its visible messages, maximum): whatever put them there, the verifier
   * after a body it cannot read or SQS after the last receive. What the dead-letter alarm watches.
   */
  deadLetters(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.input.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      statistic: cloudwatch.Stats.MAXIMUM,
      period: DEFAULT_METRIC_PERIOD,
      ...options,
    });
  }

  /** Age in seconds of the oldest message in the work queue (maximum): how far the verifiers are behind. */
  oldestMessageAge(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.input.queue.metricApproximateAgeOfOldestMessage({
      statistic: cloudwatch.Stats.MAXIMUM,
      period: DEFAULT_METRIC_PERIOD,
      ...options,
    });
  }
}

function defaultStatistic(name: MetricName): string {
  if (GAUGES.has(name)) return cloudwatch.Stats.MAXIMUM;
  return METRICS[name].unit === 'Count' ? cloudwatch.Stats.SUM : cloudwatch.Stats.AVERAGE;
}
