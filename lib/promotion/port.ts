// The Promoter port: carries out one promotion of a revision into an environment (a pull request, a
// notification). The verifier calls it only while it holds the promotion record's lease, at most once per attempt.
import { redact } from '../logging/redaction.js';
import type { ObjectKey, Pipeline, PipelineEnvironment } from '../pipeline/model.js';
import type { PromotionEvidence } from '../decision/promotion-evidence.js';
import type { HostDeploymentRecord, HostDeploymentState, PullRequestState } from '../decision/types.js';
import { isRetried, type PromotionFailureKind } from './failure-kind.js';

export interface PromotionRequest {
  pipeline: Pipeline;
  /** The environment promoted to, with the promotion in force for it. */
  env: PipelineEnvironment;
  /** What the environment's markers are set to: the promoted revision, or for a rollback the last healthy one. */
  revision: string;
  /** 1 for the first attempt; a retry or a resumed attempt has a higher number. */
  attempt: number;
  /**
   * What the promotion is based on (docs/evidence.md); a pull request shows it below Weave's block. For a rollback,
   * the environment's failed targets. Undefined: the pull request body is Weave's alone.
   */
  evidence?: PromotionEvidence;
  /**
   * Set for a rollback (docs/rollback.md): the environment's targets failed on `from`, and its markers are set back
   * to `revision`. Only the pull-request strategy makes rollbacks, on a branch of their own, never merged by us.
   */
  rollback?: { from: string };
  /**
   * Set when the environment's pull-request promotion is in a group (docs/release-trains.md): how the promoter learns
   * which revisions of the other members the group's pull request holds.
   */
  group?: GroupPromotion;
}

/** A member of a group whose promotion into the environment is being made, or made into a pull request. */
export interface GroupMemberPromotion {
  pipeline: ObjectKey;
  revision: string;
  /** The pull request its promotion opened or joined; absent while the promotion is being made. */
  pullRequest?: string;
  /** What its promotion was based on, as its own pull request would have shown it (docs/evidence.md). */
  evidence?: PromotionEvidence;
}

export interface GroupPromotion {
  /**
   * The other members' promotions into the environment as the store holds them now (each member's newest that is
   * being made or made into a pull request). Read again after each write of the group's branch: see the promoter.
   */
  members(): Promise<readonly GroupMemberPromotion[]>;
}

export interface PromotionOutcome {
  /** What a person follows up on, e.g. the pull request URL; absent for a notification. */
  result?: string;
}

/**
 * A promotion that failed, and why, as a kind (failure-kind.ts) from which follows whether it is tried again later:
 * after `retryAfterMs` when the service said how long to wait. The message is redacted: it is often built from a
 * host's answer, which may repeat a credential.
 */
export class PromotionError extends Error {
  override name = 'PromotionError';
  /** How long the service asked to wait before the next attempt (its Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly kind: PromotionFailureKind,
    message: string,
    options: { retryAfterMs?: number | undefined; cause?: unknown } = {},
  ) {
    super(redact(message), 'cause' in options ? { cause: options.cause } : undefined);
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Whether trying again later can help, as the kind says: a 5xx, a rate limit, a timeout, but not a bad token. */
  get retryable(): boolean {
    return isRetried(this.kind);
  }
}

/** The kind of whatever a promotion threw: anything that is not a PromotionError is unexpected, and retried. */
export function failureKindOf(error: unknown): PromotionFailureKind {
  return error instanceof PromotionError ? error.kind : 'Unknown';
}

/**
 * Contract (test/promotion/promoter-contract.ts checks it for every implementation):
 * - idempotent per (pipeline, environment, revision), and per (pipeline, environment, rollback `from`) for a
 *   rollback: calling again, e.g. after a crash between the effect and the record update, makes no second effect
 *   and gives the same `result`;
 * - a failure is a PromotionError whose kind says why, and so whether trying again can help; anything else thrown
 *   counts as `Unknown`, which is retried.
 */
export interface Promoter {
  promote(request: PromotionRequest): Promise<PromotionOutcome>;
  /**
   * Where the pull request at `url`, opened by a promotion to the environment, stands now, as its host says, in one
   * read of the host (the environment's promotion branch's pull requests, matched by URL). Undefined when the host
   * lists none with that URL. A failure is a PromotionError, redacted. Absent from promoters that open no pull
   * requests.
   */
  pullRequestState?(request: PullRequestStateRequest): Promise<PullRequestState | undefined>;
  /**
   * Records on the Git host where the rollout of a merged promotion pull request stands (docs/deployments.md): the
   * deployment `request.recorded` names, or a new one (the host's own for this environment and revision, when it
   * has one, so that a retry makes no second). Returns what was recorded. A failure is a PromotionError, redacted.
   * Absent from promoters that open no pull requests.
   */
  recordDeployment?(request: DeploymentRequest): Promise<Omit<HostDeploymentRecord, 'at'>>;
}

export interface DeploymentRequest {
  pipeline: Pipeline;
  /** The environment promoted to, with the promotion in force for it. */
  env: PipelineEnvironment;
  revision: string;
  /** The merged pull request's web URL, as the promotion's result holds it. */
  pullRequestUrl: string;
  state: HostDeploymentState;
  /** One line for a person: why it failed, or what is rolling out. */
  description: string;
  /** What was recorded on the host before for this environment and revision, if anything. */
  recorded?: Omit<HostDeploymentRecord, 'at'>;
}

export interface PullRequestStateRequest {
  pipeline: Pipeline;
  /** The environment the promotion was made to, with the promotion in force for it. */
  env: PipelineEnvironment;
  /** The pull request's web URL, as the promotion's result holds it. */
  url: string;
}
