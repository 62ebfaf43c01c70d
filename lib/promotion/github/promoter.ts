// The pull-request promotion strategy for GitHub (README, "Pull requests"; Weave's, as docs/weave-compatibility.md
// says), done through the REST API without cloning:
//
// 1. read the base branch's head commit and its whole tree (one recursive listing); only `*.yaml`/`*.yml` blobs are
//    considered, and a blob is read only when the marker cache does not know its id yet. With a MarkerScanStore the
//    cache outlives the process: the first scan of a repository in a process loads the stored facts (markers by
//    blob id, no text), and a scan that read blobs never seen before stores the merged facts again. Neither may
//    fail a promotion: a failed load or save is logged and the scan reads what it does not know;
// 2. set every scalar marked `ns:name:env` to the version (`setMarkedValues`); no such marker anywhere is a
//    permanent failure, and nothing is written;
// 3. when that changes a file: a tree on the base tree and a commit `promoting version` whose parent is the base head,
//    authored (and committed) as the configured author, by default Weave's `Promotion Server` (commit-author.ts), then the branch `promotion-{ns}-{name}-{env}` is created there, or force-moved there when it exists; a branch
//    whose head already has that tree is left as it is (no new commit on a repeated call);
// 4. a pull request with Weave's title and body is opened; when that fails (it exists: GitHub allows one open pull
//    request per head and base) the open one for the branch is found and only its title is updated. The result is
//    its URL.
//
// Idempotence (port contract): every step converges: the same base and version give the same tree, the branch is
// reused when it already holds it, and the existing pull request is found instead of duplicated. Concurrent calls
// race safely: a branch created by another call ("Reference already exists") is reused or moved, and a pull request
// opened by another call is found and retitled.
//
// When the base branch already holds the version (every marked value is it, e.g. the pull request was merged), there
// is nothing to propose: no branch, commit or pull request is written. The result is then the URL of the pull
// request for the branch with exactly this version's title (open or merged; so a call resumed after the merge gives
// the same result as the first), else `already at {version} on {base} in {repository URL}`.
import { markerFor, markersIn, mayHoldMarkers, setMarkedValues } from '../markers.js';
import { PromotionError, type Promoter, type PromotionOutcome, type PromotionRequest } from '../port.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { SecretSource } from '../../secrets/port.js';
import {
  clientKey,
  createGitHubClient,
  isValidationError,
  readCredentials,
  toPromotionError,
  type GitHubClient,
  type GitHubClientSettings,
  type GitHubCredentials,
} from './client.js';
import { DEFAULT_COMMIT_AUTHOR, type CommitAuthor } from '../pull-request/commit-author.js';
import { MarkerCache, type MarkerCacheLimits, type ScannedBlob } from '../pull-request/marker-cache.js';
import { githubApiUrl, parseRepositoryUrl, type GitHubRepository } from './repository.js';
import type { MarkerScanStore } from '../pull-request/scan-store.js';

export const COMMIT_MESSAGE = 'promoting version';

export function promotionBranch(pipelineNamespace: string, pipelineName: string, env: string): string {
  return `promotion-${pipelineNamespace}-${pipelineName}-${env}`;
}

export function pullRequestTitle(
  pipelineNamespace: string,
  pipelineName: string,
  env: string,
  version: string,
): string {
  return `Promote ${pipelineNamespace}/${pipelineName} in ${env} to ${version}`;
}

/** Weave's body, byte for byte: Weave GitOps Enterprise parses the last line to map an environment to its PR. */
export function pullRequestBody(pipelineNamespace: string, pipelineName: string, env: string): string {
  return [
    '<details>',
    '<summary>metadata</summary>',
    '!!! DO NOT EDIT !!!',
    '',
    `${pipelineNamespace}/${pipelineName}/${env}`,
    '</details>',
  ].join('\n');
}

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

interface Run {
  client: GitHubClient;
  /** The Secret the credentials came from (named in error messages). */
  secret: ObjectKey;
  repository: GitHubRepository;
  /** Identifies the repository in the marker cache. */
  cacheKey: string;
  base: string;
  branch: string;
  marker: string;
  version: string;
  title: string;
  body: string;
}

interface ManifestEntry {
  path: string;
  mode: string;
  sha: string;
}

const MAX_CACHED_CLIENTS = 32;
const YAML_FILE = /\.ya?ml$/;

export class GitHubPullRequestPromoter implements Promoter {
  private readonly clients = new Map<string, GitHubClient>();
  private readonly markerCache: MarkerCache;
  /** Loads of stored scan facts in flight, by repository: concurrent promotions of one repository share one. */
  private readonly scanLoads = new Map<string, Promise<void>>();

  constructor(private readonly options: GitHubPullRequestPromoterOptions) {
    this.markerCache = new MarkerCache(options.markerCache);
  }

  async promote(request: PromotionRequest): Promise<PromotionOutcome> {
    const { pipeline, env, revision } = request;
    const spec = env.promotion?.strategy['pull-request'];
    if (!spec) throw new PromotionError(`environment ${env.name} has no pull-request promotion`, false);
    if (spec.type !== 'github') throw new PromotionError(`the ${spec.type} Git provider is not supported yet`, false);
    const repository = parseRepositoryUrl(spec.url);
    const apiUrl = (this.options.apiUrl ?? githubApiUrl(repository.host)).replace(/\/+$/, '');
    const secret: ObjectKey = { namespace: pipeline.namespace, name: spec.secretRef.name };
    const credentials = await readCredentials(this.options.secrets, secret);
    const run: Run = {
      client: this.client(apiUrl, credentials),
      secret,
      repository,
      cacheKey: `${apiUrl} ${repository.owner}/${repository.repo}`.toLowerCase(),
      base: spec.baseBranch,
      branch: promotionBranch(pipeline.namespace, pipeline.name, env.name),
      marker: markerFor(pipeline.namespace, pipeline.name, env.name),
      version: revision,
      title: pullRequestTitle(pipeline.namespace, pipeline.name, env.name, revision),
      body: pullRequestBody(pipeline.namespace, pipeline.name, env.name),
    };
    try {
      return { result: await this.run(run) };
    } catch (error) {
      throw toPromotionError(error, secret);
    }
  }

  private client(apiUrl: string, credentials: GitHubCredentials): GitHubClient {
    const key = clientKey(apiUrl, credentials);
    let client = this.clients.get(key);
    if (!client) {
      client = createGitHubClient(apiUrl, credentials, this.options);
      this.clients.set(key, client);
      while (this.clients.size > MAX_CACHED_CLIENTS) {
        const oldest = this.clients.keys().next().value;
        if (oldest === undefined) break;
        this.clients.delete(oldest);
      }
    }
    return client;
  }

  private async run(run: Run): Promise<string> {
    const { client, repository } = run;
    const repo = { owner: repository.owner, repo: repository.repo };
    const baseSha = (await client.git.getRef({ ...repo, ref: `heads/${run.base}` })).data.object.sha;
    const baseTreeSha = (await client.git.getCommit({ ...repo, commit_sha: baseSha })).data.tree.sha;

    const changes = await this.edit(run, baseTreeSha);
    if (changes.length === 0) return this.alreadyOnBase(run);

    const tree = await client.git.createTree({
      ...repo,
      base_tree: baseTreeSha,
      tree: changes.map((change) => ({
        path: change.path,
        mode: change.mode as '100644' | '100755',
        type: 'blob' as const,
        content: change.content,
      })),
    });
    await this.pointBranch(run, tree.data.sha, baseSha);
    return this.openOrUpdatePullRequest(run);
  }

  /** The manifests changed by setting the marked values, with their new text. */
  private async edit(run: Run, treeSha: string): Promise<(ManifestEntry & { content: string })[]> {
    const { client, repository } = run;
    const { data: tree } = await client.git.getTree({
      owner: repository.owner,
      repo: repository.repo,
      tree_sha: treeSha,
      recursive: 'true',
    });
    if (tree.truncated) {
      throw new PromotionError(
        `the tree of ${run.base} in ${repository.webUrl} is too large for GitHub to list in one response (truncated); ` +
          'promoting from such a repository is not supported',
        false,
      );
    }
    const manifests: ManifestEntry[] = [];
    for (const entry of tree.tree) {
      if (entry.type !== 'blob' || !entry.path || !entry.sha || !entry.mode) continue;
      if ((entry.mode === '100644' || entry.mode === '100755') && YAML_FILE.test(entry.path)) {
        manifests.push({ path: entry.path, mode: entry.mode, sha: entry.sha });
      }
    }
    await this.loadScan(run);
    let reads = 0;
    let unseen = 0;
    // Identical files (one kustomization.yaml in many folders) are one blob: read once.
    const blobShas = [...new Set(manifests.map((entry) => entry.sha))];
    const blobs = await mapWithConcurrency(blobShas, this.options.blobReadConcurrency ?? 8, async (sha) => {
      const known = this.markerCache.get(run.cacheKey, sha);
      if (known && (known.text !== undefined || !known.markers.includes(run.marker))) return known;
      reads++;
      if (!known) unseen++;
      const text = await this.readBlob(run, sha);
      const markers = mayHoldMarkers(text) ? markersIn(text) : [];
      const blob: ScannedBlob = this.markerCache.set(run.cacheKey, sha, markers, text);
      return blob.text === undefined && markers.length > 0 ? { markers, text } : blob;
    });
    const blobBySha = new Map(blobShas.map((sha, index) => [sha, blobs[index] as ScannedBlob]));
    const scanned = manifests.map((entry) => ({ entry, blob: blobBySha.get(entry.sha) as ScannedBlob }));
    this.options.logger?.debug?.('scanned manifests for markers', {
      repository: repository.webUrl,
      manifests: manifests.length,
      blobsRead: reads,
      blobsNeverSeen: unseen,
    });
    if (unseen > 0) await this.saveScan(run, manifests);

    let found = 0;
    const changes: (ManifestEntry & { content: string })[] = [];
    for (const { entry, blob } of scanned) {
      if (!blob.markers.includes(run.marker) || blob.text === undefined) continue;
      const edited = setMarkedValues(blob.text, run.marker, run.version);
      found += edited.found;
      if (edited.text !== blob.text) changes.push({ ...entry, content: edited.text });
    }
    if (found === 0) {
      throw new PromotionError(
        `no {"$promotion": "${run.marker}"} marker found in ${repository.webUrl} at ${run.base}`,
        false,
      );
    }
    return changes;
  }

  /** Seeds the marker cache from the store when this process knows nothing of the repository yet. */
  private async loadScan(run: Run): Promise<void> {
    const store = this.options.markerScans;
    if (!store || this.markerCache.size(run.cacheKey) > 0) return;
    let loading = this.scanLoads.get(run.cacheKey);
    if (!loading) {
      loading = this.seedFrom(store, run).finally(() => this.scanLoads.delete(run.cacheKey));
      this.scanLoads.set(run.cacheKey, loading);
    }
    await loading;
  }

  private async seedFrom(store: MarkerScanStore, run: Run): Promise<void> {
    try {
      const facts = await store.load(run.cacheKey);
      for (const [sha, markers] of facts) this.markerCache.remember(run.cacheKey, sha, markers);
      this.options.logger?.debug?.('loaded the stored marker scan', {
        repository: run.repository.webUrl,
        blobs: facts.size,
      });
    } catch (error) {
      this.options.logger?.warn('cannot load the stored marker scan; every blob not known yet is read', {
        repository: run.repository.webUrl,
        error: errorMessage(error),
      });
    }
  }

  /**
   * Stores everything this process knows of the repository (what it loaded, merged with what it read since), the
   * blobs of the tree just scanned last: they are the most recently seen, kept first when the store is full.
   */
  private async saveScan(run: Run, manifests: readonly ManifestEntry[]): Promise<void> {
    const store = this.options.markerScans;
    if (!store) return;
    const inTree = new Set(manifests.map((entry) => entry.sha));
    const facts = new Map<string, readonly string[]>();
    for (const [sha, blob] of this.markerCache.entries(run.cacheKey)) {
      if (!inTree.has(sha)) facts.set(sha, blob.markers);
    }
    for (const entry of manifests) {
      const blob = this.markerCache.get(run.cacheKey, entry.sha);
      if (blob) facts.set(entry.sha, blob.markers);
    }
    try {
      await store.save(run.cacheKey, facts);
    } catch (error) {
      this.options.logger?.warn('cannot store the marker scan; the next new process reads the blobs again', {
        repository: run.repository.webUrl,
        error: errorMessage(error),
      });
    }
  }

  private async readBlob(run: Run, sha: string): Promise<string> {
    const { data } = await run.client.git.getBlob({
      owner: run.repository.owner,
      repo: run.repository.repo,
      file_sha: sha,
    });
    return Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  }

  /**
   * Makes the promotion branch's head a commit with `treeSha` on top of the base: kept as it is when its head already
   * has that tree, else a new commit, with the branch created or force-moved to it. Safe against concurrent calls.
   */
  private async pointBranch(run: Run, treeSha: string, baseSha: string): Promise<void> {
    const { client, repository } = run;
    const repo = { owner: repository.owner, repo: repository.repo };
    const ref = `heads/${run.branch}`;
    let commitSha: string | undefined;
    const commit = async () => {
      commitSha ??= (
        await client.git.createCommit({
          ...repo,
          message: COMMIT_MESSAGE,
          tree: treeSha,
          parents: [baseSha],
          // The committer is left out: GitHub then takes the author, as go-git did for Weave.
          author: { ...(this.options.commitAuthor ?? DEFAULT_COMMIT_AUTHOR) },
        })
      ).data.sha;
      return commitSha;
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      const head = await this.branchHead(run);
      if (head !== undefined) {
        const headTree = (await client.git.getCommit({ ...repo, commit_sha: head })).data.tree.sha;
        if (headTree === treeSha) return;
        try {
          await client.git.updateRef({ ...repo, ref, sha: await commit(), force: true });
          return;
        } catch (error) {
          if (!isValidationError(error, /Reference does not exist/i)) throw error;
          // deleted meanwhile: create it on the next round
        }
      } else {
        try {
          await client.git.createRef({ ...repo, ref: `refs/${ref}`, sha: await commit() });
          return;
        } catch (error) {
          if (!isValidationError(error, /Reference already exists/i)) throw error;
          // created meanwhile by a concurrent promotion: reuse or move it on the next round
        }
      }
    }
    throw new PromotionError(
      `the branch ${run.branch} in ${repository.webUrl} kept changing during the promotion`,
      true,
    );
  }

  private async branchHead(run: Run): Promise<string | undefined> {
    try {
      const { data } = await run.client.git.getRef({
        owner: run.repository.owner,
        repo: run.repository.repo,
        ref: `heads/${run.branch}`,
      });
      return data.object.sha;
    } catch (error) {
      if ((error as { status?: unknown }).status === 404) return undefined;
      throw error;
    }
  }

  /** Opens the pull request, or (Weave's fallback) finds the open one for the branch and sets its title. */
  private async openOrUpdatePullRequest(run: Run): Promise<string> {
    const { client, repository } = run;
    const repo = { owner: repository.owner, repo: repository.repo };
    let createError: unknown;
    try {
      const { data } = await client.pulls.create({
        ...repo,
        title: run.title,
        head: run.branch,
        base: run.base,
        body: run.body,
      });
      this.options.logger?.info('opened pull request', { pullRequest: data.html_url, title: run.title });
      return data.html_url;
    } catch (error) {
      createError = error;
    }
    const open = await client.paginate(client.pulls.list, {
      ...repo,
      state: 'open',
      head: `${repository.owner}:${run.branch}`,
      per_page: 100,
    });
    const mine = open.filter((pull) => pull.head.ref === run.branch);
    const existing = mine.find((pull) => pull.base.ref === run.base) ?? mine[0];
    if (existing) {
      if (existing.title !== run.title) {
        await client.pulls.update({ ...repo, pull_number: existing.number, title: run.title });
        this.options.logger?.info('retitled pull request', { pullRequest: existing.html_url, title: run.title });
      }
      return existing.html_url;
    }
    const cause = toPromotionError(createError, run.secret);
    if (cause.retryable) throw createError;
    // GitHub said one exists but does not list it yet: ask again later.
    const exists = isValidationError(createError, /already exists/i);
    throw new PromotionError(
      `failed to create or find existing PR: headBranch=${run.branch} baseBranch=${run.base}: ${cause.message}`,
      exists,
      undefined,
      { cause: createError },
    );
  }

  /** Nothing to change on the base: the result names the pull request that brought this version, if any. */
  private async alreadyOnBase(run: Run): Promise<string> {
    const { client, repository } = run;
    const { data: pulls } = await client.pulls.list({
      owner: repository.owner,
      repo: repository.repo,
      state: 'all',
      head: `${repository.owner}:${run.branch}`,
      sort: 'created',
      direction: 'desc',
      per_page: 100,
    });
    const mine = pulls.filter((pull) => pull.head.ref === run.branch);
    const same = mine.find((pull) => pull.title === run.title);
    if (same) return same.html_url;
    const stale = mine.find((pull) => pull.state === 'open');
    if (stale) {
      this.options.logger?.warn(
        'the base branch already has the version; an open promotion pull request proposes another',
        {
          pullRequest: stale.html_url,
          title: stale.title,
          version: run.version,
        },
      );
    }
    return `already at ${run.version} on ${run.base} in ${repository.webUrl}`;
  }
}

async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
