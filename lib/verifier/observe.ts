// Reading targets from their leaf clusters and recording what was found. The status is computed from the object
// the cluster serves (never from the event), written only when it changed, and a target that has not settled is
// scheduled for another look.
import { ClusterAccessError } from '../clusters/port.js';
import { readTargetStatus, unreadableTarget, type TargetStatus } from '../flux/index.js';
import { appKeyString, objectKeyString, type AppKey } from '../pipeline/model.js';
import { settingsOf, type VerifierDeps } from './deps.js';

export interface Observation {
  app: AppKey;
  status: TargetStatus;
  /** The read failed in a way that trying again soon may fix: the message should be retried. */
  retryableFailure?: ClusterAccessError;
}

/** What an app object (or its absence, or a read failure) says about the target. */
export function statusOf(app: AppKey, object: Record<string, unknown> | undefined): TargetStatus {
  if (object === undefined) {
    return unreadableTarget(
      `${app.kind} ${app.namespace}/${app.name} not found on cluster ${objectKeyString(app.cluster)}`,
    );
  }
  return readTargetStatus(object);
}

export function failureStatus(error: unknown): TargetStatus {
  if (error instanceof ClusterAccessError) return unreadableTarget(error.message);
  return unreadableTarget(`reading the target failed: ${error instanceof Error ? error.message : 'unknown error'}`);
}

/** Reads one app and records its status. Never throws for a cluster fault: the fault is the observation. */
export async function observeApp(app: AppKey, deps: VerifierDeps): Promise<Observation> {
  const observedAt = deps.now();
  let status: TargetStatus;
  try {
    status = statusOf(app, await deps.clusters.getApp(app));
  } catch (error) {
    const status = failureStatus(error);
    await record(app, status, observedAt, deps);
    deps.logger.warn('cannot read target', { app: appKeyString(app), reason: status.reason });
    const retryable = error instanceof ClusterAccessError ? error.retryable : true;
    const failure =
      error instanceof ClusterAccessError
        ? error
        : new ClusterAccessError('server-error', status.reason, undefined, { cause: error });
    return { app, status, ...(retryable ? { retryableFailure: failure } : {}) };
  }
  await record(app, status, observedAt, deps);
  return { app, status };
}

/** Records a status read at `observedAt`; the store writes only if it changed. */
/** Records what was seen; true when it differs from what was recorded before. */
export async function record(
  app: AppKey,
  status: TargetStatus,
  observedAt: Date,
  deps: VerifierDeps,
): Promise<boolean> {
  const { changed } = await deps.store.recordTargetStatus(app, status, observedAt);
  if (changed) deps.logger.info('target status changed', { app: appKeyString(app), ...status });
  return changed;
}

/**
 * A target still reconciling is looked at again after a growing delay, a bounded number of times; after that the
 * scheduled poll is the backstop. Returns whether a re-check was scheduled.
 */
export async function scheduleRecheck(observation: Observation, attempt: number, deps: VerifierDeps): Promise<boolean> {
  if (observation.status.settled) return false;
  const delays = settingsOf(deps).recheckDelaysSeconds;
  const delaySeconds = delays[attempt];
  if (delaySeconds === undefined) {
    deps.logger.info('target still not settled; leaving it to the poll', {
      app: appKeyString(observation.app),
      attempt,
    });
    return false;
  }
  await deps.queue.send(
    { type: 'check-app', app: observation.app, cause: 'recheck', attempt: attempt + 1 },
    { delaySeconds },
  );
  return true;
}
