export { PullRequestPromoter, type PullRequestPromoterOptions } from './promoter.js';
export { ARCHIVE_AFTER_READS } from './archived-files.js';
export {
  branchSafe,
  COMMIT_MESSAGE,
  groupBranch,
  promotionBranch,
  pullRequestBody,
  pullRequestTitle,
  rollbackBranch,
  rollbackCommitMessage,
  rollbackTitle,
} from './naming.js';
export {
  DEFAULT_MAX_BODY_LENGTH,
  groupPullRequestBody,
  promotionPullRequestBody,
  rollbackPullRequestBody,
  type RollbackBody,
} from './body.js';
export { EVIDENCE_HEADING, evidenceSection, markdownText } from './evidence-markdown.js';
export { commitAuthorOf, commitAuthorProblems, DEFAULT_COMMIT_AUTHOR, type CommitAuthor } from './commit-author.js';
export { MarkerCache, type MarkerCacheLimits, type ScannedBlob } from './marker-cache.js';
export { InMemoryMarkerScanStore, MARKER_SCAN_FORMAT, type MarkerFacts, type MarkerScanStore } from './scan-store.js';
export { gitBlobId } from './git-blob-id.js';
export type {
  BranchWrite,
  FileChange,
  GitHost,
  GitHostSettings,
  HostRepository,
  PullRequestSummary,
  PullRequestWrite,
  RepositoryFile,
  RepositoryAccess,
} from './host.js';
