// The GitHub adapter of the pull-request strategy (lib/promotion/pull-request/host.ts), through Octokit's REST API:
//
// - files: the base commit's whole tree in one recursive listing (a truncated listing fails for good rather than
//   missing a marker); a file's text by its blob id;
// - the branch: a tree on the base tree with the changed files inline, one commit on the base commit, then the ref
//   created or force-moved there; a branch whose head already has that tree is left as it is;
// - the pull request: opened; when GitHub refuses (one open pull request per head and base) the open one for the
//   branch is found and retitled;
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
import {
  createGitHubClient,
  gitHubCredentials,
  isRequestError,
  isValidationError,
  NEEDED_KEYS,
  toPromotionError,
  type GitHubClient,
  type GitHubClientSettings,
} from './client.js';

const FILE_MODES = new Set(['100644', '100755']);

export function gitHubHost(settings: GitHubClientSettings = {}): GitHost {
  const clients = new ClientCache<GitHubClient>();
  const clientFor = (apiUrl: string, values: Readonly<Record<string, string>>, secret: ObjectKey) => {
    const credentials = gitHubCredentials(values, secret);
    return clients.get(apiUrl, credentials, () => createGitHubClient(apiUrl, credentials, settings));
  };
  return {
    type: 'github',
    neededKeys: NEEDED_KEYS,
    open(address: RepositoryAddress, apiUrl: string, secret: ObjectKey, values: Readonly<Record<string, string>>) {
      if (address.type !== 'github') throw new PromotionError(`not a GitHub repository: ${address.webUrl}`, false);
      return new GitHubRepository(clientFor(apiUrl, values, secret), address, secret, settings);
    },
    toPromotionError,
  };
}

class GitHubRepository implements HostRepository {
  private readonly repo: { owner: string; repo: string };
  /** What listFiles learnt of a commit, for writeBranch: its tree and each file's mode. */
  private readonly listed = new Map<string, { tree: string; modes: Map<string, string> }>();

  constructor(
    private readonly client: GitHubClient,
    private readonly address: GitHubAddress,
    private readonly secret: ObjectKey,
    private readonly settings: GitHubClientSettings,
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
        `the tree of ${commit} in ${this.address.webUrl} is too large for GitHub to list in one response ` +
          '(truncated); promoting from such a repository is not supported',
        false,
      );
    }
    const files: RepositoryFile[] = [];
    const modes = new Map<string, string>();
    for (const entry of tree.tree) {
      if (entry.type !== 'blob' || !entry.path || !entry.sha || !entry.mode || !FILE_MODES.has(entry.mode)) continue;
      files.push({ path: entry.path, blobId: entry.sha });
      modes.set(entry.path, entry.mode);
    }
    this.listed.set(commit, { tree: treeSha, modes });
    return files;
  }

  async readFile(file: RepositoryFile): Promise<string> {
    const { data } = await this.client.git.getBlob({ ...this.repo, file_sha: file.blobId });
    return Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  }

  async writeBranch(write: BranchWrite): Promise<void> {
    const listed = this.listed.get(write.baseCommit);
    const baseTree = listed?.tree ?? (await this.treeOf(write.baseCommit));
    const tree = await this.client.git.createTree({
      ...this.repo,
      base_tree: baseTree,
      tree: write.changes.map((change) => ({
        path: change.path,
        mode: (listed?.modes.get(change.path) ?? '100644') as '100644' | '100755',
        type: 'blob' as const,
        content: change.content,
      })),
    });
    await this.pointBranch(write, tree.data.sha);
  }

  /**
   * Makes the branch's head a commit with `treeSha` on top of the base: kept as it is when its head already has that
   * tree, else a new commit, with the branch created or force-moved to it. Safe against concurrent calls.
   */
  private async pointBranch(write: BranchWrite, treeSha: string): Promise<void> {
    const ref = `heads/${write.branch}`;
    let commitSha: string | undefined;
    const commit = async () => {
      commitSha ??= (
        await this.client.git.createCommit({
          ...this.repo,
          message: write.message,
          tree: treeSha,
          parents: [write.baseCommit],
          // The committer is left out: GitHub then takes the author, as go-git did for Weave.
          author: { ...write.author },
        })
      ).data.sha;
      return commitSha;
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      const head = await this.branchHead(write.branch);
      if (head !== undefined) {
        if ((await this.treeOf(head)) === treeSha) return;
        try {
          await this.client.git.updateRef({ ...this.repo, ref, sha: await commit(), force: true });
          return;
        } catch (error) {
          if (!isValidationError(error, /Reference does not exist/i)) throw error;
          // deleted meanwhile: create it on the next round
        }
      } else {
        try {
          await this.client.git.createRef({ ...this.repo, ref: `refs/${ref}`, sha: await commit() });
          return;
        } catch (error) {
          if (!isValidationError(error, /Reference already exists/i)) throw error;
          // created meanwhile by a concurrent promotion: reuse or move it on the next round
        }
      }
    }
    throw new PromotionError(
      `the branch ${write.branch} in ${this.address.webUrl} kept changing during the promotion`,
      true,
    );
  }

  private async treeOf(commit: string): Promise<string> {
    return (await this.client.git.getCommit({ ...this.repo, commit_sha: commit })).data.tree.sha;
  }

  /** Opens the pull request, or (Weave's fallback) finds the open one for the branch and sets its title. */
  async openOrUpdatePullRequest(write: PullRequestWrite): Promise<string> {
    let createError: unknown;
    try {
      const { data } = await this.client.pulls.create({
        ...this.repo,
        title: write.title,
        head: write.branch,
        base: write.base,
        body: write.body,
      });
      this.settings.logger?.info('opened pull request', { pullRequest: data.html_url, title: write.title });
      return data.html_url;
    } catch (error) {
      createError = error;
    }
    const open = await this.client.paginate(this.client.pulls.list, {
      ...this.repo,
      state: 'open',
      head: `${this.address.owner}:${write.branch}`,
      per_page: 100,
    });
    const mine = open.filter((pull) => pull.head.ref === write.branch);
    const existing = mine.find((pull) => pull.base.ref === write.base) ?? mine[0];
    if (existing) {
      if (existing.title !== write.title) {
        await this.client.pulls.update({ ...this.repo, pull_number: existing.number, title: write.title });
        this.settings.logger?.info('retitled pull request', { pullRequest: existing.html_url, title: write.title });
      }
      return existing.html_url;
    }
    const cause = toPromotionError(createError, this.secret);
    if (cause.retryable) throw createError;
    // GitHub said one exists but does not list it yet: ask again later.
    const exists = isValidationError(createError, /already exists/i);
    throw new PromotionError(
      `failed to create or find existing PR: headBranch=${write.branch} baseBranch=${write.base}: ${cause.message}`,
      exists,
      undefined,
      { cause: createError },
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
}
