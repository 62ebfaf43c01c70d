// The GitHub adapter of the pull-request strategy (lib/promotion/pull-request/host.ts), through Octokit's REST API:
//
// - files: the base commit's whole tree in one recursive listing (a truncated listing fails for good rather than
//   missing a marker); a file's text by its blob id;
// - the branch: made to hold the base plus the changes with as few writes as GitHub allows, none when it already does
//   (branch-write.ts);
// - the pull request: the open one for the branch updated where its title or body differ, else one opened
//   (pull-request-write.ts); which ones are open is read once, by the branch write;
// - what the credentials may do: the repository's `permissions`, which GitHub adds for a user's token (`push`). An
//   installation token's answer has none: what a GitHub App may do is not told per repository there.
// Concurrent calls converge: a branch created by another call ("Reference already exists") is reused or moved, a pull
// request opened by another call is found.
import type { ObjectKey } from '../../pipeline/model.js';
import type { GitHubAddress, RepositoryAddress } from '../../pipeline/repository-address.js';
import { PromotionError } from '../port.js';
import type {
  BranchWrite,
  GitHost,
  HostRepository,
  PullRequestSummary,
  PullRequestWrite,
  RepositoryAccess,
  RepositoryFile,
} from '../pull-request/host.js';
import { ClientCache } from '../pull-request/client-cache.js';
import { reportedAuthor } from '../pull-request/reported-author.js';
import { readTarGz } from '../pull-request/archive.js';
import type { ArchiveReadOptions } from '../pull-request/archive-read.js';
import { writeGitHubBranch, type BaseListing } from './branch-write.js';
import { recordGitHubDeployment } from './deployments.js';
import type { DeploymentAccess, DeploymentReport, RecordedDeployment } from '../pull-request/deployments.js';
import {
  createGitHubClient,
  isRequestError,
  toPromotionError,
  type GitHubClient,
  type GitHubClientSettings,
} from './client.js';
import { gitHubCredentials, NEEDED_KEYS } from './credentials.js';
import type { OpenPullRequest } from './open-pull-requests.js';
import { openOrUpdateGitHubPullRequest } from './pull-request-write.js';
import type { ListedTreeEntry } from './tree-id.js';

const FILE_MODES = new Set(['100644', '100755']);
const LISTED_TYPES = new Set(['blob', 'tree', 'commit']);
/** Repositories whose last listing writeBranch may use, across the promotions of a process. */
const LISTED_REPOSITORIES = 16;

export function gitHubHost(settings: GitHubClientSettings = {}): GitHost {
  const clients = new ClientCache<GitHubClient>();
  const clientFor = (apiUrl: string, values: Readonly<Record<string, string>>, secret: ObjectKey) => {
    const credentials = gitHubCredentials(values, secret);
    return clients.get(apiUrl, credentials, () => createGitHubClient(apiUrl, credentials, settings));
  };
  // By repository, the last commit listed: the promoter lists a commit once for the promotions of many pipelines,
  // each of which opens the repository anew.
  const listings = new Map<string, { commit: string; listing: BaseListing }>();
  const listingsOf = (key: string): CommitListings => ({
    get: (commit) => {
      const known = listings.get(key);
      return known?.commit === commit ? known.listing : undefined;
    },
    set: (commit, listing) => {
      listings.delete(key);
      listings.set(key, { commit, listing });
      while (listings.size > LISTED_REPOSITORIES) listings.delete(listings.keys().next().value as string);
    },
  });
  return {
    type: 'github',
    neededKeys: NEEDED_KEYS,
    open(address: RepositoryAddress, apiUrl: string, secret: ObjectKey, values: Readonly<Record<string, string>>) {
      if (address.type !== 'github') throw new PromotionError('Invalid', `not a GitHub repository: ${address.webUrl}`);
      const listed = listingsOf(`${apiUrl} ${address.owner}/${address.repo}`.toLowerCase());
      return new GitHubRepository(clientFor(apiUrl, values, secret), address, secret, settings, listed);
    },
    toPromotionError,
  };
}

interface CommitListings {
  get(commit: string): BaseListing | undefined;
  set(commit: string, listing: BaseListing): void;
}

class GitHubRepository implements HostRepository {
  private readonly repo: { owner: string; repo: string };
  /** The pull requests open from the branch writeBranch last wrote, for openOrUpdatePullRequest. */
  private openPulls: { branch: string; open: readonly OpenPullRequest[] } | undefined;

  constructor(
    private readonly client: GitHubClient,
    private readonly address: GitHubAddress,
    private readonly secret: ObjectKey,
    private readonly settings: GitHubClientSettings,
    /** What listFiles learnt of a commit, for writeBranch: its tree, every entry and each file's mode. */
    private readonly listed: CommitListings,
  ) {
    this.repo = { owner: address.owner, repo: address.repo };
  }

  async branchHead(branch: string): Promise<string | undefined> {
    try {
      return (await this.client.git.getRef({ ...this.repo, ref: `heads/${branch}` })).data.object.sha;
    } catch (error) {
      // Only the ref's own 404: an installation token refused on the way (also a 404) is an error.
      if (isRequestError(error) && error.status === 404 && error.request?.url?.includes('/git/ref/')) return undefined;
      throw error;
    }
  }

  async access(): Promise<RepositoryAccess> {
    const { data } = await this.client.repos.get(this.repo);
    const push = data.permissions?.push;
    if (push === undefined) {
      return {
        canPush: undefined,
        detail:
          'GitHub reports no permissions for these credentials (a GitHub App installation: it needs Contents and ' +
          'Pull requests read and write)',
      };
    }
    return push
      ? { canPush: true, detail: 'GitHub permissions: push' }
      : { canPush: false, detail: 'GitHub permissions: read only (push is false)' };
  }

  async listFiles(commit: string): Promise<RepositoryFile[]> {
    const treeSha = await this.treeOf(commit);
    const { data: tree } = await this.client.git.getTree({ ...this.repo, tree_sha: treeSha, recursive: 'true' });
    if (tree.truncated) {
      throw new PromotionError(
        'Unsupported',
        `the tree of ${commit} in ${this.address.webUrl} is too large for GitHub to list in one response ` +
          '(truncated); promoting from such a repository is not supported',
      );
    }
    const files: RepositoryFile[] = [];
    const modes = new Map<string, string>();
    const entries: ListedTreeEntry[] = [];
    for (const entry of tree.tree) {
      if (!entry.path || !entry.sha || !entry.mode || !LISTED_TYPES.has(entry.type ?? '')) continue;
      entries.push({ path: entry.path, mode: entry.mode, type: entry.type as ListedTreeEntry['type'], sha: entry.sha });
      if (entry.type !== 'blob' || !FILE_MODES.has(entry.mode)) continue;
      files.push({ path: entry.path, blobId: entry.sha, ...(entry.size === undefined ? {} : { size: entry.size }) });
      modes.set(entry.path, entry.mode);
    }
    this.listed.set(commit, { tree: treeSha, entries, modes });
    return files;
  }

  async readFile(file: RepositoryFile): Promise<string> {
    const { data } = await this.client.git.getBlob({ ...this.repo, file_sha: file.blobId });
    return Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  }

  /**
   * GitHub's tarball of the commit: the API answers with a redirect to a download address on another origin, which
   * the client follows without the credential (origin-bound-fetch.ts); the body is streamed, never buffered whole.
   */
  async readArchive(commit: string, options: ArchiveReadOptions): Promise<void> {
    const response = await this.client.request('GET /repos/{owner}/{repo}/tarball/{ref}', {
      ...this.repo,
      ref: commit,
      request: { parseSuccessResponseBody: false },
    });
    await readTarGz(response.data as ReadableStream<Uint8Array>, `${commit} in ${this.address.webUrl}`, {
      ...options,
      stripTopDirectory: true,
    });
  }

  async commitAuthor(commit: string): Promise<string | undefined> {
    // The git commit (`git/commits`), not `repos/commits`, which adds the diff of every file the commit touched.
    const { author } = (await this.client.git.getCommit({ ...this.repo, commit_sha: commit })).data as {
      author?: { name?: string | null; email?: string | null } | null;
    };
    return reportedAuthor(author?.name, author?.email);
  }

  async writeBranch(write: BranchWrite): Promise<void> {
    const written = await writeGitHubBranch(
      {
        client: this.client,
        repo: this.repo,
        webUrl: this.address.webUrl,
        branchHead: (branch) => this.branchHead(branch),
        treeOf: (commit) => this.treeOf(commit),
      },
      write,
      this.listed.get(write.baseCommit),
    );
    this.openPulls = { branch: write.branch, open: written.openPullRequests };
    this.settings.logger?.debug?.('wrote the promotion branch', { branch: write.branch, way: written.way });
  }

  private async treeOf(commit: string): Promise<string> {
    return (await this.client.git.getCommit({ ...this.repo, commit_sha: commit })).data.tree.sha;
  }

  /** Opens the pull request, or updates the open one for the branch (known from writeBranch, else asked). */
  async openOrUpdatePullRequest(write: PullRequestWrite): Promise<string> {
    const known = this.openPulls?.branch === write.branch ? this.openPulls.open : undefined;
    this.openPulls = undefined;
    return openOrUpdateGitHubPullRequest(
      { client: this.client, repo: this.repo, secret: this.secret, logger: this.settings.logger },
      write,
      known,
    );
  }

  async pullRequestsFrom(branch: string): Promise<PullRequestSummary[]> {
    const { data: pulls } = await this.client.pulls.list({
      ...this.repo,
      state: 'all',
      head: `${this.address.owner}:${branch}`,
      sort: 'created',
      direction: 'desc',
      per_page: 100,
    });
    return pulls
      .filter((pull) => pull.head.ref === branch)
      .map((pull) => ({
        url: pull.html_url,
        title: pull.title,
        state: pull.state === 'open' ? 'open' : pull.merged_at ? 'merged' : 'closed',
        base: pull.base.ref,
      }));
  }

  async recordDeployment(report: DeploymentReport): Promise<RecordedDeployment> {
    return recordGitHubDeployment(this.client, this.repo, report);
  }

  /**
   * A classic token's scopes are in `x-oauth-scopes` (`repo` or `repo_deployment` records deployments); a
   * fine-grained token's or an App's Deployments permission is not reported, only whether it may write at all.
   */
  async deploymentAccess(): Promise<DeploymentAccess> {
    const { data, headers } = await this.client.repos.get(this.repo);
    const scopes = headers['x-oauth-scopes'];
    if (typeof scopes === 'string') {
      const granted = scopes.split(',').map((scope) => scope.trim());
      return granted.includes('repo') || granted.includes('repo_deployment')
        ? { canRecord: true, detail: `GitHub token scopes: ${scopes}` }
        : { canRecord: false, detail: `GitHub token scopes: ${scopes || 'none'}; missing repo_deployment (or repo)` };
    }
    if (data.permissions?.push === false) {
      return { canRecord: false, detail: 'GitHub permissions: read only; missing Deployments: read and write' };
    }
    return {
      canRecord: undefined,
      detail:
        "GitHub does not report a fine-grained token's or an App's Deployments permission: it needs Deployments: read and write",
    };
  }
}
