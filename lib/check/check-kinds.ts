// What `pipelinectl check` checks, one named kind per row, so that a row says what it is about and a script can pick
// rows by kind. The order is the order rows come in for an environment: its targets first, then how it is promoted.
//
// A new kind is added here, with its reasons in check-row.ts and its runner in run-checks.ts.

export const CHECK_KINDS = [
  /** The target's cluster answers with the stored credentials (kubeconfig Secret, EKS token). */
  'cluster-reachable',
  /** The app object exists on the target's cluster, and which API version serves it. */
  'app-object',
  /** The pipeline's `spec.source` exists on its cluster and names a version (a row of the first environment). */
  'source-object',
  /** The pull-request repository can be read with the Pipeline's Git credentials. */
  'git-repository',
  /** Those credentials may push a branch and open a pull request. */
  'git-permissions',
  /** With `deployments: true`: those credentials may record deployments on the host (docs/deployments.md). */
  'git-deployments',
  /** The base branch exists. */
  'base-branch',
  /** At least one file of the base branch holds the environment's `$promotion` marker. */
  'markers',
  /** The deployment has a notification sink for a notification promotion. */
  'notification-sinks',
  /** A verification check of the environment can be evaluated: its alarms, query, URL or Canary answer. */
  'verification-check',
] as const;

export type CheckKind = (typeof CHECK_KINDS)[number];
