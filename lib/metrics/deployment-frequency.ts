// Deployment frequency: how often an environment took a new revision. A deployment is the environment first seen
// with every target Ready on a revision it did not run before (deploymentsOf), not the promotion: a pull request may
// wait days for its merge, and the first environment takes its revisions from CI, not from a promotion.
import { deploymentsOf, type HealthEvent } from './health-timeline.js';
import { DAY_MS, inWindow, type MetricsWindow } from './window.js';

export interface DeploymentFrequency {
  /** Deployments in the window. */
  deployments: number;
  /** Deployments per day over the window. */
  perDay: number;
  /** Promotions into the environment that succeeded in the window (a pull request opened, a notification sent). */
  promotions: number;
}

export function deploymentFrequency(timeline: readonly HealthEvent[], window: MetricsWindow): DeploymentFrequency {
  const deployments = deploymentsOf(timeline).filter((deployment) => inWindow(deployment.at, window)).length;
  const promotions = timeline.filter((event) => event.kind === 'promoted' && inWindow(event.at, window)).length;
  return { deployments, perDay: deployments / (window.lengthMs / DAY_MS), promotions };
}
