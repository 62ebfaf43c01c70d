// The Bitbucket Server / Data Center adapter of the pull-request strategy (lib/promotion/pull-request/host.ts), through
// the REST 1.0 API (client.ts), without a clone.
//
// Files and their blob ids. A commit is listed in full from its archive (`archive?at=&format=tgz`, one request, each
// regular file's blob id hashed as it streams past); `browse`, one request per directory with each file's git blob id
// (`contentId`), when the archive cannot be read. The adapter remembers the last listing of each repository (per host,
// so across the promotions of a process) and lists a later commit from it with one request,
// `changes?since=<listed>&until=<commit>` (git's diff of the two trees, with the new blob ids); a diff of 200 files or
// more is listed again in full. The promoter's marker cache is keyed by blob id, so only files whose content changed
// are read again (`raw`, one request per file, or the archive again when there are many). A repository's first
// promotion in a process lists with one request whatever its number of directories; a later promotion lists with no
// request when the base has not moved, or with one.
//
// Writing. REST 1.0 commits one file per request (the file edit: a multipart `PUT browse/{path}`); it has no commit of
// several files, no way to create trees or commits, and no force-move of a branch. So a promotion that changes n
// files makes n commits, each on the one before (`sourceCommitId`: Bitbucket refuses an edit when the file changed on
// the branch since that commit). Bitbucket authors them as the credentials' user: the file edit takes no author, so
// the configured commit author cannot be applied.
//
// The branch holds the base plus exactly the changes when its commits since the base commit are a chain on it, one
// per changed file, and the diff from the base (`changes?since=base`) is only changed files, each with its new blob
// id. Such a branch is left alone. A branch holding part of it (another promotion is writing it, or one stopped
// halfway) gets the remaining files. Any other branch (an older version, an older base) is reset: there being no
// force-move, it is deleted (only if it still points where it was read: `endPoint`) and created again at the base
// commit (branch-utils). Bitbucket declines an open pull request whose source branch is deleted: the adapter reopens
// it once the branch holds the new commits, so the pull request, its URL and its discussion carry over, as they do
// with a force-push on GitHub.
//
// The pull request is opened; Bitbucket refuses a second open one for the same source and target (409
// DuplicatePullRequestException, naming the open one), whose title and description are then set where they differ
// (optimistic locking on `version`: a stale version is read again).
//
// What the credentials may do: Bitbucket's repository search lists the repositories they may write to
// (`permission=REPO_WRITE`); the repository is writable when it is among them (a read-only HTTP access token's are
// not).
//
// Concurrent calls converge: every write is conditional (creating fails when the branch exists, deleting when it
// moved, an edit when its file changed, a title update when the pull request did), and a refused write reads the
// branch again.
import { listTarGz, readTarGz } from '../pull-request/archive.js';
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveReadOptions } from '../pull-request/archive-read.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { BitbucketServerAddress, RepositoryAddress } from '../../pipeline/repository-address.js';
import { PromotionError } from '../port.js';
import type {
  BranchWrite,
  FileChange,
  GitHost,
  GitHostSettings,
  HostRepository,
  PullRequestSummary,
  PullRequestWrite,
  RepositoryAccess,
  RepositoryFile,
} from '../pull-request/host.js';
import { ClientCache } from '../pull-request/client-cache.js';
import { reportedAuthor } from '../pull-request/reported-author.js';
import {
  BitbucketRepositoryApi,
  BitbucketServerClient,
  existingPullRequestOf,
  isApiError,
  pathString,
  pullRequestUrl,
  toPromotionError,
  type BrowseChild,
  type PullRequest,
} from './client.js';
import { bitbucketServerCredentials, NEEDED_KEYS } from './credentials.js';
import { mapLimit } from '../../util/map-limit.js';
import { recordBitbucketDeployment } from './deployments.js';
import type { DeploymentAccess, DeploymentReport, RecordedDeployment } from '../pull-request/deployments.js';
import { errorMessage } from '../../util/error-message.js';

/** Repositories whose last listing is kept. */
const MAX_LISTED_REPOSITORIES = 32;
/** Directories browsed at once when a commit is listed in full. */
const BROWSE_CONCURRENCY = 8;
/** A diff this long (or longer) is not worth applying: the commit is listed in full instead. */
const MAX_LISTING_CHANGES = 200;

export function bitbucketServerHost(settings: GitHostSettings = {}): GitHost {
  const clients = new ClientCache<BitbucketServerClient>();
  const listings = new Listings(MAX_LISTED_REPOSITORIES);
  const declined = new DeclinedByReset();
  const clientFor = (apiUrl: string, values: Readonly<Record<string, string>>, secret: ObjectKey) => {
    const credentials = bitbucketServerCredentials(values, secret);
    return clients.get(apiUrl, credentials, () => new BitbucketServerClient(apiUrl, credentials, settings));
  };
  return {
    type: 'bitbucket-server',
    neededKeys: NEEDED_KEYS,
    open(address: RepositoryAddress, apiUrl: string, secret: ObjectKey, values: Readonly<Record<string, string>>) {
      if (address.type !== 'bitbucket-server') {
        throw new PromotionError('Invalid', `not a Bitbucket Server repository: ${address.webUrl}`);
      }
      const api = new BitbucketRepositoryApi(
        clientFor(apiUrl, values, secret),
        address.projectKey,
        address.repositorySlug,
      );
      const listingKey = `${apiUrl.replace(/\/+$/, '')} ${address.projectKey}/${address.repositorySlug}`.toLowerCase();
      return new BitbucketServerRepository(api, address, listings.of(listingKey), declined.of(listingKey), settings);
    },
    toPromotionError,
  };
}

// ---------------------------------------------------------------- listings

/** The files of a commit: path → blob id. */
type FileListing = ReadonlyMap<string, string>;

/** The last listing of each repository, and the listings in flight (concurrent promotions share one). */
class Listings {
  private readonly last = new Map<string, { commit: string; files: FileListing }>();
  private readonly pending = new Map<string, Promise<FileListing>>();

  constructor(private readonly maxRepositories: number) {}

  of(repository: string): RepositoryListings {
    return {
      filesAt: (commit, list) => this.filesAt(repository, commit, list),
    };
  }

  private async filesAt(
    repository: string,
    commit: string,
    list: (known?: { commit: string; files: FileListing }) => Promise<FileListing>,
  ): Promise<FileListing> {
    const known = this.last.get(repository);
    if (known?.commit === commit) {
      this.last.delete(repository);
      this.last.set(repository, known);
      return known.files;
    }
    const key = `${repository}\n${commit}`;
    let listing = this.pending.get(key);
    if (!listing) {
      listing = list(known)
        .then((files) => {
          this.remember(repository, { commit, files });
          return files;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, listing);
    }
    return listing;
  }

  private remember(repository: string, listing: { commit: string; files: FileListing }): void {
    this.last.delete(repository);
    this.last.set(repository, listing);
    while (this.last.size > this.maxRepositories) {
      const oldest = this.last.keys().next().value;
      if (oldest === undefined) break;
      this.last.delete(oldest);
    }
  }
}

interface RepositoryListings {
  /** The files at a commit: remembered, or listed by `list` (from the last listing, when there is one). */
  filesAt(
    commit: string,
    list: (known?: { commit: string; files: FileListing }) => Promise<FileListing>,
  ): Promise<FileListing>;
}

// ---------------------------------------------------------------- pull requests declined by a reset

/**
 * The pull requests a reset declined (deleting a branch declines the open pull requests from it), per repository and
 * branch, until one promotion has reopened them. Shared by every promotion of the process: a concurrent promotion
 * that finds the branch already deleted and created again must reopen them too, not open a second pull request.
 * Across processes the verifier's lease keeps two promotions of one branch from running at once.
 */
class DeclinedByReset {
  private readonly byBranch = new Map<string, Set<number>>();

  of(repository: string): BranchDeclines {
    const keyOf = (branch: string) => `${repository}\n${branch}`;
    return {
      note: (branch, id) => {
        const key = keyOf(branch);
        this.byBranch.set(key, (this.byBranch.get(key) ?? new Set()).add(id));
      },
      pending: (branch) => [...(this.byBranch.get(keyOf(branch)) ?? [])],
      settle: (branch, id) => {
        // An emptied branch is forgotten, so the map holds only branches with something left to reopen.
        const key = keyOf(branch);
        const ids = this.byBranch.get(key);
        if (ids?.delete(id) && ids.size === 0) this.byBranch.delete(key);
      },
    };
  }
}

interface BranchDeclines {
  note(branch: string, id: number): void;
  /** The ids still to reopen, oldest first. */
  pending(branch: string): number[];
  /** Reopened, or no longer ours to reopen. */
  settle(branch: string, id: number): void;
}

// ---------------------------------------------------------------- one repository

class BitbucketServerRepository implements HostRepository {
  constructor(
    private readonly api: BitbucketRepositoryApi,
    private readonly address: BitbucketServerAddress,
    private readonly listings: RepositoryListings,
    /**
     * Open pull requests from a branch that a reset declined by deleting the branch: they are reopened (by
     * openOrUpdatePullRequest) once the branch holds the new commits.
     */
    private readonly declined: BranchDeclines,
    private readonly settings: GitHostSettings,
  ) {}

  branchHead(branch: string): Promise<string | undefined> {
    return this.api.branchHead(branch);
  }

  async recordDeployment(report: DeploymentReport): Promise<RecordedDeployment> {
    return recordBitbucketDeployment(this.api, report);
  }

  /** A build status is posted by any user who may read the repository, which opening it proved. */
  async deploymentAccess(): Promise<DeploymentAccess> {
    await this.api.repository();
    return { canRecord: true, detail: 'Bitbucket Server: build statuses need read access to the repository' };
  }

  async access(): Promise<RepositoryAccess> {
    const repository = await this.api.repository();
    return (await this.api.writable(repository.name))
      ? { canPush: true, detail: 'Bitbucket grants REPO_WRITE' }
      : { canPush: false, detail: 'Bitbucket grants read only: REPO_WRITE is needed to push a branch' };
  }

  async listFiles(commit: string): Promise<RepositoryFile[]> {
    const files = await this.listings.filesAt(commit, async (known) => {
      const derived = known ? await this.listFromChanges(known, commit) : undefined;
      return derived ?? this.listTree(commit);
    });
    return [...files].map(([path, blobId]) => ({ path, blobId }));
  }

  async readFile(file: RepositoryFile, commit: string): Promise<string> {
    return (await this.api.raw(file.path, commit)).toString('utf8');
  }

  async readArchive(commit: string, options: ArchiveReadOptions): Promise<void> {
    const body = await this.api.archive(commit);
    await readTarGz(body, `${commit} in ${this.address.webUrl}`, { ...options, stripTopDirectory: false });
  }

  async commitAuthor(commit: string): Promise<string | undefined> {
    const { author } = await this.api.commit(commit);
    // An author Bitbucket maps to one of its users (by e-mail) is that user: `name` is then the user name (`jdoe`),
    // `displayName` the person's name.
    return reportedAuthor(author?.displayName ?? author?.name, author?.emailAddress);
  }

  // ------------------------------------------------ listing

  /**
   * Every file of a commit: from its archive, one request whatever the number of directories; directory by directory
   * when the archive cannot be read.
   */
  private async listTree(commit: string): Promise<FileListing> {
    try {
      const what = `${commit} in ${this.address.webUrl}`;
      return await listTarGz(await this.api.archive(commit), what, {
        maxArchiveBytes: DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes,
        maxExpandedBytes: DEFAULT_ARCHIVE_LIMITS.maxExpandedBytes,
        stripTopDirectory: false,
      });
    } catch (error) {
      this.settings.logger?.warn('cannot list the commit from its archive; listing directory by directory', {
        repository: this.address.webUrl,
        error: errorMessage(error),
      });
      return this.listDirectories(commit);
    }
  }

  /** Every file of a commit, directory by directory. */
  private async listDirectories(commit: string): Promise<FileListing> {
    const files = new Map<string, string>();
    let directories = [''];
    while (directories.length > 0) {
      const listed = await mapLimit(directories, BROWSE_CONCURRENCY, (directory) => this.children(directory, commit));
      directories = [];
      for (const { path, child } of listed.flat()) {
        if (child.type === 'DIRECTORY') directories.push(path);
        else if (child.type === 'FILE') {
          if (!child.contentId) {
            throw new PromotionError(
              'UnexpectedAnswer',
              `Bitbucket Server listed ${path} at ${commit} in ${this.address.webUrl} without its blob id`,
            );
          }
          files.set(path, child.contentId);
        }
        // A submodule is not a file of this repository.
      }
    }
    return files;
  }

  /** A directory's children, page after page, with their paths from the repository's root. */
  private async children(directory: string, commit: string): Promise<{ path: string; child: BrowseChild }[]> {
    const children: { path: string; child: BrowseChild }[] = [];
    let start = 0;
    for (;;) {
      const page = await this.api.browse(directory, commit, start);
      for (const child of page.values) {
        const name = pathString(child.path);
        children.push({ path: directory === '' ? name : `${directory}/${name}`, child });
      }
      if (page.isLastPage) return children;
      const next = page.nextPageStart;
      if (next === undefined || next === null || next <= start) {
        throw new PromotionError(
          'Unsupported',
          `Bitbucket Server cut the listing of ${directory === '' ? 'the root directory' : directory} at ` +
            `${commit} in ${this.address.webUrl} short; promoting from it is not supported`,
        );
      }
      start = next;
    }
  }

  /** The files of `commit` from an earlier listing and the diff between the two; undefined when it is too long. */
  private async listFromChanges(
    known: { commit: string; files: FileListing },
    commit: string,
  ): Promise<FileListing | undefined> {
    const page = await this.api.changes(known.commit, commit, MAX_LISTING_CHANGES);
    if (!page.isLastPage || page.values.length >= MAX_LISTING_CHANGES) return undefined;
    const files = new Map(known.files);
    for (const change of page.values) {
      const path = pathString(change.path);
      if (change.type === 'MOVE' && change.srcPath) files.delete(pathString(change.srcPath));
      if (change.type === 'DELETE' || (change.nodeType !== undefined && change.nodeType !== 'FILE')) {
        files.delete(path);
        continue;
      }
      // A change the adapter does not understand: better list the whole commit than guess.
      if (!['ADD', 'MODIFY', 'MOVE', 'COPY'].includes(change.type)) return undefined;
      if (!change.contentId || /^0+$/.test(change.contentId)) return undefined;
      files.set(path, change.contentId);
    }
    return files;
  }

  // ------------------------------------------------ the branch

  async writeBranch(write: BranchWrite): Promise<void> {
    // Each refused write is some other call's progress, and there are only so many steps to take.
    const rounds = write.changes.length + 6;
    for (let round = 0; round < rounds; round++) {
      const head = await this.api.branchHead(write.branch);
      let from: string;
      let remaining: FileChange[];
      if (head === undefined) {
        try {
          await this.api.createBranch(write.branch, write.baseCommit);
        } catch (error) {
          if (isApiError(error, 409)) continue; // created meanwhile by a concurrent promotion: read it
          throw error;
        }
        from = write.baseCommit;
        remaining = [...write.changes];
      } else {
        const held = await this.heldChanges(head, write);
        if (held === undefined) {
          await this.deleteToReset(write, head);
          continue;
        }
        remaining = write.changes.filter((change) => !held.has(change.path));
        if (remaining.length === 0) return;
        from = head;
      }
      if (await this.commitChanges(write, from, remaining)) return;
    }
    throw new PromotionError(
      'ConcurrentChange',
      `the branch ${write.branch} in ${this.address.webUrl} kept changing during the promotion`,
    );
  }

  /**
   * The changed files the branch already holds on the base commit (every one: it holds the promotion), or undefined
   * when it holds anything else.
   */
  private async heldChanges(head: string, write: BranchWrite): Promise<Set<string> | undefined> {
    if (head === write.baseCommit) return new Set();
    const limit = write.changes.length + 1;
    // One commit per changed file, each on the one before, the oldest on the base commit.
    const commits = await this.api.commitsBetween(write.baseCommit, head, limit);
    const chain = commits.values;
    if (!commits.isLastPage || chain.length === 0 || chain.length > write.changes.length) return undefined;
    if (chain[0]?.id !== head) return undefined;
    for (const [index, commit] of chain.entries()) {
      const parent = chain[index + 1]?.id ?? write.baseCommit;
      if (commit.parents.length !== 1 || commit.parents[0]?.id !== parent) return undefined;
    }
    const wanted = new Map(write.changes.map((change) => [change.path, change.blobId]));
    const diff = await this.api.changes(write.baseCommit, head, limit);
    if (!diff.isLastPage || diff.values.length !== chain.length) return undefined;
    const held = new Set<string>();
    for (const change of diff.values) {
      const path = pathString(change.path);
      if (change.type !== 'MODIFY' || change.srcPath || wanted.get(path) !== change.contentId) return undefined;
      held.add(path);
    }
    return held;
  }

  /**
   * Deletes a branch that holds something else, if it still points at `head`, so that it can be created again on
   * the base. The open pull requests from it, which Bitbucket declines with it, are noted to be reopened.
   */
  private async deleteToReset(write: BranchWrite, head: string): Promise<void> {
    const open = await this.api.pullRequestsFrom(write.branch, 'OPEN', 25, false);
    // Deleted by this call or by a concurrent promotion resetting it too: either way these were declined with it, and
    // whichever promotion first holds the new commits reopens them.
    for (const pull of open) this.declined.note(write.branch, pull.id);
    try {
      await this.api.deleteBranch(write.branch, head);
    } catch (error) {
      // Moved or deleted meanwhile by a concurrent promotion: read it again.
      if (isApiError(error, 400, 404, 409)) return;
      throw error;
    }
    this.settings.logger?.info('deleted the promotion branch to start it again on the base branch', {
      repository: this.address.webUrl,
      branch: write.branch,
      base: write.base,
      pullRequestsToReopen: open.map((pull) => pullRequestUrl(pull)),
    });
  }

  /**
   * Commits the files onto the branch, one commit each, starting at `from`. True when the branch now holds them all
   * on `from` (each commit on the one before); false when a concurrent write came in between, or refused one.
   */
  private async commitChanges(write: BranchWrite, from: string, changes: readonly FileChange[]): Promise<boolean> {
    let head = from;
    let chained = true;
    for (const change of changes) {
      let commit;
      try {
        commit = await this.api.editFile({
          path: change.path,
          content: change.content,
          branch: write.branch,
          message: write.message,
          sourceCommitId: head,
        });
      } catch (error) {
        // The file changed on the branch, or the branch went: another promotion is writing it.
        if (isApiError(error, 404, 409)) return false;
        throw error;
      }
      if (commit.parents[0]?.id !== head) chained = false;
      head = commit.id;
    }
    return chained;
  }

  // ------------------------------------------------ the pull request

  async openOrUpdatePullRequest(write: PullRequestWrite): Promise<string> {
    const reopened = await this.reopenDeclined(write);
    if (reopened) return this.update(reopened, write);
    let existing: PullRequest | undefined;
    try {
      const created = await this.api.createPullRequest({
        title: write.title,
        description: write.body,
        from: write.branch,
        to: write.base,
      });
      this.settings.logger?.info('opened pull request', { pullRequest: pullRequestUrl(created), title: write.title });
      return pullRequestUrl(created);
    } catch (error) {
      if (!isApiError(error, 409) || !/DuplicatePullRequestException$/.test(error.exceptionName ?? '')) throw error;
      existing = existingPullRequestOf(error);
    }
    existing ??= (await this.api.pullRequestsFrom(write.branch, 'OPEN', 100, true)).find(
      (pull) => pull.toRef.id === `refs/heads/${write.base}`,
    );
    if (!existing) {
      // Bitbucket said one is open but does not list it (yet): ask again later.
      throw new PromotionError(
        'ConcurrentChange',
        `failed to create or find existing PR: headBranch=${write.branch} baseBranch=${write.base}: Bitbucket ` +
          'Server reports an open pull request for the branches but does not list it',
      );
    }
    return this.update(existing, write);
  }

  /** Reopens a pull request a reset of this branch declined, when it is still declined. */
  private async reopenDeclined(write: PullRequestWrite): Promise<PullRequest | undefined> {
    for (const id of this.declined.pending(write.branch)) {
      let pull: PullRequest;
      try {
        pull = await this.api.pullRequest(id);
      } catch (error) {
        if (isApiError(error, 404)) {
          this.declined.settle(write.branch, id);
          continue;
        }
        throw error;
      }
      const ours = pull.fromRef.id === `refs/heads/${write.branch}` && pull.toRef.id === `refs/heads/${write.base}`;
      if (!ours || pull.state !== 'DECLINED') {
        this.declined.settle(write.branch, id);
        if (ours && pull.state === 'OPEN') return pull; // reopened by a concurrent promotion
        continue;
      }
      try {
        const reopened = await this.api.reopenPullRequest(pull);
        this.declined.settle(write.branch, id);
        this.settings.logger?.info('reopened pull request', { pullRequest: pullRequestUrl(reopened) });
        return reopened;
      } catch (error) {
        // Reopened, or replaced by a new one, meanwhile: the duplicate check below finds the open one.
        if (isApiError(error, 409)) continue;
        throw error;
      }
    }
    return undefined;
  }

  /** Sets the title and description of an open pull request; a stale `version` is read again. Returns its URL. */
  private async update(pull: PullRequest, write: PullRequestWrite): Promise<string> {
    const { title, body } = write;
    let current = pull;
    for (let attempt = 0; attempt < 3; attempt++) {
      const retitle = current.title !== title;
      if (!retitle && (current.description ?? '') === body) return pullRequestUrl(current);
      try {
        const updated = await this.api.updatePullRequest(current, { title, description: body });
        this.settings.logger?.info(retitle ? 'retitled pull request' : 'updated the pull request description', {
          pullRequest: pullRequestUrl(updated),
          title,
        });
        return pullRequestUrl(updated);
      } catch (error) {
        if (!isApiError(error, 409)) throw error;
        current = await this.api.pullRequest(current.id);
      }
    }
    throw new PromotionError(
      'ConcurrentChange',
      `the pull request ${pullRequestUrl(current)} kept changing while it was updated`,
    );
  }

  async pullRequestsFrom(branch: string): Promise<PullRequestSummary[]> {
    const pulls = await this.api.pullRequestsFrom(branch, 'ALL', 100, false);
    return pulls.map((pull) => ({
      url: pullRequestUrl(pull),
      title: pull.title,
      state: pull.state === 'OPEN' ? 'open' : pull.state === 'MERGED' ? 'merged' : 'closed',
      base: pull.toRef.displayId ?? pull.toRef.id.replace(/^refs\/heads\//, ''),
    }));
  }
}
