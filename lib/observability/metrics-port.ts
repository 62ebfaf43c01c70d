// The MetricsSink port: how the functions' emitters hand their figures to CloudWatch without knowing how they get
// there. Adapters: EmfMetrics (Powertools' Embedded Metric Format on stdout, in the Lambda functions) and
// MemoryMetrics (kept in memory, for tests and for a local mode that wants to show them).
import type { MetricDimensions, MetricName } from './metric-names.js';

export interface MetricsSink {
  /**
   * One data point of `name`, in the metric's unit (metric-names.ts): 1 for something that happened once, a
   * duration, a gauge's current value. `dimensions` only for a metric that has one.
   */
  record(name: MetricName, value: number, dimensions?: MetricDimensions): void;
  /** Writes out what was recorded since the last flush: once per invocation, at its end. */
  flush(): void;
}
