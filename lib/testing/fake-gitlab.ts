// A fake GitLab REST API (v4) under `http://127.0.0.1:<port>/api/v4`, for the real @gitbeaker/rest client. Projects
// are addressed by URL-encoded full path (subgroups included) or numeric id. GitLab's rules a promotion relies on:
// the recursive tree with offset (`x-page`, `x-total`…, `Link`) or keyset (`page_token`) pagination; raw blobs; files
// with their `blob_id`; a commit's diff; the commits API (several actions, `start_sha`/`start_branch`, `force`, its
// 400s); merge requests with `iid` and `web_url`, one open per source branch (409). Tokens (`PRIVATE-TOKEN` or
// Bearer) have scopes and a role, which GitLab tells back (the project's `access_level`, `/personal_access_tokens/self`);
// errors have GitLab's bodies; its rate limit is a 429 with `Retry-After` and `RateLimit-*`.
import { regularFiles, tarGz } from './tar-archive-writer.js';
import type { IncomingMessage } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import {
  FakeGitHost,
  HostError,
  Router,
  hostRepository,
  authorization,
  resetAt,
  found,
  matchesQuery,
  ok,
  pageLinks,
  RecordsOf,
  parseJson,
  offsetPage,
  statusText,
  type FakeGitHostOptions,
  type HostRepository,
  type HostRoute,
  type LoggedRequest,
  type RouteContext as HostRouteContext,
  type PullRecord,
  type Reply,
} from './git-host-kernel.js';
import { badGitPath as badPath, gitNow, gitTime, type FlatEntry } from './git-repository.js';

/** `path` below the API base as sent (`/projects/a%2Fb/repository/tree`), `route` as GitLab's docs write it. */
export interface FakeGitLabRequest extends LoggedRequest {
  auth?: 'private-token' | 'bearer';
}

export type FakeGitLabScope = 'api' | 'read_api' | 'read_repository' | 'write_repository';

export interface FakeGitLabTokenOptions {
  /** The token's user. Default `fake-user`. */
  username?: string;
  /** Default `['api']`. */
  scopes?: readonly FakeGitLabScope[];
  /** A reporter can read but not push or open merge requests (403). Default `developer`. */
  role?: 'reporter' | 'developer';
  /** Full paths of the projects the token can see (others are 404). Default: all. */
  projects?: readonly string[];
}

/** `token`: `glpat-…`; `webHost`: `gitlab.example.com`, its pages `/group/project/-/merge_requests/3` with `webPages`. */
export type FakeGitLabOptions = FakeGitHostOptions<FakeGitLabRequest>;

/** A merge request as a test reads it (`mergeRequests`). */
export type FakeMergeRequest = ReturnType<FakeGitLab['mergeRequests']>[number];

type User = { id: number; username: string; name: string; email: string };

interface Token {
  id: number;
  user: User;
  scopes: readonly FakeGitLabScope[];
  role: 'reporter' | 'developer';
  projects?: ReadonlySet<string>;
}

type StoredMergeRequest = PullRecord & { id: number; author: User };

/** The statuses a deployment may be given (https://docs.gitlab.com/api/deployments/). */
const DEPLOYMENT_STATUSES = ['running', 'success', 'failed', 'canceled'] as const;

export interface FakeGitLabDeployment {
  id: number;
  /** Per project, as GitLab numbers them. */
  iid: number;
  environment: string;
  sha: string;
  ref: string;
  tag: boolean;
  status: (typeof DEPLOYMENT_STATUSES)[number];
  /** Every status it was given, oldest first. */
  history: FakeGitLabDeployment['status'][];
  user: string;
  createdAt: string;
  updatedAt: string;
}

const GITLAB_IDENTITY = { name: 'Fake User', email: 'fake-user@example.com' };
const STATES = { open: 'opened', closed: 'closed', merged: 'merged' } as const;

type FakeProject = HostRepository<StoredMergeRequest, { path: string; id: number }>;

// GitLab's error bodies: `{"message": …}`, or `{"error": …}` for parameter validation.
const problem = (status: number, message: unknown) => new HostError(status, { message });
const notFound = (what: string) => problem(404, `404 ${what} Not Found`);
const badRequest = (message: unknown) => problem(400, message);
const missing = (...fields: string[]) => new HostError(400, { error: fields.map((f) => `${f} is missing`).join(', ') });
/** 400 naming the parameters that are missing (given no value, or an empty one). */
function requireParams(values: Record<string, unknown>): void {
  const absent = Object.keys(values).filter((name) => !values[name]);
  if (absent.length > 0) throw missing(...absent);
}
const invalid = (field: string) => new HostError(400, { error: `${field} does not have a valid value` });

/** `body`: the JSON object's parameters; `token`: the caller's token (its role on the project, its scopes). */
type RouteContext = Omit<HostRouteContext<FakeGitLabRequest, Token, FakeProject>, 'body'> & {
  body: Record<string, unknown>;
  project: FakeProject;
  user: User;
  token: Token;
};

/** GitLab's access levels of the roles the fake knows. */
const ACCESS_LEVELS: Readonly<Record<Token['role'], number>> = { reporter: 20, developer: 30 };

/** The caller's token as GitLab (15.5+) shows it to its holder, with any scope. */
const TOKEN_SELF = 'GET /personal_access_tokens/self';

function stringParam(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function booleanParam(value: unknown): boolean | undefined {
  if (value === true || value === 'true' || value === 1 || value === '1') return true;
  if (value === false || value === 'false' || value === 0 || value === '0') return false;
  return undefined;
}

/** Raw files are served as text unless they hold a NUL byte, as GitLab labels them. */
function rawType(content: Buffer): string {
  return content.includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}

export class FakeGitLab extends FakeGitHost<
  FakeGitLabRequest,
  never,
  FakeProject,
  [path: string],
  Token,
  RouteContext
> {
  protected readonly apiBase = '/api/v4';
  private readonly users = new Map<string, User>();
  /** A branch name, the final parameter of its routes, may hold slashes. */
  protected readonly router = new Router<HostRoute<RouteContext>>({ rest: { branch: false } });
  private nextProjectId = 1000;
  private nextMergeRequestId = 5000;
  protected readonly jsonType = 'application/json';

  constructor(options: FakeGitLabOptions = {}) {
    const [token, identity] = [`glpat-${randomBytes(12).toString('hex')}`, GITLAB_IDENTITY];
    super({ name: 'GitLab', nameCount: 1, token, identity, webHost: 'gitlab.example.com' }, options);
    this.addToken(this.token);
    this.defineRoutes();
  }

  private readonly deploymentRecords = new RecordsOf<FakeProject, FakeGitLabDeployment>();

  /** A project's deployments, oldest first. */
  deployments(path: string): FakeGitLabDeployment[] {
    return this.deploymentRecords.of(this.repository(path));
  }

  /** Accepts another token (the default one: user `fake-user`, scope `api`, developer on every project). */
  addToken(token: string, options: FakeGitLabTokenOptions = {}): void {
    const username = options.username ?? 'fake-user';
    let user = this.users.get(username);
    if (!user) {
      user = { id: this.users.size + 1, username, name: username, email: `${username}@example.com` };
      this.users.set(username, user);
    }
    this.tokens.set(token, {
      id: this.tokens.size + 1,
      user,
      scopes: options.scopes ?? ['api'],
      role: options.role ?? 'developer',
      ...(options.projects ? { projects: new Set(options.projects.map((path) => path.toLowerCase())) } : {}),
    });
  }

  // ---------------------------------------------------------------- projects (test-facing)

  /** A project, by its full path (`group/sub/project`). */
  protected newRepository([path]: [string], defaultBranch: string): FakeProject {
    if (path.split('/').length < 2 || badPath(path)) throw new Error(`not a project path: ${path}`);
    return hostRepository({ path, id: this.nextProjectId++ }, defaultBranch);
  }

  projectId(path: string): number {
    return this.repository(path).id;
  }

  /** Every branch and its commit. */
  branches(path: string): Record<string, string> {
    return Object.fromEntries(this.repository(path).branches());
  }

  /** Merge requests, oldest first. */
  mergeRequests(path: string) {
    const project = this.repository(path);
    return project.pulls.all.map((mr) => ({
      iid: mr.number,
      title: mr.title,
      description: mr.description,
      state: STATES[mr.state],
      sourceBranch: mr.source,
      targetBranch: mr.target,
      // The source branch's commit while open, the last one once closed or merged.
      sha: project.pulls.headSha(mr) ?? '',
      webUrl: this.mergeRequestUrl(project, mr.number),
      ...(mr.mergeCommitSha ? { mergeCommitSha: mr.mergeCommitSha } : {}),
    }));
  }

  /** Merges an open merge request as a person would (a merge commit); returns the target's new commit. */
  merge(path: string, iid: number): string {
    const project = this.repository(path);
    return this.mergeStored(project, project.pulls.expect(iid, true), this.identity);
  }

  closeMergeRequest(path: string, iid: number): void {
    const project = this.repository(path);
    project.pulls.close(project.pulls.expect(iid));
  }

  /** The path as sent: a project's id stays URL-encoded. */
  protected override loggedPath(below: string | undefined): string | undefined {
    return below;
  }

  /** A merge request's page (`/group/project/-/merge_requests/3`). */
  protected override webPull(path: string) {
    const [, projectPath, iid] = /^\/(.+?)\/-\/merge_requests\/(\d+)\/?$/.exec(path) ?? [];
    if (projectPath === undefined) return undefined;
    const project = this.repositories.get(projectPath.toLowerCase());
    const mr = project?.pulls.find(Number(iid));
    const [hostName, reference, word] = ['GitLab', `!${mr?.number}`, 'merge request'];
    return project && mr ? { hostName, repository: project.path, reference, word, pull: mr } : null;
  }

  /** gitbeaker sends JSON bodies. */
  protected readonly invalidJson = "400 Bad request - The provided content-type 'application/json' is not valid JSON";

  /** GitLab answers an unknown API route with `error`, not `message`. */
  protected override noRoute(): HostError {
    return new HostError(404, { error: '404 Not Found' });
  }

  /** A body that is not a JSON object gives no parameters. */
  protected override contextOf(context: HostRouteContext<FakeGitLabRequest, Token, FakeProject>): RouteContext {
    const { body, credential: token, repo: project } = context;
    const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
    return { ...context, body: isObject ? (body as Record<string, unknown>) : {}, project, token, user: token.user };
  }

  protected authenticate(request: IncomingMessage, logged: FakeGitLabRequest): Token {
    const privateToken = request.headers['private-token'];
    const bearer = authorization(request, 'bearer');
    const credential = typeof privateToken === 'string' && privateToken !== '' ? privateToken : bearer;
    const token = credential === undefined ? undefined : this.tokens.get(credential);
    if (!token) throw problem(401, '401 Unauthorized');
    logged.auth = credential === privateToken ? 'private-token' : 'bearer';
    return token;
  }

  /** A write needs the `api` scope and the developer role; a read `api` or `read_api`. */
  protected override authorize(token: Token, route: HostRoute<RouteContext>): void {
    if (route.route === TOKEN_SELF) return;
    const needed: readonly FakeGitLabScope[] = route.writes ? ['api'] : ['api', 'read_api'];
    if (!needed.some((scope) => token.scopes.includes(scope))) {
      throw new HostError(403, {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: needed.join(' '),
      });
    }
    if (route.writes && token.role === 'reporter') throw problem(403, '403 Forbidden');
  }

  /** The project of `:id` (a full path or a numeric id) as this token sees it; 404 when it cannot. */
  protected findRepository({ id }: Record<string, string>, token: Token): FakeProject | undefined {
    if (id === undefined) return undefined;
    let project = this.repositories.get(id.toLowerCase());
    if (!project && /^\d+$/.test(id)) {
      project = [...this.repositories.values()].find((candidate) => String(candidate.id) === id);
    }
    if (!project || (token.projects && !token.projects.has(project.path.toLowerCase()))) throw notFound('Project');
    return project;
  }

  protected baseHeaders(): Record<string, string> {
    return { 'x-request-id': randomBytes(8).toString('hex').toUpperCase() };
  }

  protected errorBody(status: number, message = `${status} ${statusText(status)}`): unknown {
    return { message };
  }

  /** 429 "Retry later" with `Retry-After` and `RateLimit-Reset` this many seconds from now, as Rack::Attack answers. */
  protected rateLimited({ seconds }: { seconds: number }): Reply {
    const headers = { 'retry-after': String(seconds), 'ratelimit-remaining': '0', 'ratelimit-reset': resetAt(seconds) };
    return { status: 429, headers, raw: { data: 'Retry later\n', type: 'text/plain' } };
  }

  /**
   * One page of a listing with GitLab's offset pagination headers: `x-page`, `x-per-page`, `x-next-page`,
   * `x-prev-page`, `x-total`, `x-total-pages`, and a `Link` with next, prev, first and last.
   */
  private page<T>(items: readonly T[], context: RouteContext, json: (item: T) => unknown): Reply {
    const { query, request } = context;
    const { page, perPage, pages, start, end } = offsetPage(items.length, query, 20);
    const rels = { prev: page > 1 && page - 1, next: page < pages && page + 1, first: 1, last: pages };
    return {
      status: 200,
      headers: {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': page < pages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(items.length),
        'x-total-pages': String(pages),
        link: pageLinks(`${this.url}${request.path}`, query, rels, { per_page: String(perPage) }),
      },
      body: items.slice(start, end).map(json),
    };
  }

  /**
   * One page of the repository tree with keyset pagination: the `Link` names the next page by a `page_token` (the
   * last path served, encoded as GitLab's opaque token), and there are no totals.
   */
  private keysetPage<T extends { path: string }>(items: readonly T[], context: RouteContext): Reply {
    const { query, request, project } = context;
    const { perPage } = offsetPage(items.length, query, 20);
    let start = 0;
    if (query.page_token) {
      const invalidToken = () => badRequest('Invalid page token');
      const token = parseJson(Buffer.from(query.page_token, 'base64').toString('utf8'), invalidToken);
      const index = items.findIndex((item) => item.path === (token as { file_name?: unknown } | null)?.file_name);
      if (index < 0) throw invalidToken();
      start = index + 1;
    }
    const slice = items.slice(start, start + perPage);
    const headers: Record<string, string> = { 'x-per-page': String(perPage) };
    const last = slice.at(-1);
    if (last && start + perPage < items.length) {
      const page_token = Buffer.from(JSON.stringify({ file_name: last.path })).toString('base64');
      // GitLab's link repeats the project id and page=1 in the query.
      const linkQuery = { ...query, id: String(project.id) };
      const extra = { page_token, per_page: String(perPage) };
      headers.link = pageLinks(`${this.url}${request.path}`, linkQuery, { next: 1 }, extra);
    }
    return { status: 200, headers, body: slice };
  }

  private webUrl(project: FakeProject): string {
    return `${this.webBase}/${project.path}`;
  }

  private mergeRequestUrl(project: FakeProject, iid: number): string {
    return `${this.webUrl(project)}/-/merge_requests/${iid}`;
  }

  private commitJson(project: FakeProject, sha: string): Record<string, unknown> {
    const commit = project.commit(sha);
    if (!commit) throw notFound('Commit');
    return {
      id: sha,
      short_id: sha.slice(0, 8),
      created_at: commit.committer.date,
      parent_ids: commit.parents,
      title: commit.message.split('\n')[0] ?? '',
      message: commit.message,
      author_name: commit.author.name,
      author_email: commit.author.email,
      authored_date: commit.author.date,
      committer_name: commit.committer.name,
      committer_email: commit.committer.email,
      committed_date: commit.committer.date,
      web_url: `${this.webUrl(project)}/-/commit/${sha}`,
    };
  }

  private commitDetailJson(project: FakeProject, sha: string): Record<string, unknown> {
    const diffs = this.diffOf(project, sha);
    const additions = diffs.reduce((sum, diff) => sum + diff.additions, 0);
    const deletions = diffs.reduce((sum, diff) => sum + diff.deletions, 0);
    return { ...this.commitJson(project, sha), stats: { additions, deletions, total: additions + deletions } };
  }

  private branchJson(project: FakeProject, name: string): Record<string, unknown> {
    const sha = project.branchSha(name);
    if (!sha) throw notFound('Branch');
    const isDefault = name === project.defaultBranch;
    return {
      name,
      commit: this.commitJson(project, sha),
      merged: !isDefault && project.isAncestor(sha, project.branchSha(project.defaultBranch) ?? ''),
      protected: isDefault,
      default: isDefault,
      web_url: `${this.webUrl(project)}/-/tree/${name}`,
    };
  }

  /** A merge request with the fields GitLab's clients read (gitbeaker's callers, the adapter's schemas). */
  private mergeRequestJson(project: FakeProject, mr: StoredMergeRequest): Record<string, unknown> {
    const closedAt = (state: PullRecord['state']) => (mr.state === state ? gitTime(mr.closedAt ?? 0) : null);
    return {
      id: mr.id,
      iid: mr.number,
      project_id: project.id,
      title: mr.title,
      description: mr.description,
      state: STATES[mr.state],
      created_at: new Date(mr.createdAt).toISOString(),
      updated_at: new Date(mr.updatedAt).toISOString(),
      merged_at: closedAt('merged'),
      closed_at: closedAt('closed'),
      target_branch: mr.target,
      source_branch: mr.source,
      author: { id: mr.author.id, username: mr.author.username, name: mr.author.name },
      source_project_id: project.id,
      target_project_id: project.id,
      sha: project.pulls.headSha(mr) ?? null,
      merge_commit_sha: mr.mergeCommitSha ?? null,
      squash_commit_sha: null,
      references: { full: `${project.path}!${mr.number}` },
      web_url: this.mergeRequestUrl(project, mr.number),
    };
  }

  /** A commit's changes against its first parent, as GitLab's diff entries (with a line count for stats). */
  private diffOf(project: FakeProject, sha: string) {
    const lines = (entry: FlatEntry | undefined) =>
      entry
        ? (project.blob(entry.sha)?.toString('utf8') ?? '')
            .split('\n')
            .filter((line, i, all) => line !== '' || i < all.length - 1)
        : [];
    return project.changesOf(sha).map(({ path, old, now }) => {
      // The whole old text removed and the new one added: not a minimal diff, but the paths, modes and flags are
      // GitLab's, and that is what a client reads.
      const same = old?.sha === now?.sha;
      const removed = lines(old);
      const added = lines(now);
      const diff = same
        ? ''
        : `@@ -${removed.length > 0 ? 1 : 0},${removed.length} +${added.length > 0 ? 1 : 0},${added.length} @@\n` +
          [...removed.map((line) => `-${line}\n`), ...added.map((line) => `+${line}\n`)].join('');
      return {
        diff,
        new_path: path,
        old_path: path,
        a_mode: old?.mode ?? '0',
        b_mode: now?.mode ?? '0',
        new_file: old === undefined,
        renamed_file: false,
        deleted_file: now === undefined,
        generated_file: false,
        additions: same ? 0 : added.length,
        deletions: same ? 0 : removed.length,
      };
    });
  }

  /** GitLab's default merge method: a merge commit of the source into the target, the source winning conflicts. */
  private mergeStored(project: FakeProject, mr: StoredMergeRequest, user: { name: string; email: string }): string {
    const message =
      `Merge branch '${mr.source}' into '${mr.target}'\n\n${mr.title}\n\n` +
      `See merge request ${project.path}!${mr.number}`;
    return found(project.pulls.merge(mr, user, message), () => problem(405, '405 Method Not Allowed'));
  }

  private defineRoutes(): void {
    const route = (route: string, handle: (context: RouteContext) => Reply) =>
      this.router.add({ route, writes: !route.startsWith('GET '), handle });
    const commitOf = (project: FakeProject, ref: string | undefined, what = 'Commit') =>
      found(ref === undefined ? undefined : project.resolveCommit(ref), () => notFound(what));

    route(TOKEN_SELF, ({ token }) => {
      const [name, scopes] = [`token of ${token.user.username}`, [...token.scopes]];
      return ok({ id: token.id, name, revoked: false, active: true, scopes, user_id: token.user.id, expires_at: null });
    });
    route('GET /projects/:id', ({ project, token }) =>
      ok({
        id: project.id,
        name: project.path.split('/').at(-1),
        path: project.path.split('/').at(-1),
        path_with_namespace: project.path,
        default_branch: project.defaultBranch,
        visibility: 'private',
        web_url: this.webUrl(project),
        http_url_to_repo: `${this.webUrl(project)}.git`,
        // The caller's membership of the project itself; none through a group in this fake.
        permissions: {
          project_access: { access_level: ACCESS_LEVELS[token.role], notification_level: 3 },
          group_access: null,
        },
      }),
    );
    route('GET /projects/:id/repository/branches/:branch', ({ project, params }) =>
      ok(this.branchJson(project, params.branch as string)),
    );
    route('POST /projects/:id/repository/branches', ({ project, body, query }) => {
      const input = { ...query, ...body };
      const [branch = '', ref = ''] = [stringParam(input, 'branch'), stringParam(input, 'ref')];
      requireParams({ branch, ref });
      if (project.branchSha(branch)) throw badRequest('Branch already exists');
      const sha = project.resolveCommit(ref);
      if (!sha) throw badRequest('Invalid reference name');
      project.refs.set(`refs/heads/${branch}`, sha);
      return { status: 201, body: this.branchJson(project, branch) };
    });
    route('DELETE /projects/:id/repository/branches/:branch', ({ project, params }) => {
      project.refs.delete(`refs/heads/${params.branch}`);
      return { status: 204 };
    });
    route('GET /projects/:id/repository/tree', (context) => {
      const { project, query } = context;
      const sha = commitOf(project, query.ref ?? project.defaultBranch, 'Tree');
      const recursive = booleanParam(query.recursive) === true;
      const path = (query.path ?? '').replace(/\/+$/, '');
      const tree = project.lookup(project.commit(sha)?.tree ?? '', path);
      if (tree?.type !== 'tree') throw notFound('Tree');
      const entries: { id: string; name: string; type: string; path: string; mode: string }[] = [];
      project.walk(tree.sha, path === '' ? '' : `${path}/`, (entryPath, entry) => {
        entries.push({ id: entry.sha, name: entry.name, type: entry.type, path: entryPath, mode: entry.mode });
        return recursive;
      });
      if (query.pagination === 'keyset') return this.keysetPage(entries, context);
      if (query.pagination !== undefined && query.pagination !== 'offset') throw invalid('pagination');
      return this.page(entries, context, (entry) => entry);
    });
    // The archive of a commit (`sha`, default the default branch), under `{project}-{sha}-{sha}/` as GitLab names it.
    route('GET /projects/:id/repository/archive.tar.gz', ({ project, query }) => {
      const sha = commitOf(project, query.sha ?? project.defaultBranch);
      const files = regularFiles(project.flatAt(sha), (blob) => project.blob(blob));
      const top = `${project.path.split('/').pop() ?? 'project'}-${sha}-${sha}`;
      return { status: 200, raw: { data: tarGz(top, files), type: 'application/octet-stream' } };
    });
    route('GET /projects/:id/repository/blobs/:sha/raw', ({ project, params }) => {
      const content = found(project.blob(params.sha as string), () => notFound('Blob'));
      return { status: 200, raw: { data: content, type: rawType(content) } };
    });
    const fileAt = (project: FakeProject, path: string, ref: string | undefined) => {
      const sha = commitOf(project, ref);
      const entry = project.flatten(project.commit(sha)?.tree ?? '').get(path);
      const content = entry && entry.mode !== '160000' ? project.blob(entry.sha) : undefined;
      if (!entry || !content) throw notFound('File');
      return { sha, entry, content };
    };
    route('GET /projects/:id/repository/files/:file_path', ({ project, params, query }) => {
      const path = params.file_path as string;
      const { sha, entry, content } = fileAt(project, path, query.ref);
      return {
        status: 200,
        headers: {
          'x-gitlab-blob-id': entry.sha,
          'x-gitlab-commit-id': sha,
          'x-gitlab-file-path': path,
          'x-gitlab-ref': query.ref ?? '',
        },
        body: {
          file_name: path.split('/').at(-1),
          file_path: path,
          size: content.length,
          encoding: 'base64',
          content_sha256: createHash('sha256').update(content).digest('hex'),
          ref: query.ref,
          blob_id: entry.sha,
          commit_id: sha,
          last_commit_id: project.lastChange(sha, path),
          execute_filemode: entry.mode === '100755',
          content: content.toString('base64'),
        },
      };
    });
    route('GET /projects/:id/repository/files/:file_path/raw', ({ project, params, query }) => {
      const { content } = fileAt(project, params.file_path as string, query.ref ?? project.defaultBranch);
      return { status: 200, raw: { data: content, type: rawType(content) } };
    });
    route('GET /projects/:id/repository/commits/:sha', ({ project, params }) =>
      ok(this.commitDetailJson(project, commitOf(project, params.sha))),
    );
    route('GET /projects/:id/repository/commits/:sha/diff', (context) => {
      const { project, params } = context;
      const diffs = this.diffOf(project, commitOf(project, params.sha));
      return this.page(diffs, context, ({ additions: _a, deletions: _d, ...diff }) => diff);
    });
    route('POST /projects/:id/repository/commits', ({ project, body, user }) => {
      const fields = ['branch', 'commit_message', 'start_sha', 'start_branch'];
      const [target = '', message, startSha, startBranch] = fields.map((field) => stringParam(body, field));
      const actions = body.actions;
      requireParams({ branch: target, commit_message: message !== undefined, actions: Array.isArray(actions) });
      const force = booleanParam(body.force) === true;
      if (startSha !== undefined && startBranch !== undefined) {
        throw badRequest("You can't pass both start_branch and start_sha");
      }
      // Without a start, the commit goes on top of the branch itself.
      let parent: string;
      if (startSha !== undefined) {
        if (!/^[0-9a-f]{40}$/.test(startSha)) throw badRequest(`Invalid start_sha '${startSha}'`);
        if (!project.commit(startSha)) throw badRequest(`Cannot find start_sha '${startSha}'`);
        parent = startSha;
      } else {
        const head = project.branchSha(startBranch ?? target);
        if (!head) throw badRequest('You can only create or edit files when you are on a branch');
        parent = head;
      }
      const differentBranch = startSha !== undefined || (startBranch ?? target) !== target;
      if (differentBranch && project.branchSha(target) && !force) {
        throw badRequest(`A branch called '${target}' already exists. Switch to that branch in order to make changes`);
      }
      const files = project.flatten(project.commit(parent)?.tree ?? '');
      const modeOf = (executable: unknown) => (booleanParam(executable) ? '100755' : '100644');
      (actions as unknown[]).forEach((raw, index) => {
        const field = (name: string) => `actions[${index}][${name}]`;
        const action = raw as Record<string, unknown>;
        const kind = action.action;
        const path = stringParam(action, 'file_path');
        if (path === undefined) throw missing(field('file_path'));
        const encoding = action.encoding ?? 'text';
        if (encoding !== 'text' && encoding !== 'base64') throw invalid(field('encoding'));
        const content = () => {
          const text = typeof action.content === 'string' ? action.content : '';
          return Buffer.from(text, encoding === 'base64' ? 'base64' : 'utf8');
        };
        const existing = files.get(path);
        switch (kind) {
          case 'create':
            if (existing) throw badRequest('A file with this name already exists');
            files.set(path, { mode: modeOf(action.execute_filemode), sha: project.putBlob(content()) });
            break;
          case 'update':
            if (!existing) throw badRequest("A file with this name doesn't exist");
            files.set(path, { mode: existing.mode, sha: project.putBlob(content()) });
            break;
          case 'delete':
            if (!existing) throw badRequest("A file with this name doesn't exist");
            files.delete(path);
            break;
          case 'move': {
            const previous = stringParam(action, 'previous_path');
            const moved = previous === undefined ? undefined : files.get(previous);
            if (!moved) throw badRequest("A file with this name doesn't exist");
            if (existing) throw badRequest('A file with this name already exists');
            files.delete(previous as string);
            const sha = typeof action.content === 'string' ? project.putBlob(content()) : moved.sha;
            files.set(path, { mode: moved.mode, sha });
            break;
          }
          case 'chmod': {
            if (!existing) throw badRequest("A file with this name doesn't exist");
            files.set(path, { mode: modeOf(action.execute_filemode), sha: existing.sha });
            break;
          }
        }
      });
      const tree = project.buildTree(files);
      const date = gitNow();
      const committer = { name: user.name, email: user.email, date };
      const author = {
        name: stringParam(body, 'author_name') ?? user.name,
        email: stringParam(body, 'author_email') ?? user.email,
        date,
      };
      const sha = project.putCommit({ tree, parents: [parent], author, committer, message: message as string });
      project.refs.set(`refs/heads/${target}`, sha);
      return { status: 201, body: this.commitDetailJson(project, sha) };
    });
    route('GET /projects/:id/merge_requests', (context) => {
      const { project, query } = context;
      const state = query.state ?? 'all';
      // Ordered by creation only.
      if ((query.order_by ?? 'created_at') !== 'created_at') throw invalid('order_by');
      const sort = query.sort ?? 'desc';
      const key = (mr: StoredMergeRequest) => new Date(mr.createdAt).toISOString();
      const found = project.pulls.all
        .filter((mr) => state === 'all' || STATES[mr.state] === state)
        .filter((mr) => query.source_branch === undefined || mr.source === query.source_branch)
        .filter((mr) => query.target_branch === undefined || mr.target === query.target_branch)
        .sort((a, b) => key(a).localeCompare(key(b)) || a.number - b.number);
      if (sort === 'desc') found.reverse();
      return this.page(found, context, (mr) => this.mergeRequestJson(project, mr));
    });
    route('POST /projects/:id/merge_requests', ({ project, body, user }) => {
      const source = stringParam(body, 'source_branch');
      const target = stringParam(body, 'target_branch');
      const title = stringParam(body, 'title');
      requireParams({ source_branch: source, target_branch: target, title });
      if (source === target) throw problem(422, ["You can't use same project/branch for source and target"]);
      if (!project.branchSha(source as string)) throw problem(422, [`Source branch "${source}" does not exist`]);
      if (!project.branchSha(target as string)) throw problem(422, [`Target branch "${target}" does not exist`]);
      // GitLab's rule: one open merge request per source branch (whatever its target).
      const open = project.pulls.openFrom(source as string);
      if (open) {
        throw problem(409, [`Another open merge request already exists for this source branch: !${open.number}`]);
      }
      const mr = project.pulls.add({
        id: this.nextMergeRequestId++,
        title: title as string,
        description: stringParam(body, 'description') ?? '',
        source: source as string,
        target: target as string,
        author: user,
      });
      return { status: 201, body: this.mergeRequestJson(project, mr) };
    });
    const findMergeRequest = (project: FakeProject, iid: string | undefined) => {
      return found(project.pulls.find(iid), () => notFound('Merge Request'));
    };
    route('PUT /projects/:id/merge_requests/:merge_request_iid', ({ project, params, body }) => {
      const mr = findMergeRequest(project, params.merge_request_iid);
      // Clients retitle a merge request and rewrite its description; nothing else of it is changed here.
      const [title, description] = [stringParam(body, 'title'), stringParam(body, 'description')];
      if (title !== undefined) mr.title = title;
      if (description !== undefined) mr.description = description;
      mr.updatedAt = Date.now();
      return ok(this.mergeRequestJson(project, mr));
    });
    route('PUT /projects/:id/merge_requests/:merge_request_iid/merge', ({ project, params, user }) => {
      const mr = findMergeRequest(project, params.merge_request_iid);
      if (mr.state !== 'open') throw problem(405, '405 Method Not Allowed');
      this.mergeStored(project, mr, user);
      return ok(this.mergeRequestJson(project, mr));
    });

    // A deployment of a commit to an environment (created by its first deployment), then its new statuses.
    const deploymentStatus = (given: unknown) => {
      const status = DEPLOYMENT_STATUSES.find((known) => known === given);
      if (!status) throw invalid('status');
      return status;
    };
    route('POST /projects/:id/deployments', ({ project, body, user }) => {
      const [environment = '', sha = '', ref = ''] = ['environment', 'sha', 'ref'].map((field) =>
        stringParam(body, field),
      );
      requireParams({ environment, sha, ref, tag: body.tag !== undefined });
      const tag = booleanParam(body.tag);
      if (tag === undefined) throw invalid('tag');
      const status = deploymentStatus(body.status ?? 'running');
      if (project.resolveCommit(sha) !== sha) throw badRequest('Invalid SHA');
      const deployments = this.deploymentRecords.of(project);
      const [id, iid, now] = [this.deploymentRecords.nextId(), deployments.length + 1, new Date().toISOString()];
      const fields = { environment, sha, ref, tag, status, history: [status], user: user.username };
      const deployment: FakeGitLabDeployment = { id, iid, ...fields, createdAt: now, updatedAt: now };
      deployments.push(deployment);
      return { status: 201, body: deploymentJson(deployment) };
    });
    route('GET /projects/:id/deployments', (context) => {
      const all = this.deploymentRecords.of(context.project);
      const listed = all.filter((deployment) => matchesQuery(context.query, { environment: deployment.environment }));
      return this.page(listed, context, deploymentJson);
    });
    route('PUT /projects/:id/deployments/:deployment_id', ({ project, params, body }) => {
      const deployment = this.deploymentRecords.find(project, params.deployment_id, () => notFound('Deployment'));
      if (body.status === undefined) throw missing('status');
      deployment.status = deploymentStatus(body.status);
      deployment.history.push(deployment.status);
      deployment.updatedAt = new Date().toISOString();
      return ok(deploymentJson(deployment));
    });
  }
}

function deploymentJson(deployment: FakeGitLabDeployment): Record<string, unknown> {
  const { id, iid, ref, sha, status } = deployment;
  return {
    id,
    iid,
    ref,
    sha,
    status,
    created_at: deployment.createdAt,
    updated_at: deployment.updatedAt,
    user: { username: deployment.user },
    environment: { name: deployment.environment },
  };
}
