// The pull-request strategy on GitHub alone, for tests and benchmarks that promote only to GitHub: the generic
// promoter (lib/promotion/pull-request/promoter.ts) with the GitHub adapter. A deployment builds the promoter with
// every host (lib/runtime/promoter.ts).
import { PullRequestPromoter } from '../promotion/pull-request/promoter.js';
import type { CommitAuthor } from '../promotion/pull-request/commit-author.js';
import type { MarkerCacheLimits } from '../promotion/pull-request/marker-cache.js';
import type { MarkerScanStore } from '../promotion/pull-request/scan-store.js';
import type { SecretSource } from '../secrets/port.js';
import type { GitHubClientSettings } from '../promotion/github/client.js';
import { gitHubHost } from '../promotion/github/host.js';

export interface GitHubPullRequestPromoterOptions extends GitHubClientSettings {
  secrets: SecretSource;
  /** The API base for every repository (GITHUB_API_URL), instead of the one derived from the repository URL. */
  apiUrl?: string;
  /** How many blobs are read at once during the marker scan. Default 8. */
  blobReadConcurrency?: number;
  markerCache?: MarkerCacheLimits;
  /** Keeps what the marker scan learnt across processes (Lambda containers, restarts of `serve`). */
  markerScans?: MarkerScanStore;
  /** The promotion commit's author and committer. Default Weave's: `Promotion Server`. */
  commitAuthor?: CommitAuthor;
}

export class GitHubPullRequestPromoter extends PullRequestPromoter {
  constructor(options: GitHubPullRequestPromoterOptions) {
    const { secrets, apiUrl, blobReadConcurrency, markerCache, markerScans, commitAuthor, ...settings } = options;
    super({
      secrets,
      hosts: [gitHubHost(settings)],
      apiUrls: apiUrl === undefined ? {} : { github: apiUrl },
      blobReadConcurrency,
      markerCache,
      markerScans,
      commitAuthor,
      logger: settings.logger,
    });
  }
}
