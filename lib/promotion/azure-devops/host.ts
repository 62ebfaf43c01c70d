// The Azure DevOps adapter of the pull-request strategy (lib/promotion/pull-request/host.ts), through
// azure-devops-node-api's GitApi (Git REST 7.x; client.ts holds the credentials, retries and error mapping):
//
// - reading: the branch head from the refs (`filter` is a prefix: the name is matched exactly), every file of a
//   commit from one recursive item listing (blob ids included), a file's text from its blob, the whole tree at a
//   commit from one zip of its items (the items route asked for application/zip), streamed;
// - writing: one push holds every changed file in one commit, authored as the promotion's author. A push's commit
//   always descends from the ref update's `oldObjectId`, and Azure refuses the push (409 TF401028) when the branch
//   is not there any more: a new branch is pushed with `oldObjectId` = the base commit; a branch holding anything
//   else is first moved back onto the base commit with updateRefs (a force move: Azure's "Force push" permission),
//   then pushed. A branch whose head is already the base commit plus exactly these contents is left alone;
// - the pull request: opened; when Azure refuses (409 TF401179: one active pull request per source and target) the
//   active one is found and its title and description set where they differ, in one update. A listing cuts
//   descriptions to 400 characters, so a longer one is written again whenever it cannot be compared; a description
//   is at most 4000 characters (`maxBodyLength`: the promoter cuts the evidence to fit);
// - what the token may do: not told. Reading the repository proves the token reaches it, but the Git API says nothing
//   of its write access (the token's Code scope, the identity's Contribute permission); the first push shows it.
// Concurrent calls converge: a push or ref update refused because another call moved the branch meanwhile reads the
// branch again, and finds it right, or writes it again (bounded rounds).
import { Readable } from 'node:stream';
import {
  GitObjectType,
  GitRefUpdateStatus,
  GitVersionType,
  ItemContentType,
  PullRequestStatus,
  VersionControlChangeType,
  VersionControlRecursionType,
} from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import * as z from 'zod';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { AzureDevOpsAddress, RepositoryAddress } from '../../pipeline/repository-address.js';
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
import { readZip } from '../pull-request/archive.js';
import type { ArchiveReadOptions } from '../pull-request/archive-read.js';
import { ClientCache } from '../pull-request/client-cache.js';
import { reportedAuthor } from '../pull-request/reported-author.js';
import { createAzureDevOpsClient, isAzureDevOpsError, toPromotionError, type AzureDevOpsClient } from './client.js';
import { azureDevOpsToken, NEEDED_KEYS, NEEDED_SCOPE } from './credentials.js';
import { MAX_DESCRIPTION_LENGTH } from './limits.js';
import { recordAzureDevOpsDeployment } from './deployments.js';
import type { DeploymentAccess, DeploymentReport, RecordedDeployment } from '../pull-request/deployments.js';

/** Rounds of reading the branch and writing it when concurrent promotions keep moving it. */
const WRITE_ROUNDS = 5;
/** The changes of a promotion commit asked for: more than any promotion writes, so extra ones show. */
const MAX_CHANGES = 1000;
/** Pull requests listed from one branch: Azure's own page size. */
const MAX_PULL_REQUESTS = 100;
const NO_COMMIT = '0'.repeat(40);

/** Azure's answers when another client moved the branch first: TF401028 (push), or a ref that already exists. */
const MOVED_MEANWHILE = /TF401028|GitReferenceStaleException|already been updated|already exists/i;

// ---------------------------------------------------------------- Azure's answers (only the fields used)

/**
 * An enum field as the client gives it: GitApi turns the enums it knows into numbers, but leaves nested ones (a
 * commit change's item) as Azure's names, which for flags are comma-separated (`edit, encoding`).
 */
const AzureEnum = z.union([z.number(), z.string()]).nullish();

function enumNumber<E extends number>(
  value: number | string | null | undefined,
  names: Record<string, string | number>,
): E {
  if (typeof value === 'number') return value as E;
  if (typeof value !== 'string') return 0 as E;
  let flags = 0;
  for (const part of value.split(',')) {
    const name = Object.keys(names).find((key) => key.toLowerCase() === part.trim().toLowerCase());
    const number = name === undefined ? undefined : names[name];
    if (typeof number === 'number') flags |= number;
  }
  return flags as E;
}

const RefsAnswer = z.array(z.object({ name: z.string(), objectId: z.string() }));
const ItemsAnswer = z.array(
  z.object({
    path: z.string(),
    objectId: z.string().nullish(),
    gitObjectType: AzureEnum,
    isFolder: z.boolean().nullish(),
    isSymLink: z.boolean().nullish(),
  }),
);
const CommitAnswer = z.object({
  commitId: z.string(),
  parents: z.array(z.string()).nullish(),
  changeCounts: z.record(z.string(), z.number()).nullish(),
  changes: z
    .array(
      z.object({
        changeType: AzureEnum,
        item: z
          .object({
            path: z.string().nullish(),
            objectId: z.string().nullish(),
            gitObjectType: AzureEnum,
            isFolder: z.boolean().nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
});
const CommitAuthorAnswer = z.object({
  author: z.object({ name: z.string().nullish(), email: z.string().nullish() }).nullish(),
});
const RefUpdatesAnswer = z.array(
  z.object({ name: z.string().nullish(), success: z.boolean().nullish(), updateStatus: z.number().nullish() }),
);
const PullRequestAnswer = z.object({
  pullRequestId: z.number(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  status: z.number().nullish(),
  sourceRefName: z.string().nullish(),
  targetRefName: z.string().nullish(),
  creationDate: z.date().nullish(),
  forkSource: z.unknown().optional(),
});
const PullRequestsAnswer = z.array(PullRequestAnswer);
const RepositoryAnswer = z.object({ id: z.string() });
type PullRequest = z.infer<typeof PullRequestAnswer>;

export function azureDevOpsHost(settings: GitHostSettings = {}): GitHost {
  const clients = new ClientCache<AzureDevOpsClient>();
  const clientFor = (apiUrl: string, values: Readonly<Record<string, string>>, secret: ObjectKey) => {
    const token = azureDevOpsToken(values, secret);
    return clients.get(apiUrl, token, () => createAzureDevOpsClient(apiUrl, token, settings));
  };
  return {
    type: 'azure-devops',
    neededKeys: NEEDED_KEYS,
    maxBodyLength: MAX_DESCRIPTION_LENGTH,
    open(address: RepositoryAddress, apiUrl: string, secret: ObjectKey, values: Readonly<Record<string, string>>) {
      if (address.type !== 'azure-devops') {
        throw new PromotionError('Invalid', `not an Azure DevOps repository: ${address.webUrl}`);
      }
      return new AzureDevOpsRepository(clientFor(apiUrl, values, secret), address, secret, settings);
    },
    toPromotionError,
  };
}

const headsRef = (branch: string) => `refs/heads/${branch}`;

class AzureDevOpsRepository implements HostRepository {
  private readonly project: string;
  private readonly repository: string;

  constructor(
    private readonly client: AzureDevOpsClient,
    private readonly address: AzureDevOpsAddress,
    private readonly secret: ObjectKey,
    private readonly settings: GitHostSettings,
  ) {
    this.project = address.project;
    this.repository = address.repository;
  }

  async access(): Promise<RepositoryAccess> {
    this.parse(RepositoryAnswer, await this.client.git.getRepository(this.repository, this.project), 'the repository');
    return {
      canPush: undefined,
      detail:
        `Azure DevOps does not tell a token's write access through the Git API: it needs the scope ${NEEDED_SCOPE} ` +
        'and Contribute on the repository',
    };
  }

  async branchHead(branch: string): Promise<string | undefined> {
    const answer = await this.client.git.getRefs(this.repository, this.project, `heads/${branch}`);
    const refs = this.parse(RefsAnswer, answer, `the refs of ${branch}`);
    // The filter is a prefix: `heads/main` also lists `refs/heads/main-old`.
    return refs.find((ref) => ref.name === headsRef(branch))?.objectId;
  }

  async listFiles(commit: string): Promise<RepositoryFile[]> {
    const answer = await this.client.git.getItems(
      this.repository,
      this.project,
      '/',
      VersionControlRecursionType.Full,
      undefined,
      undefined,
      undefined,
      undefined,
      { version: commit, versionType: GitVersionType.Commit },
    );
    const items = this.parse(ItemsAnswer, answer, `the tree of ${commit}`);
    // Regular files only: Azure lists a submodule as a commit and marks a symbolic link.
    return items
      .filter(
        (item) =>
          enumNumber<GitObjectType>(item.gitObjectType, GitObjectType) === GitObjectType.Blob &&
          !item.isFolder &&
          !item.isSymLink,
      )
      .map((item) => ({ path: item.path.replace(/^\/+/, ''), blobId: item.objectId ?? '' }))
      .filter((file) => file.path !== '' && file.blobId !== '');
  }

  async readFile(file: RepositoryFile): Promise<string> {
    const stream = await this.client.git.getBlobContent(this.repository, file.blobId, this.project);
    const chunks: Buffer[] = [];
    for await (const chunk of Readable.from(stream)) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async readArchive(commit: string, options: ArchiveReadOptions): Promise<void> {
    const zip = await this.client.git.getItemZip(
      this.repository,
      '/',
      this.project,
      undefined,
      VersionControlRecursionType.Full,
      undefined,
      undefined,
      undefined,
      { version: commit, versionType: GitVersionType.Commit },
    );
    await readZip(zip, `${commit} in ${this.address.webUrl}`, options);
  }

  async commitAuthor(commit: string): Promise<string | undefined> {
    const answer = await this.client.git.getCommit(commit, this.repository, this.project);
    const { author } = this.parse(CommitAuthorAnswer, answer, `the commit ${commit}`);
    return reportedAuthor(author?.name, author?.email);
  }

  async writeBranch(write: BranchWrite): Promise<void> {
    const ref = headsRef(write.branch);
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      const head = await this.branchHead(write.branch);
      if (head !== undefined && (await this.holds(head, write))) return;
      if (head !== undefined && head !== write.baseCommit && !(await this.resetOntoBase(ref, head, write))) continue;
      try {
        await this.push(ref, write);
        this.settings.logger?.info('pushed the promotion branch', {
          repository: this.address.webUrl,
          branch: write.branch,
          files: write.changes.length,
        });
        return;
      } catch (error) {
        if (!isAzureDevOpsError(error, undefined, MOVED_MEANWHILE)) throw error;
        // created or moved meanwhile by a concurrent promotion: read it again
      }
    }
    throw new PromotionError(
      'ConcurrentChange',
      `the branch ${write.branch} in ${this.address.webUrl} kept changing during the promotion`,
    );
  }

  /** One commit on the base commit with every change, as the branch's new head (created when missing). */
  private async push(ref: string, write: BranchWrite): Promise<void> {
    await this.client.git.createPush(
      {
        // The commit's parent is `oldObjectId`: the base commit, where the branch is (or starts when new).
        refUpdates: [{ name: ref, oldObjectId: write.baseCommit }],
        commits: [
          {
            comment: write.message,
            author: { name: write.author.name, email: write.author.email, date: new Date() },
            changes: write.changes.map((change) => ({
              changeType: VersionControlChangeType.Edit,
              item: { path: `/${change.path}` },
              // Base64: the bytes are written as they are (raw text would keep an edited file's byte order mark
              // in front of a text that may already start with one).
              newContent: {
                content: Buffer.from(change.content, 'utf8').toString('base64'),
                contentType: ItemContentType.Base64Encoded,
              },
            })),
          },
        ],
      },
      this.repository,
      this.project,
    );
  }

  /**
   * Moves the branch from `head` back onto the base commit. False when another call moved it first (read it
   * again); a PromotionError when Azure refuses the move itself (permissions, a lock, a policy).
   */
  private async resetOntoBase(ref: string, head: string, write: BranchWrite): Promise<boolean> {
    let answer: unknown;
    try {
      answer = await this.client.git.updateRefs(
        [{ name: ref, oldObjectId: head, newObjectId: write.baseCommit }],
        this.repository,
        this.project,
      );
    } catch (error) {
      if (isAzureDevOpsError(error, undefined, MOVED_MEANWHILE)) return false;
      throw error;
    }
    const result = this.parse(RefUpdatesAnswer, answer, `the reset of ${write.branch}`)[0];
    if (result?.success === true || result?.updateStatus === GitRefUpdateStatus.Succeeded) return true;
    if (result?.updateStatus === GitRefUpdateStatus.StaleOldObjectId) return false;
    const status = GitRefUpdateStatus[result?.updateStatus ?? GitRefUpdateStatus.Unprocessed] ?? 'unknown';
    const why =
      result?.updateStatus === GitRefUpdateStatus.ForcePushRequired
        ? `the user of the personal access token of Secret ${objectKeyString(this.secret)} needs the "Force push ` +
          '(rewrite history, delete branches and tags)" permission on the repository or the branch'
        : result?.updateStatus === GitRefUpdateStatus.Locked
          ? 'the branch is locked; unlock it in Azure DevOps'
          : result?.updateStatus === GitRefUpdateStatus.RejectedByPolicy
            ? 'a branch policy refused it'
            : 'Azure DevOps refused it';
    throw new PromotionError(
      'Conflict',
      `Azure DevOps API POST refs: moving ${write.branch} in ${this.address.webUrl} back onto ${write.base} ` +
        `(${write.baseCommit}) failed (${status}): ${why}`,
    );
  }

  /**
   * Whether the branch's head is the base commit plus exactly these changes: its only parent is the base, it
   * changes exactly these files (none added, deleted or renamed), and each holds the expected blob.
   */
  private async holds(head: string, write: BranchWrite): Promise<boolean> {
    const answer = await this.client.git.getCommit(head, this.repository, this.project, MAX_CHANGES);
    const commit = this.parse(CommitAnswer, answer, `the commit ${head}`);
    const parents = commit.parents ?? [];
    if (parents.length !== 1 || parents[0] !== write.baseCommit) return false;
    // Folders appear among the changes when a file below them changed: only files count.
    const files = (commit.changes ?? []).filter(
      (change) =>
        change.item &&
        !change.item.isFolder &&
        enumNumber<GitObjectType>(change.item.gitObjectType, GitObjectType) !== GitObjectType.Tree,
    );
    const expected = new Map(write.changes.map((change) => [`/${change.path}`, change.blobId]));
    if (files.length !== expected.size) return false;
    const structural = VersionControlChangeType.Add | VersionControlChangeType.Delete | VersionControlChangeType.Rename;
    return files.every(
      (change) =>
        (enumNumber(change.changeType, VersionControlChangeType) & structural) === 0 &&
        expected.get(change.item?.path ?? '') === (change.item?.objectId ?? NO_COMMIT),
    );
  }

  /** Opens the pull request, or finds the active one for the branch and sets its title. */
  async openOrUpdatePullRequest(write: PullRequestWrite): Promise<string> {
    const sourceRefName = headsRef(write.branch);
    const targetRefName = headsRef(write.base);
    let conflict: Error;
    try {
      const answer = await this.client.git.createPullRequest(
        { sourceRefName, targetRefName, title: write.title, description: write.body },
        this.repository,
        this.project,
      );
      const created = this.parse(PullRequestAnswer, answer, 'the new pull request');
      const url = this.webUrl(created);
      this.settings.logger?.info('opened pull request', { pullRequest: url, title: write.title });
      return url;
    } catch (error) {
      // 409 TF401179: "An active pull request for the source and target branch already exists". Else an error.
      if (!isAzureDevOpsError(error, 409, /TF401179|GitPullRequestExists/)) throw error;
      conflict = error as Error;
    }
    const active = this.mine(
      this.parse(
        PullRequestsAnswer,
        await this.client.git.getPullRequests(
          this.repository,
          { sourceRefName, targetRefName, status: PullRequestStatus.Active },
          this.project,
          undefined,
          0,
          MAX_PULL_REQUESTS,
        ),
        `the pull requests from ${write.branch}`,
      ),
      write.branch,
    );
    const existing = active[0];
    if (existing) {
      const url = this.webUrl(existing);
      const retitle = existing.title !== write.title;
      const rewrite = (existing.description ?? '') !== write.body;
      if (retitle || rewrite) {
        await this.client.git.updatePullRequest(
          { ...(retitle ? { title: write.title } : {}), ...(rewrite ? { description: write.body } : {}) },
          this.repository,
          existing.pullRequestId,
          this.project,
        );
        this.settings.logger?.info(retitle ? 'retitled pull request' : 'updated the pull request description', {
          pullRequest: url,
          title: write.title,
        });
      }
      return url;
    }
    // The active one Azure named was completed or abandoned before it could be listed: ask again later.
    throw new PromotionError(
      'ConcurrentChange',
      `no active pull request from ${write.branch} into ${write.base} in ${this.address.webUrl}, although ` +
        `Azure DevOps refused to open one: ${conflict.message}`,
      { cause: conflict },
    );
  }

  async recordDeployment(report: DeploymentReport): Promise<RecordedDeployment> {
    return recordAzureDevOpsDeployment(this.client, this.repository, this.project, report);
  }

  async deploymentAccess(): Promise<DeploymentAccess> {
    await this.access();
    return {
      canRecord: undefined,
      detail:
        "Azure DevOps does not tell a token's scopes through the Git API: a pull request status needs the scope " +
        'Code (status) or Code (read & write), and Contribute to pull requests on the repository',
    };
  }

  async pullRequestsFrom(branch: string): Promise<PullRequestSummary[]> {
    const answer = await this.client.git.getPullRequests(
      this.repository,
      { sourceRefName: headsRef(branch), status: PullRequestStatus.All },
      this.project,
      undefined,
      0,
      MAX_PULL_REQUESTS,
    );
    const newestFirst = this.mine(this.parse(PullRequestsAnswer, answer, `the pull requests from ${branch}`), branch)
      .slice()
      .sort((a, b) => b.pullRequestId - a.pullRequestId);
    return newestFirst.map((pull) => ({
      url: this.webUrl(pull),
      title: pull.title ?? '',
      state:
        pull.status === PullRequestStatus.Completed
          ? 'merged'
          : pull.status === PullRequestStatus.Abandoned
            ? 'closed'
            : 'open',
      base: (pull.targetRefName ?? '').replace(/^refs\/heads\//, ''),
    }));
  }

  /** The pull requests from this repository's own branch (a fork's branch of the same name is not ours). */
  private mine(pulls: PullRequest[], branch: string): PullRequest[] {
    return pulls.filter((pull) => pull.sourceRefName === headsRef(branch) && !pull.forkSource);
  }

  /** The page a person opens; the API's own `url` is the REST resource. */
  private webUrl(pull: PullRequest): string {
    return `${this.address.webUrl}/pullrequest/${pull.pullRequestId}`;
  }

  /** Azure's answer in the shape the adapter needs; anything else is not Azure DevOps' Git API answering. */
  private parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new PromotionError(
      'UnexpectedAnswer',
      `unexpected answer from the Azure DevOps API at ${this.client.collectionUrl} for ${what} ` +
        `(${describeIssue(parsed.error, value, { whole: 'the answer' })}); is it an Azure DevOps collection URL?`,
    );
  }
}
