// A fake GitHub REST API, in memory, for tests and the local demo. It listens on plain HTTP on 127.0.0.1 and serves
// the paths Octokit uses under a base URL like GitHub Enterprise's (`http://127.0.0.1:<port>/api/v3`), so the real
// Octokit (with its retry, throttling and GitHub App plugins) can be driven against it.
//
// Repositories keep git's object model: blobs, trees and commits get the ids git computes (`sha1("blob <len>\0…")`,
// tree entries in git's order and binary format, commit objects with tree/parent/author/committer/message), and refs
// point at commits. Pull requests follow GitHub's rules that matter for a promotion: one open pull request per
// head and base (422 "A pull request already exists for o:branch."), paginated listing with `Link` headers,
// `head=owner:branch` filtering, and an open pull request closed when its branch is deleted or moved to a commit the
// base already has (nothing left to merge). The contents API writes a file as one commit on a branch
// (`PUT /contents/{path}`: 409 when `sha` is not the file's blob). Blobs may also be written inline in a tree
// (`content` instead of `sha`). Tokens (`token X` / `Bearer X`) and a GitHub App flow (an RS256 JWT verified with
// the app's public key, exchanged for an installation token) are checked. A token may be read-only: GitHub then says
// so in the repository's `permissions` (`push: false`) and refuses every write (403 "Resource not accessible by
// personal access token"); an installation token's repository answer has no `permissions`, as on GitHub. Faults (5xx, primary and secondary rate
// limits, dropped connections, requests never answered) and latency can be injected, and every request is logged with
// its route.
import { echoingFault } from './echoed-credentials.js';
import { listenOnLoopback } from './listen.js';
import { randomBytes, verify, type KeyObject } from 'node:crypto';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  GIT_MODES as MODES,
  GitRepository,
  TreePathConflict,
  gitNow,
  typeOfMode,
  type FlatEntry,
  type GitCommit,
  type GitMode,
  type GitObjectType,
  type GitSignature,
  type GitTreeEntry,
} from './git-repository.js';

export {
  gitBlobSha,
  gitCommitSha,
  gitTreeSha,
  sortTreeEntries,
  type GitCommit,
  type GitMode,
  type GitObjectType,
  type GitSignature,
  type GitTreeEntry,
} from './git-repository.js';

// ---------------------------------------------------------------- public types

export interface FakeGitHubRequest {
  method: string;
  /** The decoded path below the API base, without the query, e.g. `/repos/o/r/git/ref/heads/main`. */
  path: string;
  query: Record<string, string>;
  /** The route in Octokit's notation, e.g. `GET /repos/{owner}/{repo}/git/blobs/{file_sha}`; undefined: unknown. */
  route?: string;
  /** How the request authenticated, when it did. */
  auth?: 'token' | 'installation' | 'app';
  /** The status answered; undefined while pending or for a dropped connection. */
  status?: number;
}

export interface FakeGitHubTokenOptions {
  /** The token's user. Default `fake-user`. */
  login?: string;
  /** A token that may read but not write (a read-only fine-grained token, a collaborator with read access). */
  readOnly?: boolean;
}

export interface FakeGitHubFaultMatch {
  /** How many matching requests get the fault. Default 1. */
  times?: number;
  method?: string;
  /** A route in Octokit's notation (exact), e.g. `POST /repos/{owner}/{repo}/pulls`. */
  route?: string;
  /** A string the path contains, or a RegExp tested against `METHOD path`. */
  path?: string | RegExp;
}

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

export type FakeGitHubFault =
  | { type: 'status'; status: number; message?: string }
  /** This status, with a message that repeats the credential the request carried (`echoedCredentials`). */
  | { type: 'echo-credentials'; status: number }
  /** 403 with `retry-after` and "You have exceeded a secondary rate limit". */
  | { type: 'secondary-rate-limit'; retryAfterSeconds?: number }
  /** 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` this many seconds from now. */
  | { type: 'primary-rate-limit'; status?: 403 | 429; resetInSeconds?: number }
  /**
   * A redirect (302 unless told) to the same path and query on `origin`, as a host that moved, or one handing out a
   * download from another address, answers.
   */
  | { type: 'redirect'; origin: string; status?: RedirectStatus }
  /** Destroy the connection without an answer. */
  | { type: 'close' }
  /**
   * Never answer: the request stays pending (logged without a status, nothing applied) until the client gives up
   * or the server stops. Holds a caller in the middle of its work, e.g. to kill it there.
   */
  | { type: 'hang' };

export interface FakeGitHubApp {
  appId: number;
  /** The app's public key (PEM or KeyObject); JWTs must be RS256-signed by its private key. */
  publicKey: string | KeyObject;
  /** Installations of the app; a token for any other id is 404. */
  installationIds: readonly number[];
}

export interface FakeGitHubOptions {
  /** The default token. Default: random `ghp_…`. */
  token?: string;
  /** The path of the API below the server root. Default `/api/v3` (GitHub Enterprise's layout). */
  basePath?: string;
  /** The host of `html_url`s. Default `github.com`. */
  webHost?: string;
  latencyMs?: number | ((request: FakeGitHubRequest) => number);
  apps?: readonly FakeGitHubApp[];
  /** A recursive tree listing with more entries than this is cut and flagged `truncated`. Default: never. */
  maxTreeEntries?: number;
  /** Who creates commits when the request names no author. */
  identity?: { name: string; email: string };
}

export interface FakePullRequest {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  /** The head branch name. */
  head: string;
  /** The head commit: the branch's current commit while open, the last one once closed. */
  headSha: string;
  base: string;
  htmlUrl: string;
  mergeCommitSha?: string;
}

interface StoredPull {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  head: string;
  /** The head commit when the pull request was closed. */
  closedHeadSha?: string;
  base: string;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
  mergedAt?: string;
  mergeCommitSha?: string;
  user: string;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function notFound(): HttpProblem {
  return new HttpProblem(404, 'Not Found');
}

function validationFailed(errors: Record<string, unknown>[], message = 'Validation Failed'): HttpProblem {
  return new HttpProblem(422, message, { errors });
}

// ---------------------------------------------------------------- a repository

class FakeRepository extends GitRepository {
  readonly pulls: StoredPull[] = [];

  constructor(
    readonly owner: string,
    readonly name: string,
    defaultBranch: string,
    readonly id: number,
  ) {
    super(defaultBranch);
  }
}

// ---------------------------------------------------------------- routes

interface RouteContext {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  /** The repository of a `/repos/{owner}/{repo}/…` route. */
  repo: FakeRepository;
  request: FakeGitHubRequest;
  /** The login of the caller (the token's user or the app's bot). */
  login: string;
  /** How the caller authenticated: a token may be read-only, an installation token says nothing of its permissions. */
  caller: Caller;
}

interface Caller {
  login: string;
  kind: 'token' | 'installation' | 'app';
  readOnly?: boolean;
  expiresAt?: number;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Route {
  method: string;
  route: string;
  segments: string[];
  handle: (context: RouteContext) => Reply;
}

/** Final parameters that take the rest of the path (they contain slashes). */
const REST_PARAMS = new Set(['ref', 'path']);

function matchRoute(routes: readonly Route[], method: string, segments: readonly string[]) {
  candidates: for (const route of routes) {
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    const last = route.segments.length - 1;
    for (let i = 0; i <= last; i++) {
      const pattern = route.segments[i] as string;
      const param = /^\{(.+)\}$/.exec(pattern)?.[1];
      if (param && i === last && REST_PARAMS.has(param)) {
        const rest = segments.slice(i).join('/');
        // An empty path is the repository root for `contents`; a ref is never empty.
        if (segments.length < i || (rest === '' && param !== 'path')) continue candidates;
        params[param] = rest;
        return { route, params };
      }
      const segment = segments[i];
      if (segment === undefined) continue candidates;
      if (param) {
        if (segment === '') continue candidates;
        params[param] = segment;
      } else if (pattern !== segment) {
        continue candidates;
      }
    }
    if (segments.length === route.segments.length) return { route, params };
  }
  return undefined;
}

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpProblem(400, 'Problems parsing JSON');
  }
  return body as Record<string, unknown>;
}

function requiredString(body: Record<string, unknown>, field: string, resource: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw validationFailed(
      [{ resource, field, code: 'missing_field' }],
      `Invalid request.\n\n"${field}" wasn't supplied.`,
    );
  }
  return value;
}

const DOCS = 'https://docs.github.com/rest';

// ---------------------------------------------------------------- the server

type PendingFault = FakeGitHubFault & FakeGitHubFaultMatch & { remaining: number };

export class FakeGitHub {
  /** Every request received, oldest first (cleared by `resetRequests`). */
  readonly requests: FakeGitHubRequest[] = [];
  latencyMs: number | ((request: FakeGitHubRequest) => number);

  private readonly basePath: string;
  private readonly webHost: string;
  private readonly maxTreeEntries: number;
  private readonly identity: { name: string; email: string };
  private readonly tokens = new Map<string, Caller>();
  private readonly apps = new Map<string, FakeGitHubApp>();
  private readonly repositories = new Map<string, FakeRepository>();
  private readonly routes: Route[] = [];
  private defaultToken: string;
  private faults: PendingFault[] = [];
  private nextRepositoryId = 1000;
  private server?: Server;
  private port?: number;
  private readonly sockets = new Set<Socket>();

  constructor(options: FakeGitHubOptions = {}) {
    this.defaultToken = options.token ?? `ghp_${randomBytes(18).toString('hex')}`;
    this.tokens.set(this.defaultToken, { login: 'fake-user', kind: 'token' });
    this.basePath = (options.basePath ?? '/api/v3').replace(/\/$/, '');
    this.webHost = options.webHost ?? 'github.com';
    this.latencyMs = options.latencyMs ?? 0;
    this.maxTreeEntries = options.maxTreeEntries ?? Infinity;
    this.identity = options.identity ?? { name: 'fake-user', email: 'fake-user@users.noreply.github.com' };
    for (const app of options.apps ?? []) this.registerApp(app);
    this.defineRoutes();
  }

  /** Creates and starts a server. */
  static async start(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
    return new FakeGitHub(options).start();
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        // A bug in the fake answers 500 rather than crashing the test process.
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: `fake GitHub: ${String(error)}` }));
      });
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.port = await listenOnLoopback(server);
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The API base, e.g. `http://127.0.0.1:43121/api/v3` (what Octokit's `baseUrl` or GITHUB_API_URL takes). */
  get url(): string {
    if (this.port === undefined) throw new Error('FakeGitHub is not started');
    return `http://127.0.0.1:${this.port}${this.basePath}`;
  }

  /** The default token (user `fake-user`). */
  get token(): string {
    return this.defaultToken;
  }

  /** Accepts another token, for the given user (a login, or the token's options). */
  addToken(token: string, options: string | FakeGitHubTokenOptions = {}): void {
    const { login = 'fake-user', readOnly } = typeof options === 'string' ? { login: options } : options;
    this.tokens.set(token, { login, kind: 'token', ...(readOnly ? { readOnly } : {}) });
  }

  /** Stops accepting a token (the default one too). */
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  registerApp(app: FakeGitHubApp): void {
    this.apps.set(String(app.appId), app);
  }

  // ---------------------------------------------------------------- repositories (test-facing)

  /** Creates a repository whose default branch holds `files` in one commit; returns that commit's id. */
  createRepository(
    owner: string,
    name: string,
    files: Record<string, string>,
    options: { defaultBranch?: string; message?: string } = {},
  ): string {
    const key = repositoryKey(owner, name);
    if (this.repositories.has(key)) throw new Error(`repository ${owner}/${name} exists`);
    const repo = new FakeRepository(owner, name, options.defaultBranch ?? 'main', this.nextRepositoryId++);
    this.repositories.set(key, repo);
    const flat = new Map<string, FlatEntry>();
    for (const [path, content] of Object.entries(files)) {
      flat.set(path, { mode: '100644', sha: repo.putBlob(Buffer.from(content)) });
    }
    const date = gitNow();
    const signature = { ...this.identity, date };
    const sha = repo.putCommit({
      tree: repo.buildTree(flat),
      parents: [],
      author: signature,
      committer: signature,
      message: options.message ?? 'Initial commit',
    });
    repo.refs.set(`refs/heads/${repo.defaultBranch}`, sha);
    return sha;
  }

  /**
   * Commits changes to a branch (created from the default branch when missing): a string sets a file's content,
   * null deletes it. Returns the new commit's id.
   */
  commitFiles(
    owner: string,
    name: string,
    branch: string,
    files: Record<string, string | null>,
    message = 'Update files',
  ): string {
    const repo = this.repository(owner, name);
    const parent = repo.branchSha(branch) ?? repo.branchSha(repo.defaultBranch);
    const flat = parent ? repo.flatten(repo.commit(parent)?.tree ?? '') : new Map<string, FlatEntry>();
    for (const [path, content] of Object.entries(files)) {
      if (content === null) flat.delete(path);
      else flat.set(path, { mode: flat.get(path)?.mode ?? '100644', sha: repo.putBlob(Buffer.from(content)) });
    }
    const signature = { ...this.identity, date: gitNow() };
    const sha = repo.putCommit({
      tree: repo.buildTree(flat),
      parents: parent ? [parent] : [],
      author: signature,
      committer: signature,
      message,
    });
    repo.refs.set(`refs/heads/${branch}`, sha);
    return sha;
  }

  /** Every file at a ref (a branch, `heads/x`, or a commit id), by path, as UTF-8 text. */
  files(owner: string, name: string, ref: string): Record<string, string> {
    const repo = this.repository(owner, name);
    const files: Record<string, string> = {};
    for (const [path, entry] of this.flatAt(repo, ref)) {
      const content = repo.blob(entry.sha);
      if (content) files[path] = content.toString('utf8');
    }
    return files;
  }

  /** The blob id of every file at a ref, by path. */
  blobShas(owner: string, name: string, ref: string): Record<string, string> {
    return Object.fromEntries([...this.flatAt(this.repository(owner, name), ref)].map(([p, e]) => [p, e.sha]));
  }

  /** One file at a ref, or undefined. */
  readFile(owner: string, name: string, ref: string, path: string): string | undefined {
    const repo = this.repository(owner, name);
    const entry = this.flatAt(repo, ref).get(path);
    return entry ? repo.blob(entry.sha)?.toString('utf8') : undefined;
  }

  /** The commit a branch (`main`) or ref (`heads/main`, `refs/heads/main`) points at, or undefined. */
  ref(owner: string, name: string, ref: string): string | undefined {
    const repo = this.repository(owner, name);
    return repo.refs.get(ref) ?? repo.refs.get(`refs/${ref}`) ?? repo.refs.get(`refs/heads/${ref}`);
  }

  /** Every ref (`refs/heads/main`) and its commit. */
  refs(owner: string, name: string): Record<string, string> {
    return Object.fromEntries([...this.repository(owner, name).refs].sort(([a], [b]) => a.localeCompare(b)));
  }

  commit(owner: string, name: string, sha: string): GitCommit | undefined {
    return this.repository(owner, name).commit(sha);
  }

  /** How many git objects of each type the repository holds. */
  objectCounts(owner: string, name: string): Record<GitObjectType, number> {
    const counts: Record<GitObjectType, number> = { blob: 0, tree: 0, commit: 0 };
    for (const object of this.repository(owner, name).objects.values()) counts[object.type]++;
    return counts;
  }

  /** Pull requests, oldest first. */
  pulls(owner: string, name: string): FakePullRequest[] {
    const repo = this.repository(owner, name);
    return repo.pulls.map((pull) => ({
      number: pull.number,
      title: pull.title,
      body: pull.body,
      state: pull.state,
      merged: pull.merged,
      head: pull.head,
      headSha: pull.closedHeadSha ?? repo.branchSha(pull.head) ?? '',
      base: pull.base,
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
    const pull = repo.pulls.find((candidate) => candidate.number === number);
    if (!pull || pull.state !== 'open') throw new Error(`no open pull request #${number} in ${owner}/${name}`);
    return this.mergePull(repo, pull, this.identity.name, options.mergeCommit === true);
  }

  /** Closes an open pull request without merging it. */
  closePull(owner: string, name: string, number: number): void {
    const repo = this.repository(owner, name);
    const pull = repo.pulls.find((candidate) => candidate.number === number);
    if (!pull) throw new Error(`no pull request #${number} in ${owner}/${name}`);
    this.closeStoredPull(repo, pull);
  }

  // ---------------------------------------------------------------- request log

  /**
   * How many requests were received: all, those of a route in Octokit's notation (`GET
   * /repos/{owner}/{repo}/git/blobs/{file_sha}`), those whose `METHOD path` matches a RegExp, or those a predicate
   * accepts.
   */
  count(filter?: string | RegExp | ((request: FakeGitHubRequest) => boolean)): number {
    return this.requests.filter((request) => requestMatches(request, filter)).length;
  }

  /** Requests per route (`unknown` for unrouted paths). */
  countsByRoute(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const request of this.requests) {
      const route = request.route ?? 'unknown';
      counts[route] = (counts[route] ?? 0) + 1;
    }
    return counts;
  }

  resetRequests(): void {
    this.requests.length = 0;
  }

  // ---------------------------------------------------------------- faults

  /** The next matching requests get `fault` instead of their answer. Faults are used in the order added. */
  injectFault(fault: FakeGitHubFault, match: FakeGitHubFaultMatch = {}): void {
    this.faults.push({ ...match, ...fault, remaining: match.times ?? 1 });
  }

  /** The next matching requests are answered with this status (502, 500, 404, 401, …). */
  failNext(status: number, match: FakeGitHubFaultMatch & { message?: string } = {}): void {
    this.injectFault({ type: 'status', status, message: match.message }, match);
  }

  /** The next matching requests are answered with this status and a message repeating their credential. */
  echoCredentialsNext(status: number, match: FakeGitHubFaultMatch = {}): void {
    this.injectFault({ type: 'echo-credentials', status }, match);
  }

  secondaryRateLimitNext(match: FakeGitHubFaultMatch & { retryAfterSeconds?: number } = {}): void {
    this.injectFault({ type: 'secondary-rate-limit', retryAfterSeconds: match.retryAfterSeconds }, match);
  }

  primaryRateLimitNext(match: FakeGitHubFaultMatch & { status?: 403 | 429; resetInSeconds?: number } = {}): void {
    this.injectFault({ type: 'primary-rate-limit', status: match.status, resetInSeconds: match.resetInSeconds }, match);
  }

  closeNext(match: FakeGitHubFaultMatch = {}): void {
    this.injectFault({ type: 'close' }, match);
  }

  /** The next matching requests are redirected to the same path and query on `origin` (see the `redirect` fault). */
  redirectNext(origin: string, match: FakeGitHubFaultMatch & { status?: RedirectStatus } = {}): void {
    this.injectFault({ type: 'redirect', origin, status: match.status }, match);
  }

  /** The next matching requests are never answered (see the `hang` fault). */
  hangNext(match: FakeGitHubFaultMatch = {}): void {
    this.injectFault({ type: 'hang' }, match);
  }

  clearFaults(): void {
    this.faults = [];
  }

  // ---------------------------------------------------------------- handling

  private repository(owner: string, name: string): FakeRepository {
    const repo = this.repositories.get(repositoryKey(owner, name));
    if (!repo) throw new Error(`no repository ${owner}/${name}`);
    return repo;
  }

  private flatAt(repo: FakeRepository, ref: string): Map<string, FlatEntry> {
    const sha = repo.resolveCommit(ref);
    const commit = sha ? repo.commit(sha) : undefined;
    if (!commit) throw new Error(`no ref ${ref} in ${repo.owner}/${repo.name}`);
    return repo.flatten(commit.tree);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = (request.method ?? 'GET').toUpperCase();
    const query = Object.fromEntries(url.searchParams);
    const raw = url.pathname.startsWith(`${this.basePath}/`) ? url.pathname.slice(this.basePath.length) : undefined;
    let segments: string[] | undefined;
    try {
      segments = raw?.split('/').slice(1).map(decodeURIComponent);
    } catch {
      segments = undefined;
    }
    const logged: FakeGitHubRequest = { method, path: segments ? `/${segments.join('/')}` : url.pathname, query };
    const matched = segments ? matchRoute(this.routes, method, segments) : undefined;
    if (matched) logged.route = matched.route.route;
    this.requests.push(logged);

    const body = await readBody(request);
    const latency = typeof this.latencyMs === 'function' ? this.latencyMs(logged) : this.latencyMs;
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));

    const fault = this.takeFault(logged);
    if (fault?.type === 'hang') return;
    if (fault?.type === 'close') {
      request.socket.destroy();
      return;
    }
    if (fault) {
      this.send(response, logged, faultReply(echoingFault(fault, request.headers), request.url ?? '/'));
      return;
    }
    this.send(response, logged, this.answer(request, logged, matched, body));
  }

  private answer(
    request: IncomingMessage,
    logged: FakeGitHubRequest,
    matched: ReturnType<typeof matchRoute>,
    rawBody: string,
  ): Reply {
    try {
      const caller = this.authenticate(request, logged, matched?.route.route);
      if (!matched) throw notFound();
      if (caller.readOnly && matched.route.method !== 'GET') {
        throw new HttpProblem(403, 'Resource not accessible by personal access token');
      }
      let body: unknown = undefined;
      if (rawBody !== '') {
        try {
          body = JSON.parse(rawBody) as unknown;
        } catch {
          throw new HttpProblem(400, 'Problems parsing JSON');
        }
      }
      const { owner, repo: repoName } = matched.params;
      let repo: FakeRepository | undefined;
      if (owner !== undefined && repoName !== undefined) {
        repo = this.repositories.get(repositoryKey(owner, repoName));
        if (!repo) throw notFound();
      }
      return matched.route.handle({
        params: matched.params,
        query: logged.query,
        body,
        repo: repo as FakeRepository,
        request: logged,
        login: caller.login,
        caller,
      });
    } catch (error) {
      if (error instanceof HttpProblem) {
        return { status: error.status, body: { message: error.message, ...error.extra, documentation_url: DOCS } };
      }
      throw error;
    }
  }

  private send(response: ServerResponse, logged: FakeGitHubRequest, reply: Reply): void {
    logged.status = reply.status;
    const headers: Record<string, string> = {
      'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
      ...reply.headers,
    };
    if (reply.body === undefined) {
      response.writeHead(reply.status, headers);
      response.end();
      return;
    }
    headers['content-type'] = 'application/json; charset=utf-8';
    response.writeHead(reply.status, headers);
    response.end(JSON.stringify(reply.body));
  }

  private takeFault(request: FakeGitHubRequest): PendingFault | undefined {
    const fault = this.faults.find((candidate) => {
      if (candidate.method && candidate.method.toUpperCase() !== request.method) return false;
      if (candidate.route && candidate.route !== request.route) return false;
      if (typeof candidate.path === 'string' && !request.path.includes(candidate.path)) return false;
      if (candidate.path instanceof RegExp && !candidate.path.test(`${request.method} ${request.path}`)) return false;
      return true;
    });
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults = this.faults.filter((candidate) => candidate !== fault);
    return fault;
  }

  /** Returns the caller; throws 401 for missing or wrong credentials. */
  private authenticate(request: IncomingMessage, logged: FakeGitHubRequest, route: string | undefined): Caller {
    const header = request.headers.authorization ?? '';
    const match = /^(token|bearer)\s+(\S+)$/i.exec(header);
    const credential = match?.[2];
    if (!credential) throw new HttpProblem(401, 'Bad credentials');
    if (route?.includes(' /app/')) {
      const app = this.verifyJwt(credential);
      logged.auth = 'app';
      return { login: `app-${app.appId}[bot]`, kind: 'app' };
    }
    const known = this.tokens.get(credential);
    if (!known || (known.expiresAt !== undefined && known.expiresAt < Date.now())) {
      throw new HttpProblem(401, 'Bad credentials');
    }
    logged.auth = known.kind;
    return known;
  }

  private verifyJwt(jwt: string): FakeGitHubApp {
    const parts = jwt.split('.');
    const invalid = new HttpProblem(401, 'A JSON web token could not be decoded');
    if (parts.length !== 3) throw invalid;
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    let header: Record<string, unknown>;
    let payload: Record<string, unknown>;
    try {
      header = object(JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')));
      payload = object(JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')));
    } catch {
      throw invalid;
    }
    if (header.alg !== 'RS256') throw invalid;
    const app = this.apps.get(String(payload.iss));
    if (!app) throw new HttpProblem(401, "'Issuer' claim ('iss') must be an Integer");
    const signed = verify(
      'RSA-SHA256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      app.publicKey,
      Buffer.from(signaturePart, 'base64url'),
    );
    if (!signed) throw invalid;
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.exp !== 'number' || payload.exp < now) {
      throw new HttpProblem(
        401,
        "'Expiration time' claim ('exp') must be a numeric value representing the future time",
      );
    }
    if (payload.exp - now > 600 + 60) {
      throw new HttpProblem(401, "'Expiration time' claim ('exp') is too far in the future");
    }
    if (typeof payload.iat !== 'number' || payload.iat > now + 60) {
      throw new HttpProblem(401, "'Issued at' claim ('iat') must be an Integer representing the time");
    }
    return app;
  }

  private apiUrl(path: string): string {
    return this.port === undefined ? path : `${this.url}${path}`;
  }

  private pullHtmlUrl(repo: FakeRepository, number: number): string {
    return `https://${this.webHost}/${repo.owner}/${repo.name}/pull/${number}`;
  }

  /** Who commits for a caller that names no one: a token's user is the fake's identity, an installation its bot. */
  private identityOf(login: string): { name: string; email: string } {
    return login.endsWith('[bot]') ? { name: login, email: `${login}@users.noreply.github.com` } : this.identity;
  }

  // ---------------------------------------------------------------- JSON shapes

  private repoPath(repo: FakeRepository): string {
    return `/repos/${repo.owner}/${repo.name}`;
  }

  private repositoryJson(repo: FakeRepository): Record<string, unknown> {
    return {
      id: repo.id,
      node_id: `R_${repo.id}`,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      owner: { login: repo.owner, type: 'Organization' },
      private: true,
      html_url: `https://${this.webHost}/${repo.owner}/${repo.name}`,
      url: this.apiUrl(this.repoPath(repo)),
      default_branch: repo.defaultBranch,
    };
  }

  private refJson(repo: FakeRepository, ref: string, sha: string): Record<string, unknown> {
    return {
      ref,
      node_id: `REF_${Buffer.from(ref).toString('base64url')}`,
      url: this.apiUrl(`${this.repoPath(repo)}/git/${ref}`),
      object: { sha, type: 'commit', url: this.apiUrl(`${this.repoPath(repo)}/git/commits/${sha}`) },
    };
  }

  private treeEntryJson(repo: FakeRepository, path: string, entry: GitTreeEntry): Record<string, unknown> {
    const type = entry.type;
    const json: Record<string, unknown> = { path, mode: entry.mode, type, sha: entry.sha };
    if (type === 'blob') json.size = repo.blob(entry.sha)?.length ?? 0;
    if (type !== 'commit') json.url = this.apiUrl(`${this.repoPath(repo)}/git/${type}s/${entry.sha}`);
    return json;
  }

  private treeJson(repo: FakeRepository, sha: string, recursive: boolean): Record<string, unknown> {
    const tree: Record<string, unknown>[] = [];
    const walk = (treeSha: string, prefix: string) => {
      for (const entry of repo.tree(treeSha) ?? []) {
        const path = `${prefix}${entry.name}`;
        tree.push(this.treeEntryJson(repo, path, entry));
        if (recursive && entry.type === 'tree') walk(entry.sha, `${path}/`);
      }
    };
    walk(sha, '');
    const truncated = tree.length > this.maxTreeEntries;
    return {
      sha,
      url: this.apiUrl(`${this.repoPath(repo)}/git/trees/${sha}`),
      tree: truncated ? tree.slice(0, this.maxTreeEntries) : tree,
      truncated,
    };
  }

  private commitJson(repo: FakeRepository, sha: string): Record<string, unknown> {
    const commit = repo.commit(sha);
    if (!commit) throw notFound();
    const base = this.repoPath(repo);
    return {
      sha,
      node_id: `C_${sha}`,
      url: this.apiUrl(`${base}/git/commits/${sha}`),
      html_url: `https://${this.webHost}/${repo.owner}/${repo.name}/commit/${sha}`,
      author: commit.author,
      committer: commit.committer,
      tree: { sha: commit.tree, url: this.apiUrl(`${base}/git/trees/${commit.tree}`) },
      message: commit.message,
      parents: commit.parents.map((parent) => ({
        sha: parent,
        url: this.apiUrl(`${base}/git/commits/${parent}`),
        html_url: `https://${this.webHost}/${repo.owner}/${repo.name}/commit/${parent}`,
      })),
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    };
  }

  private pullJson(repo: FakeRepository, pull: StoredPull): Record<string, unknown> {
    const base = this.repoPath(repo);
    const repoJson = this.repositoryJson(repo);
    const headSha = pull.closedHeadSha ?? repo.branchSha(pull.head) ?? null;
    return {
      id: repo.id * 100000 + pull.number,
      node_id: `PR_${repo.id}_${pull.number}`,
      number: pull.number,
      url: this.apiUrl(`${base}/pulls/${pull.number}`),
      html_url: this.pullHtmlUrl(repo, pull.number),
      state: pull.state,
      locked: false,
      draft: false,
      title: pull.title,
      body: pull.body,
      user: { login: pull.user },
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.closedAt ?? null,
      merged_at: pull.mergedAt ?? null,
      merged: pull.merged,
      merge_commit_sha: pull.mergeCommitSha ?? null,
      head: { label: `${repo.owner}:${pull.head}`, ref: pull.head, sha: headSha, repo: repoJson },
      base: {
        label: `${repo.owner}:${pull.base}`,
        ref: pull.base,
        sha: repo.branchSha(pull.base) ?? null,
        repo: repoJson,
      },
    };
  }

  // ---------------------------------------------------------------- pull request actions

  private closeStoredPull(repo: FakeRepository, pull: StoredPull): void {
    if (pull.state === 'closed') return;
    const now = gitNow();
    pull.closedHeadSha = repo.branchSha(pull.head);
    pull.state = 'closed';
    pull.closedAt = now;
    pull.updatedAt = now;
  }

  /**
   * Closes the open pull requests from `branch` left with nothing to merge after the branch was moved through the
   * API (its head a commit their base already has), as GitHub does after such a push.
   */
  private closePullsLeftEmpty(repo: FakeRepository, branch: string): void {
    const head = repo.branchSha(branch);
    if (head === undefined) return;
    for (const pull of repo.pulls) {
      if (pull.state !== 'open' || pull.head !== branch) continue;
      const base = repo.branchSha(pull.base);
      if (base !== undefined && repo.isAncestor(head, base)) this.closeStoredPull(repo, pull);
    }
  }

  private mergePull(repo: FakeRepository, pull: StoredPull, login: string, mergeCommit = false): string {
    const headSha = repo.branchSha(pull.head);
    const baseSha = repo.branchSha(pull.base);
    if (!headSha || !baseSha) throw new HttpProblem(405, 'Pull Request is not mergeable');
    let result: string;
    if (!mergeCommit && repo.isAncestor(baseSha, headSha)) {
      result = headSha;
    } else {
      const mergeBase = repo.mergeBase(baseSha, headSha);
      const before = mergeBase ? repo.flatten(repo.commit(mergeBase)?.tree ?? '') : new Map<string, FlatEntry>();
      const after = repo.flatten(repo.commit(headSha)?.tree ?? '');
      const merged = repo.flatten(repo.commit(baseSha)?.tree ?? '');
      for (const path of new Set([...before.keys(), ...after.keys()])) {
        const old = before.get(path);
        const now = after.get(path);
        if (old?.sha === now?.sha && old?.mode === now?.mode) continue;
        if (now) merged.set(path, now);
        else merged.delete(path);
      }
      const signature = { name: login, email: `${login}@users.noreply.github.com`, date: gitNow() };
      result = repo.putCommit({
        tree: repo.buildTree(merged),
        parents: [baseSha, headSha],
        author: signature,
        committer: signature,
        message: `Merge pull request #${pull.number} from ${repo.owner}/${pull.head}`,
      });
    }
    repo.refs.set(`refs/heads/${pull.base}`, result);
    this.closeStoredPull(repo, pull);
    pull.merged = true;
    pull.mergedAt = pull.closedAt;
    pull.mergeCommitSha = result;
    return result;
  }

  // ---------------------------------------------------------------- route table

  private defineRoutes(): void {
    const route = (spec: string, handle: (context: RouteContext) => Reply) => {
      const [method, path] = spec.split(' ') as [string, string];
      this.routes.push({ method, route: spec, segments: path.split('/').slice(1), handle });
    };

    route('POST /app/installations/{installation_id}/access_tokens', ({ params, login }) => {
      const app = this.apps.get(login.replace(/^app-(.*)\[bot\]$/, '$1'));
      const installationId = Number(params.installation_id);
      if (!app?.installationIds.includes(installationId)) throw notFound();
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      const expiresAt = Date.now() + 3600_000;
      this.tokens.set(token, { login: `app-${app.appId}[bot]`, kind: 'installation', expiresAt });
      return {
        status: 201,
        body: {
          token,
          expires_at: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'),
          permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' },
          repository_selection: 'all',
        },
      };
    });

    // GitHub adds the caller's permissions for a user's token; an installation token's answer has none.
    route('GET /repos/{owner}/{repo}', ({ repo, caller }) => ({
      status: 200,
      body: {
        ...this.repositoryJson(repo),
        ...(caller.kind === 'token' && {
          permissions: {
            admin: false,
            maintain: false,
            push: !caller.readOnly,
            triage: !caller.readOnly,
            pull: true,
          },
        }),
      },
    }));

    // ------------------------------------------------ refs

    route('GET /repos/{owner}/{repo}/git/ref/{ref}', ({ repo, params }) => {
      const ref = `refs/${params.ref}`;
      const sha = repo.refs.get(ref);
      if (!sha) throw notFound();
      return { status: 200, body: this.refJson(repo, ref, sha) };
    });

    const listRefs = (repo: FakeRepository, prefix: string) =>
      [...repo.refs]
        .filter(([ref]) => ref.startsWith(prefix))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([ref, sha]) => this.refJson(repo, ref, sha));

    route('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', ({ repo, params }) => ({
      status: 200,
      body: listRefs(repo, `refs/${params.ref}`),
    }));
    route('GET /repos/{owner}/{repo}/git/refs', ({ repo }) => ({ status: 200, body: listRefs(repo, 'refs/') }));
    // The older form: an exact ref gives the object, a prefix the list.
    route('GET /repos/{owner}/{repo}/git/refs/{ref}', ({ repo, params }) => {
      const ref = `refs/${params.ref}`;
      const sha = repo.refs.get(ref);
      if (sha) return { status: 200, body: this.refJson(repo, ref, sha) };
      const list = listRefs(repo, `${ref}/`);
      if (list.length === 0) throw notFound();
      return { status: 200, body: list };
    });

    route('POST /repos/{owner}/{repo}/git/refs', ({ repo, body }) => {
      const input = object(body);
      const ref = requiredString(input, 'ref', 'Reference');
      const sha = requiredString(input, 'sha', 'Reference');
      if (!/^refs\/[^/]+\/.+/.test(ref) || ref.split('/').some((part) => part === '' || part === '..')) {
        throw new HttpProblem(422, `${ref} is not a valid ref name.`);
      }
      if (!repo.commit(sha)) throw new HttpProblem(422, 'Object does not exist');
      if (repo.refs.has(ref)) throw new HttpProblem(422, 'Reference already exists');
      repo.refs.set(ref, sha);
      return { status: 201, body: this.refJson(repo, ref, sha) };
    });

    route('PATCH /repos/{owner}/{repo}/git/refs/{ref}', ({ repo, params, body }) => {
      const input = object(body);
      const sha = requiredString(input, 'sha', 'Reference');
      const ref = `refs/${params.ref}`;
      const current = repo.refs.get(ref);
      if (!current) throw new HttpProblem(422, 'Reference does not exist');
      if (!repo.commit(sha)) throw new HttpProblem(422, 'Object does not exist');
      if (input.force !== true && !repo.isAncestor(current, sha)) {
        throw new HttpProblem(422, 'Update is not a fast forward');
      }
      repo.refs.set(ref, sha);
      if (ref.startsWith('refs/heads/')) this.closePullsLeftEmpty(repo, ref.slice('refs/heads/'.length));
      return { status: 200, body: this.refJson(repo, ref, sha) };
    });

    route('DELETE /repos/{owner}/{repo}/git/refs/{ref}', ({ repo, params }) => {
      const ref = `refs/${params.ref}`;
      if (!repo.refs.has(ref)) throw new HttpProblem(422, 'Reference does not exist');
      // A deleted branch closes its open pull requests (closed first, so they keep showing its last head).
      for (const pull of repo.pulls) {
        if (pull.state === 'open' && `refs/heads/${pull.head}` === ref) this.closeStoredPull(repo, pull);
      }
      repo.refs.delete(ref);
      return { status: 204 };
    });

    // ------------------------------------------------ objects

    route('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', ({ repo, params, query }) => {
      let sha = params.tree_sha as string;
      if (!repo.tree(sha)) {
        const commit = repo.resolveCommit(sha);
        const tree = commit ? repo.commit(commit)?.tree : undefined;
        if (!tree) throw notFound();
        sha = tree;
      }
      return { status: 200, body: this.treeJson(repo, sha, query.recursive !== undefined) };
    });

    route('POST /repos/{owner}/{repo}/git/trees', ({ repo, body }) => {
      const input = object(body);
      if (!Array.isArray(input.tree)) {
        throw validationFailed([{ resource: 'Tree', field: 'tree', code: 'missing_field' }], 'Invalid tree info');
      }
      let files = new Map<string, FlatEntry>();
      if (input.base_tree !== undefined && input.base_tree !== null) {
        const baseTree = typeof input.base_tree === 'string' ? input.base_tree : '';
        if (!repo.tree(baseTree)) throw new HttpProblem(422, 'base_tree is not a valid tree oid');
        files = repo.flatten(baseTree);
      }
      for (const raw of input.tree as unknown[]) {
        const entry = object(raw);
        const path = typeof entry.path === 'string' ? entry.path : '';
        if (path === '' || path.startsWith('/') || path.endsWith('/') || path.split('/').some(badPathPart)) {
          throw new HttpProblem(422, `tree.path contains a malformed path component`);
        }
        const mode = String(entry.mode) as GitMode;
        if (!MODES.has(mode)) throw new HttpProblem(422, `tree.mode must be one of ${[...MODES].join(', ')}`);
        const type = entry.type === undefined ? typeOfMode(mode) : (entry.type as GitObjectType);
        if (type !== typeOfMode(mode)) throw new HttpProblem(422, `tree.type ${String(type)} does not match mode`);
        const hasContent = typeof entry.content === 'string';
        if (hasContent && entry.sha !== undefined) {
          throw new HttpProblem(422, 'Must supply either tree.sha or tree.content, not both');
        }
        // Whatever was at the path (a file or a directory) is replaced.
        for (const existing of [...files.keys()]) {
          if (existing === path || existing.startsWith(`${path}/`)) files.delete(existing);
        }
        if (entry.sha === null) continue;
        if (hasContent) {
          if (type !== 'blob') throw new HttpProblem(422, 'tree.content is only valid for blobs');
          files.set(path, { mode, sha: repo.putBlob(Buffer.from(entry.content as string, 'utf8')) });
          continue;
        }
        if (typeof entry.sha !== 'string') throw new HttpProblem(422, 'Must supply either tree.sha or tree.content');
        if (type === 'tree') {
          if (!repo.tree(entry.sha)) throw new HttpProblem(422, `tree.sha ${entry.sha} is not a valid tree`);
          for (const [sub, leaf] of repo.flatten(entry.sha)) files.set(`${path}/${sub}`, leaf);
        } else {
          if (type === 'blob' && !repo.blob(entry.sha)) {
            throw new HttpProblem(422, `tree.sha ${entry.sha} is not a valid blob`);
          }
          files.set(path, { mode, sha: entry.sha });
        }
      }
      let sha: string;
      try {
        sha = repo.buildTree(files);
      } catch (error) {
        if (!(error instanceof TreePathConflict)) throw error;
        throw validationFailed([{ resource: 'Tree', field: 'path', code: 'invalid', message: error.message }]);
      }
      return { status: 201, body: this.treeJson(repo, sha, false) };
    });

    route('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', ({ repo, params }) => {
      const sha = params.file_sha as string;
      const content = repo.blob(sha);
      if (!content) throw notFound();
      return {
        status: 200,
        body: {
          sha,
          node_id: `B_${sha}`,
          size: content.length,
          url: this.apiUrl(`${this.repoPath(repo)}/git/blobs/${sha}`),
          // GitHub wraps the base64 text at 60 characters.
          content: (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n',
          encoding: 'base64',
        },
      };
    });

    route('POST /repos/{owner}/{repo}/git/blobs', ({ repo, body }) => {
      const input = object(body);
      if (typeof input.content !== 'string') {
        throw validationFailed([{ resource: 'Blob', field: 'content', code: 'missing_field' }]);
      }
      const encoding = input.encoding ?? 'utf-8';
      if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') {
        throw validationFailed([{ resource: 'Blob', field: 'encoding', code: 'invalid' }]);
      }
      const content = Buffer.from(input.content, encoding === 'base64' ? 'base64' : 'utf8');
      const sha = repo.putBlob(content);
      return { status: 201, body: { sha, url: this.apiUrl(`${this.repoPath(repo)}/git/blobs/${sha}`) } };
    });

    route('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', ({ repo, params }) => ({
      status: 200,
      body: this.commitJson(repo, params.commit_sha as string),
    }));

    route('POST /repos/{owner}/{repo}/git/commits', ({ repo, body, login }) => {
      const input = object(body);
      const message = requiredString(input, 'message', 'Commit');
      const tree = requiredString(input, 'tree', 'Commit');
      if (!repo.tree(tree)) throw new HttpProblem(422, 'Tree SHA does not exist');
      const parents = input.parents === undefined ? [] : input.parents;
      if (!Array.isArray(parents) || parents.some((parent) => typeof parent !== 'string' || !repo.commit(parent))) {
        throw new HttpProblem(422, 'Parent SHA does not exist or is not a commit object');
      }
      const now = gitNow();
      const author = signatureOf(input.author, { ...this.identityOf(login), date: now }, now);
      const committer = signatureOf(input.committer, author, now);
      const sha = repo.putCommit({ tree, parents: parents as string[], author, committer, message });
      return { status: 201, body: this.commitJson(repo, sha) };
    });

    route('GET /repos/{owner}/{repo}/contents/{path}', ({ repo, params, query }) => {
      const commitSha = repo.resolveCommit(query.ref ?? repo.defaultBranch);
      const commit = commitSha ? repo.commit(commitSha) : undefined;
      if (!commit) throw new HttpProblem(404, `No commit found for the ref ${query.ref ?? repo.defaultBranch}`);
      const path = (params.path ?? '').replace(/\/$/, '');
      const base = this.repoPath(repo);
      const describe = (entryPath: string, entry: GitTreeEntry) => {
        const type = entry.type === 'tree' ? 'dir' : entry.type === 'commit' ? 'submodule' : 'file';
        return {
          type: entry.mode === '120000' ? 'symlink' : type,
          name: entry.name,
          path: entryPath,
          sha: entry.sha,
          size: entry.type === 'blob' ? (repo.blob(entry.sha)?.length ?? 0) : 0,
          url: this.apiUrl(`${base}/contents/${entryPath}?ref=${query.ref ?? repo.defaultBranch}`),
          html_url: `https://${this.webHost}/${repo.owner}/${repo.name}/blob/${query.ref ?? repo.defaultBranch}/${entryPath}`,
          git_url: this.apiUrl(`${base}/git/${entry.type}s/${entry.sha}`),
        };
      };
      let treeSha = commit.tree;
      let found: GitTreeEntry | undefined;
      if (path !== '') {
        const parts = path.split('/');
        for (let i = 0; i < parts.length; i++) {
          found = repo.tree(treeSha)?.find((entry) => entry.name === parts[i]);
          if (!found || (i < parts.length - 1 && found.type !== 'tree')) throw notFound();
          if (found.type === 'tree') treeSha = found.sha;
        }
      }
      if (!found || found.type === 'tree') {
        const entries = repo.tree(treeSha) ?? [];
        return {
          status: 200,
          body: entries.map((entry) => describe(path === '' ? entry.name : `${path}/${entry.name}`, entry)),
        };
      }
      const content = repo.blob(found.sha) ?? Buffer.alloc(0);
      return {
        status: 200,
        body: {
          ...describe(path, found),
          encoding: 'base64',
          content: (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n',
        },
      };
    });

    // The contents API's write: one file as one commit on the branch's head (blob, tree, commit and ref in one
    // request). Updating a file needs its current blob id in `sha` (409 when it is another: the file changed); a new
    // file takes none. The branch must exist (404). An existing file keeps its mode, a new one is 100644.
    route('PUT /repos/{owner}/{repo}/contents/{path}', ({ repo, params, body, login }) => {
      const input = object(body);
      const message = requiredString(input, 'message', 'Commit');
      const encoded = input.content;
      if (typeof encoded !== 'string') {
        throw validationFailed([{ resource: 'Commit', field: 'content', code: 'missing_field' }]);
      }
      if (!/^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/.test(encoded)) throw new HttpProblem(422, 'content is not valid Base64');
      const branch = typeof input.branch === 'string' && input.branch !== '' ? input.branch : repo.defaultBranch;
      const head = repo.branchSha(branch);
      if (!head) throw new HttpProblem(404, `Branch ${branch} not found`);
      const path = params.path ?? '';
      if (path === '' || path.startsWith('/') || path.endsWith('/') || path.split('/').some(badPathPart)) {
        throw new HttpProblem(422, 'path contains a malformed path component');
      }
      const files = repo.flatten(repo.commit(head)?.tree ?? '');
      const existing = files.get(path);
      if (existing) {
        if (typeof input.sha !== 'string' || input.sha === '') {
          throw new HttpProblem(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
        }
        if (input.sha !== existing.sha) throw new HttpProblem(409, `${path} does not match ${input.sha}`);
      }
      const content = Buffer.from(encoded, 'base64');
      const blob = repo.putBlob(content);
      files.set(path, { mode: existing?.mode ?? '100644', sha: blob });
      let tree: string;
      try {
        tree = repo.buildTree(files);
      } catch (error) {
        if (!(error instanceof TreePathConflict)) throw error;
        throw validationFailed([{ resource: 'Commit', field: 'path', code: 'invalid', message: error.message }]);
      }
      const now = gitNow();
      const committer = signatureOf(input.committer, { ...this.identityOf(login), date: now }, now);
      const author = signatureOf(input.author, committer, now);
      const sha = repo.putCommit({ tree, parents: [head], author, committer, message });
      repo.refs.set(`refs/heads/${branch}`, sha);
      const base = this.repoPath(repo);
      const name = path.slice(path.lastIndexOf('/') + 1);
      const self = this.apiUrl(`${base}/contents/${path}?ref=${branch}`);
      const git = this.apiUrl(`${base}/git/blobs/${blob}`);
      const html = `https://${this.webHost}/${repo.owner}/${repo.name}/blob/${branch}/${path}`;
      return {
        status: existing ? 200 : 201,
        body: {
          content: {
            name,
            path,
            sha: blob,
            size: content.length,
            url: self,
            html_url: html,
            git_url: git,
            download_url: null,
            type: 'file',
            _links: { self, git, html },
          },
          commit: this.commitJson(repo, sha),
        },
      };
    });

    // ------------------------------------------------ pull requests

    route('POST /repos/{owner}/{repo}/pulls', ({ repo, body, login }) => {
      const input = object(body);
      const title = requiredString(input, 'title', 'PullRequest');
      const headSpec = requiredString(input, 'head', 'PullRequest');
      const base = requiredString(input, 'base', 'PullRequest');
      const [headOwner, head] = headSpec.includes(':')
        ? (headSpec.split(/:(.*)/s, 2) as [string, string])
        : [repo.owner, headSpec];
      const invalid = (field: string) => validationFailed([{ resource: 'PullRequest', field, code: 'invalid' }]);
      if (headOwner.toLowerCase() !== repo.owner.toLowerCase()) throw invalid('head');
      const headSha = repo.branchSha(head);
      if (!headSha) throw invalid('head');
      const baseSha = repo.branchSha(base);
      if (!baseSha) throw invalid('base');
      if (repo.pulls.some((pull) => pull.state === 'open' && pull.head === head && pull.base === base)) {
        throw validationFailed([
          {
            resource: 'PullRequest',
            code: 'custom',
            message: `A pull request already exists for ${repo.owner}:${head}.`,
          },
        ]);
      }
      if (repo.isAncestor(headSha, baseSha)) {
        throw validationFailed([
          { resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` },
        ]);
      }
      const now = gitNow();
      const pull: StoredPull = {
        number: repo.pulls.length + 1,
        title,
        body: typeof input.body === 'string' ? input.body : '',
        state: 'open',
        merged: false,
        head,
        base,
        createdAt: now,
        updatedAt: now,
        user: login,
      };
      repo.pulls.push(pull);
      return { status: 201, body: this.pullJson(repo, pull) };
    });

    route('GET /repos/{owner}/{repo}/pulls', ({ repo, query, request }) => {
      const state = query.state ?? 'open';
      if (!['open', 'closed', 'all'].includes(state)) {
        throw validationFailed([{ resource: 'Search', field: 'state', code: 'invalid' }]);
      }
      let pulls = repo.pulls.filter((pull) => state === 'all' || pull.state === state);
      if (query.head) {
        const [headOwner, head] = query.head.includes(':')
          ? (query.head.split(/:(.*)/s, 2) as [string, string])
          : [repo.owner, query.head];
        pulls = pulls.filter((pull) => headOwner.toLowerCase() === repo.owner.toLowerCase() && pull.head === head);
      }
      if (query.base) pulls = pulls.filter((pull) => pull.base === query.base);
      const sort = query.sort ?? 'created';
      const direction = query.direction ?? (sort === 'created' ? 'desc' : 'asc');
      const key = (pull: StoredPull) => (sort === 'updated' ? pull.updatedAt : pull.createdAt);
      pulls = [...pulls].sort((a, b) => key(a).localeCompare(key(b)) || a.number - b.number);
      if (direction === 'desc') pulls.reverse();
      const perPage = Math.min(Math.max(Number(query.per_page ?? 30) || 30, 1), 100);
      const page = Math.max(Number(query.page ?? 1) || 1, 1);
      const pages = Math.max(Math.ceil(pulls.length / perPage), 1);
      const headers: Record<string, string> = {};
      const links: string[] = [];
      const pageUrl = (n: number) => {
        const params = new URLSearchParams({ ...query, page: String(n) });
        return `<${this.apiUrl(request.path)}?${params.toString()}>`;
      };
      if (page < pages) links.push(`${pageUrl(page + 1)}; rel="next"`, `${pageUrl(pages)}; rel="last"`);
      if (page > 1) links.push(`${pageUrl(page - 1)}; rel="prev"`, `${pageUrl(1)}; rel="first"`);
      if (links.length > 0) headers.link = links.join(', ');
      const slice = pulls.slice((page - 1) * perPage, page * perPage);
      return { status: 200, headers, body: slice.map((pull) => this.pullJson(repo, pull)) };
    });

    const findPull = (repo: FakeRepository, number: string | undefined) => {
      const pull = repo.pulls.find((candidate) => String(candidate.number) === number);
      if (!pull) throw notFound();
      return pull;
    };

    route('GET /repos/{owner}/{repo}/pulls/{pull_number}', ({ repo, params }) => ({
      status: 200,
      body: this.pullJson(repo, findPull(repo, params.pull_number)),
    }));

    route('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', ({ repo, params, body }) => {
      const pull = findPull(repo, params.pull_number);
      const input = object(body);
      if (typeof input.title === 'string') pull.title = input.title;
      if (typeof input.body === 'string') pull.body = input.body;
      if (typeof input.base === 'string') {
        if (!repo.branchSha(input.base))
          throw validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
        pull.base = input.base;
      }
      if (input.state === 'closed') this.closeStoredPull(repo, pull);
      if (input.state === 'open' && pull.state === 'closed' && !pull.merged) {
        pull.state = 'open';
        pull.closedAt = undefined;
        pull.closedHeadSha = undefined;
      }
      pull.updatedAt = gitNow();
      return { status: 200, body: this.pullJson(repo, pull) };
    });

    route('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', ({ repo, params, login }) => {
      const pull = findPull(repo, params.pull_number);
      if (pull.state !== 'open') throw new HttpProblem(405, 'Pull Request is not mergeable');
      const sha = this.mergePull(repo, pull, login);
      return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } };
    });
  }
}

// ---------------------------------------------------------------- helpers

function repositoryKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

/** A commit's author or committer as a request gives it (`{ name, email, date? }`), or `fallback` when it gives none. */
function signatureOf(value: unknown, fallback: GitSignature, now: string): GitSignature {
  if (value === undefined) return fallback;
  const given = object(value);
  if (typeof given.name !== 'string' || typeof given.email !== 'string') {
    throw validationFailed([{ resource: 'Commit', field: 'author', code: 'invalid' }]);
  }
  const date = typeof given.date === 'string' ? new Date(given.date) : new Date(now);
  if (Number.isNaN(date.getTime())) throw validationFailed([{ resource: 'Commit', field: 'date', code: 'invalid' }]);
  return { name: given.name, email: given.email, date: date.toISOString().replace(/\.\d+Z$/, 'Z') };
}

function badPathPart(part: string): boolean {
  return part === '' || part === '.' || part === '..' || part === '.git';
}

function requestMatches(
  request: FakeGitHubRequest,
  filter: string | RegExp | ((request: FakeGitHubRequest) => boolean) | undefined,
): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'string') return request.route === filter;
  if (filter instanceof RegExp) return filter.test(`${request.method} ${request.path}`);
  return filter(request);
}

/** The answer `fault` makes to a request for `requestUrl` (its path and query). */
function faultReply(fault: Exclude<FakeGitHubFault, { type: 'echo-credentials' }>, requestUrl: string): Reply {
  switch (fault.type) {
    case 'redirect':
      return { status: fault.status ?? 302, headers: { location: new URL(requestUrl, fault.origin).href } };
    case 'status':
      return {
        status: fault.status,
        body: { message: fault.message ?? STATUS_CODES[fault.status] ?? 'Error', documentation_url: DOCS },
      };
    case 'secondary-rate-limit':
      return {
        status: 403,
        headers: { 'retry-after': String(fault.retryAfterSeconds ?? 60) },
        body: {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
          documentation_url:
            'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
        },
      };
    case 'primary-rate-limit':
      return {
        status: fault.status ?? 403,
        headers: {
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': '5000',
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + (fault.resetInSeconds ?? 60)),
          'x-ratelimit-resource': 'core',
        },
        body: {
          message: 'API rate limit exceeded for installation ID 1.',
          documentation_url:
            'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit',
        },
      };
    case 'close':
    case 'hang':
      return { status: 500 }; // handled before a reply is made
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
