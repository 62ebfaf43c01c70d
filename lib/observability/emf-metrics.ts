// The MetricsSink of the Lambda functions: Powertools for AWS Lambda's Metrics, which writes CloudWatch Embedded
// Metric Format lines to stdout. CloudWatch Logs turns them into metrics as it ingests the function's log, so the
// functions need no cloudwatch:PutMetricData permission and make no request of their own.
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricsSink } from './metrics-port.js';
import {
  METRIC_NAMESPACE,
  METRICS,
  type MetricDefinition,
  type MetricDimensions,
  type MetricName,
  type MetricSource,
} from './metric-names.js';

export interface EmfMetricsOptions {
  /** The `service` dimension of every metric. */
  service: string;
  /** Default: POWERTOOLS_METRICS_NAMESPACE, which the construct sets, else METRIC_NAMESPACE. */
  namespace?: string;
}

export class EmfMetrics implements MetricsSink {
  readonly #service: string;
  readonly #namespace: string | undefined;
  /**
   * One Powertools instance per set of extra dimensions: every metric of an EMF line is published under all of the
   * line's dimension sets, so a metric split by `Reason` gets lines of its own rather than splitting the others.
   */
  readonly #byDimensions = new Map<string, Metrics>();

  constructor(options: EmfMetricsOptions) {
    this.#service = options.service;
    // Left undefined when the variable is set, so that Powertools reads it; a process without it (a test, the bench)
    // still gets the controller's namespace rather than Powertools' `default_namespace`.
    this.#namespace = options.namespace ?? (process.env.POWERTOOLS_METRICS_NAMESPACE ? undefined : METRIC_NAMESPACE);
  }

  record(name: MetricName, value: number, dimensions: MetricDimensions = {}): void {
    const definition: MetricDefinition = METRICS[name];
    this.#metricsWith(dimensions).addMetric(name, definition.unit, value);
    if (definition.withTotal && Object.values(dimensions).some((dimension) => dimension !== undefined)) {
      this.#metricsWith({}).addMetric(name, definition.unit, value);
    }
  }

  flush(): void {
    // Only instances holding something: Powertools warns on every flush that has nothing to publish.
    for (const metrics of this.#byDimensions.values()) {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  }

  #metricsWith(dimensions: MetricDimensions): Metrics {
    const entries = Object.entries(dimensions).filter((entry): entry is [string, string] => entry[1] !== undefined);
    const key = JSON.stringify(entries.sort(([a], [b]) => a.localeCompare(b)));
    let metrics = this.#byDimensions.get(key);
    if (!metrics) {
      metrics = new Metrics({
        namespace: this.#namespace,
        serviceName: this.#service,
        defaultDimensions: Object.fromEntries(entries),
      });
      this.#byDimensions.set(key, metrics);
    }
    return metrics;
  }
}

/**
 * The metrics of one of the controller's functions. Its `service` dimension is the function's own name, which Lambda
 * sets as AWS_LAMBDA_FUNCTION_NAME: two installations in one account and region never add up in one figure, and the
 * construct's dashboard finds them by the same name. Outside Lambda the source's name stands in.
 */
export function functionMetrics(source: MetricSource): EmfMetrics {
  return new EmfMetrics({ service: process.env.AWS_LAMBDA_FUNCTION_NAME || source });
}
