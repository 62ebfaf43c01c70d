// The pull request a promotion record stands for, and where it is: the one rule the decision (which state an
// environment is in), the poll's read of the Git host (which pull requests are asked about) and the views (`status -o
// json`'s `pullRequest`) share. Rollback records (rollback-record.ts) keep their own wording and are not read.
import { strategyOf, type Promotion } from '../pipeline/promotion.js';
import { isHttpUrl } from '../util/http-url.js';
import { rolledBackEnv } from './rollback-record.js';
import type { PromotionRecord, PullRequestState } from './types.js';

export interface PromotionPullRequest {
  /** The web URL a person opens: the record's `result`. */
  url: string;
  state: PullRequestState;
}

/**
 * The pull request a succeeded promotion opened, for an environment that promotes by pull request: the record's
 * `result` when it is a URL (the promoter's result is a sentence instead when the base branch already held the
 * revision, and there is no pull request), in the state the host last said, open when it was not read yet (the
 * promotion has just opened it). Undefined for any other record.
 */
export function promotionPullRequest(
  record: Pick<PromotionRecord, 'env' | 'state' | 'result' | 'pullRequest'>,
  promotion: Promotion | undefined,
): PromotionPullRequest | undefined {
  if (record.state !== 'succeeded' || rolledBackEnv(record.env) !== undefined) return undefined;
  if (!promotion || strategyOf(promotion) !== 'pull-request') return undefined;
  if (record.result === undefined || !isHttpUrl(record.result)) return undefined;
  return { url: record.result.trim(), state: record.pullRequest?.state ?? 'open' };
}
