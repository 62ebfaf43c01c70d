// A fake Bitbucket Server / Data Center REST API (1.0) below a context path (`http://127.0.0.1:<port>[/context]`).
// Bitbucket's rules a promotion relies on: one open pull request per source and target (409 carrying
// `existingPullRequest`); one whose source branch is deleted is declined, one whose source commit its target reaches is
// merged; a pull request changes only at its current `version`; paged answers carry `isLastPage` and `nextPageStart`.
// The file edit's undocumented conflicts are a plain 409: the adapter reads only the status.
import { regularFiles, tarGz } from './tar-archive-writer.js';
import { randomBytes } from 'node:crypto';
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
  ok,
  RecordsOf,
  text,
  statusText,
  type FakeGitHostOptions,
  type HostRepository,
  type HostRoute,
  type LoggedRequest,
  type RouteContext as HostRouteContext,
  type PullRecord,
  type Reply,
} from './git-host-kernel.js';
import { fileChanges, withMoves } from './git-repository.js';

/** `path` below the context path (`/rest/api/1.0/projects/P/repos/r/branches`), `route` with `{projectKey}`… */
export interface FakeBitbucketRequest extends LoggedRequest {
  auth?: 'token' | 'basic';
}

export type FakeBitbucketPermission = 'REPO_READ' | 'REPO_WRITE';

export interface FakeBitbucketUser {
  /** The user name (login). */
  name: string;
  displayName: string;
  emailAddress: string;
}

/** `token`: the default HTTP access token (user `promoter`, repository write). */
export interface FakeBitbucketServerOptions extends Omit<
  FakeGitHostOptions<FakeBitbucketRequest>,
  'webHost' | 'webPages'
> {
  /** The context path Bitbucket is served under, e.g. `/bitbucket`. Default: none. */
  contextPath?: string;
  /** The base URL of the web links (`links.self`), as Bitbucket's configured base URL. */
  webBaseUrl?: string;
  /** The largest page any paged resource answers (Bitbucket's per-resource hard limits). Default 1000. */
  maxPageLimit?: number;
  /** `page.max.changes`: the most changes a changes request can reach. Default 1000. */
  maxChanges?: number;
}

/** A pull request as a test reads it (`pullRequests`): its branches and people by name. */
export type FakeBitbucketPullRequest = ReturnType<FakeBitbucketServer['pullRequests']>[number];

/** The states of a build status (REST build status 1.0). */
const BUILD_STATES = ['INPROGRESS', 'SUCCESSFUL', 'FAILED'] as const;

export interface FakeBitbucketBuildStatus {
  state: (typeof BUILD_STATES)[number];
  key: string;
  name: string;
  url: string;
  description: string;
  dateAdded: number;
}

type StoredPullRequest = PullRecord & { version: number; author: FakeBitbucketUser; reviewers: FakeBitbucketUser[] };

const STATES = { open: 'OPEN', closed: 'DECLINED', merged: 'MERGED' } as const;

type FakeRepository = HostRepository<StoredPullRequest, { projectKey: string; slug: string; id: number }>;

type Credential = { user: FakeBitbucketUser; permission: FakeBitbucketPermission };

/** An error answer: `{"errors":[{context, message, exceptionName, …extra}]}`. */
function problem(status: number, message: string, exception?: keyof typeof EXCEPTIONS, extra = {}): HostError {
  const exceptionName = exception === undefined ? null : EXCEPTIONS[exception];
  return new HostError(status, { errors: [{ context: null, message, exceptionName, ...extra }] });
}

const noSuchPath = (path: string, revision: string) =>
  problem(404, `The path "${path}" does not exist at revision "${revision}"`, 'noSuchPath');

const EXCEPTIONS = {
  noSuchRepository: 'com.atlassian.bitbucket.repository.NoSuchRepositoryException',
  noSuchBranch: 'com.atlassian.bitbucket.repository.NoSuchBranchException',
  noSuchCommit: 'com.atlassian.bitbucket.commit.NoSuchCommitException',
  noSuchPath: 'com.atlassian.bitbucket.content.NoSuchPathException',
  noSuchPullRequest: 'com.atlassian.bitbucket.pull.NoSuchPullRequestException',
  duplicateRef: 'com.atlassian.bitbucket.repository.DuplicateRefException',
  duplicatePullRequest: 'com.atlassian.bitbucket.pull.DuplicatePullRequestException',
  emptyPullRequest: 'com.atlassian.bitbucket.pull.EmptyPullRequestException',
  outOfDate: 'com.atlassian.bitbucket.pull.PullRequestOutOfDateException',
  illegalState: 'com.atlassian.bitbucket.pull.IllegalPullRequestStateException',
  authentication: 'com.atlassian.bitbucket.auth.IncorrectPasswordAuthenticationException',
  authorisation: 'com.atlassian.bitbucket.AuthorisationException',
  validation: 'com.atlassian.bitbucket.validation.ArgumentValidationException',
} as const;

type RouteContext = HostRouteContext<FakeBitbucketRequest, Credential, FakeRepository>;

const API = '/rest/api/1.0/projects/{projectKey}/repos/{repositorySlug}';
const BRANCH_UTILS = '/rest/branch-utils/1.0/projects/{projectKey}/repos/{repositorySlug}';
const ZERO_ID = '0000000000000000000000000000000000000000';
const PROMOTER: FakeBitbucketUser = {
  name: 'promoter',
  displayName: 'Promoter',
  emailAddress: 'promoter@bitbucket.example.com',
};

/** Who a user commits as. */
const signatureOf = (user: FakeBitbucketUser) => ({ name: user.displayName, email: user.emailAddress });

export class FakeBitbucketServer extends FakeGitHost<
  FakeBitbucketRequest,
  never,
  FakeRepository,
  [projectKey: string, slug: string],
  Credential
> {
  /** The user the default token and password belong to. */
  readonly user = PROMOTER;
  /** The default user's password (Basic authentication as `promoter`). */
  readonly password = randomBytes(12).toString('hex');

  protected readonly apiBase: string;
  private readonly webBaseUrl: string;
  private readonly maxPageLimit: number;
  private readonly maxChanges: number;
  private readonly passwords = new Map<string, { password: string } & Credential>();
  /** A path, the final parameter of its routes, takes the rest of the request's path. */
  protected readonly router = new Router<HostRoute<RouteContext>>({ rest: { path: false } });
  private nextRepositoryId = 1;
  protected readonly jsonType = 'application/json;charset=UTF-8';

  constructor(options: FakeBitbucketServerOptions = {}) {
    const token = `BBDC-${randomBytes(24).toString('base64url')}`;
    super({ name: 'Bitbucket Server', nameCount: 2, token, identity: signatureOf(PROMOTER) }, options);
    this.tokens.set(this.token, { user: this.user, permission: 'REPO_WRITE' });
    this.passwords.set(this.user.name, { password: this.password, user: this.user, permission: 'REPO_WRITE' });
    this.apiBase = (options.contextPath ?? '').replace(/\/+$/, '');
    this.webBaseUrl = (options.webBaseUrl ?? 'https://bitbucket.example.com').replace(/\/+$/, '');
    this.maxPageLimit = options.maxPageLimit ?? 1000;
    this.maxChanges = options.maxChanges ?? 1000;
    this.defineRoutes();
  }

  /** By commit id: Bitbucket keeps a commit's build statuses across its repositories. */
  private readonly buildStatusRecords = new RecordsOf<string, FakeBitbucketBuildStatus>();

  /** The build statuses of a commit, one per key, newest first. */
  buildStatuses(commit: string): FakeBitbucketBuildStatus[] {
    return [...this.buildStatusRecords.of(commit)].sort((a, b) => b.dateAdded - a.dateAdded);
  }

  /** Accepts another HTTP access token, for the default user unless another is named. */
  addToken(token: string, options: { permission?: FakeBitbucketPermission; user?: FakeBitbucketUser } = {}): void {
    this.tokens.set(token, { user: options.user ?? this.user, permission: options.permission ?? 'REPO_WRITE' });
  }

  /** Accepts a user name and password (Basic). */
  addUser(user: FakeBitbucketUser, password: string, permission: FakeBitbucketPermission = 'REPO_WRITE'): void {
    this.passwords.set(user.name, { password, user, permission });
  }

  // ---------------------------------------------------------------- repositories (test-facing)

  /** A repository of a project (`~user` as the project key for a personal one). */
  protected newRepository([projectKey, slug]: [string, string], defaultBranch: string): FakeRepository {
    const info = { projectKey, slug: slug.toLowerCase(), id: this.nextRepositoryId++ };
    // Every change of a pull request's state is a new version.
    return hostRepository(info, defaultBranch, (pull: StoredPullRequest) => pull.version++);
  }

  /** Pull requests, oldest first. */
  pullRequests(projectKey: string, slug: string) {
    const repo = this.repository(projectKey, slug);
    return repo.pulls.all.map((pull) => ({
      id: pull.number,
      version: pull.version,
      title: pull.title,
      description: pull.description,
      state: STATES[pull.state],
      fromBranch: pull.source,
      toBranch: pull.target,
      author: pull.author.name,
      reviewers: pull.reviewers.map((reviewer) => reviewer.name),
      url: this.pullRequestUrl(repo, pull.number),
    }));
  }

  /** Merges an open pull request as Bitbucket's default strategy does (a merge commit, `--no-ff`). */
  merge(projectKey: string, slug: string, id: number): string {
    const repo = this.repository(projectKey, slug);
    const pull = repo.pulls.expect(id, true);
    const message = `Merge pull request #${pull.number} in ${repo.projectKey}/${repo.slug} from ${pull.source} to ${pull.target}`;
    const sha = found(repo.pulls.merge(pull, signatureOf(this.user), message), () =>
      problem(409, 'The pull request cannot be merged', 'illegalState'),
    );
    this.branchMoved(repo);
    return sha;
  }

  /** Declines an open pull request, as a person would. */
  decline(projectKey: string, slug: string, id: number): void {
    const { pulls } = this.repository(projectKey, slug);
    pulls.close(pulls.expect(id, true));
  }

  /** Deletes a branch, as a person would (declining the open pull requests from it). */
  deleteBranch(projectKey: string, slug: string, branch: string): void {
    this.removeBranch(this.repository(projectKey, slug), branch);
  }

  /** The user-centric form of personal repositories (`/users/{user}/repos/…`) is the project `~user`. */
  protected override apiSegments(below: string | undefined): string[] | undefined {
    const segments = super.apiSegments(below);
    if (segments?.[0] !== 'rest' || segments[3] !== 'users' || segments[5] !== 'repos') return segments;
    return [...segments.slice(0, 3), 'projects', `~${segments[4] ?? ''}`, ...segments.slice(5)];
  }

  /** Outside the context path there is no Bitbucket to answer. */
  protected override outside(): Reply {
    return { status: 404, raw: { type: 'application/octet-stream', data: 'Not Found' } };
  }

  protected readonly invalidJson = 'The request body is not valid JSON';
  /** The file edit is a multipart PUT. */
  protected override readonly takesForms = true;

  /** Every repository may be read by every credential here; a write takes REPO_WRITE. */
  protected override authorize(credential: Credential, route: HostRoute<RouteContext>): void {
    if (route.writes && credential.permission !== 'REPO_WRITE') {
      throw problem(401, 'You are not permitted to access this resource', 'authorisation');
    }
  }

  /** The repository of a route that names one; the others (the repository search, build statuses) name none. */
  protected findRepository({ projectKey, repositorySlug }: Record<string, string>): FakeRepository | undefined {
    if (repositorySlug === undefined) return undefined;
    const missing = () =>
      problem(404, `Repository ${projectKey}/${repositorySlug} does not exist.`, 'noSuchRepository');
    return found(this.repositories.get(`${projectKey}/${repositorySlug}`.toLowerCase()), missing);
  }

  protected baseHeaders(): Record<string, string> {
    return { 'x-arequestid': randomBytes(6).toString('hex') };
  }

  protected errorBody(status: number, message = statusText(status)): unknown {
    return { errors: [{ context: null, message, exceptionName: null }] };
  }

  /** Data Center's token buckets: the bucket is empty, and one token comes back after Retry-After seconds. */
  protected rateLimited({ seconds }: { seconds: number }): Reply {
    const headers = {
      'retry-after': String(seconds),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-interval-seconds': '1',
    };
    const message = 'You have been rate limited: too many requests were made. Wait before making new requests.';
    return { status: 429, headers, body: this.errorBody(429, message) };
  }

  /** The caller's credential: a token (Bearer) or a password (Basic); 401 for missing or wrong credentials. */
  protected authenticate(request: IncomingMessage, logged: FakeBitbucketRequest): Credential {
    const message = 'Authentication failed. Please check your credentials and try again.';
    const failed = problem(401, message, 'authentication');
    const bearer = authorization(request, 'bearer');
    if (bearer) {
      const credential = this.tokens.get(bearer);
      if (!credential) throw failed;
      logged.auth = 'token';
      return credential;
    }
    const basic = authorization(request, 'basic');
    if (basic) {
      const { user, password } = basicCredential(basic);
      const known = this.passwords.get(user);
      if (!known || known.password !== password) throw failed;
      logged.auth = 'basic';
      return known;
    }
    throw problem(401, 'Authentication required', 'authentication');
  }

  private moveBranch(repo: FakeRepository, branch: string, sha: string): void {
    repo.refs.set(`refs/heads/${branch}`, sha);
    this.branchMoved(repo);
  }

  /** An open pull request whose source commit its target has was merged outside Bitbucket. */
  protected override branchMoved(repo: FakeRepository): void {
    repo.pulls.closeReached('merged');
  }

  private removeBranch(repo: FakeRepository, branch: string): void {
    const ref = `refs/heads/${branch}`;
    if (!repo.refs.has(ref)) return;
    // A pull request cannot outlive its source branch: Bitbucket declines it.
    repo.pulls.closeWhere((pull) => pull.source === branch);
    repo.refs.delete(ref);
    this.branchMoved(repo);
  }

  private repositoryWebUrl(repo: FakeRepository): string {
    const owner = repo.projectKey.startsWith('~') ? `users/${repo.projectKey.slice(1)}` : `projects/${repo.projectKey}`;
    return `${this.webBaseUrl}/${owner}/repos/${repo.slug}`;
  }

  private pullRequestUrl(repo: FakeRepository, id: number): string {
    return `${this.repositoryWebUrl(repo)}/pull-requests/${id}`;
  }

  /** A repository with the fields Bitbucket's clients read. */
  private repositoryJson(repo: FakeRepository): Record<string, unknown> {
    const clone = `${this.webBaseUrl}/scm/${repo.projectKey.toLowerCase()}/${repo.slug}.git`;
    return {
      slug: repo.slug,
      id: repo.id,
      name: repo.slug,
      project: { key: repo.projectKey, type: repo.projectKey.startsWith('~') ? 'PERSONAL' : 'NORMAL' },
      links: { clone: [{ href: clone, name: 'http' }], self: [{ href: `${this.repositoryWebUrl(repo)}/browse` }] },
    };
  }

  /** The user known to the fake (by a token or a password) whose e-mail this is. */
  private userByEmail(email: string): FakeBitbucketUser | undefined {
    const users = [this.user, ...[...this.tokens.values(), ...this.passwords.values()].map(({ user }) => user)];
    return email === '' ? undefined : users.find((user) => user.emailAddress.toLowerCase() === email.toLowerCase());
  }

  private userJson({ name, emailAddress, displayName }: FakeBitbucketUser): Record<string, unknown> {
    return { name, emailAddress, displayName, slug: name, type: 'NORMAL' };
  }

  private branchJson(repo: FakeRepository, name: string, sha: string): Record<string, unknown> {
    return {
      id: `refs/heads/${name}`,
      displayId: name,
      type: 'BRANCH',
      latestCommit: sha,
      latestChangeset: sha,
      isDefault: name === repo.defaultBranch,
    };
  }

  private commitJson(repo: FakeRepository, sha: string): Record<string, unknown> {
    const commit = repo.commit(sha);
    if (!commit) throw problem(404, `Commit '${sha}' does not exist in repository '${repo.slug}'.`);
    // Bitbucket maps a commit's author or committer to the user with that e-mail, and then answers the user.
    const person = (signature: { name: string; email: string }) => {
      const user = this.userByEmail(signature.email);
      return user ? this.userJson(user) : { name: signature.name, emailAddress: signature.email };
    };
    return {
      id: sha,
      displayId: sha.slice(0, 11),
      author: person(commit.author),
      authorTimestamp: Date.parse(commit.author.date),
      committer: person(commit.committer),
      committerTimestamp: Date.parse(commit.committer.date),
      message: commit.message,
      parents: commit.parents.map((parent) => ({ id: parent, displayId: parent.slice(0, 11) })),
    };
  }

  /** A pull request with the fields Bitbucket's clients read: no participants, approvals or tasks. */
  private pullRequestJson(repo: FakeRepository, pull: StoredPullRequest): Record<string, unknown> {
    const ref = (branch: string, commit: string | undefined) => ({
      id: `refs/heads/${branch}`,
      displayId: branch,
      latestCommit: commit ?? null,
      repository: this.repositoryJson(repo),
    });
    const mergeCommit = pull.state === 'merged' ? pull.mergeCommitSha : undefined;
    return {
      id: pull.number,
      version: pull.version,
      title: pull.title,
      description: pull.description,
      state: STATES[pull.state],
      open: pull.state === 'open',
      createdDate: pull.createdAt,
      updatedDate: pull.updatedAt,
      fromRef: ref(pull.source, repo.pulls.headSha(pull)),
      toRef: ref(pull.target, repo.branchSha(pull.target)),
      author: { user: this.userJson(pull.author), role: 'AUTHOR' },
      reviewers: pull.reviewers.map((user) => ({ user: this.userJson(user), role: 'REVIEWER' })),
      links: { self: [{ href: this.pullRequestUrl(repo, pull.number) }] },
      ...(mergeCommit && { properties: { mergeCommit: { id: mergeCommit } } }),
    };
  }

  /** A page of `items` as every paged resource answers it (`start`, `limit` from the query, capped). */
  private page<T, J = T>(
    items: readonly T[],
    query: Record<string, string>,
    json: (item: T) => J = (item) => item as unknown as J,
    extra: Record<string, unknown> = {},
  ) {
    const start = Math.max(0, Number.parseInt(query.start ?? '0', 10) || 0);
    const asked = Number.parseInt(query.limit ?? '25', 10);
    const limit = Math.min(Math.max(Number.isFinite(asked) && asked > 0 ? asked : 25, 1), this.maxPageLimit);
    const values = items.slice(start, start + limit).map(json);
    const isLastPage = start + values.length >= items.length;
    const next = isLastPage ? {} : { nextPageStart: start + values.length };
    return { ...extra, size: values.length, limit, isLastPage, values, start, ...next };
  }

  /** A ref (`main`, `refs/heads/main`, a tag) or commit id → the commit id; 404 when unknown. */
  private resolve(repo: FakeRepository, ref: string | undefined): string {
    const wanted = ref ?? repo.defaultBranch;
    const sha = repo.resolveCommit(wanted);
    if (!sha) throw problem(404, `Commit '${wanted}' does not exist in repository '${repo.slug}'.`, 'noSuchCommit');
    return sha;
  }

  private findPullRequest(repo: FakeRepository, id: string | undefined): StoredPullRequest {
    const where = `${repo.projectKey}/${repo.slug}`;
    return found(repo.pulls.find(id), () =>
      problem(404, `Pull request ${id ?? ''} does not exist in ${where}.`, 'noSuchPullRequest'),
    );
  }

  /** The version a state change names (query `version`, or a JSON body's); 409 when it is not the current one. */
  private checkVersion(pull: StoredPullRequest, given: unknown): void {
    if (Number(given) === pull.version) return;
    const message = 'You are attempting to modify a pull request based on out-of-date information.';
    throw problem(409, message, 'outOfDate', { expectedVersion: pull.version });
  }

  private duplicateProblem(repo: FakeRepository, existing: StoredPullRequest): HostError {
    const message = 'Only one pull request may be open for a given source and target branch';
    return problem(409, message, 'duplicatePullRequest', { existingPullRequest: this.pullRequestJson(repo, existing) });
  }

  /** The branch name of a ref given as `refs/heads/x` or `x`. */
  private branchName(ref: unknown): string | undefined {
    if (typeof ref !== 'string' || ref === '') return undefined;
    return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
  }

  private changesBetween(repo: FakeRepository, since: string | undefined, until: string) {
    return withMoves(fileChanges(repo.flatAt(since), repo.flatAt(until))).map(({ path, old, now, movedFrom }) => {
      const was = movedFrom?.entry ?? old;
      const type = movedFrom ? 'MOVE' : !old ? 'ADD' : !now ? 'DELETE' : 'MODIFY';
      return {
        contentId: now?.sha ?? ZERO_ID,
        fromContentId: was?.sha ?? ZERO_ID,
        path: pathJson(path),
        ...(movedFrom && { srcPath: pathJson(movedFrom.path) }),
        executable: now?.mode === '100755',
        ...(was && { srcExecutable: was.mode === '100755' }),
        percentUnchanged: movedFrom ? 100 : -1,
        type,
        nodeType: (now ?? old)?.mode === '160000' ? 'SUBMODULE' : 'FILE',
        properties: { gitChangeType: movedFrom ? 'RENAME' : type },
      };
    });
  }

  private defineRoutes(): void {
    const add = (writes: boolean) => (route: string, handle: (context: RouteContext) => Reply | Promise<Reply>) =>
      this.router.add({ route, writes, handle });
    const route = add(false);
    /** A route that writes: it needs REPO_WRITE. */
    const write = add(true);
    route(`GET ${API}`, ({ repo }) => ok(this.repositoryJson(repo)));

    const levels: Readonly<Record<string, number>> = { REPO_READ: 1, REPO_WRITE: 2, REPO_ADMIN: 3 };
    route('GET /rest/api/1.0/repos', ({ query, credential }) => {
      const permission = query.permission ?? 'REPO_READ';
      const needed = levels[permission];
      if (needed === undefined) throw problem(400, `${permission} is not a repository permission`, 'validation');
      const granted = levels[credential.permission] ?? 0;
      const name = query.name?.toLowerCase();
      const repositories = [...this.repositories.values()]
        .filter(() => granted >= needed)
        .filter((repo) => name === undefined || repo.slug.toLowerCase().includes(name))
        .sort((a, b) => a.id - b.id);
      return ok(this.page(repositories, query, (repo) => this.repositoryJson(repo)));
    });
    // A build status of a commit (`state`, `key` and `url` required), replacing the one with its key.
    route('POST /rest/build-status/1.0/commits/{commitId}', ({ params, body }) => {
      const input = objectBody(body);
      const state = BUILD_STATES.find((known) => known === input.state);
      const [key, url] = [text(input.key), text(input.url)];
      const invalid = (field: string, message: string) => problem(400, message, 'validation', { context: field });
      if (!state) throw invalid('state', `state must be one of ${BUILD_STATES.join(', ')}`);
      if (key === '') throw invalid('key', 'key must not be blank');
      if (url === '') throw invalid('url', 'url must not be blank');
      const statuses = this.buildStatusRecords.of(params.commitId ?? '');
      const earlier = statuses.findIndex((status) => status.key === key);
      if (earlier >= 0) statuses.splice(earlier, 1);
      const [name, description, dateAdded] = [text(input.name), text(input.description), Date.now()];
      statuses.push({ state, key, url, name, description, dateAdded });
      return { status: 204 };
    });
    route(`GET ${API}/branches`, ({ repo, query }) => {
      const filter = (query.filterText ?? '').toLowerCase();
      const branches = repo.branches().filter(([name]) => name.toLowerCase().includes(filter));
      return ok(this.page(branches, query, ([name, sha]) => this.branchJson(repo, name, sha)));
    });
    write(`POST ${BRANCH_UTILS}/branches`, ({ repo, body }) => {
      const input = objectBody(body);
      const name = this.branchName(input.name);
      const startPoint = typeof input.startPoint === 'string' ? input.startPoint : undefined;
      if (!name || !startPoint) throw problem(400, 'A branch name and a start point are required', 'validation');
      const sha = this.resolve(repo, startPoint);
      if (repo.refs.has(`refs/heads/${name}`)) {
        throw problem(409, `Branch '${name}' already exists in repository '${repo.slug}'.`, 'duplicateRef');
      }
      this.moveBranch(repo, name, sha);
      return ok(this.branchJson(repo, name, sha));
    });
    write(`DELETE ${BRANCH_UTILS}/branches`, ({ repo, body }) => {
      const input = objectBody(body);
      const name = this.branchName(input.name);
      if (!name) throw problem(400, 'A branch name is required', 'validation');
      const current = repo.branchSha(name);
      // Deleting a branch that is not there succeeds: afterwards it does not exist, as asked.
      if (current === undefined) return { status: 204 };
      if (typeof input.endPoint === 'string' && input.endPoint !== current) {
        throw problem(400, `Branch '${name}' points to ${current}, not to the expected ${input.endPoint}.`);
      }
      if (input.dryRun !== true) this.removeBranch(repo, name);
      return { status: 204 };
    });
    const browse = ({ repo, query, params }: RouteContext): Reply => {
      const path = (params.path ?? '').replace(/^\/+|\/+$/g, '');
      const found = repo.lookup(repo.commit(this.resolve(repo, query.at))?.tree ?? '', path);
      if (!found) throw noSuchPath(path, query.at ?? repo.defaultBranch);
      if (found.type !== 'tree') {
        const text = (repo.blob(found.sha) ?? Buffer.alloc(0)).toString('utf8');
        const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
        const { values, ...rest } = this.page(lines, query, (line) => ({ text: line }));
        return { status: 200, body: { lines: values, ...rest } };
      }
      const entries = [...(repo.tree(found.sha) ?? [])].sort(
        (a, b) => Number(b.type === 'tree') - Number(a.type === 'tree') || a.name.localeCompare(b.name),
      );
      const children = entries.map((entry) => {
        const childPath = pathJson(entry.name);
        if (entry.type === 'tree') return { path: childPath, node: entry.sha, type: 'DIRECTORY' };
        if (entry.type === 'commit') return { path: childPath, contentId: entry.sha, type: 'SUBMODULE' };
        return { path: childPath, contentId: entry.sha, type: 'FILE', size: repo.blob(entry.sha)?.length ?? 0 };
      });
      return ok({
        path: pathJson(path),
        revision: query.at ?? repo.defaultBranch,
        children: this.page(children, query),
      });
    };
    route(`GET ${API}/browse`, browse);
    route(`GET ${API}/browse/{path}`, browse);
    write(`PUT ${API}/browse/{path}`, async ({ repo, params, form, credential }) => {
      const path = (params.path ?? '').replace(/^\/+|\/+$/g, '');
      if (!form) throw problem(415, 'The file edit takes multipart/form-data');
      const field = (name: string) => {
        const value = form.get(name);
        return typeof value === 'string' && value !== '' ? value : undefined;
      };
      const branch = this.branchName(field('branch'));
      const contentField = form.get('content');
      if (!branch || contentField === null) throw problem(400, 'A branch and the content are required', 'validation');
      const content =
        typeof contentField === 'string'
          ? Buffer.from(contentField, 'utf8')
          : Buffer.from(await contentField.arrayBuffer());
      const sourceBranch = this.branchName(field('sourceBranch'));
      const head = sourceBranch && sourceBranch !== branch ? this.resolve(repo, sourceBranch) : repo.branchSha(branch);
      if (!head) throw problem(404, `Branch '${branch}' does not exist in repository '${repo.slug}'.`, 'noSuchBranch');
      const current = repo.flatAt(head).get(path);
      const sourceCommitId = field('sourceCommitId');
      if (sourceCommitId !== undefined) {
        const source = this.resolve(repo, sourceCommitId);
        if (repo.flatAt(source).get(path)?.sha !== current?.sha) {
          throw problem(409, `The file '${path}' has been modified since ${sourceCommitId}.`);
        }
      }
      if (current && repo.blob(current.sha)?.equals(content)) {
        throw problem(409, `The content of '${path}' is unchanged: there is nothing to commit.`);
      }
      const message = field('message') ?? `${credential.user.displayName} edited ${path} online with Bitbucket`;
      const sha = repo.commitChanges(head, { [path]: content }, signatureOf(credential.user), message);
      this.moveBranch(repo, branch, sha);
      return ok(this.commitJson(repo, sha));
    });
    // The archive of a commit (`at`, default the default branch); `format=tgz`, its files at the root.
    route(`GET ${API}/archive`, ({ repo, query }) => {
      if (query.format !== 'tgz') throw problem(400, `The archive format '${query.format ?? ''}' is not served here.`);
      const files = regularFiles(repo.flatAt(this.resolve(repo, query.at)), (blob) => repo.blob(blob));
      return { status: 200, raw: { data: tarGz('', files), type: 'application/octet-stream' } };
    });
    route(`GET ${API}/raw/{path}`, ({ repo, params, query }) => {
      const at = this.resolve(repo, query.at);
      const path = (params.path ?? '').replace(/^\/+|\/+$/g, '');
      const entry = repo.flatAt(at).get(path);
      const content = entry ? repo.blob(entry.sha) : undefined;
      if (!content) throw noSuchPath(path, query.at ?? repo.defaultBranch);
      return { status: 200, raw: { data: content, type: 'text/plain;charset=UTF-8' } };
    });
    const files = ({ repo, params, query }: RouteContext): Reply => {
      const at = this.resolve(repo, query.at);
      const prefix = (params.path ?? '').replace(/^\/+|\/+$/g, '');
      const paths = [...repo.flatAt(at).keys()]
        .filter((path) => prefix === '' || path.startsWith(`${prefix}/`))
        .map((path) => (prefix === '' ? path : path.slice(prefix.length + 1)))
        .sort();
      return ok(this.page(paths, query));
    };
    route(`GET ${API}/files`, files);
    route(`GET ${API}/files/{path}`, files);

    // The changes up to a commit (`until`, or the one in the path), since `since` or its first parent, capped at
    // `page.max.changes`: beyond it there is no next page to ask for.
    const changes = ({ repo, query, params }: RouteContext): Reply => {
      const until = this.resolve(repo, params.commitId ?? query.until);
      const since = query.since ? this.resolve(repo, query.since) : repo.commit(until)?.parents[0];
      const all = this.changesBetween(repo, since, until);
      const extra = { fromHash: since ?? null, toHash: until, properties: { changeScope: 'ALL' } };
      const page = this.page(all.slice(0, this.maxChanges), query, undefined, extra);
      return ok(all.length > this.maxChanges && page.isLastPage ? { ...page, isLastPage: false } : page);
    };
    route(`GET ${API}/changes`, changes);
    route(`GET ${API}/commits/{commitId}/changes`, changes);
    route(`GET ${API}/commits`, ({ repo, query }) => {
      const until = this.resolve(repo, query.until);
      const excluded = query.since ? repo.reachable(this.resolve(repo, query.since)) : new Set<string>();
      const ordered = repo.log(until).filter((sha) => !excluded.has(sha));
      return ok(this.page(ordered, query, (sha) => this.commitJson(repo, sha)));
    });
    route(`GET ${API}/commits/{commitId}`, ({ repo, params }) =>
      ok(this.commitJson(repo, this.resolve(repo, params.commitId))),
    );
    route(`GET ${API}/pull-requests`, ({ repo, query }) => {
      const state = (query.state ?? 'OPEN').toUpperCase();
      const direction = (query.direction ?? 'INCOMING').toUpperCase();
      const at = this.branchName(query.at);
      let pulls = repo.pulls.all.filter((pull) => state === 'ALL' || STATES[pull.state] === state);
      if (at !== undefined) {
        pulls = pulls.filter((pull) => (direction === 'OUTGOING' ? pull.source : pull.target) === at);
      }
      pulls = [...pulls].sort((a, b) => b.number - a.number);
      if ((query.order ?? 'NEWEST').toUpperCase() === 'OLDEST') pulls.reverse();
      return ok(this.page(pulls, query, (pull) => this.pullRequestJson(repo, pull)));
    });
    write(`POST ${API}/pull-requests`, ({ repo, body, credential }) => {
      const input = objectBody(body);
      const title = typeof input.title === 'string' ? input.title.trim() : '';
      // Both refs are of this repository.
      const refOf = (value: unknown) => this.branchName((value as { id?: unknown } | undefined)?.id);
      const [fromBranch, toBranch] = [refOf(input.fromRef), refOf(input.toRef)];
      if (!fromBranch || !toBranch) throw problem(400, 'fromRef and toRef are required', 'validation');
      const [from, to] = [repo.branchSha(fromBranch), repo.branchSha(toBranch)];
      if (!from || !to) throw problem(404, `No branch ${from ? toBranch : fromBranch}`, 'noSuchBranch');
      const existing = repo.pulls.openFrom(fromBranch, toBranch);
      if (existing) throw this.duplicateProblem(repo, existing);
      if (repo.isAncestor(from, to)) {
        const upToDate = `Pull request cannot be created: '${fromBranch}' is already up-to-date with '${toBranch}'.`;
        throw problem(409, upToDate, 'emptyPullRequest');
      }
      const description = typeof input.description === 'string' ? input.description : '';
      const pull = repo.pulls.add({
        title,
        description,
        source: fromBranch,
        target: toBranch,
        version: 0,
        author: credential.user,
        reviewers: [],
      });
      return { status: 201, body: this.pullRequestJson(repo, pull) };
    });
    route(`GET ${API}/pull-requests/{pullRequestId}`, ({ repo, params }) =>
      ok(this.pullRequestJson(repo, this.findPullRequest(repo, params.pullRequestId))),
    );
    write(`PUT ${API}/pull-requests/{pullRequestId}`, ({ repo, params, body }) => {
      const pull = this.findPullRequest(repo, params.pullRequestId);
      const input = objectBody(body);
      this.checkVersion(pull, input.version);
      if (typeof input.title === 'string') pull.title = input.title.trim();
      if (typeof input.description === 'string') pull.description = input.description;
      // Like Bitbucket, the reviewers are the ones the update names: leaving them out removes them.
      const reviewers = Array.isArray(input.reviewers) ? (input.reviewers as unknown[]) : [];
      pull.reviewers = reviewers.flatMap((reviewer) => {
        const name = (reviewer as { user?: { name?: unknown } } | null)?.user?.name;
        const known = typeof name === 'string' ? this.passwords.get(name)?.user : undefined;
        return known ? [known] : [];
      });
      pull.version++;
      pull.updatedAt = Date.now();
      return ok(this.pullRequestJson(repo, pull));
    });
    write(`POST ${API}/pull-requests/{pullRequestId}/reopen`, ({ repo, params, query, body }) => {
      const pull = this.findPullRequest(repo, params.pullRequestId);
      this.checkVersion(pull, query.version ?? (body as { version?: unknown } | undefined)?.version);
      if (!repo.branchSha(pull.source) || !repo.branchSha(pull.target)) {
        const gone = 'The pull request cannot be reopened: its source or target branch no longer exists';
        throw problem(409, gone, 'illegalState');
      }
      const existing = repo.pulls.openFrom(pull.source, pull.target, pull);
      if (existing) throw this.duplicateProblem(repo, existing);
      repo.pulls.reopen(pull);
      this.branchMoved(repo);
      return ok(this.pullRequestJson(repo, pull));
    });
  }
}

/** Bitbucket's path object: components, parent, name, extension and the whole path as `toString`. */
function pathJson(path: string): Record<string, unknown> {
  const components = path === '' ? [] : path.split('/');
  const name = components.at(-1) ?? '';
  const dot = name.lastIndexOf('.');
  return {
    components,
    parent: components.slice(0, -1).join('/'),
    name,
    ...(dot > 0 ? { extension: name.slice(dot + 1) } : {}),
    toString: path,
  };
}

const objectBody = (body: unknown) => jsonObject(body, () => problem(400, 'A JSON object is required', 'validation'));
