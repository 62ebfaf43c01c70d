// Inputs and outputs of the promotion decision (docs/architecture.md, "The decision"). Plain data, so the decision is a pure function that
// the verifier, the CLI's `explain` and the tests all call the same way.
import type { TargetStatus } from '../flux/target-status.js';
import type { FreezeSwitch } from '../pipeline/freeze.js';
import type { Pipeline } from '../pipeline/model.js';
import type { PromotionEvidence } from './promotion-evidence.js';
import type { CheckResult } from '../pipeline/verification.js';

/** Kept per (pipeline, environment): a manual environment waits here for an approval of exactly `revision`. */
export interface ApprovalMarker {
  env: string;
  revision: string;
  /** ISO 8601. */
  requestedAt: string;
  /** ISO 8601; set once someone approved `revision`. */
  approvedAt?: string;
  /** Who approved: the HMAC key's name, or the identity of a CLI caller (the last of them, under a policy). */
  approvedBy?: string;
  /**
   * Every distinct approval of `revision` so far, oldest first (docs/approval-policies.md): `approvedAt` is set once
   * there are as many as the environment's policy requires. Absent on markers written before policies existed and
   * on those approved under a policy of one (`approvedBy` names the approver). `by` is the name the door gave
   * (a session's full ARN); `countedAs` the identity the approval counted as, where that is not `by` itself (the role
   * of a session whose name its caller chose; docs/approval-policies.md).
   */
  approvals?: { by: string; at: string; countedAs?: string }[];
  /** ISO 8601; set once someone rejected `revision`: it is not promoted here, whatever approvals follow. */
  rejectedAt?: string;
  rejectedBy?: string;
  /** Why, as the person wrote it. */
  rejectionReason?: string;
}

export type PromotionState = 'pending' | 'in-progress' | 'succeeded' | 'failed';

/** What a Git host says of a pull request: still open, merged, or closed without merging. */
export type PullRequestState = 'open' | 'merged' | 'closed';

/** Kept per (pipeline, environment, revision), created before the effect: at most one effect per revision. */
export interface PromotionRecord {
  env: string;
  revision: string;
  state: PromotionState;
  attempts: number;
  /** ISO 8601. */
  updatedAt: string;
  /** ISO 8601; while `pending`/`in-progress`, the worker that holds the record owns it until then. */
  leaseExpiresAt?: string;
  /** ISO 8601; a `failed` record is tried again from then on. Absent: failed for good (a person must act). */
  retryAt?: string;
  /** What the effect produced, e.g. the pull request URL. */
  result?: string;
  /** The last failure, one line. */
  error?: string;
  /**
   * What the Git host last said of the pull request in `result` (a pull-request promotion's), read by the scheduled
   * poll while it is open (lib/verifier/pull-request-states.ts), and when it first said so (ISO 8601). Absent: not
   * read yet; the promotion has just opened it, so it counts as open (promotionPullRequest).
   */
  pullRequest?: { state: PullRequestState; seenAt: string };
  /**
   * What was last recorded on the Git host of the merged pull request's rollout (`deployments: true`,
   * lib/verifier/host-deployments.ts): the host's id of the deployment (GitHub's, GitLab's; the status key
   * elsewhere), the commit it is on, its state and when. One per (environment, revision): kept across attempts.
   */
  hostDeployment?: HostDeploymentRecord;
  /**
   * ISO 8601: a worker is recording the rollout on the Git host until then (claimHostDeployment); no other one does
   * meanwhile, so one state is written once. Removed by the record it makes; a failed one lets it expire.
   */
  hostDeploymentClaimedUntil?: string;
}

/** The states a rollout is recorded in on the Git host, in GitHub's words. */
export type HostDeploymentState = 'in_progress' | 'success' | 'failure';

export interface HostDeploymentRecord {
  id: string;
  /** The merge commit the deployment is on. */
  sha: string;
  state: HostDeploymentState;
  /** ISO 8601: when `state` was recorded. */
  at: string;
}

/** What the checks of one environment found for one revision, kept per (pipeline, environment, revision). */
export interface VerificationRecord {
  env: string;
  revision: string;
  /** ISO 8601: the first evaluation for this revision. */
  startedAt: string;
  /** ISO 8601: the latest evaluation. */
  checkedAt: string;
  /**
   * ISO 8601: since when every check has passed, in every evaluation since (absent when the latest one did not
   * pass them all): what `for` is measured from.
   */
  holdingSince?: string;
  /** Set once decided, for good: the checks held for the whole `for`, or one failed. Never evaluated again. */
  outcome?: 'passed' | 'failed';
  /** ISO 8601: when `outcome` was set. */
  decidedAt?: string;
  /** Each check's latest result, in the environment's order. */
  results: CheckResult[];
}

/** A member of the group the train waits for, and the state its decision gives it in the environment. */
export interface GroupMemberWait {
  /** `{namespace}/{name}` of the member pipeline. */
  pipeline: string;
  state: EnvironmentState;
}

/** What the caller found of a group's other members in one environment. */
export interface GroupObservation {
  /** The other members not due there yet (release-train.ts, `holdsTheTrain`): none, and the train leaves. */
  waitingFor: readonly GroupMemberWait[];
}

export interface DecisionInput {
  pipeline: Pipeline;
  /** Observed target status by `appKeyString(appKeyOf(pipeline, target))`; a missing entry was never observed. */
  observed: ReadonlyMap<string, TargetStatus>;
  /** This pipeline's approval markers, at most one per environment. */
  approvals: readonly ApprovalMarker[];
  /** This pipeline's promotion records, any environment and revision. */
  promotions: readonly PromotionRecord[];
  /**
   * When each observed status was first recorded as it is now (the store's `changedAt`), by the same key as
   * `observed`: a Ready target has been healthy on its revision, without a read in between that found otherwise,
   * since then. What an environment's `soak` is measured from; a missing entry counts as just now.
   */
  statusSince?: ReadonlyMap<string, string>;
  /**
   * The stop switches in force for this pipeline (installation-wide and its own). Undefined: not read; the decision
   * then asks for them (`Decision.needs`) only when it would start a promotion, so a quiet pipeline costs no read.
   */
  freezes?: readonly FreezeSwitch[];
  /**
   * The revisions each environment was healthy on, newest first, by environment name (the `environment-passed`
   * audit facts). Undefined, or an environment missing: not read; the decision asks for it when a rollback is due.
   */
  lastPassed?: ReadonlyMap<string, readonly string[]>;
  /**
   * What the verification checks found, per (environment, revision): this pipeline's records. Undefined: none read
   * (a pipeline without verification reads none).
   */
  verifications?: readonly VerificationRecord[];
  /**
   * What is served to Flux Operator for each environment promoted by `external-service` (docs/external-service.md):
   * this pipeline's records. Undefined: none read (a pipeline without that strategy reads none).
   */
  servedInputs?: readonly ServedInput[];
  /**
   * What the other members of a release train that waits for all (docs/release-trains.md) hold in each environment,
   * by environment name. Undefined, or an environment missing: not read; the decision asks for it (`needs.groups`)
   * only when a promotion of the train would start there.
   */
  groups?: ReadonlyMap<string, GroupObservation>;
  now: Date;
}

/**
 * The revision an `external-service` environment's leaf clusters may run, as the receiver serves it to Flux
 * Operator's ExternalService input provider (docs/external-service.md): one per (pipeline, environment).
 */
export interface ServedInput {
  env: string;
  version: string;
  /** What was served before, if anything was. */
  previousVersion?: string;
  /** ISO 8601: when the controller promoted `version`; absent for the revision the environment ran when first served. */
  promotedAt?: string;
  /** Who approved `version`, for a manual environment. */
  approvedBy?: string;
  /** ISO 8601: since when `version` is served. */
  servedSince: string;
}

/** What a promotion is based on: written into the pull request below Weave's block (docs/evidence.md). */
export type { PromotionEvidence } from './promotion-evidence.js';

/** One target of an environment as the decision sees it; `status` is undefined when it was never observed. */
export interface ObservedTarget {
  /** `flux-system/prod apps`: the cluster and the app's namespace. */
  name: string;
  status: TargetStatus | undefined;
  /** ISO 8601: when `status` was first recorded as it is (DecisionInput.statusSince). */
  since?: string;
}

export type Action =
  /** Create the promotion record for (env, revision), or resume it, and run the environment's strategy. */
  | { type: 'promote'; env: string; revision: string; evidence?: PromotionEvidence }
  /**
   * Open the pull request that sets the environment back to `revision`, the last one healthy there, because its
   * targets failed on `from` (docs/rollback.md). Once per (env, from): its record is `rollbackRecordEnv(env)`, `from`.
   */
  | { type: 'rollback'; env: string; revision: string; from: string }
  /**
   * Evaluate the environment's verification checks for `revision`, which every target of it runs and is Ready on,
   * and record what they found (docs/verification.md).
   */
  | { type: 'verify'; env: string; revision: string }
  /** Set the environment's approval marker to `revision`, replacing a marker for an older candidate. */
  | { type: 'request-approval'; env: string; revision: string; replaces?: string }
  /** Remove a marker that no longer waits for anything (its environment moved on). */
  | { type: 'clear-approval'; env: string; revision: string }
  /**
   * Serve `revision`, which every target of the `external-service` environment runs healthily, as its input until
   * its first promotion: a new input provider must never move it anywhere else (docs/external-service.md).
   */
  | { type: 'serve-current'; env: string; revision: string };

export type EnvironmentState =
  /** The first environment, which supplies the candidate. */
  | 'source'
  /** Every target runs the candidate and is healthy (for the environment's `soak`, when it has one). */
  | 'passed'
  /**
   * Every target runs the candidate and is healthy, not yet for the environment's whole `soak`: nothing after it is
   * promoted until then. The first environment still supplies the candidate meanwhile.
   */
  | 'soaking'
  /** Some target runs the candidate, not all of them healthy yet: wait. */
  | 'in-progress'
  /**
   * Every target runs the candidate and is Ready; the environment's verification checks are evaluated, or must hold
   * for its `for` still: nothing after it is promoted until they have.
   */
  | 'verifying'
  /** Some target runs a newer version than the candidate: never downgraded. */
  | 'ahead'
  /** The status of some target is not known (never observed or unreadable): no decision. */
  | 'unknown'
  /** Some target is suspended: Flux will not roll anything out on it, so nothing is promoted to or past it. */
  | 'suspended'
  /** A promotion of the candidate is being made now. */
  | 'promoting'
  /**
   * The promotion of the candidate was made and its pull request is open: nothing reaches the targets until a person
   * merges it.
   */
  | 'pull-request-open'
  /** The pull request of the candidate's promotion was closed without merging: a person decides what next. */
  | 'pull-request-closed'
  /**
   * The promotion of the candidate reached the repository (its pull request merged, or its notification sent):
   * the targets are taking it. In words, like `in-progress`: rolling out.
   */
  | 'promoted'
  /** The promotion of the candidate failed; `retryAt` says whether and when it is tried again. */
  | 'failed'
  /** Manual environment: waiting for an approval of the candidate. */
  | 'waiting-approval'
  /**
   * The candidate is due here, but the environment's release train (`waitForAll`, docs/release-trains.md) waits for
   * other members of its group (`waitsForMembers`) before the group's pull request is opened.
   */
  | 'waiting-group'
  /** No promotion strategy applies to this environment. */
  | 'no-strategy'
  /** A promotion into it would start now, but a freeze window or a stop switch holds it until `frozenUntil`. */
  | 'frozen'
  /** Manual environment: someone rejected the candidate; nothing is promoted here until a newer candidate arrives. */
  | 'rejected'
  /** Its targets failed on a promoted revision past the grace period: a rollback pull request is due, made or failed. */
  | 'rolling-back'
  /** An earlier environment stopped the walk. */
  | 'not-reached';

/** Why an environment is in its state: one reason per situation, so callers never match the message. */
export type EnvironmentReason =
  // source
  /** Every target of the first environment runs one revision and is Ready: it is the candidate. */
  | 'CandidateFound'
  /** Some target of the first environment runs no revision (yet). */
  | 'NoRevision'
  /** The first environment's targets run different revisions. */
  | 'RevisionsDiffer'
  /** The first environment's targets run one revision, some of them not Ready on it. */
  | 'TargetsNotReady'
  // source or suspended
  /** Some target is suspended (`spec.suspend`): nothing is promoted from or to its environment. */
  | 'TargetSuspended'
  // source or unknown
  /** Some target was never observed, is absent or could not be read: nothing is decided on it. */
  | 'TargetsUnknown'
  /** The environment has no targets. */
  | 'NoTargets'
  // passed, in-progress, ahead
  /** Every target runs the candidate and is Ready. */
  | 'AllTargetsReady'
  /** Every target runs the candidate and has been Ready on it for the environment's whole `soak`. */
  | 'SoakServed'
  // soaking
  /** Every target runs the candidate and is Ready; the soak measured from the last of them to become so runs. */
  | 'SoakRunning'
  /** Some target runs the candidate, not all of them Ready on it yet. */
  | 'RollingOut'
  /** Some target runs a newer revision than the candidate: never downgraded. */
  | 'AheadOfCandidate'
  // verifying (and failed, for the last two)
  /** Every target runs the candidate and is Ready: the checks are evaluated now. */
  | 'VerificationDue'
  /** Every check passes; they must hold until `verificationEndsAt`. */
  | 'VerificationHolding'
  /** A check has not decided yet (a Canary still analysing). */
  | 'VerificationPending'
  /** A check could not be evaluated: waiting (`onInconclusive: wait`), or failed (`onInconclusive: fail`). */
  | 'VerificationInconclusive'
  /** A check failed for the candidate: the environment failed for it. */
  | 'VerificationFailed'
  // passed
  /** Every check held for the whole `for`. */
  | 'VerificationPassed'
  // promoting
  /** An automatic environment: the promotion starts now. */
  | 'PromotionDue'
  /** A manual environment whose approval of the candidate arrived: the promotion starts now. */
  | 'Approved'
  /** A worker holds the promotion record under a live lease. */
  | 'PromotionInProgress'
  /** The worker holding the record vanished (lease expired, absent or unreadable): the promotion resumes. */
  | 'PromotionResumed'
  // pull-request-open
  /** The promotion's pull request is open: waiting for a person to merge it. */
  | 'PullRequestOpen'
  // pull-request-closed
  /** The promotion's pull request was closed without merging (`pipelinectl retry` opens a new one). */
  | 'PullRequestClosed'
  // promoted
  /** The promotion's pull request was merged; the targets have yet to run it. */
  | 'PullRequestMerged'
  /**
   * The promotion was made without a pull request (a notification, or the base branch already held the revision);
   * the targets have yet to run it.
   */
  | 'PromotionSucceeded'
  /** The promotion is served to the environment's leaf clusters (`external-service`): they pull it on their schedule. */
  | 'InputServed'
  // failed
  /** The promotion failed and its retry time has come: it is tried again now. */
  | 'RetryDue'
  /** The promotion failed and is tried again later. */
  | 'RetryScheduled'
  /** The promotion failed for good: a person must act (`pipelinectl retry` once the cause is fixed). */
  | 'FailedForGood'
  // waiting-approval
  /** An approval of the candidate is requested now. */
  | 'ApprovalRequested'
  /** An approval of the candidate was requested earlier and has not come. */
  | 'AwaitingApproval'
  /** An approval of the candidate is requested now, replacing the request for another revision. */
  | 'ApprovalReplaced'
  /** Some approvals of the candidate came, fewer than the environment's policy requires. */
  | 'ApprovalsShort'
  // frozen
  /** Within a recurring freeze window (the environment's or the installation's). */
  | 'FrozenByWindow'
  /** A stop switch (`pipelinectl freeze`) is set. */
  | 'FrozenBySwitch'
  // rejected
  /** Someone rejected the candidate for this environment. */
  | 'Rejected'
  // in-progress
  /** Its targets fail on a revision promoted here; the rollback waits out the grace period until `rollbackAt`. */
  | 'RollbackGracePeriod'
  /** Its targets fail on a revision promoted here and no earlier healthy revision is known: nothing to roll back to. */
  | 'NothingToRollBackTo'
  // rolling-back
  /** The grace period is over: the rollback pull request is opened now. */
  | 'RollbackDue'
  /** A worker is opening the rollback pull request under a live lease. */
  | 'RollbackInProgress'
  /** The rollback pull request was opened; waiting for a person to merge it. */
  | 'RollbackOpened'
  /** Opening the rollback pull request failed and is tried again at the record's `retryAt`. */
  | 'RollbackRetryScheduled'
  /** Opening the rollback pull request failed for good: a person must act. */
  | 'RollbackFailedForGood'
  // no-strategy
  /** Neither the environment nor the pipeline has a promotion block. */
  | 'NoStrategy'
  // not-reached
  /** The first environment has no candidate. */
  | 'NoCandidate'
  /** An earlier environment stopped the walk. */
  | 'StoppedEarlier'
  /** The candidate would be promoted here, once the soak of an earlier environment (`soakEndsAt`) is served. */
  | 'AwaitingSoak'
  /** The candidate would be promoted here, once an earlier environment's verification has passed. */
  | 'AwaitingVerification'
  // waiting-group
  /** The group's other members are read, and some of them are not due there yet (`waitsForMembers`). */
  | 'AwaitingGroup'
  /** The group's other members are not read yet (`Decision.needs.groups`). */
  | 'GroupUnread';

export interface EnvironmentExplanation {
  env: string;
  state: EnvironmentState;
  reason: EnvironmentReason;
  /** One line for a person, e.g. what `pipelinectl explain` prints. */
  message: string;
  /**
   * ISO 8601. `soaking`: when this environment's soak is served. `not-reached` for `AwaitingSoak`: when the soak
   * it waits for is served, and the candidate may be promoted here.
   */
  soakEndsAt?: string;
  /** ISO 8601. `frozen`: when the freeze ends, if it ends by itself (a switch without `--until` does not). */
  frozenUntil?: string;
  /** ISO 8601. `RollbackGracePeriod`: when the rollback becomes due. */
  rollbackAt?: string;
  /** ISO 8601. `VerificationHolding`: when the checks, holding now, will have held for the whole `for`. */
  verificationEndsAt?: string;
  /**
   * `not-reached`: the environment it waits for (the one the walk stopped at, the first environment while it has no
   * candidate, or the one whose soak runs), so a person reads "waits for staging", not an error.
   */
  waitsFor?: string;
  /** `waiting-group`: the members of the group it waits for, `{namespace}/{name}` each. */
  waitsForMembers?: string[];
}

/** Where a pipeline's source stands (only for a pipeline with `spec.source`). */
export type SourceState =
  /** The source names a version: the first environment is promoted to it. */
  | 'found'
  /** The source names no usable version now: the first environment's own revision is the candidate, as without one. */
  | 'unavailable';

export type SourceReason =
  /** The source object is Ready and names its newest version. */
  | 'VersionFound'
  /** The source object was never read, is absent, or could not be read. */
  | 'SourceUnknown'
  /** The source object is suspended: Flux does not look for newer versions, so none is taken from it. */
  | 'SourceSuspended'
  /** The source object names no version yet, or is not Ready on it. */
  | 'SourceNotReady';

export interface SourceExplanation {
  /** `ImagePolicy apps/podinfo on flux-system/build`. */
  object: string;
  state: SourceState;
  reason: SourceReason;
  message: string;
  /** What the source resolved (`6.5.0`, `6.5.0@sha256:…`), when found. */
  revision?: string;
  /** What is written into the first environment's markers for it (the tag), when found. */
  version?: string;
}

export interface Decision {
  /**
   * The revision the pipeline promotes: the first environment's revision when all its targets are healthy on it; with
   * a source whose version the first environment does not run yet, that version.
   */
  candidate?: string;
  actions: Action[];
  /** One entry per environment, in pipeline order. */
  environments: EnvironmentExplanation[];
  /** Where the pipeline's source stands, for a pipeline with `spec.source`. */
  source?: SourceExplanation;
  /**
   * What the decision could not take without reading more, each read only when it could change an action: decide
   * again with `freezes` and `lastPassed` (for these environments) filled in. Absent: the decision is whole.
   */
  needs?: { freezes?: true; lastPassed?: string[]; groups?: string[] };
}
