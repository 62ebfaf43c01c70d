// DORA metrics per pipeline from the recorded audit trail (docs/cli.md, "Metrics").
export type { ChangeFailureRate } from './change-failure-rate.js';
export type { DeploymentFrequency } from './deployment-frequency.js';
export type { LeadTime } from './lead-time.js';
export {
  pipelineMetrics,
  type EnvironmentMetrics,
  type MetricsInput,
  type PipelineMetrics,
} from './pipeline-metrics.js';
export type { TimeToRestore } from './time-to-restore.js';
export { DAY_MS, DEFAULT_FAILURE_WINDOW_MS, DEFAULT_WINDOW_MS, windowStart, type MetricsWindow } from './window.js';
