// A fake GitHub REST API under a GitHub Enterprise base URL (`http://127.0.0.1:<port>/api/v3`), for the real Octokit
// (retry, throttling and GitHub App plugins). GitHub's rules that matter for a promotion: one open pull request per
// head and base (422), `Link`-paged listing with `head=owner:branch`, an open pull request closed when its branch is
// deleted or moved to a commit the base has; the contents API writes one file as one commit (409 on a stale `sha`);
// tree entries may carry inline `content`. Tokens and a GitHub App flow (an RS256 JWT exchanged for an installation
// token) are checked; a read-only token shows `push: false`, an installation token's repository has no `permissions`.
// Besides the kernel's faults, GitHub's primary and secondary rate limits can be injected.
import { randomBytes, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  FakeGitHost,
  HostError,
  Router,
  hostRepository,
  authorization,
  resetAt,
  found,
  jsonObject,
  matchesQuery,
  ok,
  RecordsOf,
  pageLinks,
  parseJson,
  offsetPage,
  statusText,
  text,
  type FakeGitHostOptions,
  type FaultMatch,
  type HostRepository,
  type HostRoute,
  type LoggedRequest,
  type RouteContext as HostRouteContext,
  type PullRecord,
  type Reply,
} from './git-host-kernel.js';
import {
  gitNow,
  gitTime,
  typeOfMode,
  type FlatEntry,
  type GitMode,
  type GitObjectType,
  type GitSignature,
  type GitTreeEntry,
} from './git-repository.js';

import { regularFiles, tarGz } from './tar-archive-writer.js';

export { gitBlobSha, gitCommitSha, gitTreeSha } from './git-repository.js';

/** `path` below the API base (`/repos/o/r/git/ref/heads/main`), `route` in Octokit's notation (`GET /repos/{owner}/…`). */
export interface FakeGitHubRequest extends LoggedRequest {
  auth?: 'token' | 'installation' | 'app';
}

export interface FakeGitHubTokenOptions {
  /** The token's user. Default `fake-user`. */
  login?: string;
  /** A token that may read but not write (a read-only fine-grained token, a collaborator with read access). */
  readOnly?: boolean;
}

/** 403 with `retry-after` and "You have exceeded a secondary rate limit" (the primary limit is the kernel's fault). */
type SecondaryRateLimit = { type: 'secondary-rate-limit'; retryAfterSeconds?: number };

export interface FakeGitHubApp {
  appId: number;
  /** The app's public key (PEM or KeyObject); JWTs must be RS256-signed by its private key. */
  publicKey: string | KeyObject;
  /** Installations of the app; a token for any other id is 404. */
  installationIds: readonly number[];
}

/** `token`: `ghp_…`; `webHost`: `github.com`, its pages `/owner/repo/pull/3` with `webPages`; `identity`: `fake-user`. */
export interface FakeGitHubOptions extends FakeGitHostOptions<FakeGitHubRequest> {
  /** The path of the API below the server root. Default `/api/v3` (GitHub Enterprise's layout). */
  basePath?: string;
  /** A recursive tree listing with more entries than this is cut and flagged `truncated`. Default: never. */
  maxTreeEntries?: number;
}

/** A pull request as a test reads it (`pulls`). */
export type FakePullRequest = ReturnType<FakeGitHub['pulls']>[number];

type StoredPull = PullRecord & { user: string };

/** GitHub's names of the states: a merged pull request is closed, and `merged`. */
const STATES = { open: 'open', closed: 'closed', merged: 'closed' } as const;

/** The states of a deployment (https://docs.github.com/rest/deployments). */
const DEPLOYMENT_STATES = ['error', 'failure', 'inactive', 'in_progress', 'queued', 'pending', 'success'] as const;

export interface FakeGitHubDeploymentStatus {
  id: number;
  state: (typeof DEPLOYMENT_STATES)[number];
  description: string;
  environmentUrl: string;
  logUrl: string;
  creator: string;
  createdAt: string;
}

export interface FakeGitHubDeployment {
  id: number;
  sha: string;
  ref: string;
  environment: string;
  description: string;
  payload: unknown;
  creator: string;
  createdAt: string;
  /** Newest first. */
  statuses: FakeGitHubDeploymentStatus[];
}

const DOCS = 'https://docs.github.com/rest';
const GITHUB_IDENTITY = { name: 'fake-user', email: 'fake-user@users.noreply.github.com' };
const RATE_LIMIT_DOCS = `${DOCS}/overview/rate-limits-for-the-rest-api`;

/** GitHub's error answer: `{message, …extra, documentation_url}`. */
function problem(status: number, message: string, extra: Record<string, unknown> = {}): HostError {
  return new HostError(status, { message, ...extra, documentation_url: DOCS });
}

const notFound = () => problem(404, 'Not Found');
const validationFailed = (errors: Record<string, unknown>[]) => problem(422, 'Validation Failed', { errors });

type FakeRepository = HostRepository<StoredPull, { owner: string; name: string; id: number }>;

type Caller = { login: string; kind: 'token' | 'installation' | 'app'; readOnly?: boolean; expiresAt?: number };

/**
 * `credential`: who calls (`login`: the token's user or the app's bot) and how: a token may be read-only, an
 * installation token says nothing of its permissions. `repo`: the repository of a `/repos/{owner}/{repo}/…` route.
 */
type RouteContext = HostRouteContext<FakeGitHubRequest, Caller, FakeRepository>;

const object = (body: unknown) => jsonObject(body, () => problem(400, 'Problems parsing JSON'));

/** A commit's author or committer as a request gives it (`{ name, email, date? }`), or `fallback` when it gives none. */
function signatureOf(value: unknown, fallback: GitSignature, now: string): GitSignature {
  if (value === undefined) return fallback;
  const given = object(value);
  const date = typeof given.date === 'string' ? new Date(given.date) : new Date(now);
  return { name: text(given.name), email: text(given.email), date: date.toISOString().replace(/\.\d+Z$/, 'Z') };
}

/** The branch of a pull request's `head` (`branch` or `owner:branch`); undefined for another owner's. */
function headBranch(repo: FakeRepository, head: string): string | undefined {
  const [owner, branch] = head.includes(':') ? (head.split(/:(.*)/s, 2) as [string, string]) : [repo.owner, head];
  return owner.toLowerCase() === repo.owner.toLowerCase() ? branch : undefined;
}

/** GitHub wraps base64 text at 60 characters. */
const wrappedBase64 = (content: Buffer) => (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';

export class FakeGitHub extends FakeGitHost<
  FakeGitHubRequest,
  SecondaryRateLimit,
  FakeRepository,
  [owner: string, name: string],
  Caller
> {
  /** The download addresses tarball redirects gave, by their token: each names `owner/repo/sha`. */
  private readonly downloads = new Map<string, string>();
  protected readonly apiBase: string;
  private readonly maxTreeEntries: number;
  private readonly apps = new Map<string, FakeGitHubApp>();
  /** Final parameters that take the rest of the path: a ref, or a path (empty for the repository root). */
  protected readonly router = new Router<HostRoute<RouteContext>>({ rest: { ref: false, path: true } });
  private nextRepositoryId = 1000;
  protected readonly jsonType = 'application/json; charset=utf-8';

  constructor(options: FakeGitHubOptions = {}) {
    const [token, identity] = [`ghp_${randomBytes(18).toString('hex')}`, GITHUB_IDENTITY];
    super({ name: 'GitHub', nameCount: 2, token, identity, webHost: 'github.com' }, options);
    this.tokens.set(this.token, { login: 'fake-user', kind: 'token' });
    this.apiBase = (options.basePath ?? '/api/v3').replace(/\/$/, '');
    this.maxTreeEntries = options.maxTreeEntries ?? Infinity;
    this.defineRoutes();
  }

  private readonly deploymentRecords = new RecordsOf<FakeRepository, FakeGitHubDeployment>();

  /** A repository's deployments, oldest first, each with its statuses newest first. */
  deployments(owner: string, name: string): FakeGitHubDeployment[] {
    return this.deploymentRecords.of(this.repository(owner, name));
  }

  /** Accepts another token, for the given user (a login, or the token's options). */
  addToken(token: string, options: string | FakeGitHubTokenOptions = {}): void {
    const { login = 'fake-user', readOnly } = typeof options === 'string' ? { login: options } : options;
    this.tokens.set(token, { login, kind: 'token', ...(readOnly ? { readOnly } : {}) });
  }

  registerApp(app: FakeGitHubApp): void {
    this.apps.set(String(app.appId), app);
  }

  secondaryRateLimitNext(match: FaultMatch & { retryAfterSeconds?: number } = {}): void {
    this.injectFault({ type: 'secondary-rate-limit', retryAfterSeconds: match.retryAfterSeconds }, match);
  }

  /** 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` this many seconds from now. */
  primaryRateLimitNext(match: FaultMatch & { status?: 403 | 429; resetInSeconds?: number } = {}): void {
    this.injectFault({ type: 'rate-limit', status: match.status, seconds: match.resetInSeconds ?? 60 }, match);
  }

  // ---------------------------------------------------------------- repositories (test-facing)

  protected newRepository([owner, name]: [string, string], defaultBranch: string): FakeRepository {
    return hostRepository({ owner, name, id: this.nextRepositoryId++ }, defaultBranch);
  }

  /** The blob id of every file at a ref, by path. */
  blobShas(owner: string, name: string, ref: string): Record<string, string> {
    return this.filesAt(this.repository(owner, name), ref, true);
  }

  /** One file at a ref, or undefined. */
  readFile(owner: string, name: string, ref: string, path: string): string | undefined {
    return this.filesAt(this.repository(owner, name), ref)[path];
  }

  /** Every ref (`refs/heads/main`) and its commit. */
  refs(owner: string, name: string): Record<string, string> {
    return Object.fromEntries(this.repository(owner, name).refsUnder('refs/'));
  }

  /** How many git objects of each type the repository holds. */
  objectCounts(owner: string, name: string): Record<GitObjectType, number> {
    const counts: Record<GitObjectType, number> = { blob: 0, tree: 0, commit: 0 };
    for (const object of this.repository(owner, name).objects.values()) counts[object.type]++;
    return counts;
  }

  /** Pull requests, oldest first. */
  pulls(owner: string, name: string) {
    const repo = this.repository(owner, name);
    return repo.pulls.all.map((pull) => ({
      number: pull.number,
      title: pull.title,
      body: pull.description,
      state: STATES[pull.state],
      merged: pull.state === 'merged',
      head: pull.source,
      // The branch's commit while open, the last one once closed.
      headSha: repo.pulls.headSha(pull) ?? '',
      base: pull.target,
      htmlUrl: this.pullHtmlUrl(repo, pull.number),
      ...(pull.mergeCommitSha ? { mergeCommitSha: pull.mergeCommitSha } : {}),
    }));
  }

  /**
   * Merges an open pull request: fast-forwards the base when it can, else commits the head's changes (since the
   * merge base; the head wins any conflict) onto the base as a merge commit. With `mergeCommit`, always a merge
   * commit, as GitHub's "Create a merge commit" (its default) makes even when the base has not moved. Returns the
   * base's new commit.
   */
  merge(owner: string, name: string, number: number, options: { mergeCommit?: boolean } = {}): string {
    const repo = this.repository(owner, name);
    const pull = repo.pulls.expect(number, true);
    const login = this.identity.name;
    const committer = { name: login, email: `${login}@users.noreply.github.com` };
    const message = `Merge pull request #${pull.number} from ${repo.owner}/${pull.source}`;
    return found(repo.pulls.merge(pull, committer, message, options.mergeCommit !== true), () =>
      problem(405, 'Pull Request is not mergeable'),
    );
  }

  /** Closes an open pull request without merging it, as a person who declines it does. */
  closePull(owner: string, name: string, number: number): void {
    const { pulls } = this.repository(owner, name);
    pulls.close(pulls.expect(number));
  }

  /** A pull request's page (`/owner/repo/pull/3`). */
  protected override webPull(path: string) {
    const [, owner, name, number] = /^\/([^/]+)\/([^/]+)\/pull\/(\d+)\/?$/.exec(path) ?? [];
    if (owner === undefined || name === undefined) return undefined;
    const repo = this.repositories.get(`${owner}/${name}`.toLowerCase());
    const pull = repo?.pulls.find(Number(number));
    const [hostName, reference, word] = ['GitHub', `#${pull?.number}`, 'pull request'];
    return repo && pull ? { hostName, repository: `${repo.owner}/${repo.name}`, reference, word, pull } : null;
  }

  protected readonly invalidJson = 'Problems parsing JSON';

  /** The repository of a `/repos/{owner}/{repo}/…` route; the others name none. */
  protected findRepository({ owner, repo }: Record<string, string>): FakeRepository | undefined {
    return owner === undefined ? undefined : found(this.repositories.get(`${owner}/${repo}`.toLowerCase()), notFound);
  }

  protected baseHeaders(): Record<string, string> {
    return { 'x-github-request-id': randomBytes(8).toString('hex').toUpperCase() };
  }

  protected errorBody(status: number, message = statusText(status)): unknown {
    return { message, documentation_url: DOCS };
  }

  protected rateLimited({ seconds, status = 403 }: { seconds: number; status?: 403 | 429 }): Reply {
    const headers = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': resetAt(seconds) };
    const message = 'API rate limit exceeded for installation ID 1.';
    return { status, headers, body: { message, documentation_url: `${RATE_LIMIT_DOCS}#about-the-primary-rate-limit` } };
  }

  protected override faultReply(fault: SecondaryRateLimit): Reply {
    const headers = { 'retry-after': String(fault.retryAfterSeconds ?? 60) };
    const message =
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.';
    const documentation_url = `${RATE_LIMIT_DOCS}#about-secondary-rate-limits`;
    return { status: 403, headers, body: { message, documentation_url } };
  }

  /** The archive a tarball redirect named: the commit's files, gzipped, under `{owner}-{repo}-{short sha}/`. */
  private download(params: Record<string, string | undefined>, query: Record<string, string>): Reply {
    const { owner = '', repo: name = '', sha = '' } = params;
    if (this.downloads.get(query.token ?? '') !== `${owner}/${name}/${sha}`) throw notFound();
    const repo = found(this.repositories.get(`${owner}/${name}`.toLowerCase()), notFound);
    const files = regularFiles(repo.flatAt(sha), (blob) => repo.blob(blob));
    const top = `${repo.owner}-${repo.name}-${sha.slice(0, 7)}`;
    return { status: 200, raw: { type: 'application/x-gzip', data: tarGz(top, files, sha) } };
  }

  /** A token, or on the app's routes the app's JWT; 401 for missing or wrong credentials. */
  protected authenticate(request: IncomingMessage, logged: FakeGitHubRequest, route?: HostRoute<unknown>): Caller {
    const credential = authorization(request, 'token', 'bearer');
    if (!credential) throw problem(401, 'Bad credentials');
    if (route?.route.includes(' /app/')) {
      const app = this.verifyJwt(credential);
      logged.auth = 'app';
      return { login: `app-${app.appId}[bot]`, kind: 'app' };
    }
    const known = this.tokens.get(credential);
    const expired = known?.expiresAt !== undefined && known.expiresAt < Date.now();
    if (!known || expired) throw problem(401, 'Bad credentials');
    logged.auth = known.kind;
    return known;
  }

  /** The app whose RS256 JWT this is (the signature checked; the claims' times are not). */
  private verifyJwt(jwt: string): FakeGitHubApp {
    const invalid = problem(401, 'A JSON web token could not be decoded');
    const [headerPart = '', payloadPart = '', signaturePart = ''] = jwt.split('.');
    const part = (encoded: string) => parseJson(Buffer.from(encoded, 'base64url').toString('utf8'), () => invalid);
    if ((part(headerPart) as { alg?: unknown } | undefined)?.alg !== 'RS256') throw invalid;
    const app = this.apps.get(String((part(payloadPart) as { iss?: unknown } | undefined)?.iss));
    if (!app) throw problem(401, "'Issuer' claim ('iss') must be an Integer");
    const signed = Buffer.from(`${headerPart}.${payloadPart}`);
    if (!verify('RSA-SHA256', signed, app.publicKey, Buffer.from(signaturePart, 'base64url'))) throw invalid;
    return app;
  }

  private apiUrl(path: string): string {
    return this.started ? `${this.url}${path}` : path;
  }

  private pullHtmlUrl(repo: FakeRepository, number: number): string {
    return `${this.webBase}/${repo.owner}/${repo.name}/pull/${number}`;
  }

  /** Who commits for a caller that names no one: a token's user is the fake's identity, an installation its bot. */
  private identityOf(login: string): { name: string; email: string } {
    return login.endsWith('[bot]') ? { name: login, email: `${login}@users.noreply.github.com` } : this.identity;
  }

  /** The API URL of a repository, or of something below it (`tail`). */
  private repoUrl(repo: FakeRepository, tail = ''): string {
    return this.apiUrl(`/repos/${repo.owner}/${repo.name}${tail}`);
  }

  private repositoryJson(repo: FakeRepository): Record<string, unknown> {
    return {
      id: repo.id,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      owner: { login: repo.owner, type: 'Organization' },
      private: true,
      html_url: `${this.webBase}/${repo.owner}/${repo.name}`,
      url: this.repoUrl(repo),
      default_branch: repo.defaultBranch,
    };
  }

  /** A file as the contents API shows it at a ref. */
  private contentJson(repo: FakeRepository, path: string, entry: GitTreeEntry, ref: string) {
    return {
      type: 'file',
      name: entry.name,
      path,
      sha: entry.sha,
      size: repo.blob(entry.sha)?.length ?? 0,
      url: this.repoUrl(repo, `/contents/${path}?ref=${ref}`),
      html_url: `${this.webBase}/${repo.owner}/${repo.name}/blob/${ref}/${path}`,
      git_url: this.repoUrl(repo, `/git/${entry.type}s/${entry.sha}`),
    };
  }

  private refJson(repo: FakeRepository, ref: string, sha: string): Record<string, unknown> {
    const commit = { sha, type: 'commit', url: this.repoUrl(repo, `/git/commits/${sha}`) };
    return { ref, url: this.repoUrl(repo, `/git/${ref}`), object: commit };
  }

  private treeJson(repo: FakeRepository, sha: string, recursive: boolean): Record<string, unknown> {
    const tree: Record<string, unknown>[] = [];
    repo.walk(sha, '', (path, { mode, type, sha: entrySha }) => {
      const json: Record<string, unknown> = { path, mode, type, sha: entrySha };
      if (type === 'blob') json.size = repo.blob(entrySha)?.length ?? 0;
      if (type !== 'commit') json.url = this.repoUrl(repo, `/git/${type}s/${entrySha}`);
      tree.push(json);
      return recursive;
    });
    const truncated = tree.length > this.maxTreeEntries;
    const url = this.repoUrl(repo, `/git/trees/${sha}`);
    return { sha, url, tree: truncated ? tree.slice(0, this.maxTreeEntries) : tree, truncated };
  }

  private commitJson(repo: FakeRepository, sha: string): Record<string, unknown> {
    const commit = repo.commit(sha);
    if (!commit) throw notFound();
    return {
      sha,
      url: this.repoUrl(repo, `/git/commits/${sha}`),
      html_url: `${this.webBase}/${repo.owner}/${repo.name}/commit/${sha}`,
      author: commit.author,
      committer: commit.committer,
      tree: { sha: commit.tree, url: this.repoUrl(repo, `/git/trees/${commit.tree}`) },
      message: commit.message,
      parents: commit.parents.map((parent) => ({ sha: parent, url: this.repoUrl(repo, `/git/commits/${parent}`) })),
    };
  }

  /** A pull request with the fields Octokit's callers read: no labels, reviews or auto-merge. */
  private pullJson(repo: FakeRepository, pull: StoredPull): Record<string, unknown> {
    const time = (ms: number | undefined) => (ms === undefined ? null : gitTime(ms));
    const branch = (ref: string, sha: string | undefined) => ({ label: `${repo.owner}:${ref}`, ref, sha: sha ?? null });
    return {
      number: pull.number,
      url: this.repoUrl(repo, `/pulls/${pull.number}`),
      html_url: this.pullHtmlUrl(repo, pull.number),
      state: STATES[pull.state],
      title: pull.title,
      body: pull.description,
      user: { login: pull.user },
      created_at: time(pull.createdAt),
      updated_at: time(pull.updatedAt),
      closed_at: time(pull.closedAt),
      merged_at: time(pull.state === 'merged' ? pull.closedAt : undefined),
      merged: pull.state === 'merged',
      merge_commit_sha: pull.mergeCommitSha ?? null,
      head: branch(pull.source, repo.pulls.headSha(pull)),
      base: branch(pull.target, repo.branchSha(pull.target)),
    };
  }

  private defineRoutes(): void {
    const route = (route: string, handle: (context: RouteContext) => Reply, open = false) =>
      this.router.add({ route, handle, open });
    route('POST /app/installations/{installation_id}/access_tokens', ({ params, credential: { login } }) => {
      const app = this.apps.get(login.replace(/^app-(.*)\[bot\]$/, '$1'));
      const installationId = Number(params.installation_id);
      if (!app?.installationIds.includes(installationId)) throw notFound();
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      const expiresAt = Date.now() + 3600_000;
      this.tokens.set(token, { login: `app-${app.appId}[bot]`, kind: 'installation', expiresAt });
      const expires_at = new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z');
      const permissions = { contents: 'write', pull_requests: 'write', metadata: 'read' };
      return { status: 201, body: { token, expires_at, permissions, repository_selection: 'all' } };
    });

    // GitHub adds the caller's permissions for a user's token; an installation token's answer has none.
    route('GET /repos/{owner}/{repo}', ({ repo, credential: caller }) =>
      ok({
        ...this.repositoryJson(repo),
        ...(caller.kind === 'token' && {
          permissions: { admin: false, maintain: false, push: !caller.readOnly, triage: !caller.readOnly, pull: true },
        }),
      }),
    );
    route('GET /repos/{owner}/{repo}/git/ref/{ref}', ({ repo, params }) => {
      const ref = `refs/${params.ref}`;
      const sha = repo.refs.get(ref);
      if (!sha) throw notFound();
      return ok(this.refJson(repo, ref, sha));
    });
    route('POST /repos/{owner}/{repo}/git/refs', ({ repo, body }) => {
      const input = object(body);
      const [ref, sha] = [text(input.ref), text(input.sha)];
      if (!repo.commit(sha)) throw problem(422, 'Object does not exist');
      if (repo.refs.has(ref)) throw problem(422, 'Reference already exists');
      repo.refs.set(ref, sha);
      return { status: 201, body: this.refJson(repo, ref, sha) };
    });
    route('PATCH /repos/{owner}/{repo}/git/refs/{ref}', ({ repo, params, body }) => {
      const input = object(body);
      const [sha, ref] = [text(input.sha), `refs/${params.ref}`];
      const current = repo.refs.get(ref);
      if (!current) throw problem(422, 'Reference does not exist');
      if (!repo.commit(sha)) throw problem(422, 'Object does not exist');
      if (input.force !== true && !repo.isAncestor(current, sha)) throw problem(422, 'Update is not a fast forward');
      repo.refs.set(ref, sha);
      // Left with nothing to merge (the base has the head), its open pull requests are closed, as after a push.
      if (ref.startsWith('refs/heads/')) repo.pulls.closeReached('closed', ref.slice('refs/heads/'.length));
      return ok(this.refJson(repo, ref, sha));
    });
    route('DELETE /repos/{owner}/{repo}/git/refs/{ref}', ({ repo, params }) => {
      const ref = `refs/${params.ref}`;
      // A deleted branch closes its open pull requests (closed first, so they keep showing its last head).
      repo.pulls.closeWhere((pull) => `refs/heads/${pull.source}` === ref);
      repo.refs.delete(ref);
      return { status: 204 };
    });
    route('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', ({ repo, params, query }) => {
      let sha = params.tree_sha as string;
      if (!repo.tree(sha)) {
        const commit = repo.resolveCommit(sha);
        const tree = commit ? repo.commit(commit)?.tree : undefined;
        if (!tree) throw notFound();
        sha = tree;
      }
      return ok(this.treeJson(repo, sha, query.recursive !== undefined));
    });
    route('POST /repos/{owner}/{repo}/git/trees', ({ repo, body }) => {
      const input = object(body);
      const files = typeof input.base_tree === 'string' ? repo.flatten(input.base_tree) : new Map<string, FlatEntry>();
      for (const raw of input.tree as unknown[]) {
        const entry = object(raw);
        const path = text(entry.path);
        const mode = String(entry.mode) as GitMode;
        const type = entry.type === undefined ? typeOfMode(mode) : (entry.type as GitObjectType);
        // Whatever was at the path (a file or a directory) is replaced.
        for (const existing of [...files.keys()]) {
          if (existing === path || existing.startsWith(`${path}/`)) files.delete(existing);
        }
        if (entry.sha === null) continue;
        if (typeof entry.content === 'string') {
          files.set(path, { mode, sha: repo.putBlob(Buffer.from(entry.content, 'utf8')) });
          continue;
        }
        if (typeof entry.sha !== 'string') throw problem(422, 'Must supply either tree.sha or tree.content');
        if (type === 'blob' && !repo.blob(entry.sha)) throw problem(422, `tree.sha ${entry.sha} is not a valid blob`);
        files.set(path, { mode, sha: entry.sha });
      }
      const sha = repo.buildTree(files);
      return { status: 201, body: this.treeJson(repo, sha, false) };
    });
    // The tarball: a redirect to a download address (on codeload.github.com for github.com), valid for a while.
    route('GET /repos/{owner}/{repo}/tarball/{ref}', ({ repo, params }) => {
      const sha = found(repo.resolveCommit(params.ref ?? ''), notFound);
      const token = randomBytes(12).toString('hex');
      this.downloads.set(token, `${repo.owner}/${repo.name}/${sha}`);
      const location = this.apiUrl(`/_codeload/${repo.owner}/${repo.name}/${sha}?token=${token}`);
      return { status: 302, headers: { location }, body: '' };
    });
    // A download address is its own credential, as codeload's are: no Authorization needed, none looked at.
    route('GET /_codeload/{owner}/{repo}/{sha}', ({ params, query }) => this.download(params, query), true);
    route('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', ({ repo, params }) => {
      const sha = params.file_sha as string;
      const content = found(repo.blob(sha), notFound);
      const url = this.repoUrl(repo, `/git/blobs/${sha}`);
      return ok({ sha, size: content.length, url, content: wrappedBase64(content), encoding: 'base64' });
    });
    route('POST /repos/{owner}/{repo}/git/blobs', ({ repo, body }) => {
      const input = object(body);
      const sha = repo.putBlob(Buffer.from(text(input.content), input.encoding === 'base64' ? 'base64' : 'utf8'));
      return { status: 201, body: { sha, url: this.repoUrl(repo, `/git/blobs/${sha}`) } };
    });
    route('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', ({ repo, params }) =>
      ok(this.commitJson(repo, params.commit_sha as string)),
    );
    route('POST /repos/{owner}/{repo}/git/commits', ({ repo, body, credential: { login } }) => {
      const input = object(body);
      const [message, tree, parents] = [text(input.message), text(input.tree), (input.parents ?? []) as string[]];
      const now = gitNow();
      const author = signatureOf(input.author, { ...this.identityOf(login), date: now }, now);
      const committer = signatureOf(input.committer, author, now);
      const sha = repo.putCommit({ tree, parents, author, committer, message });
      return { status: 201, body: this.commitJson(repo, sha) };
    });

    // A file (not a directory's listing).
    route('GET /repos/{owner}/{repo}/contents/{path}', ({ repo, params, query }) => {
      const ref = query.ref ?? repo.defaultBranch;
      const commitSha = repo.resolveCommit(ref);
      const commit = commitSha ? repo.commit(commitSha) : undefined;
      if (!commit) throw problem(404, `No commit found for the ref ${ref}`);
      const path = (params.path ?? '').replace(/\/$/, '');
      const found = repo.lookup(commit.tree, path);
      if (!found || found.type === 'tree') throw notFound();
      const content = wrappedBase64(repo.blob(found.sha) ?? Buffer.alloc(0));
      return ok({ ...this.contentJson(repo, path, found, ref), encoding: 'base64', content });
    });

    // The contents API's write: one file as one commit on the branch's head (blob, tree, commit and ref in one
    // request). Updating a file needs its current blob id in `sha` (409 when it is another: the file changed); a new
    // file takes none. The branch must exist (404). An existing file keeps its mode, a new one is 100644.
    route('PUT /repos/{owner}/{repo}/contents/{path}', ({ repo, params, body, credential: { login } }) => {
      const input = object(body);
      const [message, encoded] = [text(input.message), text(input.content)];
      const branch = typeof input.branch === 'string' && input.branch !== '' ? input.branch : repo.defaultBranch;
      const head = repo.branchSha(branch);
      if (!head) throw problem(404, `Branch ${branch} not found`);
      const path = params.path ?? '';
      const files = repo.flatten(repo.commit(head)?.tree ?? '');
      const existing = files.get(path);
      if (existing) {
        if (typeof input.sha !== 'string' || input.sha === '') {
          throw problem(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
        }
        if (input.sha !== existing.sha) throw problem(409, `${path} does not match ${input.sha}`);
      }
      const blob = repo.putBlob(Buffer.from(encoded, 'base64'));
      files.set(path, { mode: existing?.mode ?? '100644', sha: blob });
      const tree = repo.buildTree(files);
      const now = gitNow();
      const committer = signatureOf(input.committer, { ...this.identityOf(login), date: now }, now);
      const author = signatureOf(input.author, committer, now);
      const sha = repo.putCommit({ tree, parents: [head], author, committer, message });
      repo.refs.set(`refs/heads/${branch}`, sha);
      const entry = { name: path.slice(path.lastIndexOf('/') + 1), mode: '100644', type: 'blob', sha: blob } as const;
      const json = this.contentJson(repo, path, entry, branch);
      const _links = { self: json.url, git: json.git_url, html: json.html_url };
      return {
        status: existing ? 200 : 201,
        body: { content: { ...json, type: 'file', download_url: null, _links }, commit: this.commitJson(repo, sha) },
      };
    });
    route('POST /repos/{owner}/{repo}/pulls', ({ repo, body, credential: { login } }) => {
      const input = object(body);
      // Another owner's head names no branch here.
      const [title, head, base] = [text(input.title), headBranch(repo, text(input.head)) ?? '', text(input.base)];
      const invalid = (field: string) => validationFailed([{ resource: 'PullRequest', field, code: 'invalid' }]);
      const refused = (message: string) => validationFailed([{ resource: 'PullRequest', code: 'custom', message }]);
      const headSha = repo.branchSha(head);
      if (!headSha) throw invalid('head');
      const baseSha = repo.branchSha(base);
      if (!baseSha) throw invalid('base');
      if (repo.pulls.openFrom(head, base)) throw refused(`A pull request already exists for ${repo.owner}:${head}.`);
      if (repo.isAncestor(headSha, baseSha)) throw refused(`No commits between ${base} and ${head}`);
      const description = text(input.body);
      const pull = repo.pulls.add({ title, description, source: head, target: base, user: login });
      return { status: 201, body: this.pullJson(repo, pull) };
    });
    route('GET /repos/{owner}/{repo}/pulls', ({ repo, query, request }) => {
      const state = query.state ?? 'open';
      let pulls = repo.pulls.all.filter((pull) => state === 'all' || (pull.state === 'open') === (state === 'open'));
      if (query.head) pulls = pulls.filter((pull) => pull.source === headBranch(repo, query.head as string));
      if (query.base) pulls = pulls.filter((pull) => pull.target === query.base);
      const sort = query.sort ?? 'created';
      const direction = query.direction ?? (sort === 'created' ? 'desc' : 'asc');
      const key = (pull: StoredPull) => gitTime(sort === 'updated' ? pull.updatedAt : pull.createdAt);
      pulls = [...pulls].sort((a, b) => key(a).localeCompare(key(b)) || a.number - b.number);
      if (direction === 'desc') pulls.reverse();
      const { page, pages, start, end } = offsetPage(pulls.length, query, 30);
      const link = pageLinks(this.apiUrl(request.path), query, {
        next: page < pages && page + 1,
        last: page < pages && pages,
        prev: page > 1 && page - 1,
        first: page > 1 && 1,
      });
      const body = pulls.slice(start, end).map((pull) => this.pullJson(repo, pull));
      return { status: 200, body, ...(link !== '' && { headers: { link } }) };
    });
    const findPull = (repo: FakeRepository, number: string | undefined) => found(repo.pulls.find(number), notFound);
    route('GET /repos/{owner}/{repo}/pulls/{pull_number}', ({ repo, params }) =>
      ok(this.pullJson(repo, findPull(repo, params.pull_number))),
    );
    route('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', ({ repo, params, body }) => {
      const pull = findPull(repo, params.pull_number);
      const input = object(body);
      if (typeof input.title === 'string') pull.title = input.title;
      if (typeof input.body === 'string') pull.description = input.body;
      pull.updatedAt = Date.now();
      return ok(this.pullJson(repo, pull));
    });

    // Deployments of a ref (a branch or a commit) to an environment, with their statuses. Writes need push access.
    const mayPush = (caller: Caller) => {
      if (caller.readOnly) throw problem(403, 'Resource not accessible by personal access token');
    };
    const invalidDeployment = (field: string, code = 'invalid') =>
      validationFailed([{ resource: 'Deployment', field, code }]);
    route('POST /repos/{owner}/{repo}/deployments', ({ repo, body, credential: caller }) => {
      mayPush(caller);
      const input = object(body);
      const ref = text(input.ref);
      if (ref === '') throw invalidDeployment('ref', 'missing_field');
      const sha = repo.branchSha(ref) ?? (repo.commit(ref) ? ref : undefined);
      if (sha === undefined) throw problem(422, `No ref found for: ${ref}`);
      if (input.required_contexts !== undefined && !Array.isArray(input.required_contexts)) {
        throw invalidDeployment('required_contexts');
      }
      const payload =
        typeof input.payload === 'string'
          ? parseJson(input.payload, () => invalidDeployment('payload'))
          : (input.payload ?? {});
      const deployment: FakeGitHubDeployment = {
        id: this.deploymentRecords.nextId(),
        sha,
        ref,
        environment: text(input.environment) || 'production',
        description: text(input.description),
        payload,
        creator: caller.login,
        createdAt: new Date().toISOString(),
        statuses: [],
      };
      this.deploymentRecords.of(repo).push(deployment);
      return { status: 201, body: this.deploymentJson(repo, deployment) };
    });
    route('GET /repos/{owner}/{repo}/deployments', ({ repo, query }) => {
      const all = this.deploymentRecords.of(repo);
      const listed = all.filter(({ sha, ref, environment }) => matchesQuery(query, { sha, ref, environment }));
      const { start, end } = offsetPage(listed.length, query, 30);
      return ok(
        listed
          .reverse()
          .slice(start, end)
          .map((deployment) => this.deploymentJson(repo, deployment)),
      );
    });
    const findDeployment = (repo: FakeRepository, id: string | undefined) =>
      this.deploymentRecords.find(repo, id, notFound);
    route('GET /repos/{owner}/{repo}/deployments/{deployment_id}', ({ repo, params }) =>
      ok(this.deploymentJson(repo, findDeployment(repo, params.deployment_id))),
    );
    route(
      'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
      ({ repo, params, body, credential: caller }) => {
        mayPush(caller);
        const deployment = findDeployment(repo, params.deployment_id);
        const input = object(body);
        const state = DEPLOYMENT_STATES.find((known) => known === input.state);
        const description = text(input.description);
        if (!state || description.length > 140) throw invalidDeployment(state ? 'description' : 'state');
        const newStatus = (state: FakeGitHubDeploymentStatus['state'], environmentUrl = '', logUrl = '') => {
          const [id, createdAt] = [this.deploymentRecords.nextId(), new Date().toISOString()];
          return { id, state, description, environmentUrl, logUrl, creator: caller.login, createdAt };
        };
        const status = newStatus(state, text(input.environment_url), text(input.log_url));
        deployment.statuses.unshift(status);
        // A success makes the environment's other successful deployments inactive (`auto_inactive`, on by default).
        const environment = state === 'success' && input.auto_inactive !== false ? deployment.environment : undefined;
        for (const other of this.deploymentRecords.of(repo)) {
          const shown = other !== deployment && other.environment === environment;
          if (shown && other.statuses[0]?.state === 'success') other.statuses.unshift(newStatus('inactive'));
        }
        const { id, environmentUrl: environment_url, logUrl: log_url, createdAt: created_at } = status;
        const deployment_url = this.repoUrl(repo, `/deployments/${deployment.id}`);
        return { status: 201, body: { id, state, description, environment_url, log_url, created_at, deployment_url } };
      },
    );
  }

  /** A deployment with the fields clients read (the adapter knows its own by the payload). */
  private deploymentJson(repo: FakeRepository, deployment: FakeGitHubDeployment): Record<string, unknown> {
    const url = this.repoUrl(repo, `/deployments/${deployment.id}`);
    return {
      url,
      id: deployment.id,
      sha: deployment.sha,
      ref: deployment.ref,
      task: 'deploy',
      payload: deployment.payload,
      environment: deployment.environment,
      description: deployment.description || null,
      creator: { login: deployment.creator },
      created_at: deployment.createdAt,
      statuses_url: `${url}/statuses`,
    };
  }
}
