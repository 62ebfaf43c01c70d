// Which environments of a pipeline are promoted into, and how: what the decision's walk (lib/decision/decide.ts)
// does, for the checks. The first environment is promoted into only when the pipeline has a source that names new
// versions; a block naming both strategies is carried out by the pull request, as in Weave.
import type { Pipeline, PipelineEnvironment } from '../pipeline/model.js';
import type { PullRequestPromotion } from '../pipeline/promotion.js';

export type PromotionWay =
  { strategy: 'pull-request'; pullRequest: PullRequestPromotion } | { strategy: 'notification' };

/** How a revision reaches the environment at `index`; undefined when nothing promotes into it. */
export function promotionInto(pipeline: Pipeline, env: PipelineEnvironment, index: number): PromotionWay | undefined {
  if (index === 0 && pipeline.source === undefined) return undefined;
  const strategy = env.promotion?.strategy;
  const pullRequest = strategy?.['pull-request'];
  if (pullRequest) return { strategy: 'pull-request', pullRequest };
  if (strategy?.notification !== undefined) return { strategy: 'notification' };
  return undefined;
}
