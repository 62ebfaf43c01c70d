// The construct's CloudWatch dashboard and the functions' metrics settings: every metric the functions
// emit is graphed under the namespace and `service` they emit it with, next to the DLQ's depth and the functions'
// errors and throttles; the dashboard can be left out; EMF needs no IAM beyond writing the function's own log.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_REJECTIONS } from '../../lib/http/event-outcome.js';
import { METRIC_NAMES, METRIC_NAMESPACE, METRICS, type MetricSource } from '../../lib/observability/metric-names.js';
import { PROMOTION_FAILURE_KINDS } from '../../lib/promotion/failure-kind.js';
import { asList, render, resources, statementsOfRole, synth, synthConstruct } from './synth.js';

const base = synth();
const { template } = base;
const controller = base.stack.controller;
const functionIds: Record<MetricSource, string> = {
  receiver: base.logicalId(controller.receiver),
  verifier: base.logicalId(controller.verifier),
  poller: base.logicalId(controller.poller),
};

/** A graphed metric as the dashboard's JSON lists it: namespace, name, then dimension name/value pairs. */
interface Graphed {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  stat: string | undefined;
}

function graphedMetrics(body: unknown): Graphed[] {
  const parsed = JSON.parse(render(body)) as {
    widgets: { properties: { metrics?: (string | { stat?: string })[][] } }[];
  };
  return parsed.widgets.flatMap((widget) =>
    (widget.properties.metrics ?? []).map((row) => {
      const options = typeof row.at(-1) === 'object' ? (row.at(-1) as { stat?: string }) : {};
      const [namespace, name, ...pairs] = row.filter((cell): cell is string => typeof cell === 'string');
      const dimensions: Record<string, string> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i] as string] = pairs[i + 1] as string;
      return { namespace: namespace ?? '', name: name ?? '', dimensions, stat: options.stat };
    }),
  );
}

function dashboardBodies(t: typeof template): unknown[] {
  return Object.values(resources(t, 'AWS::CloudWatch::Dashboard')).map(
    (dashboard) => dashboard.Properties.DashboardBody,
  );
}

describe('dashboard', () => {
  const [body] = dashboardBodies(template);
  const graphed = body === undefined ? [] : graphedMetrics(body);

  it('is created by default, once', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    assert.ok(controller.dashboard, 'the construct exposes it');
  });

  it('graphs every metric the functions emit, under their namespace and the emitting function as service', () => {
    const ours = graphed.filter((metric) => metric.namespace === METRIC_NAMESPACE);
    assert.deepEqual([...new Set(ours.map((metric) => metric.name))].sort(), [...METRIC_NAMES].sort());
    for (const metric of ours) {
      const source = METRICS[metric.name as keyof typeof METRICS].source;
      assert.equal(metric.dimensions.service, `<${functionIds[source]}>`, `${metric.name} comes from the ${source}`);
    }
  });

  it('splits rejected events by the receiver’s named reasons and failed promotions by their kinds, nothing else', () => {
    const reasons = graphed
      .filter((metric) => metric.namespace === METRIC_NAMESPACE && metric.dimensions.Reason !== undefined)
      .map((metric) => `${metric.name} ${metric.dimensions.Reason}`);
    assert.deepEqual(
      reasons.sort(),
      [
        ...EVENT_REJECTIONS.map((reason) => `EventsRejected ${reason}`),
        ...PROMOTION_FAILURE_KINDS.map((kind) => `PromotionsFailedForGood ${kind}`),
        ...PROMOTION_FAILURE_KINDS.map((kind) => `PromotionsFailedRetrying ${kind}`),
      ].sort(),
    );
  });

  it("shows the dead-letter queue's depth, the queue's oldest message and each function's errors and throttles", () => {
    const ids = {
      queue: base.logicalId(controller.queue),
      deadLetterQueue: base.logicalId(controller.deadLetterQueue),
    };
    const has = (namespace: string, name: string, dimension: string, id: string) =>
      graphed.some(
        (metric) => metric.namespace === namespace && metric.name === name && metric.dimensions[dimension] === id,
      );
    assert.ok(has('AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', `<${ids.deadLetterQueue}.QueueName>`));
    assert.ok(has('AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', `<${ids.queue}.QueueName>`));
    for (const id of Object.values(functionIds)) {
      assert.ok(has('AWS/Lambda', 'Errors', 'FunctionName', `<${id}>`), `errors of ${id}`);
      assert.ok(has('AWS/Lambda', 'Throttles', 'FunctionName', `<${id}>`), `throttles of ${id}`);
    }
  });

  it('reads counts as sums and gauges as maxima', () => {
    const statsOf = (name: string) => new Set(graphed.filter((metric) => metric.name === name).map((m) => m.stat));
    assert.deepEqual(statsOf('PromotionsStarted'), new Set(['Sum']));
    assert.deepEqual(statsOf('ApprovalsWaiting'), new Set(['Maximum']));
    assert.deepEqual(statsOf('OldestApprovalAge'), new Set(['Maximum']));
    assert.deepEqual(statsOf('LeadTime'), new Set(['p50', 'p90', 'SampleCount']));
  });

  it('is left out with dashboard: false; the functions still publish their metrics', () => {
    const without = synthConstruct(() => ({ dashboard: false }));
    without.template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    assert.equal(without.controller.dashboard, undefined);
    for (const fn of [without.controller.receiver, without.controller.verifier, without.controller.poller]) {
      const variables = (
        resources(without.template, 'AWS::Lambda::Function')[without.logicalId(fn)]?.Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      assert.equal(variables.POWERTOOLS_METRICS_NAMESPACE, METRIC_NAMESPACE);
    }
  });
});

describe('metrics settings of the functions', () => {
  it('every function has the namespace Powertools reads, and no service name (its own function name is used)', () => {
    for (const id of Object.values(functionIds)) {
      const variables = (
        resources(template, 'AWS::Lambda::Function')[id]?.Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      assert.equal(variables.POWERTOOLS_METRICS_NAMESPACE, METRIC_NAMESPACE, id);
      assert.equal(variables.POWERTOOLS_SERVICE_NAME, undefined, id);
    }
  });

  it('needs no CloudWatch permission: EMF lines reach CloudWatch through the log group the function may write', () => {
    for (const name of ['receiver', 'verifier', 'poller'] as const) {
      const statements = statementsOfRole(template, base.logicalId(controller.roles[name]));
      const actions = statements.flatMap((statement) => asList(statement.Action));
      assert.ok(!actions.some((action) => action.startsWith('cloudwatch:')), `${name}: ${actions.join(', ')}`);
      assert.ok(actions.includes('logs:PutLogEvents'), `${name} writes its log`);
    }
  });
});
