// The GitHost port: what the pull-request strategy needs from a Git host, with one adapter per host
// (lib/promotion/github, gitlab, bitbucket-server, azure-devops). The promoter (promoter.ts) holds everything the
// hosts share: which files are scanned, the marker cache and its store, the edit, the Weave names, the
// "already on the base" answer, and the mapping of a whole run's failure to a PromotionError. An adapter only
// reads and writes through its host's API, and says what its host's errors mean.
import type { ObjectKey } from '../../pipeline/model.js';
import type { GitProviderType } from '../../pipeline/promotion.js';
import type { RepositoryAddress } from '../../pipeline/repository-address.js';
import type { PromotionError } from '../port.js';
import type { Logger } from '../../logging/logger.js';
import type { CommitAuthor } from './commit-author.js';
import type { ArchiveReadOptions } from './archive-read.js';
import type { DeploymentAccess, DeploymentReport, RecordedDeployment } from './deployments.js';

/** A regular file (mode 100644 or 100755; never a symlink or submodule) at a commit. */
export interface RepositoryFile {
  path: string;
  /** git's blob id of the content (`sha1("blob <len>\0…")`), as every host reports it. */
  blobId: string;
  /** Its size in bytes, where the host's listing tells it (GitHub's does): a file too large is refused unread. */
  size?: number;
}

export interface FileChange {
  path: string;
  /** The new text of the file, UTF-8. */
  content: string;
  /** The blob id the file has at the base commit. */
  baseBlobId: string;
  /** git's blob id of `content` (gitBlobId), for hosts that compare what a branch already holds. */
  blobId: string;
}

export interface BranchWrite {
  /** The promotion branch, `promotion-{ns}-{name}-{env}`, or a rollback's (naming.ts). */
  branch: string;
  /** The base branch's name and the head commit the changes were computed on. */
  base: string;
  baseCommit: string;
  /** Every file the promotion changes (at least one). */
  changes: readonly FileChange[];
  message: string;
  author: CommitAuthor;
}

export interface PullRequestWrite {
  branch: string;
  base: string;
  title: string;
  body: string;
}

export interface PullRequestSummary {
  /** The web URL a person opens (the promotion's result). */
  url: string;
  title: string;
  state: 'open' | 'merged' | 'closed';
  /** The branch it merges into. */
  base: string;
}

/** What one set of credentials may do on a repository, as its host tells it. */
export interface RepositoryAccess {
  /**
   * Whether they may push a branch and open a pull request from it; undefined when the host does not tell (for such
   * credentials, or at all).
   */
  canPush: boolean | undefined;
  /** What the host said, for a person (`GitHub permissions: push`); never a credential. */
  detail: string;
}

/** One repository on one host, opened with one Secret's credentials. Errors are the host client's own. */
export interface HostRepository {
  /**
   * What the credentials may do on the repository, read without changing anything (`pipelinectl check`). Throws the
   * host client's error when the repository cannot be read with them at all (rejected, not found, not visible).
   */
  access(): Promise<RepositoryAccess>;
  /** The head commit of a branch; undefined when there is no such branch. */
  branchHead(branch: string): Promise<string | undefined>;
  /**
   * Every regular file at a commit. Throws a PromotionError (not retryable) when the host cannot list the whole
   * tree, rather than returning part of it.
   */
  listFiles(commit: string): Promise<RepositoryFile[]>;
  /** The UTF-8 text of a file at a commit. */
  readFile(file: RepositoryFile, commit: string): Promise<string>;
  /**
   * The tree at `commit` from the host's archive of it, in one request, streamed (archive.ts): each regular file
   * `options.wants` and no larger than `maxFileBytes` is handed to `onFile`. An archive over `maxArchiveBytes` is an
   * ArchiveTooLargeError; any other failure is the host client's own, and the caller reads file by file instead.
   * Absent where the host gives no archive.
   */
  readArchive?(commit: string, options: ArchiveReadOptions): Promise<void>;
  /**
   * The commit's author as the host reports it, in one request: `Name <email>`, the name alone when the host gives
   * no e-mail, undefined when it names no author; cleaned and cut short by reportedAuthor (reported-author.ts).
   */
  commitAuthor(commit: string): Promise<string | undefined>;
  /**
   * Makes `branch` hold the base commit plus exactly these changes: created when missing; reset onto the base
   * commit when it holds anything else; left as it is (no new commit) when its head already has these contents on
   * this base. Safe against concurrent identical calls.
   */
  writeBranch(write: BranchWrite): Promise<void>;
  /**
   * Opens a pull (merge) request from `branch` into `base`; when one is already open for the branch, its title and
   * body are set to these where they differ (a newer revision, newer evidence) and no second one is opened, also
   * under concurrent identical calls. Returns its web URL.
   */
  openOrUpdatePullRequest(write: PullRequestWrite): Promise<string>;
  /** The pull requests from `branch`, newest first, in any state. */
  pullRequestsFrom(branch: string): Promise<PullRequestSummary[]>;
  /**
   * Records the rollout of a merged pull request on the host (deployments.ts): updates `report.recorded`, else finds
   * the host's record for this environment and revision or makes one. Absent on hosts without such a record.
   */
  recordDeployment?(report: DeploymentReport): Promise<RecordedDeployment>;
  /** Whether the credentials may record deployments (`pipelinectl check`), read without changing anything. */
  deploymentAccess?(): Promise<DeploymentAccess>;
}

export interface GitHost {
  readonly type: GitProviderType;
  /** The Secret keys this host reads, for messages: `the key "token", or "username" and "password"`. */
  readonly neededKeys: string;
  /**
   * The longest pull request body the host takes, when it is shorter than the promoter's default
   * (DEFAULT_MAX_BODY_LENGTH, body.ts): the evidence is cut to fit, Weave's block never.
   */
  readonly maxBodyLength?: number;
  /**
   * Opens the repository at `address` (the API base already chosen: the address's own, or the deployment's
   * override) with the values of the Secret `secret`. Throws a PromotionError (not retryable) naming the Secret and
   * the keys it needs when the values hold no usable credentials; never shows a value.
   */
  open(
    address: RepositoryAddress,
    apiUrl: string,
    secret: ObjectKey,
    values: Readonly<Record<string, string>>,
  ): HostRepository;
  /**
   * What an error thrown by this host's HostRepository means: 5xx, network errors, timeouts and rate limits are
   * retryable (a rate limit with the wait the host asked for, in `retryAfterMs`); a rejected credential names the
   * Secret; other 4xx say what a person must fix. A PromotionError is returned as it is.
   */
  toPromotionError(error: unknown, secret: ObjectKey): PromotionError;
}

/** How an adapter's client behaves; every field has a default fit for production. */
export interface GitHostSettings {
  /** Overrides the global fetch (tests, proxies) for clients that use fetch. */
  fetch?: typeof fetch;
  logger?: Pick<Logger, 'debug' | 'info' | 'warn'>;
  /** How many times a 5xx, a network error or a timeout is retried inside one call. Default 3. */
  retries?: number;
  /** Backoff of those retries: retry n waits n² × this. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** How long one second of the host's `Retry-After` lasts here. Default 1000; tests make it short. */
  retryAfterUnitMs?: number;
  /** A rate limit asking for a longer wait than this ends the call (retryable, with the wait). Default 10 s. */
  maxRateLimitWaitMs?: number;
  /** Timeout of each HTTP request. Default 15 s. */
  requestTimeoutMs?: number;
}
