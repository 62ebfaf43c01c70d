// The promotion block of a pipeline or an environment, as the model carries it: how a revision is promoted, and
// whether a person approves it first. It is the Pipeline document's `promotion` as written (Weave's CRD); the
// schema in lib/config/schema.ts validates exactly this shape, and the compiler holds the two together.

export const GIT_PROVIDER_TYPES = ['github', 'gitlab', 'bitbucket-server'] as const;
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
}

/** Exactly one of `pull-request` and `notification` is set (the schema checks it). */
export interface PromotionStrategy {
  'pull-request'?: PullRequestPromotion;
  notification?: Record<string, never>;
  /** Pipeline level only: the Secret whose `hmac-key` signs the pipeline's webhooks. */
  secretRef?: LocalObjectReference;
}

export interface Promotion {
  /** A person approves each revision before it is promoted (`pipelinectl approve`, the approval webhook). */
  manual?: boolean;
  strategy: PromotionStrategy;
}
