// Why a promotion attempt failed, as a name a machine can count: every PromotionError carries one, the promotion
// record and its audit entry keep it, `pipelinectl history -o json` shows it as `failureKind`, the notification to
// people names it, and it is the `Reason` dimension of the failed-promotion metrics. Whether a failure is tried again
// follows from its kind here and nowhere else (docs/promotion-strategies.md, "When a promotion fails").

/** Each kind, and whether trying the promotion again later can get past it. */
const RETRIED_BY_KIND = {
  /** The host refused the write because of the state it is in (409, 422): a person must look. */
  Conflict: false,
  /**
   * The branch or the pull request kept changing during the promotion, or the host named an open pull request it
   * does not list yet: a concurrent writer or a host that has not caught up, gone by the next attempt.
   */
  ConcurrentChange: true,
  /** The host or service asked to slow down (429, a rate-limit 403); retried after the wait it asked for. */
  RateLimited: true,
  /** The credentials were rejected (401): wrong, expired or revoked. */
  Unauthorized: false,
  /** The credentials are valid but lack a permission (403). */
  Forbidden: false,
  /** The repository, branch, Secret or endpoint does not exist, or the credentials cannot see it (404). */
  NotFound: false,
  /** The host or service did not answer, or answered with a server error (5xx, connection refused, DNS, TLS). */
  HostUnavailable: true,
  /** No answer within the time allowed. */
  Timeout: true,
  /** Temporary credentials expired in flight, or a clock drifted: the next attempt signs afresh. */
  StaleCredentials: true,
  /** No `$promotion` marker for the environment in the repository at the base branch. */
  NoMarkers: false,
  /**
   * The promotion cannot be made as configured: the pipeline, its Secret or this deployment lacks something it needs
   * (credentials keys, a strategy or Git provider, a usable URL), or the host refused the request as malformed.
   */
  Invalid: false,
  /** Something this controller does not do: a repository too large to list, a rollback by notification, a 501. */
  Unsupported: false,
  /** The host answered with something that is not what its API documents (is the API URL right?). */
  UnexpectedAnswer: false,
  /** Anything thrown that is not a PromotionError, or a failure nothing more is known of: worth another try. */
  Unknown: true,
} as const satisfies Record<string, boolean>;

export type PromotionFailureKind = keyof typeof RETRIED_BY_KIND;

export const PROMOTION_FAILURE_KINDS = Object.keys(RETRIED_BY_KIND) as PromotionFailureKind[];

/** Whether a promotion that failed with `kind` is tried again later (as opposed to waiting for a person). */
export function isRetried(kind: PromotionFailureKind): boolean {
  return RETRIED_BY_KIND[kind];
}

export function isPromotionFailureKind(value: unknown): value is PromotionFailureKind {
  return typeof value === 'string' && Object.hasOwn(RETRIED_BY_KIND, value);
}

/**
 * The kind of an HTTP error status from a Git host or a notification endpoint. 3xx and anything else unexpected are
 * `Unknown` (retried): a host adapter that follows or reports redirects itself decides before asking here.
 */
export function failureKindOfStatus(status: number): PromotionFailureKind {
  switch (status) {
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 409:
    case 422:
      return 'Conflict';
    case 429:
      return 'RateLimited';
    case 501:
      return 'Unsupported';
  }
  if (status >= 500) return 'HostUnavailable';
  if (status >= 400) return 'Invalid';
  return 'Unknown';
}
