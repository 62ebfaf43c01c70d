// Inputs and outputs of the promotion decision (DESIGN §5). Plain data, so the decision is a pure function that
// the verifier, the CLI's `explain` and the tests all call the same way.
import type { TargetStatus } from '../flux/target-status.js';
import type { Pipeline } from '../pipeline/model.js';

/** Kept per (pipeline, environment): a manual environment waits here for an approval of exactly `revision`. */
export interface ApprovalMarker {
  env: string;
  revision: string;
  /** ISO 8601. */
  requestedAt: string;
  /** ISO 8601; set once someone approved `revision`. */
  approvedAt?: string;
  /** Who approved: the HMAC key's name, or the identity of a CLI caller. */
  approvedBy?: string;
}

export type PromotionState = 'pending' | 'in-progress' | 'succeeded' | 'failed';

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
}

export interface DecisionInput {
  pipeline: Pipeline;
  /** Observed target status by `appKeyString(appKeyOf(pipeline, target))`; a missing entry was never observed. */
  observed: ReadonlyMap<string, TargetStatus>;
  /** This pipeline's approval markers, at most one per environment. */
  approvals: readonly ApprovalMarker[];
  /** This pipeline's promotion records, any environment and revision. */
  promotions: readonly PromotionRecord[];
  now: Date;
}

export type Action =
  /** Create the promotion record for (env, revision), or resume it, and run the environment's strategy. */
  | { type: 'promote'; env: string; revision: string }
  /** Set the environment's approval marker to `revision`, replacing a marker for an older candidate. */
  | { type: 'request-approval'; env: string; revision: string; replaces?: string }
  /** Remove a marker that no longer waits for anything (its environment moved on). */
  | { type: 'clear-approval'; env: string; revision: string };

export type EnvironmentState =
  /** The first environment, which supplies the candidate. */
  | 'source'
  /** Every target runs the candidate and is healthy. */
  | 'passed'
  /** Some target runs the candidate, not all of them healthy yet: wait. */
  | 'in-progress'
  /** Some target runs a newer version than the candidate: never downgraded. */
  | 'ahead'
  /** The status of some target is not known (never observed or unreadable): no decision. */
  | 'unknown'
  /** A promotion of the candidate is being made now. */
  | 'promoting'
  /** The promotion of the candidate was made; waiting for the targets to run it. */
  | 'promoted'
  /** The promotion of the candidate failed; `retryAt` says whether and when it is tried again. */
  | 'failed'
  /** Manual environment: waiting for an approval of the candidate. */
  | 'waiting-approval'
  /** No promotion strategy applies to this environment. */
  | 'no-strategy'
  /** An earlier environment stopped the walk. */
  | 'not-reached';

export interface EnvironmentExplanation {
  env: string;
  state: EnvironmentState;
  /** One line for a person, e.g. what `pipelinectl explain` prints. */
  message: string;
}

export interface Decision {
  /** The first environment's revision when all its targets are healthy on it. */
  candidate?: string;
  actions: Action[];
  /** One entry per environment, in pipeline order. */
  environments: EnvironmentExplanation[];
}
