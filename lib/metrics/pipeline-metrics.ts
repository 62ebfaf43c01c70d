// The DORA metrics of one pipeline, computed from its audit trail alone: the one entry point `pipelinectl metrics`
// and the dashboard call. Pure: the same entries, environments and window always give the same numbers.
import type { AuditEntry } from '../store/port.js';
import { changeFailureRate, type ChangeFailureRate } from './change-failure-rate.js';
import { deploymentFrequency, type DeploymentFrequency } from './deployment-frequency.js';
import { healthTimelines } from './health-timeline.js';
import { leadTime, type LeadTime } from './lead-time.js';
import { timeToRestore, type TimeToRestore } from './time-to-restore.js';
import type { MetricsWindow } from './window.js';

export interface MetricsInput {
  /** The pipeline's environments in promotion order. */
  environments: readonly string[];
  /** Its audit entries, in any order; they should reach back before the window (lead times start earlier). */
  entries: readonly AuditEntry[];
  window: MetricsWindow;
  failureWindowMs: number;
}

export interface EnvironmentMetrics {
  env: string;
  frequency: DeploymentFrequency;
  changeFailureRate: ChangeFailureRate;
  timeToRestore: TimeToRestore;
}

export interface PipelineMetrics {
  /** From the first environment to the last. */
  leadTime: LeadTime;
  /** In promotion order; the last one is what DORA calls production. */
  environments: EnvironmentMetrics[];
}

export function pipelineMetrics(input: MetricsInput): PipelineMetrics {
  const timelines = healthTimelines(input.entries);
  const timelineOf = (env: string | undefined) => (env === undefined ? [] : (timelines.get(env) ?? []));
  const { environments, window } = input;
  return {
    leadTime: leadTime(timelineOf(environments[0]), timelineOf(environments.at(-1)), window),
    environments: environments.map((env) => ({
      env,
      frequency: deploymentFrequency(timelineOf(env), window),
      changeFailureRate: changeFailureRate(timelineOf(env), window, input.failureWindowMs),
      timeToRestore: timeToRestore(timelineOf(env), window),
    })),
  };
}
