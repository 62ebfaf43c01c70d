// Picks the strategy for a promotion from the environment's promotion block (env-level, else pipeline-level, as
// resolved in the model). Pull-request wins if both were set (Weave's registration order); the config loader
// accepts that case with a warning. A rollback goes only to the pull-request strategy (docs/rollback.md).
import { strategyOf } from '../pipeline/promotion.js';
import { rollbackNotSupported } from './notification-strategy/promoter.js';
import type { HostDeploymentRecord, PullRequestState } from '../decision/types.js';
import {
  PromotionError,
  type Promoter,
  type DeploymentRequest,
  type PromotionOutcome,
  type PromotionRequest,
  type PullRequestStateRequest,
} from './port.js';

export interface Strategies {
  pullRequest?: Promoter;
  notification?: Promoter;
  externalService?: Promoter;
}

export class StrategyPromoter implements Promoter {
  constructor(private readonly strategies: Strategies) {}

  promote(request: PromotionRequest): Promise<PromotionOutcome> {
    const promotion = request.env.promotion;
    if (!promotion) {
      return Promise.reject(
        new PromotionError('Invalid', `environment ${request.env.name} has no promotion configured`),
      );
    }
    const name = strategyOf(promotion);
    if (request.rollback && name !== 'pull-request') return Promise.reject(rollbackNotSupported(request));
    const promoter = {
      'pull-request': this.strategies.pullRequest,
      notification: this.strategies.notification,
      'external-service': this.strategies.externalService,
    }[name];
    if (!promoter) {
      return Promise.reject(
        new PromotionError('Invalid', `the ${name} promotion strategy is not available in this deployment`),
      );
    }
    return promoter.promote(request);
  }

  /** Asked of the pull-request strategy, whatever the environment's block says now: only it opens pull requests. */
  async pullRequestState(request: PullRequestStateRequest): Promise<PullRequestState | undefined> {
    return this.strategies.pullRequest?.pullRequestState?.(request);
  }

  /** Asked of the pull-request strategy: only its merged pull requests are recorded as deployments. */
  async recordDeployment(request: DeploymentRequest): Promise<Omit<HostDeploymentRecord, 'at'>> {
    const record = this.strategies.pullRequest?.recordDeployment?.bind(this.strategies.pullRequest);
    if (!record) throw new PromotionError('Invalid', 'the pull-request strategy is not available in this deployment');
    return record(request);
  }
}
