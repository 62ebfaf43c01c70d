// The gates an environment may set on promotions into it, as the resolved Pipeline carries them (the Pipeline
// schema validates what is written; docs/freeze.md, docs/approval-policies.md, docs/rollback.md say what they do).

/**
 * The longest `soak` (docs/soak.md): a week. Waiting longer is holding a release back, which an approval says better.
 * The schema refuses longer soaks, and the decision counts a stored soak it cannot read as this long.
 */
export const MAX_SOAK_MS = 7 * 24 * 3_600_000;

/**
 * A recurring window, in a time zone: `from: Fri 16:00, to: Mon 08:00` every week, or `from: 22:00, to: 06:00`
 * every day. Both ends are written alike (both with a weekday or neither); `to` is not inside the window.
 */
export interface FreezeWindow {
  /** `Fri 16:00` (weekly) or `16:00` (daily), 24-hour clock. */
  from: string;
  /** `Mon 08:00` or `08:00`; may fall on an earlier weekday or hour than `from`: the window wraps. */
  to: string;
  /** IANA time zone (`Europe/Berlin`); the window follows its daylight-saving changes. */
  timeZone: string;
  /** Why, for a person: `weekend`, `quarter-end`. */
  reason?: string;
}

/**
 * Who may approve a manual environment, one list per door. Without `approvers`, every door admits anyone it
 * authenticates; with it, a door without its own list admits no one (so a webhook key is no way around `users`).
 */
export interface Approvers {
  /** Names of the Secrets whose HMAC key may sign Weave's `/approval` webhook (in the pipeline's namespace). */
  keys?: string[];
  /** IAM principal ARN patterns for `pipelinectl --aws` and the dashboard over a stack; `*` matches any run. */
  principals?: string[];
  /** Local user names for `pipelinectl` and the dashboard over a data directory. */
  users?: string[];
}

export interface ApprovalPolicy {
  /** Distinct approvers needed before the promotion starts; the same identity twice counts once. Default 1. */
  required?: number;
  approvers?: Approvers;
}

/** How long a failure on a promoted revision is waited out before the rollback, when `rollbackAfter` is not set. */
export const DEFAULT_ROLLBACK_AFTER = '10m';

export interface RollbackPolicy {
  strategy: 'pull-request';
  /** The grace period (`10m`): the targets must have failed on the revision for this long. */
  after: string;
}
