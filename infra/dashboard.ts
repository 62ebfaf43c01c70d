// The controller's CloudWatch dashboard: the metrics the functions publish through Powertools' Embedded Metric Format
// (built by infra/metrics.ts from lib/observability/metric-names.ts, so a graph cannot name a metric nobody emits),
// beside what AWS publishes itself: the dead-letter queue's depth, the queue's oldest message, each function's errors
// and throttles. docs/observability.md describes each graph.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { EVENT_REJECTIONS } from '../lib/http/event-outcome.js';
import type { MetricName, MetricSource } from '../lib/observability/metric-names.js';
import { PROMOTION_FAILURE_KINDS } from '../lib/promotion/failure-kind.js';
import { DEFAULT_METRIC_PERIOD, type ControllerMetrics } from './metrics.js';

/** One point per five minutes: the poller's default rhythm, so each approvals point is one poller run. */
export const DASHBOARD_PERIOD = DEFAULT_METRIC_PERIOD;

export interface DashboardInput {
  functions: Record<MetricSource, lambda.IFunction>;
  metrics: ControllerMetrics;
}

const WIDTH = 8;
const HEIGHT = 6;

export function addDashboard(scope: Construct, input: DashboardInput): cloudwatch.Dashboard {
  const { functions, metrics } = input;
  const emitted = (name: MetricName, statistic: string, label: string) =>
    metrics.metric(name, { statistic, label, period: DASHBOARD_PERIOD });
  const sum = (name: MetricName, label: string) => emitted(name, cloudwatch.Stats.SUM, label);
  const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
    new cloudwatch.GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT });
  const names = Object.keys(functions) as MetricSource[];

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    defaultInterval: Duration.days(1),
    periodOverride: cloudwatch.PeriodOverride.INHERIT,
  });
  dashboard.addWidgets(
    graph('Promotions', [
      sum('PromotionsStarted', 'started'),
      sum('PromotionsSucceeded', 'succeeded'),
      sum('PromotionsFailedRetrying', 'failed, retrying'),
      sum('PromotionsFailedForGood', 'failed for good'),
    ]),
    graph(
      'Approvals',
      [emitted('ApprovalsWaiting', cloudwatch.Stats.MAXIMUM, 'waiting'), sum('ApprovalsRequested', 'requested')],
      [emitted('OldestApprovalAge', cloudwatch.Stats.MAXIMUM, 'oldest waiting (s)')],
    ),
    graph('Lead time, first to last environment (ms)', [
      emitted('LeadTime', cloudwatch.Stats.p(50), 'median'),
      emitted('LeadTime', cloudwatch.Stats.p(90), 'p90'),
      emitted('LeadTime', cloudwatch.Stats.SAMPLE_COUNT, 'revisions'),
    ]),
  );
  dashboard.addWidgets(
    graph('Flux events', [
      sum('EventsReceived', 'received'),
      sum('EventsEnqueued', 'enqueued'),
      sum('EventsIgnored', 'ignored (not watched)'),
      sum('EventsFailed', 'failed (500)'),
      sum('EventsVerified', 'verified'),
    ]),
    graph(
      'Rejected events, by reason',
      EVENT_REJECTIONS.map((reason) => metrics.eventsRejected(reason, { period: DASHBOARD_PERIOD })),
    ),
    graph(
      'Polls (ms)',
      [
        emitted('PollDuration', cloudwatch.Stats.MAXIMUM, 'poller run, max'),
        emitted('ClusterPollDuration', cloudwatch.Stats.p(90), 'cluster poll, p90'),
        emitted('ClusterPollDuration', cloudwatch.Stats.MAXIMUM, 'cluster poll, max'),
      ],
      [emitted('PollsEnqueued', cloudwatch.Stats.MAXIMUM, 'polls enqueued')],
    ),
  );
  const byKind = (name: MetricName) =>
    PROMOTION_FAILURE_KINDS.map((kind) => metrics.byReason(name, kind, { period: DASHBOARD_PERIOD }));
  dashboard.addWidgets(
    graph('Promotions failed for good, by failure kind', byKind('PromotionsFailedForGood')),
    graph('Promotion attempts failed and retried, by failure kind', byKind('PromotionsFailedRetrying')),
  );
  dashboard.addWidgets(
    graph(
      'Queue and dead letters',
      [
        sum('MessagesFailed', 'messages failed (retried)'),
        sum('DeadLetters', 'dead-lettered by the verifier'),
        metrics.deadLetters({ period: DASHBOARD_PERIOD, label: 'in the dead-letter queue' }),
      ],
      [metrics.oldestMessageAge({ period: DASHBOARD_PERIOD, label: 'oldest message in the queue (s)' })],
    ),
    graph(
      'Function errors',
      names.map((name) =>
        functions[name].metricErrors({ period: DASHBOARD_PERIOD, statistic: cloudwatch.Stats.SUM, label: name }),
      ),
    ),
    graph(
      'Function throttles',
      names.map((name) =>
        functions[name].metricThrottles({ period: DASHBOARD_PERIOD, statistic: cloudwatch.Stats.SUM, label: name }),
      ),
    ),
  );
  return dashboard;
}
