// The pull-request promotion strategy, the same on every Git host (docs/promotion-strategies.md, "Pull requests"; Weave's, as
// docs/weave-compatibility.md says). The host's adapter (host.ts) does the reading and writing through its API,
// without a clone; everything else is here, once:
//
// 1. the repository from `pull-request.url` (repositoryAddress), the API base (the deployment's override for the
//    host type, else derived from the URL), the credentials from the Secret;
// 2. the base branch's head commit and its files; only `*.yaml`/`*.yml` files are considered, and a file is read
//    only when the marker cache does not know its blob id yet. With a MarkerScanStore the cache outlives the process:
//    the first scan of a repository in a process loads the stored facts (markers by blob id, no text), and a scan
//    that read blobs never seen before stores the merged facts again. Neither may fail a promotion: a failed load or
//    save is logged and the scan reads what it does not know;
// 3. every scalar marked `ns:name:env` set to the version (`setMarkedValues`); no such marker anywhere is a
//    permanent failure, and nothing is written. Scanning and editing return to the event loop between slices of
//    their work, so a large manifest does not hold up what else the process does (serve's receiver);
// 4. when that changes a file: the branch `promotion-{ns}-{name}-{env}` made to hold the base plus exactly those
//    changes in one commit `promoting version` by the configured author (left alone when it already does), then
//    the pull request opened, or the open one for the branch updated (title, and the body when the evidence
//    changed). The result is its URL. The body is Weave's, then the request's evidence, if any (body.ts).
//
// A rollback (`request.rollback`, docs/rollback.md) is the same edit to `revision` (the same bytes a promotion to it
// writes) on a branch of its own, `rollback-{ns}-{name}-{env}-{failed revision}`, with its own title, body and
// commit message (naming.ts). No host is ever asked to merge anything.
//
// Idempotence (port contract): every step converges, so a repeated call makes no second effect and gives the same
// result, and concurrent calls race safely (each adapter's writeBranch and openOrUpdatePullRequest promise it).
//
// When the base branch already holds the version (every marked value is it, e.g. the pull request was merged), there
// is nothing to propose: nothing is written. The result is then the URL of the pull request from the branch with
// exactly this version's title (open or merged; so a call resumed after the merge gives the same result as the
// first), else `already at {version} on {base} in {repository URL}`.
//
// A group's promotion (`pull-request.group`, docs/release-trains.md) goes instead to the group's one branch per
// environment, `promotion-group-{group}-{env}`: the branch made to hold the base plus the markers of every member
// whose promotion is in the group's open pull request (or being made now) set to that member's revision, in one
// commit; each member's markers are set by the same byte-exact edit as its own pull request's, the others' are left
// as they are. See promoteGroup for how concurrent members converge.
import { readFilesFromArchive } from './archived-files.js';
import type { ArchiveLimits } from './archive-read.js';
import type { Logger } from '../../logging/logger.js';
import { errorMessage } from '../../util/error-message.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { GitProviderType } from '../../pipeline/promotion.js';
import { repositoryAddress, type RepositoryAddress } from '../../pipeline/repository-address.js';
import type { SecretSource } from '../../secrets/port.js';
import { markerFor, markersInSliced, mayHoldMarkers, setMarkedValuesSliced } from '../markers.js';
import type { PullRequestState } from '../../decision/types.js';
import {
  PromotionError,
  type GroupMemberPromotion,
  type GroupPromotion,
  type Promoter,
  type PromotionOutcome,
  type PromotionRequest,
  type DeploymentRequest,
  type PullRequestStateRequest,
} from '../port.js';
import type { HostDeploymentRecord } from '../../decision/types.js';
import { deploymentDescription, deploymentEnvironment, deploymentsUnsupported } from './deployments.js';
import { DEFAULT_COMMIT_AUTHOR, type CommitAuthor } from './commit-author.js';
import { gitBlobId } from './git-blob-id.js';
import type { FileChange, GitHost, HostRepository, RepositoryFile } from './host.js';
import { MarkerCache, type MarkerCacheLimits, type ScannedBlob } from './marker-cache.js';
import {
  DEFAULT_MAX_BODY_LENGTH,
  groupPullRequestBody,
  promotionPullRequestBody,
  rollbackPullRequestBody,
} from './body.js';
import {
  COMMIT_MESSAGE,
  groupBranch,
  groupCommitMessage,
  groupTitle,
  promotionBranch,
  pullRequestTitle,
  rollbackBranch,
  rollbackCommitMessage,
  rollbackTitle,
} from './naming.js';
import type { MarkerScanStore } from './scan-store.js';
import { mapLimit } from '../../util/map-limit.js';

export interface PullRequestPromoterOptions {
  secrets: SecretSource;
  /** The adapters, one per `pull-request.type` this deployment promotes to. */
  hosts: readonly GitHost[];
  /** The API base for every repository of a type, instead of the one derived from the repository URL. */
  apiUrls?: Partial<Record<GitProviderType, string>>;
  /** How many files are read at once during the marker scan. Default 8. */
  blobReadConcurrency?: number;
  /** The archive read's limits (archive.ts); default DEFAULT_ARCHIVE_LIMITS. */
  archiveLimits?: Partial<ArchiveLimits>;
  markerCache?: MarkerCacheLimits;
  /** Keeps what the marker scan learnt across processes (Lambda containers, restarts of `serve`). */
  markerScans?: MarkerScanStore;
  /** The promotion commit's author. Default Weave's: `Promotion Server`. */
  commitAuthor?: CommitAuthor;
  logger?: Pick<Logger, 'debug' | 'info' | 'warn'>;
}

interface Run {
  host: GitHost;
  repository: HostRepository;
  /** The Secret the credentials came from (named in error messages). */
  secret: ObjectKey;
  webUrl: string;
  /** Identifies the repository in the marker cache and its store. */
  cacheKey: string;
  base: string;
  branch: string;
  marker: string;
  version: string;
  title: string;
  body: string;
  commitMessage: string;
}

/** One marker set to a version by an edit. */
interface MarkedEdit {
  marker: string;
  version: string;
}

/** The changes an edit makes to the base, and whether the promoted pipeline's own markers changed anything. */
interface Edited {
  changes: FileChange[];
  ownChanged: boolean;
}

const YAML_FILE = /\.ya?ml$/;

/**
 * How many times one group promotion writes the group's branch while it sees the members change under it; past this,
 * the member that changed it last is the one whose write includes everything (see promoteGroup).
 */
const MAX_GROUP_WRITES = 5;
/** Repositories whose last listing is kept: a listing of 10,000 files is about 2 MB. */
const LISTED_REPOSITORIES = 16;

export class PullRequestPromoter implements Promoter {
  private readonly hosts: ReadonlyMap<GitProviderType, GitHost>;
  private readonly markerCache: MarkerCache;
  /** The last listing of each repository's YAML files, by the commit listed (manifestsAt). */
  private readonly listings = new Map<string, { commit: string; manifests: Promise<readonly RepositoryFile[]> }>();
  /** Loads of stored scan facts in flight, by repository: concurrent promotions of one repository share one. */
  private readonly scanLoads = new Map<string, Promise<void>>();

  constructor(private readonly options: PullRequestPromoterOptions) {
    this.hosts = new Map(options.hosts.map((host) => [host.type, host]));
    this.markerCache = new MarkerCache(options.markerCache);
  }

  async promote(request: PromotionRequest): Promise<PromotionOutcome> {
    const { pipeline, env, revision } = request;
    const { spec, host, address, apiUrl, secret, values } = await this.repositoryOf(pipeline, env);
    try {
      const run: Run = {
        host,
        repository: host.open(address, apiUrl, secret, values),
        secret,
        webUrl: address.webUrl,
        cacheKey: cacheKeyOf(address, apiUrl),
        base: spec.baseBranch,
        marker: markerFor(pipeline.namespace, pipeline.name, env.name),
        version: revision,
        ...pullRequestNames(request, host.maxBodyLength ?? DEFAULT_MAX_BODY_LENGTH),
      };
      if (spec.group !== undefined && !request.rollback) {
        // Without the other members the group's branch would be written with this member alone, dropping theirs.
        if (!request.group) throw new PromotionError('Invalid', `group ${spec.group}: the members are not known`);
        return { result: await this.promoteGroup(run, request, spec.group, request.group) };
      }
      return { result: await this.run(run) };
    } catch (error) {
      throw host.toPromotionError(error, secret);
    }
  }

  /**
   * One request to the host: the pull requests from the environment's promotion branch (Weave's name: the one
   * branch every promotion to it uses), the one at `url` among them. A rollback's pull request is not asked about.
   */
  async pullRequestState(request: PullRequestStateRequest): Promise<PullRequestState | undefined> {
    const { pipeline, env, url } = request;
    const { host, address, apiUrl, secret, values } = await this.repositoryOf(pipeline, env);
    try {
      const repository = host.open(address, apiUrl, secret, values);
      const pulls = await repository.pullRequestsFrom(branchOf(pipeline, env));
      return pulls.find((pull) => pull.url === url)?.state;
    } catch (error) {
      throw host.toPromotionError(error, secret);
    }
  }

  /**
   * Records the rollout on the host of the merged pull request (deployments.ts): one request or a few, through the
   * host's adapter, whose client waits out a short rate limit; a longer one fails it, retryable.
   */
  async recordDeployment(request: DeploymentRequest): Promise<Omit<HostDeploymentRecord, 'at'>> {
    const { pipeline, env, revision, state } = request;
    const { spec, host, address, apiUrl, secret, values } = await this.repositoryOf(pipeline, env);
    try {
      const repository = host.open(address, apiUrl, secret, values);
      if (!repository.recordDeployment) throw deploymentsUnsupported();
      const recorded = await repository.recordDeployment({
        pullRequestUrl: request.pullRequestUrl,
        branch: promotionBranch(pipeline.namespace, pipeline.name, env.name),
        environment: deploymentEnvironment(pipeline, env.name),
        revision,
        state,
        description: deploymentDescription(request.description),
        ...(spec.environmentUrl === undefined ? {} : { environmentUrl: spec.environmentUrl }),
        ...(request.recorded ? { recorded: { id: request.recorded.id, sha: request.recorded.sha } } : {}),
      });
      return { ...recorded, state };
    } catch (error) {
      throw host.toPromotionError(error, secret);
    }
  }

  /** The environment's pull-request block, its host's adapter, the repository's address and the credentials. */
  private async repositoryOf(pipeline: PromotionRequest['pipeline'], env: PromotionRequest['env']) {
    const spec = env.promotion?.strategy['pull-request'];
    if (!spec) throw new PromotionError('Invalid', `environment ${env.name} has no pull-request promotion`);
    const host = this.hosts.get(spec.type);
    if (!host) {
      throw new PromotionError('Invalid', `the ${spec.type} Git provider is not available in this deployment`);
    }
    const located = repositoryAddress(spec.type, spec.url);
    if (!located.ok) throw new PromotionError('Invalid', `the pull-request url ${located.problem}`);
    const address = located.address;
    const apiUrl = (this.options.apiUrls?.[spec.type] ?? address.apiUrl).replace(/\/+$/, '');
    const secret: ObjectKey = { namespace: pipeline.namespace, name: spec.secretRef.name };
    const values = await this.readSecret(host, secret);
    return { spec, host, address, apiUrl, secret, values };
  }

  /** The Secret's values. Only a failure to read the store is retryable: a missing Secret waits for a person. */
  private async readSecret(host: GitHost, key: ObjectKey): Promise<Readonly<Record<string, string>>> {
    const name = `Secret ${objectKeyString(key)}`;
    let values: Readonly<Record<string, string>> | undefined;
    try {
      values = await this.options.secrets.getSecret(key);
    } catch (error) {
      throw new PromotionError('HostUnavailable', `cannot read ${name}: ${errorMessage(error)}`);
    }
    if (!values) {
      throw new PromotionError(
        'NotFound',
        `${name} not found: the ${host.type} pull-request strategy needs ${host.neededKeys}`,
      );
    }
    return values;
  }

  private async run(run: Run): Promise<string> {
    const baseCommit = await this.baseCommitOf(run);
    const { changes } = await this.edit(run, baseCommit, []);
    if (changes.length === 0) return this.alreadyOnBase(run);
    await run.repository.writeBranch({
      branch: run.branch,
      base: run.base,
      baseCommit,
      changes,
      message: run.commitMessage,
      author: { ...(this.options.commitAuthor ?? DEFAULT_COMMIT_AUTHOR) },
    });
    const url = await run.repository.openOrUpdatePullRequest({
      branch: run.branch,
      base: run.base,
      title: run.title,
      body: run.body,
    });
    this.options.logger?.info('promotion pull request', { pullRequest: url, title: run.title });
    return url;
  }

  private async baseCommitOf(run: Run): Promise<string> {
    const baseCommit = await run.repository.branchHead(run.base);
    if (baseCommit === undefined) {
      throw new PromotionError(
        'NotFound',
        `the base branch ${run.base} does not exist in ${run.webUrl}, or the credentials of Secret ` +
          `${objectKeyString(run.secret)} cannot see it`,
      );
    }
    return baseCommit;
  }

  /**
   * A member's promotion into the group's pull request. At most one pull request is open per (group, environment)
   * whatever the concurrency because there is one branch per (group, environment) and every host's
   * openOrUpdatePullRequest opens at most one per branch, under concurrent calls too (the host's answer that one is
   * open from the branch); the store's conditional writes are not needed for that. What they give is the member
   * list: each member's promotion record is claimed (a conditional write) before its promoter reads the list.
   *
   * Two members promoted at once each write the branch whole (base plus every member's markers). So that the last
   * write does not drop a member the other added, each promotion reads the open pull request and the members, writes,
   * and reads them again, writing again while what it read differs from what it wrote: the promotion whose write
   * is last read after it a list holding every member claimed before, and any member claimed later writes after it.
   */
  private async promoteGroup(run: Run, request: PromotionRequest, group: string, members: GroupPromotion) {
    const { pipeline, env, revision, evidence } = request;
    const branch = groupBranch(group, env.name);
    const own = { namespace: pipeline.namespace, name: pipeline.name, revision, ...(evidence ? { evidence } : {}) };
    let written: string | undefined;
    let url: string | undefined;
    for (let write = 0; write <= MAX_GROUP_WRITES; write++) {
      const open = (await run.repository.pullRequestsFrom(branch)).find(
        (pull) => pull.state === 'open' && pull.base === run.base,
      );
      const others = (await members.members())
        .filter((member) => !samePipeline(member, pipeline) && inGroupPullRequest(member, open?.url))
        .map((member) => ({
          ...member.pipeline,
          revision: member.revision,
          ...(member.evidence ? { evidence: member.evidence } : {}),
        }));
      const included = [own, ...others].sort((a, b) => memberName(a).localeCompare(memberName(b)));
      const fingerprint = [
        open?.url ?? '',
        ...included.map((member) => `${memberName(member)} ${member.revision}`),
      ].join('\n');
      if (url !== undefined && (fingerprint === written || write === MAX_GROUP_WRITES)) return url;
      const edits = others.map((member) => ({
        marker: markerFor(member.namespace, member.name, env.name),
        version: member.revision,
      }));
      // Read each time: the group's pull request may have been merged since the last write.
      const baseCommit = await this.baseCommitOf(run);
      const { changes, ownChanged } = await this.edit(run, baseCommit, edits);
      // The base holds this member's revision already: there is nothing of its own to propose. When this call wrote
      // it into the group's pull request, that one was merged meanwhile, and it is the result.
      if (!ownChanged) return url ?? `already at ${run.version} on ${run.base} in ${run.webUrl}`;
      await run.repository.writeBranch({
        branch,
        base: run.base,
        baseCommit,
        changes,
        message: groupCommitMessage(included),
        author: { ...(this.options.commitAuthor ?? DEFAULT_COMMIT_AUTHOR) },
      });
      url = await run.repository.openOrUpdatePullRequest({
        branch,
        base: run.base,
        title: groupTitle(group, env.name, included.length),
        body: groupPullRequestBody(group, env.name, included, run.host.maxBodyLength ?? DEFAULT_MAX_BODY_LENGTH),
      });
      written = fingerprint;
      this.options.logger?.info('group promotion pull request', { pullRequest: url, group, members: included.length });
    }
    return url as string;
  }

  /**
   * The blobs a scan has to read, from one archive of the commit (archived-files.ts) where there are more than
   * ARCHIVE_AFTER_READS of them (a repository's first scan, a large change) and the host gives archives: one request
   * in place of one per file. A file the archive does not hold as listed (another blob id, too large, left out) is read
   * on its own, as is everything when the host refuses the archive; only an archive over its cap fails the promotion,
   * naming the cap.
   */
  private async readFromArchive(
    run: Run,
    commit: string,
    toRead: readonly RepositoryFile[],
  ): Promise<Map<string, ScannedBlob>> {
    const scanned = new Map<string, ScannedBlob>();
    const found = await readFilesFromArchive(run.repository, commit, toRead, {
      limits: this.options.archiveLimits,
      repository: run.webUrl,
      logger: this.options.logger,
    });
    for (const [blobId, text] of found) {
      const markers = mayHoldMarkers(text) ? await markersInSliced(text) : [];
      const blob = this.markerCache.set(run.cacheKey, blobId, markers, text);
      scanned.set(blobId, blob.text === undefined && markers.length > 0 ? { markers, text } : blob);
    }
    return scanned;
  }

  /**
   * The manifests changed by setting the marked values, with their new text: the promoted pipeline's (`run.marker`,
   * which must be found), then `others` (a group's other members: a marker not found is left alone).
   */
  private async edit(run: Run, baseCommit: string, others: readonly MarkedEdit[]): Promise<Edited> {
    const edits: MarkedEdit[] = [{ marker: run.marker, version: run.version }, ...others];
    const manifests = await this.manifestsAt(run, baseCommit);
    await this.loadScan(run);
    let reads = 0;
    let unseen = 0;
    // Identical files (one kustomization.yaml in many folders) are one blob: read once.
    const byBlob = new Map<string, RepositoryFile>();
    for (const file of manifests) if (!byBlob.has(file.blobId)) byBlob.set(file.blobId, file);
    const distinct = [...byBlob.values()];
    const toRead = distinct.filter((file) => {
      const known = this.markerCache.get(run.cacheKey, file.blobId);
      const needed = edits.some((edit) => known?.markers.includes(edit.marker));
      return !known || (known.text === undefined && needed);
    });
    const archived = await this.readFromArchive(run, baseCommit, toRead);
    const blobs = await mapLimit(distinct, this.options.blobReadConcurrency ?? 8, async (file) => {
      const fromArchive = archived.get(file.blobId);
      if (fromArchive) {
        unseen++;
        return fromArchive;
      }
      const known = this.markerCache.get(run.cacheKey, file.blobId);
      const needed = edits.some((edit) => known?.markers.includes(edit.marker));
      if (known && (known.text !== undefined || !needed)) return known;
      reads++;
      if (!known) unseen++;
      const text = await run.repository.readFile(file, baseCommit);
      const markers = mayHoldMarkers(text) ? await markersInSliced(text) : [];
      const blob: ScannedBlob = this.markerCache.set(run.cacheKey, file.blobId, markers, text);
      return blob.text === undefined && markers.length > 0 ? { markers, text } : blob;
    });
    const blobById = new Map(distinct.map((file, index) => [file.blobId, blobs[index] as ScannedBlob]));
    this.options.logger?.debug?.('scanned manifests for markers', {
      repository: run.webUrl,
      manifests: manifests.length,
      blobsRead: reads,
      blobsNeverSeen: unseen,
    });
    if (unseen > 0) await this.saveScan(run, manifests);

    let found = 0;
    let ownChanged = false;
    const changes: FileChange[] = [];
    for (const file of manifests) {
      const blob = blobById.get(file.blobId);
      if (blob?.text === undefined) continue;
      let text = blob.text;
      for (const [index, edit] of edits.entries()) {
        if (!blob.markers.includes(edit.marker)) continue;
        const edited = await setMarkedValuesSliced(text, edit.marker, edit.version);
        if (index === 0) {
          found += edited.found;
          ownChanged ||= edited.text !== text;
        }
        text = edited.text;
      }
      if (text !== blob.text) {
        changes.push({ path: file.path, content: text, baseBlobId: file.blobId, blobId: gitBlobId(text) });
      }
    }
    this.options.logger?.debug?.('set the marked values', {
      repository: run.webUrl,
      marker: run.marker,
      found,
      filesChanged: changes.length,
    });
    if (found === 0) {
      throw new PromotionError(
        'NoMarkers',
        `no {"$promotion": "${run.marker}"} marker found in ${run.webUrl} at ${run.base}`,
      );
    }
    return { changes, ownChanged };
  }

  /**
   * The YAML files of the commit. A commit's files never change, so the last listing of each repository is kept (in
   * flight too): the promotions of many pipelines on one base commit list it once.
   */
  private manifestsAt(run: Run, commit: string): Promise<readonly RepositoryFile[]> {
    const known = this.listings.get(run.cacheKey);
    if (known?.commit === commit) return known.manifests;
    const manifests = run.repository
      .listFiles(commit)
      .then((files) => files.filter((file) => YAML_FILE.test(file.path)));
    this.listings.delete(run.cacheKey);
    this.listings.set(run.cacheKey, { commit, manifests });
    while (this.listings.size > LISTED_REPOSITORIES) this.listings.delete(this.listings.keys().next().value as string);
    // A failed listing is not kept: the next promotion lists again.
    manifests.catch(() => {
      if (this.listings.get(run.cacheKey)?.manifests === manifests) this.listings.delete(run.cacheKey);
    });
    return manifests;
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
      for (const [blobId, markers] of facts) this.markerCache.remember(run.cacheKey, blobId, markers);
      this.options.logger?.debug?.('loaded the stored marker scan', { repository: run.webUrl, blobs: facts.size });
    } catch (error) {
      this.options.logger?.warn('cannot load the stored marker scan; every blob not known yet is read', {
        repository: run.webUrl,
        error: errorMessage(error),
      });
    }
  }

  /**
   * Stores everything this process knows of the repository (what it loaded, merged with what it read since), the
   * blobs of the tree just scanned last: they are the most recently seen, kept first when the store is full.
   */
  private async saveScan(run: Run, manifests: readonly RepositoryFile[]): Promise<void> {
    const store = this.options.markerScans;
    if (!store) return;
    const inTree = new Set(manifests.map((file) => file.blobId));
    const facts = new Map<string, readonly string[]>();
    for (const [blobId, blob] of this.markerCache.entries(run.cacheKey)) {
      if (!inTree.has(blobId)) facts.set(blobId, blob.markers);
    }
    for (const file of manifests) {
      const blob = this.markerCache.get(run.cacheKey, file.blobId);
      if (blob) facts.set(file.blobId, blob.markers);
    }
    try {
      await store.save(run.cacheKey, facts);
    } catch (error) {
      this.options.logger?.warn('cannot store the marker scan; the next new process reads the blobs again', {
        repository: run.webUrl,
        error: errorMessage(error),
      });
    }
  }

  /** Nothing to change on the base: the result names the pull request that brought this version, if any. */
  private async alreadyOnBase(run: Run): Promise<string> {
    const pulls = await run.repository.pullRequestsFrom(run.branch);
    const same = pulls.find((pull) => pull.title === run.title);
    if (same) return same.url;
    const stale = pulls.find((pull) => pull.state === 'open');
    if (stale) {
      this.options.logger?.warn(
        'the base branch already has the version; an open promotion pull request proposes another',
        {
          pullRequest: stale.url,
          title: stale.title,
          version: run.version,
        },
      );
    }
    return `already at ${run.version} on ${run.base} in ${run.webUrl}`;
  }
}

/** The branch, title, body and commit message of a promotion's pull request, or of a rollback's. */
function pullRequestNames(
  request: PromotionRequest,
  maxBodyLength: number,
): Pick<Run, 'branch' | 'title' | 'body' | 'commitMessage'> {
  const { pipeline, env, revision, evidence, rollback } = request;
  const { namespace, name } = pipeline;
  if (!rollback) {
    return {
      branch: promotionBranch(namespace, name, env.name),
      title: pullRequestTitle(namespace, name, env.name, revision),
      body: promotionPullRequestBody(namespace, name, env.name, evidence, maxBodyLength),
      commitMessage: COMMIT_MESSAGE,
    };
  }
  const { from } = rollback;
  return {
    branch: rollbackBranch(namespace, name, env.name, from),
    title: rollbackTitle(namespace, name, env.name, from, revision),
    body: rollbackPullRequestBody(
      { pipelineNamespace: namespace, pipelineName: name, env: env.name, from, to: revision, evidence },
      maxBodyLength,
    ),
    commitMessage: rollbackCommitMessage(env.name, from, revision),
  };
}

/**
 * Identifies a repository in the marker cache and the stored scans: the API and the repository's path on it, lower
 * case. GitHub's keeps the form scans were first stored under (`{api} {owner}/{repo}`).
 */
function cacheKeyOf(address: RepositoryAddress, apiUrl: string): string {
  switch (address.type) {
    case 'github':
      return `${apiUrl} ${address.owner}/${address.repo}`.toLowerCase();
    case 'gitlab':
      return `gitlab ${apiUrl} ${address.projectPath}`.toLowerCase();
    case 'bitbucket-server':
      return `bitbucket-server ${apiUrl} ${address.projectKey}/${address.repositorySlug}`.toLowerCase();
    case 'azure-devops':
      return `azure-devops ${apiUrl} ${address.project}/${address.repository}`.toLowerCase();
  }
}

/**
 * The branch of an environment's promotions, whose pull requests the poll asks about: the group's for a member of a
 * group, else Weave's.
 */
function branchOf(pipeline: PromotionRequest['pipeline'], env: PromotionRequest['env']): string {
  const group = env.promotion?.strategy['pull-request']?.group;
  return group === undefined
    ? promotionBranch(pipeline.namespace, pipeline.name, env.name)
    : groupBranch(group, env.name);
}

/** A member's promotion is in the group's pull request: being made now, or made into the one open now. */
function inGroupPullRequest(member: GroupMemberPromotion, open: string | undefined): boolean {
  return member.pullRequest === undefined || (open !== undefined && member.pullRequest === open);
}

function samePipeline(member: GroupMemberPromotion, pipeline: ObjectKey): boolean {
  return member.pipeline.namespace === pipeline.namespace && member.pipeline.name === pipeline.name;
}

function memberName(member: { namespace: string; name: string }): string {
  return `${member.namespace}/${member.name}`;
}
