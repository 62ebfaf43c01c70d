// Reading targets from their leaf clusters and recording what was found. The status is computed from the object
// the cluster serves (never from the event), written only when it changed, and a target that has not settled is
// scheduled for another look.
import { ClusterAccessError, type ClusterErrorKind } from '../clusters/port.js';
import { isSettled, readTargetStatus, unreadableTarget, type TargetReason, type TargetStatus } from '../flux/index.js';
import { redact } from '../logging/redaction.js';
import { appKeyString, objectKeyString, type AppKey } from '../pipeline/model.js';
import { settingsOf, type VerifierDeps } from './deps.js';

export interface Observation {
  app: AppKey;
  status: TargetStatus;
  /** The recorded status changed with this read (a soak it belongs to may have started or restarted). */
  changed: boolean;
  /** The read failed in a way that trying again soon may fix: the message should be retried. */
  retryableFailure?: ClusterAccessError;
}

/** What an app object (or its absence) says about the target; the cluster's message redacted. */
export function statusOf(app: AppKey, object: Record<string, unknown> | undefined): TargetStatus {
  if (object === undefined) {
    return unreadableTarget(
      'NotFound',
      `${app.kind} ${app.namespace}/${app.name} not found on cluster ${objectKeyString(app.cluster)}`,
    );
  }
  return redactedMessage(readTargetStatus(object));
}

function redactedMessage(status: TargetStatus): TargetStatus {
  return { ...status, message: redact(status.message) };
}

/** The reason of a target that could not be read, by what went wrong with the cluster. */
const ACCESS_FAILURE_REASONS: Record<ClusterErrorKind, TargetReason> = {
  unreachable: 'Unreachable',
  timeout: 'Timeout',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  'server-error': 'ServerError',
  'bad-config': 'ClusterNotConfigured',
  'too-large': 'AnswerTooLarge',
};

/** What a failed read says about the target, redacted. */
export function failureStatus(error: unknown): TargetStatus {
  if (error instanceof ClusterAccessError) return unreadableTarget(ACCESS_FAILURE_REASONS[error.kind], error.message);
  const detail = error instanceof Error ? error.message : 'unknown error';
  return unreadableTarget('ReadFailed', redact(`reading the target failed: ${detail}`));
}

/** Reads one app and records its status. Never throws for a cluster fault: the fault is the observation. */
export async function observeApp(app: AppKey, deps: VerifierDeps): Promise<Observation> {
  const observedAt = deps.now();
  let status: TargetStatus;
  try {
    status = statusOf(app, await deps.clusters.getApp(app));
  } catch (error) {
    const status = failureStatus(error);
    const changed = await record(app, status, observedAt, deps);
    // A poll digest vouches for what the pair's objects said when it was written; a failed read recorded since is
    // not in them, and an unchanged LIST would leave it recorded. A read that succeeded needs no such care: what it
    // recorded differently came from an object that changed, and so does the LIST (docs/architecture.md).
    if (changed) await deps.store.invalidatePollDigest(app.cluster, app.kind);
    deps.logger.warn('cannot read target', {
      app: appKeyString(app),
      phase: status.phase,
      reason: status.reason,
      message: status.message,
    });
    // Anything but a ClusterAccessError is unexpected, and unexpected faults are worth another try.
    const failure =
      error instanceof ClusterAccessError
        ? error
        : new ClusterAccessError('server-error', status.message, undefined, { cause: error });
    return { app, status, changed, ...(failure.retryable ? { retryableFailure: failure } : {}) };
  }
  const changed = await record(app, status, observedAt, deps);
  return { app, status, changed };
}

/** The log line of a target whose recorded status changed, however it was read (an event's check or a poll). */
export function logStatusChanged(deps: Pick<VerifierDeps, 'logger'>, app: AppKey, status: TargetStatus): void {
  deps.logger.info('target status changed', { app: appKeyString(app), ...status });
}

/**
 * Records a status read at `observedAt` (the store writes only if it changed); true when it changed. A changed
 * status is then forgotten in its pair's poll summary, after the write, so no poll trusts an entry this write made
 * untrue (a poll that read the summary before cannot write it back: docs/architecture.md, "The poll summary").
 *
 * A status this call created may have been written over by the first poll of its pair, whose batch writes have no
 * condition, with an older observation. That poll notices when the forget came before its summary write, and polls
 * again; when it came after, the poll's write came before this read of the item, which records the status again.
 */
export async function record(
  app: AppKey,
  status: TargetStatus,
  observedAt: Date,
  deps: VerifierDeps,
): Promise<boolean> {
  const { changed, created } = await deps.store.recordTargetStatus(app, status, observedAt);
  if (changed) {
    logStatusChanged(deps, app, status);
    await deps.store.forgetPolledStatus?.(app);
  }
  if (created) {
    const stored = await deps.store.getTargetStatus(app);
    if (stored && stored.observedAt < observedAt.toISOString()) {
      deps.logger.info('a first poll wrote an older status over this one; recording it again', {
        app: appKeyString(app),
      });
      await record(app, status, observedAt, deps);
    }
  }
  return changed;
}

/**
 * A target still progressing is looked at again after a growing delay, a bounded number of times; after that the
 * scheduled poll is the backstop. Returns whether a re-check was scheduled.
 */
export async function scheduleRecheck(
  observation: Pick<Observation, 'app' | 'status'>,
  attempt: number,
  deps: VerifierDeps,
): Promise<boolean> {
  if (isSettled(observation.status)) return false;
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
