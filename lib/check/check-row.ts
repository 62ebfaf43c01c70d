// One row of `pipelinectl check`: which check, about what, its outcome with a typed reason, and one line for a person
// that names the object, file, field or Secret concerned (never a secret value).
import type { CheckKind } from './check-kinds.js';
import type { MarkerNearMiss, MisplacedMarkerFile, MixedMarkerFile } from './marker-hints.js';

/**
 * `failed`: a promotion (or the reading of a target) would fail this way; `warning`: it may, but this cannot be told
 * from here; `skipped`: not checked, because a check it rests on failed.
 */
export const CHECK_OUTCOMES = ['ok', 'failed', 'warning', 'skipped'] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

/** Why a row has its outcome, by kind; `earlier-check-failed` is the reason of every skipped row. */
export type CheckReason =
  // cluster-reachable (the failures are the cluster reader's ClusterErrorKind)
  | 'cluster-answered'
  | 'unreachable'
  | 'timeout'
  | 'unauthorized'
  | 'bad-config'
  // app-object
  | 'app-found'
  | 'app-absent'
  | 'forbidden'
  // source-object (and forbidden, server-error)
  | 'source-found'
  | 'source-absent'
  | 'source-without-version'
  // app-object (an answer the reader cannot use), or cluster-reachable (a failure that is no answer)
  | 'server-error'
  // git-repository
  | 'repository-readable'
  | 'secret-missing'
  | 'secret-unreadable'
  | 'credentials-unusable'
  | 'host-unsupported'
  | 'repository-unreadable'
  // git-permissions
  | 'can-push'
  | 'cannot-push'
  | 'push-unknown'
  // git-deployments
  | 'can-record-deployments'
  | 'cannot-record-deployments'
  | 'deployments-unknown'
  // base-branch
  | 'branch-exists'
  | 'branch-missing'
  | 'branch-unreadable'
  // markers
  | 'markers-found'
  | 'no-marker'
  | 'mixed-environments'
  | 'misplaced-marker'
  | 'scan-failed'
  // notification-sinks
  | 'sinks-configured'
  | 'no-sinks'
  | 'sinks-unknown'
  // verification-check
  | 'check-evaluates'
  | 'check-fails-now'
  | 'check-not-evaluable'
  | 'check-not-wired'
  // any kind
  | 'earlier-check-failed';

/** A target as a row names it: its cluster (`ns/name`) and the app's namespace there. */
export interface CheckTarget {
  cluster: string;
  namespace: string;
}

export interface CheckRow {
  /** The pipeline, `ns/name`. */
  pipeline: string;
  environment: string;
  /** The target (or the source's cluster and namespace), for the rows about one (cluster-reachable, app-object, source-object). */
  target?: CheckTarget;
  kind: CheckKind;
  outcome: CheckOutcome;
  reason: CheckReason;
  message: string;
  /** app-object, source-object: the apiVersion the cluster serves the object in (`helm.toolkit.fluxcd.io/v2`). */
  apiVersion?: string;
  /** verification-check: the check's name and what evaluating it found now. */
  check?: { name: string; kind: string; verdict: string; reason: string; value: string };
  /** markers: the files of the base branch that hold the environment's marker. */
  files?: string[];
  /** markers, no-marker: the markers found that the missing one was most likely meant to be, nearest first. */
  nearMisses?: MarkerNearMiss[];
  /** markers, mixed-environments: the files that also hold the markers of other environments of the pipeline. */
  mixedFiles?: MixedMarkerFile[];
  /** markers, misplaced-marker (or mixed-environments): the files whose path names another environment. */
  misplacedFiles?: MisplacedMarkerFile[];
}

/** How many rows have each outcome. */
export type CheckSummary = Record<CheckOutcome, number>;

export function summarize(rows: readonly CheckRow[]): CheckSummary {
  const summary: CheckSummary = { ok: 0, failed: 0, warning: 0, skipped: 0 };
  for (const row of rows) summary[row.outcome]++;
  return summary;
}
