export {
  COMMIT_MESSAGE,
  GitHubPullRequestPromoter,
  promotionBranch,
  pullRequestBody,
  pullRequestTitle,
  type GitHubPullRequestPromoterOptions,
} from './promoter.js';
export { commitAuthorOf, commitAuthorProblems, DEFAULT_COMMIT_AUTHOR, type CommitAuthor } from '../pull-request/commit-author.js';
export { readCredentials, toPromotionError, type GitHubClientSettings, type GitHubCredentials } from './client.js';
export { MarkerCache, type MarkerCacheLimits, type ScannedBlob } from '../pull-request/marker-cache.js';
export { InMemoryMarkerScanStore, MARKER_SCAN_FORMAT, type MarkerFacts, type MarkerScanStore } from '../pull-request/scan-store.js';
export { githubApiUrl, parseRepositoryUrl, type GitHubRepository } from './repository.js';
