// What we know about one target after reading its app object from the leaf cluster: a named phase with a machine
// reason and a line for a person, the way helm-controller classifies a release (a state and a reason, never prose
// to be parsed). The phases, reasons and the rules behind them are listed in docs/flux-status.md.
import { sameRevision } from './revision.js';

/**
 * - `Ready`: runs `revision` and is healthy by Flux's own rules; Flux is done with the current spec.
 * - `Progressing`: Flux is still working on the current spec; what it reports is about to change, look again soon.
 * - `Failed`: Flux is done with the current spec and it is not healthy (failed, stalled, rolled back, tests failed).
 * - `Suspended`: `spec.suspend` is true: Flux does not reconcile it, so it will not pick up a promotion.
 * - `Absent`: the app object does not exist on its cluster.
 * - `Unreadable`: the cluster or the object could not be read; nothing else is known.
 */
export const TARGET_PHASES = ['Ready', 'Progressing', 'Failed', 'Suspended', 'Absent', 'Unreadable'] as const;
export type TargetPhase = (typeof TARGET_PHASES)[number];

/** Why a target is in its phase. Each reason is one early return of a reader (lib/flux) or of the verifier's read. */
export type TargetReason =
  // Ready
  /** A HelmRelease's newest Helm release is deployed and every check passed. */
  | 'Deployed'
  /** A Kustomization's last applied source revision is the one attempted and Ready is True. */
  | 'Applied'
  /** A source object (ImagePolicy, OCIRepository) resolved its newest version and Ready is True. */
  | 'Resolved'
  // Progressing (or, for the first few, Failed when Flux gave up: the phase says which)
  /** No status or no conditions written yet. */
  | 'NoStatus'
  /** `metadata.generation` is ahead of `status.observedGeneration`. */
  | 'GenerationNotObserved'
  /** The Reconciling condition is True. */
  | 'Reconciling'
  /** No Ready condition yet. */
  | 'ReadyMissing'
  /** Ready was written for an older generation. */
  | 'ReadyOutdated'
  /** Ready is Unknown (or an odd value). */
  | 'ReadyUnknown'
  /** The newest Helm release is still pending (install, upgrade, rollback) or uninstalling. */
  | 'ReleasePending'
  /** Flux last attempted another revision than the one running: it has started on a newer one. */
  | 'AttemptPending'
  /** Flux last attempted other Helm values than the deployed release's. */
  | 'ConfigPending'
  /** Helm tests are enabled and have not run yet. */
  | 'TestsPending'
  /** Ready is False because a `dependsOn` object is not ready; the controller retries it by itself. */
  | 'DependencyNotReady'
  /** Ready is False because the source artifact (chart, Git or OCI artifact) is not available yet; retried. */
  | 'SourceNotReady'
  /** Ready is False because a newer revision cut the running health check short: the controller moves on to it. */
  | 'HealthCheckCanceled'
  // Failed
  /** The Stalled condition is True: Flux gave up on this spec. */
  | 'Stalled'
  /** Ready is False for the current spec. */
  | 'ReconciliationFailed'
  /** Helm remediation rolled the release back. */
  | 'RolledBack'
  /** Helm remediation uninstalled the release. */
  | 'Uninstalled'
  /** Ready is True with a reason that does not mean the last action succeeded. */
  | 'UnexpectedReadyReason'
  /** A HelmRelease with no release in its history. */
  | 'NoRelease'
  /** The newest Helm release failed or was superseded. */
  | 'ReleaseFailed'
  /** Helm tests are enabled and failed. */
  | 'TestsFailed'
  /** Ready, yet no revision was ever applied. */
  | 'NoRevision'
  // Suspended
  | 'Suspended'
  // Absent
  | 'NotFound'
  // Unreadable
  /** Connection refused, DNS, TLS: the cluster could not be reached. */
  | 'Unreachable'
  /** The cluster did not answer in time. */
  | 'Timeout'
  /** 401: the credentials are wrong or expired. */
  | 'Unauthorized'
  /** 403: the credentials may not read the object. */
  | 'Forbidden'
  /** 5xx or an unexpected answer from the API server. */
  | 'ServerError'
  /** The cluster is not registered, or its Secret holds no usable kubeconfig. */
  | 'ClusterNotConfigured'
  /** The cluster's answer is over the reader's bounds: too many pages or objects in a LIST, or too many bytes. */
  | 'AnswerTooLarge'
  /** The object is of a kind the controller does not read. */
  | 'UnsupportedKind'
  /** The object is of an API version the controller does not read. */
  | 'UnsupportedVersion'
  /** The object lacks a field the rules need, or has one of the wrong type. */
  | 'InvalidObject'
  /**
   * A revision the object reports is not a version of its kind (docs/flux-status.md, "Revisions"): `*`, `latest`
   * for a chart, a newline, a megabyte. Never a candidate; the message shows the value escaped and cut short.
   */
  | 'InvalidRevision'
  /** Reading failed in a way nothing above describes. */
  | 'ReadFailed'
  /** Recorded before targets had phases; the next read of the target replaces it. */
  | 'Unclassified';

export interface TargetStatus {
  phase: TargetPhase;
  reason: TargetReason;
  /** One line for a person: what the reason means for this object, e.g. the failing condition's message. */
  message: string;
  /**
   * The revision the target runs now: the chart version of the deployed Helm release for a HelmRelease, the
   * source revision of the last successful apply for a Kustomization. For a pipeline's source, the newest version it
   * resolved: the selected tag of an ImagePolicy, the artifact revision of an OCIRepository. Absent when nothing is
   * deployed (or resolved) or nothing could be read.
   */
  revision?: string;
  /**
   * Failed only: the revision Flux tried and failed on, when it is not `revision` (helm-controller rolled back to
   * `revision` after the upgrade to it failed, or a Kustomization could not apply it): what a rollback is about.
   */
  failedRevision?: string;
}

/** The status of a target whose object could not be read, or was not there. */
export function unreadableTarget(reason: TargetReason, message: string): TargetStatus {
  return { phase: reason === 'NotFound' ? 'Absent' : 'Unreadable', reason, message };
}

/** Whether the status is known: the object was read (it may still be failing or progressing). */
export function wasRead(status: TargetStatus): boolean {
  return status.phase !== 'Absent' && status.phase !== 'Unreadable';
}

/** Whether Flux is done with the current spec: a target still progressing is checked again shortly. */
export function isSettled(status: TargetStatus): boolean {
  return status.phase !== 'Progressing';
}

/** What a reader found wrong with an object it could read. */
export interface Problem {
  reason: TargetReason;
  message: string;
}

export interface ReadObject {
  revision: string | undefined;
  /** The first thing wrong; undefined when the object is healthy on `revision`. */
  problem: Problem | undefined;
  /** Flux is done with the current spec (meaningful only with a problem: a healthy object is done). */
  settled: boolean;
  /** The status when nothing is wrong. */
  ready: { reason: Extract<TargetReason, 'Deployed' | 'Applied' | 'Resolved'>; message: string };
  /** The revision Flux last attempted (`status.lastAttemptedRevision`), where the kind has one. */
  attempted?: string | undefined;
}

/** The phase of an object that was read: Ready without a problem, else Progressing until Flux is done, then Failed. */
export function readObjectStatus({ revision, problem, settled, ready, attempted }: ReadObject): TargetStatus {
  let status: TargetStatus;
  if (problem === undefined) status = { phase: 'Ready', reason: ready.reason, message: ready.message };
  else status = { phase: settled ? 'Failed' : 'Progressing', reason: problem.reason, message: problem.message };
  if (revision !== undefined) status = { ...status, revision };
  const failedOnAnother = attempted !== undefined && attempted !== '' && !sameRevision(attempted, revision ?? '');
  return status.phase === 'Failed' && failedOnAnother ? { ...status, failedRevision: attempted } : status;
}

/**
 * A suspended object keeps what it last ran; Flux will not move it until it is resumed. What the rest of its status
 * says is left out: `flux suspend` raises the generation that the controllers then never observe (or observe
 * without touching the conditions), so it would only name a misleading generation gap.
 */
export function suspendedStatus(last: TargetStatus): TargetStatus {
  const runs = last.revision === undefined ? 'runs no revision' : `runs ${last.revision}`;
  const status: TargetStatus = {
    phase: 'Suspended',
    reason: 'Suspended',
    message: `suspended (spec.suspend): Flux does not reconcile it until it is resumed; ${runs}`,
  };
  return last.revision === undefined ? status : { ...status, revision: last.revision };
}
