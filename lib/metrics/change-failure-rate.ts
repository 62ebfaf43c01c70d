// Change failure rate, as DORA means it: the share of an environment's deployments that degraded it and needed
// remediation. A deployment of revision r at time t failed when, within the failure window W after it
// (t < event ≤ t + W), the environment regressed on r (a target Failed running r) or a rollback of r was started.
// Another revision following it is no failure: a team that ships every hour ships healthy changes too. A regression
// whose failed targets ran no single known revision is blamed on the deployment the environment ran then. A
// deployment whose failure window is still open and that has not failed yet is pending, and left out of the rate
// until its window closes.
import { deploymentsOf, type Deployment, type HealthEvent } from './health-timeline.js';
import { inWindow, type MetricsWindow } from './window.js';

export interface ChangeFailureRate {
  /** Deployments in the window. */
  deployments: number;
  failed: number;
  /** Deployments whose failure window is still open and that have not failed yet. */
  pending: number;
  /** failed / (deployments − pending); null when no deployment is settled. */
  rate: number | null;
}

export function changeFailureRate(
  timeline: readonly HealthEvent[],
  window: MetricsWindow,
  failureWindowMs: number,
): ChangeFailureRate {
  const all = deploymentsOf(timeline);
  const failures = new Set<Deployment>();
  for (const event of timeline) {
    if (event.kind !== 'regressed' && event.kind !== 'rolled-back') continue;
    const blamed = blamedDeployment(all, event);
    if (blamed && event.at <= blamed.at + failureWindowMs) failures.add(blamed);
  }
  const deployments = all.filter((deployment) => inWindow(deployment.at, window));
  let failed = 0;
  let pending = 0;
  for (const deployment of deployments) {
    if (failures.has(deployment)) failed += 1;
    else if (deployment.at + failureWindowMs > window.end) pending += 1;
  }
  const settled = deployments.length - pending;
  return { deployments: deployments.length, failed, pending, rate: settled === 0 ? null : failed / settled };
}

/**
 * The deployment a regression or a rollback is about: the latest one before it of the revision it names (a revision
 * deployed again, after a rollback to it, is a new deployment), or the latest one of any revision when it names none.
 */
function blamedDeployment(deployments: readonly Deployment[], event: HealthEvent): Deployment | undefined {
  return deployments.findLast(
    (deployment) =>
      deployment.at < event.at && (event.revision === undefined || deployment.revision === event.revision),
  );
}
