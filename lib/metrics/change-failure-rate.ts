// Change failure rate: the share of an environment's deployments that failed. A deployment at time t failed when,
// within the failure window W after t (t < event ≤ t + W), the environment regressed (a target Failed) before it took
// another revision, or it took another revision (a fix rolled forward, or a rollback) or a promotion of another
// revision into it succeeded (a fix on its way). A deployment whose failure window is still open and that has not
// failed yet is pending, and left out of the rate until its window closes.
import { deploymentsOf, type HealthEvent } from './health-timeline.js';
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
  const deployments = deploymentsOf(timeline).filter((deployment) => inWindow(deployment.at, window));
  let failed = 0;
  let pending = 0;
  for (const deployment of deployments) {
    const until = deployment.at + failureWindowMs;
    const failure = timeline.find(
      (event) =>
        event.at > deployment.at &&
        event.at <= until &&
        (event.kind === 'regressed' || (event.revision !== undefined && event.revision !== deployment.revision)),
    );
    // A regression that comes after another revision arrived is that revision's; `find` meets the arrival first.
    if (failure) failed += 1;
    else if (until > window.end) pending += 1;
  }
  const settled = deployments.length - pending;
  return { deployments: deployments.length, failed, pending, rate: settled === 0 ? null : failed / settled };
}
