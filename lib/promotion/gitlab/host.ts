// The GitLab adapter of the pull-request strategy (lib/promotion/pull-request/host.ts), through gitbeaker's REST
// resources (API v4). The project is addressed by its URL-encoded full path (`group%2Fsub%2Fproject`), so subgroups
// work as they are written in the repository URL.
//
// - files: the base commit's whole tree, listed recursively with keyset pagination; a tree of more than one page (100
//   entries) from the commit's archive instead, each file's blob id hashed as it streams past (one request, not one
//   per page; every page is followed when the archive cannot be read); a file's text by its blob id
//   (`repository/blobs/:sha/raw`);
// - the branch: one commit with every changed file (the commits API, one `update` action per file, the content in
//   base64 so it arrives byte for byte), started on the base commit (`start_sha`). A missing branch is created by
//   that commit; an existing one is reset onto the base with `force`, unless its head already is the base plus
//   exactly these contents (its only parent is the base commit, its diff touches exactly these files, and each has
//   the expected blob id), in which case nothing is written;
// - the merge request: opened; when GitLab refuses (409: one open merge request per source branch) the open one for
//   the branch is found and its title and description set where they differ, in one edit;
// - what the token may do: its role on the project (`permissions`: the project's or its group's access level;
//   Developer, 30, may push and open merge requests), and its scopes where GitLab tells them
//   (`personal_access_tokens/self`): a token without `api` cannot use the API to write, whatever its role.
// Concurrent calls converge: a branch created by another call meanwhile ("A branch called … already exists") is read
// again and reused or reset; a merge request opened by another call is found.
import { listTarGz, readTarGz } from '../pull-request/archive.js';
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveReadOptions } from '../pull-request/archive-read.js';
import * as z from 'zod';
import type { ObjectKey } from '../../pipeline/model.js';
import type { GitLabAddress, RepositoryAddress } from '../../pipeline/repository-address.js';
import { describeIssue } from '../../util/zod-issue.js';
import { PromotionError } from '../port.js';
import type {
  BranchWrite,
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
import { createGitLabClient, isGitLabError, toPromotionError, type GitLabClient } from './client.js';
import { gitLabToken, NEEDED_KEYS } from './credentials.js';
import { recordGitLabDeployment } from './deployments.js';
import type { DeploymentAccess, DeploymentReport, RecordedDeployment } from '../pull-request/deployments.js';
import { errorMessage } from '../../util/error-message.js';

const FILE_MODES = new Set(['100644', '100755']);
const PER_PAGE = 100;
/** A tree with more entries than this is not listed to its end: the promotion fails rather than miss a marker. */
const MAX_TREE_PAGES = 1000;
/** Rounds of reading the branch and writing it when concurrent promotions keep moving it. */
const WRITE_ROUNDS = 4;

// ---------------------------------------------------------------- GitLab's answers (only the fields used)

const BranchAnswer = z.object({
  name: z.string(),
  commit: z.object({ id: z.string(), parent_ids: z.array(z.string()).nullish() }),
});
const TreeAnswer = z.array(z.object({ id: z.string(), type: z.string(), path: z.string(), mode: z.string() }));
const DiffAnswer = z.array(
  z.object({
    old_path: z.string(),
    new_path: z.string(),
    a_mode: z.string().nullish(),
    b_mode: z.string().nullish(),
    new_file: z.boolean(),
    renamed_file: z.boolean(),
    deleted_file: z.boolean(),
  }),
);
const FileAnswer = z.object({ blob_id: z.string() });
const CommitAnswer = z.object({ author_name: z.string().nullish(), author_email: z.string().nullish() });
const MergeRequestAnswer = z.object({
  iid: z.number(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.string(),
  source_branch: z.string(),
  target_branch: z.string(),
  web_url: z.string(),
  source_project_id: z.number().nullish(),
  target_project_id: z.number().nullish(),
});
const MergeRequestsAnswer = z.array(MergeRequestAnswer);
const AccessAnswer = z.object({ access_level: z.number() }).nullish();
const ProjectAnswer = z.object({
  permissions: z.object({ project_access: AccessAnswer, group_access: AccessAnswer }).nullish(),
});
const TokenAnswer = z.object({ scopes: z.array(z.string()) });

/** GitLab's roles by access level; Developer is the least that may push a branch and open a merge request. */
const ROLES: Readonly<Record<number, string>> = {
  5: 'Minimal access',
  10: 'Guest',
  15: 'Planner',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};
const DEVELOPER = 30;
type MergeRequest = z.infer<typeof MergeRequestAnswer>;

export function gitLabHost(settings: GitHostSettings = {}): GitHost {
  const clients = new ClientCache<GitLabClient>();
  const clientFor = (apiUrl: string, values: Readonly<Record<string, string>>, secret: ObjectKey) => {
    const token = gitLabToken(values, secret);
    return clients.get(apiUrl, token, () => createGitLabClient(apiUrl, token, settings));
  };
  return {
    type: 'gitlab',
    neededKeys: NEEDED_KEYS,
    open(address: RepositoryAddress, apiUrl: string, secret: ObjectKey, values: Readonly<Record<string, string>>) {
      if (address.type !== 'gitlab') throw new PromotionError('Invalid', `not a GitLab project: ${address.webUrl}`);
      return new GitLabRepository(clientFor(apiUrl, values, secret), address, settings);
    },
    toPromotionError,
  };
}

interface BranchHead {
  commit: string;
  parents: readonly string[];
}

class GitLabRepository implements HostRepository {
  private readonly project: string;

  constructor(
    private readonly client: GitLabClient,
    private readonly address: GitLabAddress,
    private readonly settings: GitHostSettings,
  ) {
    this.project = address.projectPath;
  }

  async branchHead(branch: string): Promise<string | undefined> {
    return (await this.branch(branch))?.commit;
  }

  async access(): Promise<RepositoryAccess> {
    const project = this.parse(ProjectAnswer, await this.client.projects.show(this.project), 'the project');
    const scopes = await this.tokenScopes();
    if (scopes && !scopes.includes('api')) {
      return {
        canPush: false,
        detail: `the token's scopes are ${scopes.join(', ') || 'none'}: writing through the API needs the api scope`,
      };
    }
    const levels = [project.permissions?.project_access, project.permissions?.group_access]
      .map((access) => access?.access_level)
      .filter((level): level is number => level !== undefined);
    if (levels.length === 0) {
      return { canPush: undefined, detail: 'GitLab reports no role of these credentials on the project' };
    }
    const level = Math.max(...levels);
    const role = `GitLab role ${ROLES[level] ?? 'unknown'} (access level ${level})`;
    return level >= DEVELOPER
      ? { canPush: true, detail: role }
      : { canPush: false, detail: `${role}: pushing a branch and opening a merge request needs Developer (30)` };
  }

  /** The token's scopes; undefined where GitLab does not tell (before 15.5, or for another kind of token). */
  private async tokenScopes(): Promise<readonly string[] | undefined> {
    let answer: unknown;
    try {
      answer = await this.client.personalAccessTokens.show();
    } catch (error) {
      if ([401, 403, 404].some((status) => isGitLabError(error, status))) return undefined;
      throw error;
    }
    return TokenAnswer.safeParse(answer).data?.scopes;
  }

  /** The branch's head commit and its parents; undefined when there is no such branch. */
  private async branch(branch: string): Promise<BranchHead | undefined> {
    let answer: unknown;
    try {
      answer = await this.client.branches.show(this.project, branch);
    } catch (error) {
      // Only the branch's own 404: a project the token cannot see ("404 Project Not Found") is an error.
      if (isGitLabError(error, 404, /Branch Not Found/i)) return undefined;
      throw error;
    }
    const { commit } = this.parse(BranchAnswer, answer, `the branch ${branch}`);
    return { commit: commit.id, parents: commit.parent_ids ?? [] };
  }

  /**
   * The tree's first page; a tree longer than one page from the commit's archive instead (one request, where the
   * listing costs one per 100 entries), or page after page when the archive cannot be read.
   */
  async listFiles(commit: string): Promise<RepositoryFile[]> {
    const first = await this.treePages(commit, 1);
    if (first.entries < PER_PAGE) return first.files;
    try {
      const listed = await listTarGz(await this.archive(commit), `${commit} in ${this.address.webUrl}`, {
        maxArchiveBytes: DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes,
        maxExpandedBytes: DEFAULT_ARCHIVE_LIMITS.maxExpandedBytes,
        stripTopDirectory: true,
      });
      return [...listed].map(([path, blobId]) => ({ path, blobId }));
    } catch (error) {
      this.settings.logger?.warn('cannot list the commit from its archive; listing the tree page by page', {
        repository: this.address.webUrl,
        error: errorMessage(error),
      });
      return (await this.treePages(commit, MAX_TREE_PAGES)).files;
    }
  }

  /** The regular files of the tree's first `maxPages` pages, and how many entries (folders too) they held. */
  private async treePages(commit: string, maxPages: number): Promise<{ files: RepositoryFile[]; entries: number }> {
    const answer = await this.client.repositories.allRepositoryTrees(this.project, {
      ref: commit,
      recursive: true,
      pagination: 'keyset',
      perPage: PER_PAGE,
      maxPages,
    });
    const entries = this.parse(TreeAnswer, answer, `the tree of ${commit}`);
    if (entries.length >= MAX_TREE_PAGES * PER_PAGE) {
      throw new PromotionError(
        'Unsupported',
        `the tree of ${commit} in ${this.address.webUrl} has more than ${MAX_TREE_PAGES * PER_PAGE} entries; ` +
          'promoting from such a repository is not supported',
      );
    }
    const files = entries
      .filter((entry) => entry.type === 'blob' && FILE_MODES.has(entry.mode))
      .map((entry) => ({ path: entry.path, blobId: entry.id }));
    return { files, entries: entries.length };
  }

  async readFile(file: RepositoryFile): Promise<string> {
    const body: unknown = await this.client.repositories.showBlobRaw(this.project, file.blobId);
    if (typeof body === 'string') return body;
    if (body instanceof Blob) return Buffer.from(await body.arrayBuffer()).toString('utf8');
    throw new PromotionError(
      'UnexpectedAnswer',
      `unexpected answer from the GitLab API at ${this.client.apiUrl} for ${file.path}`,
    );
  }

  async readArchive(commit: string, options: ArchiveReadOptions): Promise<void> {
    await readTarGz(await this.archive(commit), `${commit} in ${this.address.webUrl}`, {
      ...options,
      stripTopDirectory: true,
    });
  }

  /** GitLab's `archive.tar.gz` of the commit, streamed (the requester hands the body on unread). */
  private async archive(commit: string): Promise<ReadableStream<Uint8Array>> {
    const body: unknown = await this.client.repositories.showArchive(this.project, {
      fileType: 'tar.gz',
      sha: commit,
      asStream: true,
    });
    if (!(body instanceof ReadableStream)) {
      throw new PromotionError(
        'UnexpectedAnswer',
        `unexpected answer from the GitLab API for the archive of ${commit}`,
      );
    }
    return body as ReadableStream<Uint8Array>;
  }

  async commitAuthor(commit: string): Promise<string | undefined> {
    const answer = this.parse(
      CommitAnswer,
      await this.client.commits.show(this.project, commit),
      `the commit ${commit}`,
    );
    return reportedAuthor(answer.author_name, answer.author_email);
  }

  async writeBranch(write: BranchWrite): Promise<void> {
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      const head = await this.branch(write.branch);
      if (head && (await this.holds(head, write))) return;
      try {
        await this.client.commits.create(
          this.project,
          write.branch,
          write.message,
          write.changes.map((change) => ({
            action: 'update' as const,
            filePath: change.path,
            content: Buffer.from(change.content, 'utf8').toString('base64'),
            encoding: 'base64',
          })),
          {
            startSha: write.baseCommit,
            // Only an existing branch is reset: creating one without force lets a concurrent creation fail here
            // (rather than stack a second commit), and the next round finds the branch already right.
            force: head !== undefined,
            authorName: write.author.name,
            authorEmail: write.author.email,
          },
        );
        this.settings.logger?.info('pushed the promotion branch', {
          repository: this.address.webUrl,
          branch: write.branch,
          files: write.changes.length,
        });
        return;
      } catch (error) {
        if (!isGitLabError(error, 400, /A branch called .* already exists|Could not update|refresh and try again/i)) {
          throw error;
        }
        // created or moved meanwhile by a concurrent promotion: read it again
      }
    }
    throw new PromotionError(
      'ConcurrentChange',
      `the branch ${write.branch} in ${this.address.webUrl} kept changing during the promotion`,
    );
  }

  /**
   * Whether the branch's head is the base commit plus exactly these changes: its only parent is the base, its diff
   * touches exactly these files (no file added, deleted, renamed or made executable), and each holds the expected
   * blob.
   */
  private async holds(head: BranchHead, write: BranchWrite): Promise<boolean> {
    if (head.parents.length !== 1 || head.parents[0] !== write.baseCommit) return false;
    const diffs = this.parse(
      DiffAnswer,
      await this.client.commits.showDiff(this.project, head.commit, { perPage: PER_PAGE }),
      `the diff of ${head.commit}`,
    );
    const changed = new Set(write.changes.map((change) => change.path));
    if (diffs.length !== changed.size) return false;
    for (const diff of diffs) {
      if (diff.new_file || diff.deleted_file || diff.renamed_file || diff.a_mode !== diff.b_mode) return false;
      if (!changed.has(diff.new_path)) return false;
    }
    for (const change of write.changes) {
      const file = this.parse(
        FileAnswer,
        await this.client.repositoryFiles.show(this.project, change.path, head.commit),
        `${change.path} at ${head.commit}`,
      );
      if (file.blob_id !== change.blobId) return false;
    }
    return true;
  }

  /** Opens the merge request, or finds the open one for the branch and sets its title. */
  async openOrUpdatePullRequest(write: PullRequestWrite): Promise<string> {
    let conflict: Error;
    try {
      const answer = await this.client.mergeRequests.create(this.project, write.branch, write.base, write.title, {
        description: write.body,
      });
      const created = this.parse(MergeRequestAnswer, answer, 'the new merge request');
      this.settings.logger?.info('opened merge request', { mergeRequest: created.web_url, title: write.title });
      return created.web_url;
    } catch (error) {
      // 409: "Another open merge request already exists for this source branch: !N". Anything else is an error.
      if (!isGitLabError(error, 409)) throw error;
      conflict = error as Error;
    }
    const open = this.mine(
      this.parse(
        MergeRequestsAnswer,
        await this.client.mergeRequests.all({
          projectId: this.project,
          state: 'opened',
          sourceBranch: write.branch,
          perPage: PER_PAGE,
          maxPages: 1,
        }),
        `the merge requests from ${write.branch}`,
      ),
      write.branch,
    );
    const existing = open.find((mr) => mr.target_branch === write.base) ?? open[0];
    if (existing) {
      const retitle = existing.title !== write.title;
      const rewrite = (existing.description ?? '') !== write.body;
      if (retitle || rewrite) {
        await this.client.mergeRequests.edit(this.project, existing.iid, {
          ...(retitle ? { title: write.title } : {}),
          ...(rewrite ? { description: write.body } : {}),
        });
        this.settings.logger?.info(retitle ? 'retitled merge request' : 'updated the merge request description', {
          mergeRequest: existing.web_url,
          title: write.title,
        });
      }
      return existing.web_url;
    }
    // The open one GitLab named was closed or merged before it could be listed: ask again later.
    throw new PromotionError(
      'ConcurrentChange',
      `failed to create or find existing MR: sourceBranch=${write.branch} targetBranch=${write.base}: ` +
        conflict.message,
      { cause: conflict },
    );
  }

  async pullRequestsFrom(branch: string): Promise<PullRequestSummary[]> {
    const answer = await this.client.mergeRequests.all({
      projectId: this.project,
      sourceBranch: branch,
      orderBy: 'created_at',
      sort: 'desc',
      perPage: PER_PAGE,
      maxPages: 1,
    });
    return this.mine(this.parse(MergeRequestsAnswer, answer, `the merge requests from ${branch}`), branch).map(
      (mr) => ({
        url: mr.web_url,
        title: mr.title,
        // `locked` is an open merge request while GitLab merges it.
        state: mr.state === 'merged' ? 'merged' : mr.state === 'closed' ? 'closed' : 'open',
        base: mr.target_branch,
      }),
    );
  }

  /** The merge requests from this project's own branch (a fork's branch of the same name is not ours). */
  private mine(mergeRequests: MergeRequest[], branch: string): MergeRequest[] {
    return mergeRequests.filter((mr) => {
      const source = mr.source_project_id ?? undefined;
      const target = mr.target_project_id ?? undefined;
      return mr.source_branch === branch && (source === undefined || target === undefined || source === target);
    });
  }

  /** GitLab's answer in the shape the adapter needs; anything else is not GitLab's API v4 answering. */
  private parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new PromotionError(
      'UnexpectedAnswer',
      `unexpected answer from the GitLab API at ${this.client.apiUrl} for ${what} ` +
        `(${describeIssue(parsed.error, value, { whole: 'the answer' })}); is it a GitLab API v4 base URL?`,
    );
  }

  async recordDeployment(report: DeploymentReport): Promise<RecordedDeployment> {
    return recordGitLabDeployment(this.client, this.project, report);
  }

  /** Deploying takes what pushing takes: the Developer role and the api scope. */
  async deploymentAccess(): Promise<DeploymentAccess> {
    const access = await this.access();
    const needs = 'creating a deployment needs Developer (30) and the api scope';
    return {
      canRecord: access.canPush,
      detail: access.canPush === true ? access.detail : `${access.detail}; ${needs}`,
    };
  }
}
