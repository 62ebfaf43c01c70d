// A fake Azure DevOps Services (Git REST API 7.x) serving one collection at `http://127.0.0.1:<port>/<collection>`,
// for the real azure-devops-node-api client. What it answers as Azure does, because the client or adapter depends on it:
// resource-area discovery (`OPTIONS {collection}/_apis/{area}`: the client builds URLs from its route templates);
// `api-version` negotiation (a preview version without `-preview` is refused); without credentials the sign-in page
// (203) unless `X-TFS-FedAuthRedirect: Suppress` asks for a 401; a ref filter is a prefix below `refs/`; a push is one
// commit on the ref update's `oldObjectId` (409 TF401028 once the ref moved), raw text keeping the edited file's UTF-8
// byte order mark; one active pull request per source and target (409 TF401179); errors in Azure's JSON shape.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  FakeGitHost,
  HostError,
  Router,
  hostRepository,
  authorization,
  basicCredential,
  found,
  jsonObject,
  resetAt,
  ok,
  RecordsOf,
  statusText,
  text,
  type FakeGitHostOptions,
  type HostRepository,
  type LoggedRequest,
  type HostRoute,
  type RouteContext as HostRouteContext,
  type PullRecord,
  type Reply,
} from './git-host-kernel.js';
import { gitNow, type FlatEntry, type GitCommit, type GitSignature } from './git-repository.js';
import { regularFiles, zipArchive } from './tar-archive-writer.js';

/** `path` below the server root (`/acme/Fleet/_apis/git/repositories/r/refs`), `route`: `GET refs`, `POST pushes`… */
export interface FakeAzureDevOpsRequest extends LoggedRequest {
  /** The `api-version` asked for (Accept header or query), when there was one. */
  apiVersion?: string;
  auth?: 'pat';
}

/**
 * `token`: 52 random characters like Azure's; `webHost`: `dev.azure.com`; `identity`: the user behind the tokens, the
 * author of commits whose push names none, the creator of pull requests.
 */
export interface FakeAzureDevOpsOptions extends Omit<FakeGitHostOptions<FakeAzureDevOpsRequest>, 'webPages'> {
  /** The collection (organization) the server holds. Default `acme`. */
  collection?: string;
}

/** A pull request as a test reads it (`pullRequests`): its branches by name, without `refs/heads/`. */
export type FakeAzurePullRequest = ReturnType<FakeAzureDevOps['pullRequests']>[number];

/** The server namespace of the exception types named in error bodies. */
const TYPE_NAMESPACES: Record<string, string> = {
  InvalidArgumentValueException: 'Microsoft.TeamFoundation.SourceControl.WebServer',
  UnauthorizedRequestException: 'Microsoft.TeamFoundation.Framework.Server',
  ProjectDoesNotExistWithNameException: 'Microsoft.TeamFoundation.Core.WebApi',
  VssVersionNotSpecifiedException: 'Microsoft.VisualStudio.Services.WebApi',
  VssInvalidPreviewVersionException: 'Microsoft.VisualStudio.Services.WebApi',
  RequestBlockedException: 'Microsoft.TeamFoundation.Framework.Server',
};

function vssBody(typeKey: string, message: string): Record<string, unknown> {
  const namespace = TYPE_NAMESPACES[typeKey] ?? 'Microsoft.TeamFoundation.Git.Server';
  return {
    $id: '1',
    innerException: null,
    message,
    typeName: `${namespace}.${typeKey}, ${namespace}`,
    typeKey,
    errorCode: 0,
    eventId: 3000,
  };
}

/** An error answered in Azure DevOps' JSON shape. */
const vss = (status: number, typeKey: string, message: string) => new HostError(status, vssBody(typeKey, message));
const invalidArgument = (message: string) => vss(400, 'InvalidArgumentValueException', message);
const incorrect = (parameter: string) =>
  invalidArgument(`The parameters are incorrect.\r\nParameter name: ${parameter}`);

/** A version (`Commit: id`, `Branch: name`…) that names no commit of the repository. */
const unresolvable = (repo: { name: string }, version: string, typeKey = 'GitCommitDoesNotExistException') =>
  vss(
    404,
    typeKey,
    `TF401175: The version descriptor <${version}> could not be resolved to a version in the repository ${repo.name}`,
  );

const ZERO_ID = '0'.repeat(40);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const SIGN_IN_PAGE = '<!DOCTYPE html><html><head><title>Azure DevOps Services | Sign In</title></head></html>';

/** A path's names, without the empty ones of leading, trailing or doubled slashes. */
const pathParts = (path: string) => path.split('/').filter((part) => part !== '');

/** A stable GUID for a name, in Azure's lower-case form. */
function guidOf(text: string): string {
  const hex = createHash('sha1').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** An enum value as Azure takes it: its camelCase name in any case, or its number. */
function enumValue(value: unknown, names: Record<string, number>, field: string): string {
  const byNumber = Object.entries(names).find(([, number]) => String(number) === String(value));
  if (byNumber) return byNumber[0];
  const name = typeof value === 'string' ? Object.keys(names).find((key) => key === value.toLowerCase()) : undefined;
  if (name === undefined) throw invalidArgument(`The value '${String(value)}' is not valid for ${field}.`);
  return name;
}

const RECURSION = { none: 0, onelevel: 1, onelevelplusnestedemptyfolders: 4, full: 120 };
const VERSION_TYPES = { branch: 0, tag: 1, commit: 2 };
const CONTENT_TYPES = { rawtext: 0, base64encoded: 1 };
const PULL_REQUEST_STATUSES = { notset: 0, active: 1, abandoned: 2, completed: 3, all: 4 };
/** The states of a pull request status (Git / Pull Request Statuses), and their camelCase names in answers. */
const STATUS_STATES = { notset: 0, pending: 1, succeeded: 2, failed: 3, error: 4, notapplicable: 5 };
const STATUS_STATE_NAMES = ['notSet', 'pending', 'succeeded', 'failed', 'error', 'notApplicable'];

export interface FakeAzurePullRequestStatus {
  id: number;
  state: keyof typeof STATUS_STATES;
  description: string;
  context: { name: string; genre: string };
  targetUrl: string;
  creationDate: string;
}

/** The Git area's resources this fake serves, as `OPTIONS _apis/git` describes them (ApiResourceLocation). */
/** `tail`: the template's end below `repositories/{repositoryId}/{resource}`; none for the repositories themselves. */
const GIT_LOCATIONS = [
  { id: '225f7195-f9c7-4d14-ab28-a83f7ff77e1f', resourceName: 'repositories', version: 2 },
  { id: '2d874a60-a811-4f62-9c9f-963a6ea0a55b', resourceName: 'refs', version: 2, tail: '{*filter}' },
  { id: 'fb93c0db-47ed-4a31-8c20-47552878fb44', resourceName: 'items', version: 1, tail: '{*path}' },
  { id: '7b28e929-2c99-405d-9c5c-6167a06e6816', resourceName: 'blobs', version: 1, tail: '{sha1}' },
  { id: 'c2570c3b-5b3f-41b8-98bf-5407bfde8d58', resourceName: 'commits', version: 2, tail: '{commitId}' },
  { id: 'ea98d07b-3c87-4971-8ede-a613694ffb55', resourceName: 'pushes', version: 3, tail: '{pushId}' },
  { id: '9946fd70-0d40-406e-b686-b4744cbbcc37', resourceName: 'pullRequests', version: 2, tail: '{pullRequestId}' },
  {
    id: 'b5f6bb4f-8d1e-4d79-8d11-4c9172c99c35',
    resourceName: 'pullRequestStatuses',
    version: 2,
    template: '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/statuses/{statusId}',
  },
] as const;

/** The newest version Azure DevOps Services releases, and the newest it serves as a preview. */
const RELEASED_VERSION = '7.1';
const MAX_VERSION = '7.2';

/** The resource locations of an area: the Git area's, none of any other. */
function locationsOf(area: string): Reply {
  const value = (area.toLowerCase() === 'git' ? GIT_LOCATIONS : []).map((location) => ({
    id: location.id,
    area: 'git',
    resourceName: location.resourceName,
    routeTemplate:
      'template' in location
        ? location.template
        : 'tail' in location
          ? `{project}/_apis/{area}/repositories/{repositoryId}/{resource}/${location.tail}`
          : `{project}/_apis/{area}/{resource}/{repositoryId}`,
    routeName: `git-${location.resourceName}`,
    resourceVersion: location.version,
    minVersion: '1.0',
    maxVersion: MAX_VERSION,
    releasedVersion: RELEASED_VERSION,
  }));
  return ok({ count: value.length, value });
}

/** Refuses an `api-version` Azure would refuse: missing, not a version, or an unmarked preview. */
function checkApiVersion(requested: string | undefined, method: string): void {
  if (requested === undefined) {
    const message =
      `No api-version was supplied for the "${method}" request. The version must be supplied either as part of the ` +
      'Accept header (e.g. "application/json; api-version=1.0") or as a query parameter (e.g. "?api-version=1.0").';
    throw vss(400, 'VssVersionNotSpecifiedException', message);
  }
  const [, version, preview] = /^(\d+\.\d+)(-preview(?:\.\d+)?)?$/.exec(requested.trim()) ?? [];
  if (Number(version) > Number(RELEASED_VERSION) && preview === undefined) {
    const message =
      `The requested version "${requested}" of the resource is under preview. The -preview flag must be supplied in ` +
      `the api-version for such requests. For example: "${version}-preview"`;
    throw vss(400, 'VssInvalidPreviewVersionException', message);
  }
}

type FakeProject = { id: string; name: string };

const STATES = { open: 'active', closed: 'abandoned', merged: 'completed' } as const;

/** `pushes`: how many pushes it took, the id of the next. */
type FakeAzureRepository = HostRepository<
  PullRecord,
  { project: FakeProject; name: string; id: string; pushes: number }
>;

type RouteContext = HostRouteContext<FakeAzureDevOpsRequest, true, FakeAzureRepository>;

function checkTitle(title: string): string {
  if (title.trim() === '') throw invalidArgument('The title of a pull request must not be empty.');
  return title;
}

const object = (body: unknown, name: string) =>
  jsonObject(body, () => invalidArgument(`Value cannot be null.\r\nParameter name: ${name}`));

export class FakeAzureDevOps extends FakeGitHost<
  FakeAzureDevOpsRequest,
  never,
  FakeAzureRepository,
  [project: string, name: string],
  true
> {
  readonly collection: string;
  /** The routes name the collection (see `url`), matched as Azure matches paths: without regard to case. */
  protected readonly apiBase = '';
  private readonly projects = new Map<string, FakeProject>();
  protected readonly router = new Router<HostRoute<RouteContext>>({ ignoreCase: true });
  private readonly denyForcePush = new Set<string>();
  private nextPullRequestId = 1;
  protected readonly jsonType = 'application/json; charset=utf-8; api-version=7.2-preview';

  constructor(options: FakeAzureDevOpsOptions = {}) {
    const [token, identity] = [randomBytes(26).toString('hex'), { name: 'Fake User', email: 'fake.user@example.com' }];
    super({ name: 'Azure DevOps', nameCount: 2, token, identity, webHost: 'dev.azure.com' }, options);
    this.tokens.set(this.token, true);
    this.collection = options.collection ?? 'acme';
    this.defineRoutes();
  }

  /** The collection's URL, `http://127.0.0.1:<port>/acme`: what a client is given. */
  override get url(): string {
    return `${this.origin}/${encodeURIComponent(this.collection)}`;
  }

  /**
   * Whether the tokens' user may move a branch of the repository backwards (updateRefs to a commit that does not
   * descend from the branch's head): Azure's "Force push" permission. Allowed unless denied here.
   */
  allowForcePush(project: string, name: string, allowed: boolean): void {
    const key = this.repository(project, name).id;
    if (allowed) this.denyForcePush.delete(key);
    else this.denyForcePush.add(key);
  }

  // ---------------------------------------------------------------- repositories (test-facing)

  /** A repository of a project, the project created with its first repository. */
  protected newRepository([project, name]: [string, string], defaultBranch: string): FakeAzureRepository {
    let stored = this.projects.get(project.toLowerCase());
    if (!stored) {
      stored = { id: guidOf(`project ${project}`), name: project };
      this.projects.set(project.toLowerCase(), stored);
    }
    const id = guidOf(`repository ${project}/${name}`);
    return hostRepository({ project: stored, name, id, pushes: 0 }, defaultBranch);
  }

  /** The bytes of one file at a ref, or undefined. */
  fileBytes(project: string, name: string, ref: string, path: string): Buffer | undefined {
    const repo = this.repository(project, name);
    const entry = this.filesAt(repo, ref, true)[path];
    return entry === undefined ? undefined : repo.blob(entry);
  }

  /** Pull requests, oldest first. */
  pullRequests(project: string, name: string) {
    const repo = this.repository(project, name);
    return repo.pulls.all.map((pull) => ({
      pullRequestId: pull.number,
      title: pull.title,
      description: pull.description,
      status: STATES[pull.state],
      source: pull.source,
      target: pull.target,
      webUrl: this.pullRequestWebUrl(repo, pull.number),
      ...(pull.mergeCommitSha ? { mergeCommitId: pull.mergeCommitSha } : {}),
    }));
  }

  /**
   * Completes an active pull request as Azure's default merge type does: a merge commit `Merged PR {id}: {title}` on
   * the target with the source's changes since the merge base (the source wins any conflict), parents target and
   * source. Returns the merge commit's id.
   */
  merge(project: string, name: string, pullRequestId: number): string {
    const repo = this.repository(project, name);
    const pull = repo.pulls.expect(pullRequestId, true);
    const sha = repo.pulls.merge(pull, this.identity, `Merged PR ${pull.number}: ${pull.title}`);
    if (!sha) throw new Error(`pull request ${pullRequestId} has no source or target branch`);
    return sha;
  }

  /** Abandons an active pull request (closes it without merging). */
  abandon(project: string, name: string, pullRequestId: number): void {
    const { pulls } = this.repository(project, name);
    pulls.close(pulls.expect(pullRequestId));
  }

  /** Logs the `api-version` asked for, in the query or the Accept header. */
  protected override receive(request: IncomingMessage, url: URL, method: string) {
    const received = super.receive(request, url, method);
    const { query } = received.logged;
    const apiVersion = query['api-version'] ?? /api-version=([^;,\s]+)/i.exec(request.headers.accept ?? '')?.[1];
    if (apiVersion) received.logged.apiVersion = apiVersion;
    return received;
  }

  protected readonly invalidJson = 'The body of the request contains invalid Json.\r\nParameter name: contentStream';

  protected override noRoute({ path }: FakeAzureDevOpsRequest): HostError {
    return vss(404, 'HttpException', `The controller for path '${path}' was not found.`);
  }

  /** A repository by project (name or id) and repository (name or id), as Azure looks them up. */
  protected findRepository({ project, repositoryId }: Record<string, string>): FakeAzureRepository | undefined {
    if (repositoryId === undefined) return undefined;
    const [projectKey, repositoryKey] = [project?.toLowerCase(), repositoryId.toLowerCase()];
    const inProject = [...this.projects.values()].find(
      ({ name, id }) => projectKey === name.toLowerCase() || projectKey === id,
    );
    if (project !== undefined && !inProject) {
      const message =
        `TF200016: The following project does not exist: ${project}. Verify that the name of the project is ` +
        'correct and that the project exists on the specified Azure DevOps Server.';
      throw vss(404, 'ProjectDoesNotExistWithNameException', message);
    }
    // Without a project, only the repository's id names it.
    const repo = [...this.repositories.values()].find(({ id, name, project: owner }) =>
      inProject ? owner === inProject && [id, name.toLowerCase()].includes(repositoryKey) : id === repositoryKey,
    );
    if (!repo) {
      const message =
        `TF401019: The Git repository with name or identifier ${repositoryId} does not exist or you do not have ` +
        'permissions for the operation you are attempting.';
      throw vss(404, 'GitRepositoryNotFoundException', message);
    }
    return repo;
  }

  /**
   * Checks the personal access token (Basic, any user name). Without credentials, a browser gets the sign-in page
   * (203) unless the client suppressed that redirect; wrong credentials get 401.
   */
  protected authenticate(request: IncomingMessage, logged: FakeAzureDevOpsRequest): true {
    const basic = authorization(request, 'basic');
    const unauthorized = () =>
      vss(401, 'UnauthorizedRequestException', "TF400813: The user '' is not authorized to access this resource.");
    if (!basic) {
      if (String(request.headers['x-tfs-fedauthredirect']).toLowerCase() !== 'suppress') {
        throw new HostError(203, undefined, {}, { type: 'text/html; charset=utf-8', data: SIGN_IN_PAGE });
      }
      throw unauthorized();
    }
    if (!this.tokens.has(basicCredential(basic).password)) throw unauthorized();
    logged.auth = 'pat';
    return true;
  }

  protected baseHeaders(): Record<string, string> {
    return {
      'x-vss-e2eid': guidOf(randomBytes(8).toString('hex')),
      activityid: guidOf(randomBytes(8).toString('hex')),
    };
  }

  protected errorBody(status: number, message = statusText(status)): unknown {
    return vssBody('FakeFaultException', message);
  }

  /** 429 with `Retry-After` and `X-RateLimit-*` headers, the way Azure DevOps throttles a client. */
  protected rateLimited({ seconds }: { seconds: number }): Reply {
    const headers = { 'retry-after': String(seconds), 'x-ratelimit-resource': 'Core', 'x-ratelimit-remaining': '0' };
    const message =
      "TF400733: The request has been canceled: Request was blocked due to exceeding usage of resource 'Core' " +
      "in namespace 'User'.";
    const body = vssBody('RequestBlockedException', message);
    return { status: 429, headers: { ...headers, 'x-ratelimit-reset': resetAt(seconds) }, body };
  }

  private repositoryUrl(repo: FakeAzureRepository): string {
    return `${this.started ? this.url : ''}/${repo.project.id}/_apis/git/repositories/${repo.id}`;
  }

  /** `{webHost}/{collection}/{project}/_git/{name}`, without the scheme. */
  private webPath(repo: FakeAzureRepository): string {
    return `${this.webHost}/${[this.collection, repo.project.name, '_git', repo.name].map(encodeURIComponent).join('/')}`;
  }

  /** The page a person opens: `https://dev.azure.com/{org}/{project}/_git/{repo}/pullrequest/{id}`. */
  private pullRequestWebUrl(repo: FakeAzureRepository, id: number): string {
    return `https://${this.webPath(repo)}/pullrequest/${id}`;
  }

  /** An item as it is at a commit, with the URL that reads it there. */
  private itemRef(repo: FakeAzureRepository, path: string, commitId: string) {
    const url = `${this.repositoryUrl(repo)}/items/${encodeURI(path)}?versionType=Commit&version=${commitId}`;
    return { commitId, path: `/${path}`, url };
  }

  /** A commit as a pull request refers to it. */
  private commitRef(repo: FakeAzureRepository, commitId: string): Record<string, unknown> {
    return { commitId, url: `${this.repositoryUrl(repo)}/commits/${commitId}` };
  }

  private identityJson(): Record<string, unknown> {
    const id = guidOf(`identity ${this.identity.email}`);
    return { displayName: this.identity.name, id, uniqueName: this.identity.email };
  }

  private repositoryJson(repo: FakeAzureRepository): Record<string, unknown> {
    return {
      id: repo.id,
      name: repo.name,
      url: this.repositoryUrl(repo),
      project: { id: repo.project.id, name: repo.project.name },
      defaultBranch: `refs/heads/${repo.defaultBranch}`,
      remoteUrl: `https://${this.collection}@${this.webPath(repo)}`,
      webUrl: `https://${this.webPath(repo)}`,
    };
  }

  private refJson(repo: FakeAzureRepository, name: string, objectId: string): Record<string, unknown> {
    return {
      name,
      objectId,
      creator: this.identityJson(),
      url: `${this.repositoryUrl(repo)}/refs?filter=${encodeURIComponent(name.replace(/^refs\//, ''))}`,
    };
  }

  /** A commit as GitCommitRef, with its changes against its first parent when `changeCount` asks for them. */
  private commitJson(repo: FakeAzureRepository, sha: string, changeCount?: number): Record<string, unknown> {
    const commit = repo.commit(sha);
    if (!commit) throw unresolvable(repo, `Commit: ${sha}`);
    const json: Record<string, unknown> = {
      treeId: commit.tree,
      commitId: sha,
      author: commit.author,
      committer: commit.committer,
      comment: commit.message,
      parents: commit.parents,
      url: `${this.repositoryUrl(repo)}/commits/${sha}`,
      remoteUrl: `https://${this.webPath(repo)}/commit/${sha}`,
    };
    if (changeCount !== undefined && changeCount > 0) {
      const changes: Record<string, unknown>[] = [];
      const counts: Record<string, number> = {};
      for (const { path, old, now } of repo.changesOf(sha)) {
        const [changeType, countKey] = !old ? ['add', 'Add'] : !now ? ['delete', 'Delete'] : ['edit', 'Edit'];
        counts[countKey] = (counts[countKey] ?? 0) + 1;
        const item: Record<string, unknown> = { gitObjectType: 'blob', ...this.itemRef(repo, path, sha) };
        if (now) item.objectId = now.sha;
        if (old) item.originalObjectId = old.sha;
        changes.push({ item, changeType });
      }
      json.changeCounts = counts;
      json.changes = changes.slice(0, changeCount);
    }
    return json;
  }

  private pullRequestJson(repo: FakeAzureRepository, pull: PullRecord): Record<string, unknown> {
    const sourceCommit = repo.pulls.headSha(pull);
    const targetCommit = repo.branchSha(pull.target);
    const json: Record<string, unknown> = {
      repository: this.repositoryJson(repo),
      pullRequestId: pull.number,
      status: STATES[pull.state],
      createdBy: this.identityJson(),
      creationDate: new Date(pull.createdAt).toISOString(),
      title: pull.title,
      description: pull.description,
      sourceRefName: `refs/heads/${pull.source}`,
      targetRefName: `refs/heads/${pull.target}`,
      url: `${this.repositoryUrl(repo)}/pullRequests/${pull.number}`,
    };
    if (sourceCommit) json.lastMergeSourceCommit = this.commitRef(repo, sourceCommit);
    if (targetCommit) json.lastMergeTargetCommit = this.commitRef(repo, targetCommit);
    if (pull.closedAt) json.closedDate = new Date(pull.closedAt).toISOString();
    if (pull.mergeCommitSha) json.lastMergeCommit = this.commitRef(repo, pull.mergeCommitSha);
    return json;
  }

  /** The commit a version descriptor names (the default branch when it names none). */
  private resolveVersion(repo: FakeAzureRepository, query: Record<string, string>): string {
    const version = query['versionDescriptor.version'] ?? query.version;
    const rawType = query['versionDescriptor.versionType'] ?? query.versionType ?? 'branch';
    const type = enumValue(rawType, VERSION_TYPES, 'versionType');
    const name = version ?? repo.defaultBranch;
    const label = type === 'commit' ? 'Commit' : type === 'tag' ? 'Tag' : 'Branch';
    let sha: string | undefined;
    if (type === 'commit') sha = repo.commit(name.toLowerCase()) ? name.toLowerCase() : undefined;
    else sha = repo.refs.get(type === 'tag' ? `refs/tags/${name}` : `refs/heads/${name.replace(/^refs\/heads\//, '')}`);
    if (!sha) throw unresolvable(repo, `${label}: ${name}`, 'GitUnresolvableToCommitException');
    return sha;
  }

  /** createPush: one commit of path changes on the ref update's base, then the ref moved (or created) to it. */
  private push(repo: FakeAzureRepository, body: unknown): Reply {
    const push = object(body, 'push');
    // One commit and one ref update; the commit's base is the ref update's old object id.
    const refUpdate = object((push.refUpdates as unknown[] | undefined)?.[0], 'refUpdate');
    const commit = object((push.commits as unknown[] | undefined)?.[0], 'newCommit');
    const refName = text(refUpdate.name);
    const { comment, changes } = commit;
    if (text(comment) === '' || !Array.isArray(changes) || changes.length === 0) throw incorrect('newCommit');
    const base = text(refUpdate.oldObjectId).toLowerCase();
    const current = repo.refs.get(refName);
    if (current !== undefined && current !== base) {
      const message =
        `TF401028: The reference '${refName}' has already been updated by another client, so you cannot update it. ` +
        'Please try again.';
      throw vss(409, 'GitReferenceStaleException', message);
    }
    const baseIsZero = base === ZERO_ID;
    const baseCommit = baseIsZero ? undefined : repo.commit(base);
    if (!baseIsZero && !baseCommit) throw unresolvable(repo, `Commit: ${base}`);
    const files = baseCommit ? repo.flatten(baseCommit.tree) : new Map<string, FlatEntry>();
    for (const raw of changes) {
      const change = object(raw, 'Changes');
      const item = change.item === undefined || change.item === null ? {} : object(change.item, 'item');
      const path = pathParts(text(item.path)).join('/');
      if (path === '' || path.split('/').some((part) => part === '.' || part === '..')) throw incorrect('Changes');
      const existing = files.get(path);
      const content = object(change.newContent, 'newContent');
      if (typeof content.content !== 'string') throw incorrect('Changes');
      const contentType = enumValue(content.contentType ?? 'rawtext', CONTENT_TYPES, 'contentType');
      let bytes: Buffer;
      if (contentType === 'base64encoded') {
        bytes = Buffer.from(content.content, 'base64');
      } else {
        // Raw text is written in the edited file's encoding: a UTF-8 byte order mark stays.
        const bom = existing && repo.blob(existing.sha)?.subarray(0, 3).equals(UTF8_BOM);
        bytes = Buffer.concat([bom ? UTF8_BOM : Buffer.alloc(0), Buffer.from(content.content, 'utf8')]);
      }
      files.set(path, { mode: existing?.mode ?? '100644', sha: repo.putBlob(bytes) });
    }
    const tree = repo.buildTree(files);
    const now = gitNow();
    const signature = (value: unknown, fallback: GitSignature): GitSignature => {
      if (value === undefined || value === null) return fallback;
      const { name, email, date } = object(value, 'author');
      if (text(name) === '' || text(email) === '') return fallback;
      const time = new Date(typeof date === 'string' ? date : now);
      return { name: text(name), email: text(email), date: time.toISOString().replace(/\.\d+Z$/, 'Z') };
    };
    const identity = { ...this.identity, date: now };
    const author = signature(commit.author, identity);
    const committer = signature(commit.committer, identity);
    const sha = repo.putCommit({ tree, parents: baseIsZero ? [] : [base], author, committer, message: text(comment) });
    repo.refs.set(refName, sha);
    repo.pushes++;
    const moved = { repositoryId: repo.id, name: refName, oldObjectId: current ?? ZERO_ID, newObjectId: sha };
    return { status: 201, body: { commits: [this.commitJson(repo, sha)], refUpdates: [moved], pushId: repo.pushes } };
  }

  /** updateRefs: each ref moved, created (old all zeros) or deleted (new all zeros) when its old id still holds. */
  private updateRefs(repo: FakeAzureRepository, body: unknown): Reply {
    const results = (body as unknown[]).map((raw) => {
      const update = object(raw, 'refUpdates');
      const name = text(update.name);
      const oldObjectId = text(update.oldObjectId).toLowerCase();
      const newObjectId = text(update.newObjectId).toLowerCase();
      const result = (updateStatus: string) => {
        const success = updateStatus === 'succeeded';
        return { repositoryId: repo.id, name, oldObjectId, newObjectId, updateStatus, success };
      };
      if (!/^refs\/[^/]+\/.+/.test(name)) return result('invalidRefName');
      const current = repo.refs.get(name) ?? ZERO_ID;
      if (current !== oldObjectId) return result('staleOldObjectId');
      if (!repo.commit(newObjectId)) return result('unresolvableToCommit');
      if (current !== ZERO_ID && !repo.isAncestor(current, newObjectId) && this.denyForcePush.has(repo.id)) {
        return result('forcePushRequired');
      }
      repo.refs.set(name, newObjectId);
      return result('succeeded');
    });
    return { status: 200, body: { count: results.length, value: results } };
  }

  private createPullRequest(repo: FakeAzureRepository, body: unknown): Reply {
    const input = object(body, 'gitPullRequestToCreate');
    const branch = (ref: unknown) => text(ref).replace(/^refs\/heads\//, '');
    const [sourceBranch, targetBranch] = [branch(input.sourceRefName), branch(input.targetRefName)];
    const title = checkTitle(text(input.title));
    const description = text(input.description);
    const exists = 'TF401179: An active pull request for the source and target branch already exists.';
    if (repo.pulls.openFrom(sourceBranch, targetBranch)) throw vss(409, 'GitPullRequestExistsException', exists);
    const fields = { title, description, source: sourceBranch, target: targetBranch };
    const pull = repo.pulls.add(fields, this.nextPullRequestId++);
    return { status: 201, body: this.pullRequestJson(repo, pull) };
  }

  private listPullRequests(repo: FakeAzureRepository, query: Record<string, string>): Reply {
    const status = enumValue(query['searchCriteria.status'] ?? 'active', PULL_REQUEST_STATUSES, 'status');
    const source = query['searchCriteria.sourceRefName'];
    const target = query['searchCriteria.targetRefName'];
    const skip = Math.max(Number(query.$skip ?? 0) || 0, 0);
    const top = Math.max(Number(query.$top ?? 101) || 101, 1);
    const pulls = repo.pulls.all
      .filter((pull) => status === 'all' || status === 'notset' || STATES[pull.state] === status)
      .filter((pull) => source === undefined || `refs/heads/${pull.source}` === source)
      .filter((pull) => target === undefined || `refs/heads/${pull.target}` === target)
      .sort((a, b) => b.number - a.number)
      .slice(skip, skip + top)
      .map((pull) => this.pullRequestJson(repo, pull));
    return { status: 200, body: { count: pulls.length, value: pulls } };
  }

  private findPullRequest(repo: FakeAzureRepository, id: string | undefined): PullRecord {
    const notFound = 'TF401180: The requested pull request was not found.';
    return found(repo.pulls.find(id), () => vss(404, 'GitPullRequestNotFoundException', notFound));
  }

  private updatePullRequest(repo: FakeAzureRepository, id: string | undefined, body: unknown): Reply {
    const pull = this.findPullRequest(repo, id);
    const input = object(body, 'gitPullRequestToUpdate');
    if (typeof input.title === 'string') pull.title = checkTitle(input.title);
    if (typeof input.description === 'string') pull.description = input.description;
    return ok(this.pullRequestJson(repo, pull));
  }

  private defineRoutes(): void {
    const collection = `/${this.collection}`;
    // Every route but the discovery of an area's resources takes an api-version.
    this.router.add(
      { route: 'OPTIONS _apis/{area}', handle: ({ params }) => locationsOf(params.area ?? '') },
      `${collection}/_apis/{area}`,
    );
    /**
     * A route below `[{project}/]_apis/git/repositories/{repositoryId}` (a repository's id needs no project), logged as
     * `METHOD below` (the repository itself by its name).
     */
    const route = (method: string, below: string, handle: (context: RouteContext) => Reply) => {
      const entry = {
        route: `${method} ${below || 'repositories/{repositoryId}'}`,
        handle: (context: RouteContext) => {
          checkApiVersion(context.request.apiVersion, method);
          return handle(context);
        },
      };
      for (const project of ['/{project}', '']) {
        this.router.add(entry, `${collection}${project}/_apis/git/repositories/{repositoryId}${below && `/${below}`}`);
      }
    };
    route('GET', '', ({ repo }) => ok(this.repositoryJson(repo)));
    route('GET', 'refs', ({ repo, query }) => this.listRefs(repo, query.filter));
    route('GET', 'refs/{*filter}', ({ repo, params, query }) => this.listRefs(repo, query.filter ?? params.filter));
    route('POST', 'refs', ({ repo, body }) => this.updateRefs(repo, body));
    // A zip of the tree at the version when asked for one (`$format=zip`, else the Accept header), its files at the root.
    route('GET', 'items', ({ repo, query, headers }) => {
      if (!(query.$format ? query.$format === 'zip' : (headers.accept ?? '').startsWith('application/zip')))
        return this.listItems(repo, query);
      const files = regularFiles(repo.flatAt(this.resolveVersion(repo, query)), (sha) => repo.blob(sha));
      return { status: 200, raw: { type: 'application/zip', data: zipArchive(files) } };
    });
    // As an octet stream, the way the client asks for it.
    route('GET', 'blobs/{sha1}', ({ repo, params }) => {
      const missing = `TF401174: The item '${params.sha1}' could not be found in the repository '${repo.name}'.`;
      const content = found(repo.blob((params.sha1 ?? '').toLowerCase()), () =>
        vss(404, 'GitItemNotFoundException', missing),
      );
      return { status: 200, raw: { type: 'application/octet-stream', data: content } };
    });
    route('GET', 'commits/{commitId}', ({ repo, params, query }) =>
      ok(this.commitJson(repo, (params.commitId ?? '').toLowerCase(), Number(query.changeCount ?? 0) || 0)),
    );
    route('POST', 'pushes', ({ repo, body }) => this.push(repo, body));
    route('POST', 'pullRequests', ({ repo, body }) => this.createPullRequest(repo, body));
    route('GET', 'pullRequests', ({ repo, query }) => this.listPullRequests(repo, query));
    route('PATCH', 'pullRequests/{pullRequestId}', ({ repo, params, body }) =>
      this.updatePullRequest(repo, params.pullRequestId, body),
    );
    // A status of a pull request: each post is a new iteration of its context, of which Azure shows the newest.
    route('POST', 'pullRequests/{pullRequestId}/statuses', ({ repo, params, body }) => {
      const pull = this.findPullRequest(repo, params.pullRequestId);
      const input = object(body, 'status');
      const { name, genre } = object(input.context ?? {}, 'context');
      const state = enumValue(input.state ?? 'notSet', STATUS_STATES, 'state') as FakeAzurePullRequestStatus['state'];
      const status: FakeAzurePullRequestStatus = {
        id: this.statusRecords.nextId(),
        state,
        description: text(input.description),
        context: { name: text(name), genre: text(genre) },
        targetUrl: text(input.targetUrl),
        creationDate: new Date().toISOString(),
      };
      this.statusRecords.of(pull).push(status);
      return ok({ ...status, state: STATUS_STATE_NAMES[STATUS_STATES[state]], iterationId: status.id });
    });
  }

  private readonly statusRecords = new RecordsOf<PullRecord, FakeAzurePullRequestStatus>();

  /** The statuses of a pull request, oldest first. */
  pullRequestStatuses(project: string, name: string, id: number): FakeAzurePullRequestStatus[] {
    return this.statusRecords.of(this.findPullRequest(this.repository(project, name), String(id)));
  }

  /** Refs whose name starts with `refs/{filter}` (Azure's filter is a prefix), in name order. */
  private listRefs(repo: FakeAzureRepository, filter: string | undefined): Reply {
    const prefix = filter ? `refs/${filter.trim()}` : 'refs/';
    const value = repo.refsUnder(prefix).map(([name, sha]) => this.refJson(repo, name, sha));
    return { status: 200, body: { count: value.length, value } };
  }

  /** The items under a path at a version: the path itself, then (by recursion level) what it holds. */
  private listItems(repo: FakeAzureRepository, query: Record<string, string>): Reply {
    const commitId = this.resolveVersion(repo, query);
    const commit = repo.commit(commitId) as GitCommit;
    const scope = pathParts(query.scopePath ?? query.path ?? '/').join('/');
    const recursion = enumValue(query.recursionLevel ?? 'none', RECURSION, 'recursionLevel');
    const item = (path: string, objectId: string, type: 'blob' | 'tree' | 'commit', symlink = false) => {
      const json: Record<string, unknown> = { objectId, gitObjectType: type, ...this.itemRef(repo, path, commitId) };
      if (type === 'tree') json.isFolder = true;
      if (symlink) json.isSymLink = true;
      return json;
    };
    // The scope: the root tree, a folder, or a file.
    const missing = `TF401174: The item '/${scope}' could not be found in the repository '${repo.name}'.`;
    const at = found(repo.lookup(commit.tree, scope), () => vss(404, 'GitItemNotFoundException', missing));
    const value = [item(scope, at.sha, at.type, at.mode === '120000')];
    if (at.type === 'tree' && recursion !== 'none') {
      repo.walk(at.sha, scope === '' ? '' : `${scope}/`, (path, entry, depth) => {
        value.push(item(path, entry.sha, entry.type, entry.mode === '120000'));
        return recursion === 'full' || (depth === 0 && recursion === 'onelevelplusnestedemptyfolders');
      });
    }
    return { status: 200, body: { count: value.length, value } };
  }
}
