// A MetricsSink that keeps every data point in memory: what the tests read the emitters' figures from, and what a
// local mode that wants to show the figures would pass (it has no CloudWatch to send them to).
import type { MetricsSink } from './metrics-port.js';
import type { MetricDimensions, MetricName } from './metric-names.js';

export interface MetricPoint {
  name: MetricName;
  value: number;
  dimensions: MetricDimensions;
}

export class MemoryMetrics implements MetricsSink {
  /** Recorded and not yet flushed. */
  pending: MetricPoint[] = [];
  /** What each flush wrote, oldest first. */
  readonly flushed: MetricPoint[][] = [];

  record(name: MetricName, value: number, dimensions: MetricDimensions = {}): void {
    this.pending.push({ name, value, dimensions: { ...dimensions } });
  }

  flush(): void {
    if (this.pending.length > 0) this.flushed.push(this.pending);
    this.pending = [];
  }

  /** Every data point, flushed or not, oldest first. */
  points(): MetricPoint[] {
    return [...this.flushed.flat(), ...this.pending];
  }

  /** The values recorded for `name` (with exactly these dimensions, when given). */
  values(name: MetricName, dimensions?: MetricDimensions): number[] {
    return this.points()
      .filter((point) => point.name === name)
      .filter((point) => dimensions === undefined || sameDimensions(point.dimensions, dimensions))
      .map((point) => point.value);
  }

  /** The sum of those values: how many times it happened, for a count. */
  total(name: MetricName, dimensions?: MetricDimensions): number {
    return this.values(name, dimensions).reduce((sum, value) => sum + value, 0);
  }
}

function sameDimensions(a: MetricDimensions, b: MetricDimensions): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof MetricDimensions)[]);
  return [...keys].every((key) => a[key] === b[key]);
}
