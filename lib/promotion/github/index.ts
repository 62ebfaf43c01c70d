export {
  COMMIT_MESSAGE,
  GitHubPullRequestPromoter,
  promotionBranch,
  pullRequestBody,
  pullRequestTitle,
  type GitHubPullRequestPromoterOptions,
} from './promoter.js';
export { commitAuthorOf, commitAuthorProblems, DEFAULT_COMMIT_AUTHOR, type CommitAuthor } from './commit-author.js';
export { readCredentials, toPromotionError, type GitHubClientSettings, type GitHubCredentials } from './client.js';
export { MarkerCache, type MarkerCacheLimits, type ScannedBlob } from './marker-cache.js';
export { InMemoryMarkerScanStore, MARKER_SCAN_FORMAT, type MarkerFacts, type MarkerScanStore } from './scan-store.js';
export { githubApiUrl, parseRepositoryUrl, type GitHubRepository } from './repository.js';
