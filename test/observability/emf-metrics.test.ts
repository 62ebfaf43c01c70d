// The Powertools EMF adapter: what a function writes to stdout is one valid Embedded Metric Format line per set of
// dimensions, in the controller's namespace, with the names and units of lib/observability/metric-names.ts, and
// nothing at all when nothing was recorded.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EmfMetrics, functionMetrics } from '../../lib/observability/emf-metrics.js';
import { METRIC_NAMESPACE } from '../../lib/observability/metric-names.js';

interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [key: string]: unknown;
}

/** What `flush` writes to stdout and stderr; Powertools writes EMF through its own Console over process.stdout. */
function captured(flush: () => void): { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = (chunk: string | Uint8Array) => stdout.push(String(chunk)) > 0;
  process.stderr.write = (chunk: string | Uint8Array) => stderr.push(String(chunk)) > 0;
  try {
    flush();
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  }
  return { stdout: stdout.join('').split('\n').filter(Boolean), stderr };
}

/**
 * Parses a line and checks it against the EMF specification: a root `_aws` with a millisecond timestamp and
 * directives whose every dimension is a string member of the root and every metric a number (or numbers) there.
 */
function emf(line: string): EmfLine {
  const parsed = JSON.parse(line) as EmfLine;
  assert.equal(typeof parsed._aws.Timestamp, 'number');
  assert.ok(Math.abs(parsed._aws.Timestamp - Date.now()) < 60_000, 'a current timestamp in milliseconds');
  assert.ok(parsed._aws.CloudWatchMetrics.length > 0);
  for (const directive of parsed._aws.CloudWatchMetrics) {
    for (const key of directive.Dimensions.flat()) assert.equal(typeof parsed[key], 'string', `dimension ${key}`);
    for (const metric of directive.Metrics) {
      const value = parsed[metric.Name];
      const values = Array.isArray(value) ? (value as unknown[]) : [value];
      assert.ok(values.length > 0 && values.every((v) => typeof v === 'number'), `values of ${metric.Name}`);
    }
  }
  return parsed;
}

const summary = (line: EmfLine) => {
  const [directive] = line._aws.CloudWatchMetrics;
  return {
    namespace: directive?.Namespace,
    dimensions: directive?.Dimensions,
    metrics: Object.fromEntries(
      (directive?.Metrics ?? []).map(({ Name, Unit }) => [Name, { unit: Unit, value: line[Name] }]),
    ),
  };
};

/** Each line's summary by its `Reason` dimension (`-` for the line without one). */
const byReason = (lines: readonly EmfLine[]) =>
  Object.fromEntries(lines.map((line) => [typeof line.Reason === 'string' ? line.Reason : '-', summary(line)]));

const SAVED = [
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_DEV',
  'POWERTOOLS_METRICS_DISABLED',
  'AWS_LAMBDA_FUNCTION_NAME',
];
let saved: Record<string, string | undefined> = {};

// One suite around the file: its hooks then run around its own tests only, in a process it shares with other
// files (test/support/run.mjs).
describe('metrics in the embedded metric format', () => {
  beforeEach(() => {
    saved = Object.fromEntries(SAVED.map((name) => [name, process.env[name]]));
    for (const name of SAVED) delete process.env[name];
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  describe('EmfMetrics', () => {
    it('writes one EMF line with the metrics, their units and the service dimension', () => {
      const metrics = new EmfMetrics({ service: 'controller-verifier' });
      metrics.record('PromotionsStarted', 1);
      metrics.record('PromotionsStarted', 1);
      metrics.record('LeadTime', 1_800_000);
      metrics.record('OldestApprovalAge', 42);

      const { stdout, stderr } = captured(() => metrics.flush());

      assert.equal(stdout.length, 1);
      const line = emf(stdout[0] as string);
      assert.deepEqual(summary(line), {
        namespace: METRIC_NAMESPACE,
        dimensions: [['service']],
        metrics: {
          PromotionsStarted: { unit: 'Count', value: [1, 1] },
          LeadTime: { unit: 'Milliseconds', value: 1_800_000 },
          OldestApprovalAge: { unit: 'Seconds', value: 42 },
        },
      });
      assert.equal(line.service, 'controller-verifier');
      assert.deepEqual(stderr, [], 'no warning');
    });

    it('puts a metric with a Reason on a line of its own, so the other metrics are not split by it', () => {
      const metrics = new EmfMetrics({ service: 'controller-receiver' });
      metrics.record('EventsReceived', 1);
      metrics.record('EventsRejected', 1, { Reason: 'bad-signature' });
      metrics.record('EventsRejected', 1, { Reason: 'unknown-cluster' });
      metrics.record('EventsReceived', 1);

      const lines = captured(() => metrics.flush()).stdout.map(emf);

      assert.deepEqual(byReason(lines), {
        '-': {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service']],
          metrics: { EventsReceived: { unit: 'Count', value: [1, 1] } },
        },
        'bad-signature': {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service', 'Reason']],
          metrics: { EventsRejected: { unit: 'Count', value: 1 } },
        },
        'unknown-cluster': {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service', 'Reason']],
          metrics: { EventsRejected: { unit: 'Count', value: 1 } },
        },
      });
    });

    it('publishes a failed promotion by its failure kind, and in the total an alarm watches', () => {
      const metrics = new EmfMetrics({ service: 'controller-verifier' });
      metrics.record('PromotionsFailedForGood', 1, { Reason: 'Unauthorized' });
      metrics.record('PromotionsFailedRetrying', 1, { Reason: 'RateLimited' });
      metrics.record('PromotionsFailedForGood', 1, { Reason: 'NoMarkers' });

      const lines = captured(() => metrics.flush()).stdout.map(emf);

      assert.deepEqual(byReason(lines), {
        '-': {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service']],
          metrics: {
            PromotionsFailedForGood: { unit: 'Count', value: [1, 1] },
            PromotionsFailedRetrying: { unit: 'Count', value: 1 },
          },
        },
        Unauthorized: {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service', 'Reason']],
          metrics: { PromotionsFailedForGood: { unit: 'Count', value: 1 } },
        },
        RateLimited: {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service', 'Reason']],
          metrics: { PromotionsFailedRetrying: { unit: 'Count', value: 1 } },
        },
        NoMarkers: {
          namespace: METRIC_NAMESPACE,
          dimensions: [['service', 'Reason']],
          metrics: { PromotionsFailedForGood: { unit: 'Count', value: 1 } },
        },
      });
    });

    it('writes only what was recorded since the last flush, and nothing (not even a warning) when that is nothing', () => {
      const metrics = new EmfMetrics({ service: 'controller-poller' });
      assert.deepEqual(
        captured(() => metrics.flush()),
        { stdout: [], stderr: [] },
      );

      metrics.record('PollsEnqueued', 3);
      metrics.record('EventsRejected', 1, { Reason: 'not-an-event' });
      assert.equal(captured(() => metrics.flush()).stdout.length, 2);

      metrics.record('PollsEnqueued', 4);
      const [line, ...more] = captured(() => metrics.flush()).stdout.map(emf);
      assert.deepEqual(more, []);
      assert.deepEqual(line && summary(line).metrics, { PollsEnqueued: { unit: 'Count', value: 4 } });

      assert.deepEqual(
        captured(() => metrics.flush()),
        { stdout: [], stderr: [] },
      );
    });

    it('takes the namespace from POWERTOOLS_METRICS_NAMESPACE, as the construct sets it', () => {
      process.env.POWERTOOLS_METRICS_NAMESPACE = 'PipelineControllerStaging';
      const metrics = new EmfMetrics({ service: 'controller-verifier' });
      metrics.record('DeadLetters', 1);
      const [line] = captured(() => metrics.flush()).stdout.map(emf);
      assert.equal(line && summary(line).namespace, 'PipelineControllerStaging');
    });
  });

  describe('functionMetrics', () => {
    it("names the service after the Lambda function's own name, or the function's role outside Lambda", () => {
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'PipelineControllerStack-ControllerReceiverA1B2-xyz';
      const inLambda = functionMetrics('receiver');
      inLambda.record('EventsReceived', 1);
      const [line] = captured(() => inLambda.flush()).stdout.map(emf);
      assert.equal(line?.service, 'PipelineControllerStack-ControllerReceiverA1B2-xyz');

      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      const outside = functionMetrics('receiver');
      outside.record('EventsReceived', 1);
      const [local] = captured(() => outside.flush()).stdout.map(emf);
      assert.equal(local?.service, 'receiver');
    });
  });
});
