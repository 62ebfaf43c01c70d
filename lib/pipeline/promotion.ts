// The promotion block of a pipeline or an environment, as the model carries it: how a revision is promoted, and
// whether a person approves it first. It is the Pipeline document's `promotion` as written (Weave's CRD); the
// schema in lib/config/schema.ts validates exactly this shape, and the compiler holds the two together.

/** Weave's enum, and `azure-devops` (an addition: docs/weave-compatibility.md). */
export const GIT_PROVIDER_TYPES = ['github', 'gitlab', 'bitbucket-server', 'azure-devops'] as const;
export type GitProviderType = (typeof GIT_PROVIDER_TYPES)[number];

/** A reference to a Secret in the pipeline's namespace. */
export interface LocalObjectReference {
  name: string;
}

/** Opens a pull request that sets the revision at the `ns:name:env` markers of the repository. */
export interface PullRequestPromotion {
  type: GitProviderType;
  /** An https:// repository URL. */
  url: string;
  baseBranch: string;
  /** The Secret with the Git provider's credentials. */
  secretRef: LocalObjectReference;
  /**
   * A release train (docs/release-trains.md): the pipelines with the same group, repository and base branch share one
   * open pull request per (group, environment), on the branch `promotion-group-{group}-{env}`.
   */
  group?: string;
  /** With `group`: the group's pull request is opened only once every member is due in the environment. */
  waitForAll?: boolean;
  /**
   * Extension: once the pull request is merged, the rollout is recorded on the Git host (a GitHub Deployment, a
   * GitLab deployment, a Bitbucket build status, an Azure DevOps pull-request status) until the environment passes
   * or fails (docs/deployments.md). Default off.
   */
  deployments?: boolean;
  /** Extension: the environment's address, shown by the host beside the deployment (GitHub's `environment_url`). */
  environmentUrl?: string;
}

/** The group a pull-request promotion belongs to, when it belongs to one. */
export interface PromotionGroup {
  name: string;
  /** The repository and base branch every member's pull request goes to. */
  type: GitProviderType;
  url: string;
  baseBranch: string;
  waitForAll: boolean;
}

/** The release train an environment's promotion is part of (its `pull-request.group`), if any. */
export function promotionGroupOf(promotion: Promotion | undefined): PromotionGroup | undefined {
  const spec = promotion && strategyOf(promotion) === 'pull-request' ? promotion.strategy['pull-request'] : undefined;
  if (!spec?.group) return undefined;
  return {
    name: spec.group,
    type: spec.type,
    url: spec.url,
    baseBranch: spec.baseBranch,
    waitForAll: spec.waitForAll === true,
  };
}

/**
 * Whether two promotions go into one group pull request: the same group name, repository and base branch. The
 * repository URL is compared without a trailing `/` or `.git` and without regard to case, as hosts read it.
 */
export function sameGroup(a: PromotionGroup, b: PromotionGroup): boolean {
  const repository = (url: string) =>
    url
      .trim()
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .toLowerCase();
  return (
    a.name === b.name && a.type === b.type && a.baseBranch === b.baseBranch && repository(a.url) === repository(b.url)
  );
}

/**
 * How a revision is promoted: `pull-request` or `notification`, or both (the pull request is used, as in Weave). The
 * pipeline's block may name neither and hold only the webhook key's `secretRef` (see `namesStrategy`).
 */
export interface PromotionStrategy {
  'pull-request'?: PullRequestPromotion;
  notification?: Record<string, never>;
  /**
   * Extension: no Git write; the environment's desired revision is recorded and served to Flux Operator's
   * ExternalService input provider (docs/external-service.md). Alone in its block.
   */
  'external-service'?: Record<string, never>;
  /** Pipeline level only: the Secret whose `hmac-key` signs the pipeline's webhooks. */
  secretRef?: LocalObjectReference;
}

export interface Promotion {
  /** A person approves each revision before it is promoted (`pipelinectl approve`, the approval webhook). */
  manual?: boolean;
  strategy: PromotionStrategy;
}

/**
 * Whether a promotion block says how to promote. Weave's pipeline-level block may hold only the webhook key: it then
 * promotes nothing, and an environment without a block of its own has no strategy (docs/weave-compatibility.md).
 */
export function namesStrategy(promotion: Promotion): boolean {
  const { strategy } = promotion;
  return (
    strategy['pull-request'] !== undefined ||
    strategy.notification !== undefined ||
    strategy['external-service'] !== undefined
  );
}

/** The name of a promotion strategy, as the Pipeline spells it. */
export type StrategyName = 'pull-request' | 'notification' | 'external-service';

/**
 * The strategy a promotion block uses. Pull-request wins over a notification when both are given (Weave's
 * registration order; the config loader warns about it), so the promoter, the decision's explanation and `status`
 * always name the same one. `external-service` is alone in its block (the schema refuses it beside another).
 */
export function strategyOf(promotion: Promotion): StrategyName {
  if (promotion.strategy['pull-request']) return 'pull-request';
  return promotion.strategy['external-service'] ? 'external-service' : 'notification';
}
