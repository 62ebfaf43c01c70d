// What the four fake Git hosts share: the loopback server, request log, latency, scripted faults, tokens, route table,
// the request pipeline, request helpers, the repositories tests seed and read with their pull requests, and offset
// paging. Each host file adds its routes, the rule of each step of the pipeline (credentials, error bodies, repository
// lookup) and its wire shapes (JSON fields, status codes, rate-limit headers, paging).
import {
  STATUS_CODES,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { echoingFault } from './echoed-credentials.js';
import { GitRepository, type GitCommit } from './git-repository.js';
import { listenOnLoopback } from './listen.js';

/** Who a commit names as its author: git writes `name <email>`; the e-mail may be empty. */
export type CommitIdentity = { name: string; email: string };

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

/** What every fake logs of a request. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The route in the host's notation; undefined: unknown. */
  route?: string;
  /** The status answered; undefined while pending or for a dropped connection. */
  status?: number;
}

export interface FaultMatch {
  /** How many matching requests get the fault. Default 1. */
  times?: number;
  method?: string;
  /** A route in the host's notation (exact). */
  route?: string;
  /** A string the path contains, or a RegExp tested against `METHOD path`. */
  path?: string | RegExp;
}

/** The faults every host answers alike; each host adds its rate limits. */
export type CommonFault =
  | { type: 'status'; status: number; message?: string }
  /** This status, with a message that repeats the credential the request carried (`echoedCredentials`). */
  | { type: 'echo-credentials'; status: number }
  /** A redirect (302 unless told) to the same path and query on `origin`: a host that moved, a download elsewhere. */
  | { type: 'redirect'; origin: string; status?: RedirectStatus }
  /** Destroy the connection without an answer. */
  | { type: 'close' }
  /** Rate limited as the host announces it, lifting `seconds` from now (`status`: GitHub's primary limit, 403/429). */
  | { type: 'rate-limit'; seconds: number; status?: 403 | 429 }
  /** Never answer (logged without a status, nothing applied): holds a caller in the middle of its work. */
  | { type: 'hang' };

/** An answer: JSON (`body`), bytes with their content type (`raw`), or nothing. */
export interface Reply {
  status: number;
  body?: unknown;
  raw?: { type: string; data: Buffer | string };
  headers?: Record<string, string>;
}

/** An error answer in the host's shape, thrown by a route: JSON, or bytes (`raw`: Azure's sign-in page). */
export class HostError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    readonly raw?: Reply['raw'],
  ) {
    super(JSON.stringify(body));
  }
}

/** A route table: `{name}` or `:name` parameters; a last one named in `rest`, or `{*name}`, takes the rest of the path. */
export class Router<T extends { route: string }> {
  private readonly entries: { entry: T; method: string; segments: string[] }[] = [];

  /** `rest`: the final parameters taking the rest of the path, and whether that rest may be empty. */
  constructor(private readonly options: { rest?: Record<string, boolean>; ignoreCase?: boolean } = {}) {}

  /** Adds a route named `METHOD pattern` (or `METHOD name`, its pattern given). */
  add(entry: T, pattern = entry.route.slice(entry.route.indexOf(' ') + 1)): void {
    const method = entry.route.slice(0, entry.route.indexOf(' '));
    this.entries.push({ entry, method, segments: pattern === '' ? [] : pattern.split('/').slice(1) });
  }

  match(method: string, segments: readonly string[]): { entry: T; params: Record<string, string> } | undefined {
    const { rest = {}, ignoreCase = false } = this.options;
    const same = (a: string, b: string) => (ignoreCase ? a.toLowerCase() === b.toLowerCase() : a === b);
    candidates: for (const { entry, method: entryMethod, segments: pattern } of this.entries) {
      if (entryMethod !== method) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < pattern.length; i++) {
        const part = pattern[i] as string;
        const param = /^\{(.+)\}$/.exec(part)?.[1] ?? (part.startsWith(':') ? part.slice(1) : undefined);
        if (param?.startsWith('*') || (param !== undefined && i === pattern.length - 1 && param in rest)) {
          const remainder = segments.slice(i).join('/');
          if (remainder === '' && !param.startsWith('*') && !rest[param]) continue candidates;
          params[param.replace(/^\*/, '')] = remainder;
          return { entry, params };
        }
        const segment = segments[i];
        if (segment === undefined || (param !== undefined && segment === '')) continue candidates;
        if (param !== undefined) params[param] = segment;
        else if (!same(part, segment)) continue candidates;
      }
      if (segments.length === pattern.length) return { entry, params };
    }
    return undefined;
  }
}

export const ok = (body: unknown): Reply => ({ status: 200, body });

/** A request body as JSON (undefined when empty), or the host's error for one that is not JSON. */
export function parseJson(text: string, invalid: () => Error): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid();
  }
}

/** A request body that must be a JSON object, or the host's error. */
export function jsonObject(body: unknown, invalid: () => Error): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid();
  return body as Record<string, unknown>;
}

/** The credential of the `Authorization` header when its scheme is one of `schemes` (lower case). */
export function authorization(request: IncomingMessage, ...schemes: string[]): string | undefined {
  const [, scheme = '', credential] = /^(\S+)\s+(\S+)$/.exec(request.headers.authorization ?? '') ?? [];
  return schemes.includes(scheme.toLowerCase()) ? credential : undefined;
}

/** A Basic credential's user name and password (the user empty when there is no colon). */
export function basicCredential(credential: string): { user: string; password: string } {
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { user: decoded.slice(0, Math.max(colon, 0)), password: decoded.slice(colon + 1) };
}

/** A request body's field as a string: '' when it is not one. */
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `value`, or the host's error when there is none. */
export function found<T>(value: T | undefined, error: () => Error): T {
  if (value === undefined) throw error();
  return value;
}

/** A `Link` header: for each rel given a page number, `url` with the query, that page and `extra`. */
export function pageLinks(url: string, query: object, rels: Record<string, number | false>, extra = {}): string {
  const link = (page: number) => `<${url}?${new URLSearchParams({ ...query, page: `${page}`, ...extra }).toString()}>`;
  return Object.entries(rels)
    .flatMap(([rel, page]) => (page === false ? [] : [`${link(page)}; rel="${rel}"`]))
    .join(', ');
}

/** Whether each query parameter among `fields` that the query gives (`sha=…`, `environment=…`) has that value. */
export const matchesQuery = (query: Record<string, string>, fields: Record<string, string | undefined>): boolean =>
  Object.entries(fields).every(([name, value]) => query[name] === undefined || query[name] === value);

/**
 * What a host keeps beside git and its pull requests (deployments, commit or pull request statuses), by what each
 * belongs to (a repository, a pull request, a commit id), numbered across all of them as hosts number them.
 */
export class RecordsOf<Owner, T> {
  private readonly byOwner = new Map<Owner, T[]>();
  private lastId = 0;

  /** The records of `owner`, oldest first. */
  of(owner: Owner): T[] {
    let records = this.byOwner.get(owner);
    if (!records) this.byOwner.set(owner, (records = []));
    return records;
  }

  nextId(): number {
    return ++this.lastId;
  }

  /** The record of `owner` with this `id`, or the host's error. */
  find(owner: Owner, id: string | undefined, notFound: () => Error): T {
    const record = this.of(owner).find((candidate) => String((candidate as { id?: unknown }).id) === id);
    return found(record, notFound);
  }
}

/** When a rate limit lifts, `seconds` from now, in seconds since the epoch (as `X-RateLimit-Reset` gives it). */
export const resetAt = (seconds: number): string => String(Math.floor(Date.now() / 1000) + seconds);

/** The text of a status (`Not Found`), as hosts put it in their error messages. */
export const statusText = (status: number) => STATUS_CODES[status] ?? 'Error';

/** The page numbers of an offset-paged listing (`page`, `per_page` from the query, clamped as the hosts clamp them). */
export function offsetPage(total: number, query: Record<string, string>, defaultPerPage: number) {
  const perPage = Math.min(Math.max(Number(query.per_page ?? defaultPerPage) || defaultPerPage, 1), 100);
  const page = Math.max(Number(query.page ?? 1) || 1, 1);
  const pages = Math.max(Math.ceil(total / perPage), 1);
  return { page, perPage, pages, start: (page - 1) * perPage, end: page * perPage };
}

type Pending<F> = F & FaultMatch & { remaining: number };

/** Who commits a test's commit, when not the fake's identity. */
type Authored = { author?: CommitIdentity };
type NewRepository = Authored & { defaultBranch?: string; message?: string };
/** A commit's changes: a string sets a file's content, null deletes it. */
type Edits = Record<string, string | null>;

/** The options every fake host takes; each documents its defaults. */
export interface FakeGitHostOptions<R> {
  /** The default token. Default: a random one in the host's format. */
  token?: string;
  latencyMs?: number | ((request: R) => number);
  /** Who commits what a test commits (a repository's first commit, `commitFiles`) unless it names an author. */
  identity?: CommitIdentity;
  /** The host of web URLs (`html_url`, `web_url`, pull request pages). */
  webHost?: string;
  /**
   * Web URLs of pull (or merge) requests name this fake instead of `webHost`, and it serves each one's page there,
   * marked as simulated: for a simulation whose links a person may open.
   */
  webPages?: boolean;
}

/** What a host is: its name, how many arguments name a repository, its default token, identity and web host. */
interface HostSpec<Names extends string[]> {
  name: string;
  nameCount: Names['length'];
  token: string;
  identity: CommitIdentity;
  webHost?: string;
}

/** What the pipeline gives a route. A host adds what its routes read (`contextOf`). */
export interface RouteContext<R extends LoggedRequest, Credential, Repo> {
  params: Record<string, string>;
  query: Record<string, string>;
  /** The JSON body; undefined when empty or a form. */
  body: unknown;
  /** A `multipart/form-data` body, for a host that takes forms (`takesForms`). */
  form?: FormData;
  request: R;
  /** The request's headers: Azure's items route answers a zip when `Accept` asks for one. */
  headers: IncomingHttpHeaders;
  /** What the caller's credential stands for; undefined on an `open` route. */
  credential: Credential;
  /** The repository the path names; undefined (though typed as present) on a route that names none. */
  repo: Repo;
}

export interface HostRoute<Context> {
  route: string;
  /** Answered without authentication: an address that is its own credential (GitHub's download links). */
  open?: boolean;
  /** The route writes: a read-only credential is refused (`authorize`). */
  writes?: boolean;
  handle: (context: Context) => Reply | Promise<Reply>;
}

type Matched<Context> = ReturnType<Router<HostRoute<Context>>['match']>;

/**
 * One fake host: `R` its request log entry, `Fault` its own faults beside the common ones, `Repo` its repository,
 * `Names` what names a repository in the test-facing methods (`[owner, name]`, `[path]`…), `Credential` what a token
 * it accepts stands for, `Context` what its routes are given.
 *
 * It answers a request in the order every real host takes its steps: authenticate (a stranger gets 401 before any
 * 404, so an unknown path tells nothing), match a route (the host's answer to an unknown one), authorize the route,
 * read the body (a malformed one is the host's 400), find the repository the path names, run the route. A host
 * declares each step's rule (its credentials, its error bodies, its repository lookup), its routes and the shape of
 * its answers.
 */
export abstract class FakeGitHost<
  R extends LoggedRequest,
  Fault extends { type: string },
  Repo extends GitRepository,
  Names extends string[],
  Credential,
  Context = RouteContext<R, Credential, Repo>,
> {
  /** Every request received, oldest first (cleared by `resetRequests`). */
  readonly requests: R[] = [];
  latencyMs: number | ((request: R) => number);
  readonly token: string;

  protected readonly repositories = new Map<string, Repo>();
  /** The tokens accepted, and what each stands for. */
  protected readonly tokens = new Map<string, Credential>();
  protected readonly identity: CommitIdentity;
  protected readonly webHost: string;
  protected readonly webPages: boolean;
  /** The API's path below the server root (`/api/v3`, a context path…): `url` is the origin and this. */
  protected abstract readonly apiBase: string;
  protected abstract readonly router: Router<HostRoute<Context>>;
  /** The message of the 400 for a body that is not JSON. */
  protected abstract readonly invalidJson: string;
  /** Whether a `multipart/form-data` body is read as a form rather than refused as JSON. */
  protected readonly takesForms: boolean = false;
  protected abstract readonly jsonType: string;
  private readonly host: HostSpec<Names>;
  private faults: Pending<CommonFault | Fault>[] = [];
  private server?: Server;
  private port?: number;
  private readonly sockets = new Set<Socket>();

  constructor(host: HostSpec<Names>, options: FakeGitHostOptions<R>) {
    this.host = host;
    this.latencyMs = options.latencyMs ?? 0;
    this.token = options.token ?? host.token;
    this.identity = options.identity ?? host.identity;
    this.webHost = options.webHost ?? host.webHost ?? '';
    this.webPages = options.webPages === true;
  }

  static async start<O, H extends { start(): Promise<H> }>(this: new (options?: O) => H, options?: O): Promise<H> {
    return new this(options).start();
  }

  /** What the caller's credential stands for; throws the host's 401 for a missing or wrong one. */
  protected abstract authenticate(
    request: IncomingMessage,
    logged: R,
    route: HostRoute<Context> | undefined,
  ): Credential;

  /** Throws the host's refusal when the credential may not use the route. Default: every credential may. */
  protected authorize(_credential: Credential, _route: HostRoute<Context>): void {}

  /** The repository the route's parameters name (undefined for a route that names none), or the host's 404. */
  protected abstract findRepository(params: Record<string, string>, credential: Credential): Repo | undefined;

  /** The answer to an authenticated request of no route: the host's 404. */
  protected noRoute(_logged: R): HostError {
    return this.hostError(404);
  }

  /** What a host's routes are given, from what the pipeline found. Default: that as it is. */
  protected contextOf(context: RouteContext<R, Credential, Repo>): Context {
    return context as Context;
  }

  /** The body of an error answer: of a `failNext` status (no message: the host's own), or of a bug in the fake (500). */
  protected abstract errorBody(status: number, message: string | undefined): unknown;
  protected hostError(status: number, message?: string): HostError {
    return new HostError(status, this.errorBody(status, message));
  }
  protected abstract rateLimited(fault: { seconds: number; status?: 403 | 429 }): Reply;
  /** The answer of one of the host's own faults. */
  protected faultReply(fault: Fault): Reply {
    throw new Error(`fake ${this.host.name}: no answer for the fault ${fault.type}`);
  }
  /** The headers of every answer (request ids, rate-limit headers). */
  protected abstract baseHeaders(): Record<string, string>;

  /**
   * What the host makes of a request before faults: its log entry (the decoded path below `apiBase`), the route it
   * matches, and for a path outside `apiBase` a web page (`outside`, answered before any fault) or none.
   */
  protected receive(request: IncomingMessage, url: URL, method: string) {
    const query = Object.fromEntries(url.searchParams);
    const below = url.pathname.startsWith(`${this.apiBase}/`) ? url.pathname.slice(this.apiBase.length) : undefined;
    const segments = this.apiSegments(below);
    const logged = { method, path: this.loggedPath(below, segments) ?? url.pathname, query } as R;
    const matched: Matched<Context> = segments && this.router.match(method, segments);
    if (matched) logged.route = matched.entry.route;
    const outside = below === undefined ? this.outside(url.pathname, method) : undefined;
    return { logged, matched, outside };
  }

  /** The route's segments of a path below `apiBase`, decoded; undefined when one is not valid percent-encoding. */
  protected apiSegments(below: string | undefined): string[] | undefined {
    try {
      return below?.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return undefined;
    }
  }

  /** The path a request is logged with: decoded, below `apiBase`. */
  protected loggedPath(_below: string | undefined, segments: string[] | undefined): string | undefined {
    return segments && `/${segments.join('/')}`;
  }

  /** The answer to a path outside `apiBase`, before faults: with `webPages`, a pull request's page. */
  protected outside(path: string, method: string): Reply | undefined {
    const page = this.webPages && method === 'GET' ? this.webPull?.(path) : undefined;
    return page === undefined ? undefined : pullRequestPage(page ?? undefined);
  }

  /** The pull request a web path names, as its page shows it; null: none by that number; undefined: no such page. */
  protected webPull?(path: string): PullRequestPageInput | null | undefined;

  /** Where web URLs point: this fake with `webPages`, else `https://` and `webHost`. */
  protected get webBase(): string {
    return this.webPages && this.started ? this.origin : `https://${this.webHost}`;
  }

  /** The API's base URL, e.g. `http://127.0.0.1:43121/api/v3`: what a client is given. */
  get url(): string {
    return `${this.origin}${this.apiBase}`;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        // A bug in the fake answers 500 rather than crashing the test process.
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify(this.errorBody(500, `fake ${this.host.name}: ${String(error)}`)));
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

  /** `http://127.0.0.1:<port>`. */
  protected get origin(): string {
    if (this.port === undefined) throw new Error(`Fake${this.host.name.replace(/ /g, '')} is not started`);
    return `http://127.0.0.1:${this.port}`;
  }

  protected get started(): boolean {
    return this.port !== undefined;
  }

  /**
   * How many requests were received: all, those of a route in the host's notation, those whose `METHOD path`
   * matches a RegExp, or those a predicate accepts.
   */
  count(filter?: string | RegExp | ((request: R) => boolean)): number {
    return this.requests.filter((request) => {
      if (filter === undefined) return true;
      if (typeof filter === 'string') return request.route === filter;
      if (filter instanceof RegExp) return filter.test(`${request.method} ${request.path}`);
      return filter(request);
    }).length;
  }

  /** Requests per route (`unknown` for unrouted paths). */
  countsByRoute(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { route = 'unknown' } of this.requests) counts[route] = (counts[route] ?? 0) + 1;
    return counts;
  }

  resetRequests(): void {
    this.requests.length = 0;
  }

  /** The next matching requests get `fault` instead of their answer. Faults are used in the order added. */
  injectFault(fault: CommonFault | Fault, match: FaultMatch = {}): void {
    this.faults.push({ ...match, ...fault, remaining: match.times ?? 1 });
  }

  /** The next matching requests are answered with this status (502, 500, 404, 401, …). */
  failNext(status: number, match: FaultMatch & { message?: string } = {}): void {
    this.injectFault({ type: 'status', status, message: match.message }, match);
  }

  /** The next matching requests are answered with this status and a message repeating their credential. */
  echoCredentialsNext(status: number, match: FaultMatch = {}): void {
    this.injectFault({ type: 'echo-credentials', status }, match);
  }

  closeNext(match: FaultMatch = {}): void {
    this.injectFault({ type: 'close' }, match);
  }

  /** The next matching requests are redirected to the same path and query on `origin` (see the `redirect` fault). */
  redirectNext(origin: string, match: FaultMatch & { status?: RedirectStatus } = {}): void {
    this.injectFault({ type: 'redirect', origin, status: match.status }, match);
  }

  /** The next matching requests are never answered (see the `hang` fault). */
  hangNext(match: FaultMatch = {}): void {
    this.injectFault({ type: 'hang' }, match);
  }

  /**
   * The next matching requests are rate limited, the limit lifting `retryAfterSeconds` (`resetInSeconds`, as GitLab's
   * and GitHub's tests name it; default 60) from now.
   */
  rateLimitNext(match: FaultMatch & { retryAfterSeconds?: number; resetInSeconds?: number } = {}): void {
    this.injectFault({ type: 'rate-limit', seconds: match.retryAfterSeconds ?? match.resetInSeconds ?? 60 }, match);
  }

  /** Stops accepting a token (the default one too). */
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  clearFaults(): void {
    this.faults = [];
  }

  private takeFault(request: R): Pending<CommonFault | Fault> | undefined {
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

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const { logged, matched, outside } = this.receive(request, url, (request.method ?? 'GET').toUpperCase());
    this.requests.push(logged);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const latency = typeof this.latencyMs === 'function' ? this.latencyMs(logged) : this.latencyMs;
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    if (outside) return this.send(response, logged, outside);

    const taken = this.takeFault(logged);
    if (taken?.type === 'hang') return;
    if (taken?.type === 'close') {
      request.socket.destroy();
      return;
    }
    if (taken) {
      const fault = echoingFault(taken as CommonFault, request.headers) as Exclude<CommonFault, { type: 'hang' }>;
      let reply: Reply;
      if (fault.type === 'redirect') {
        reply = { status: fault.status ?? 302, headers: { location: new URL(request.url ?? '/', fault.origin).href } };
      } else if (fault.type === 'status') {
        reply = { status: fault.status, body: this.errorBody(fault.status, fault.message) };
      } else if (fault.type === 'rate-limit') reply = this.rateLimited(fault);
      else reply = this.faultReply(fault as unknown as Fault);
      return this.send(response, logged, reply);
    }
    let reply: Reply;
    try {
      reply = await this.answer(request, logged, matched, Buffer.concat(chunks));
    } catch (error) {
      if (!(error instanceof HostError)) throw error;
      reply = { status: error.status, headers: error.headers, body: error.body, raw: error.raw };
    }
    this.send(response, logged, reply);
  }

  private send(response: ServerResponse, logged: R, reply: Reply): void {
    logged.status = reply.status;
    const headers: Record<string, string> = { ...this.baseHeaders(), ...reply.headers };
    if (reply.raw) headers['content-type'] = reply.raw.type;
    else if (reply.body !== undefined) headers['content-type'] = this.jsonType;
    response.writeHead(reply.status, headers);
    response.end(reply.raw ? reply.raw.data : reply.body === undefined ? undefined : JSON.stringify(reply.body));
  }

  // ---------------------------------------------------------------- repositories (test-facing)

  protected repository(...names: string[]): Repo {
    const repo = this.repositories.get(names.join('/').toLowerCase());
    if (!repo) throw new Error(`no repository ${names.join('/')}`);
    return repo;
  }

  /**
   * Creates a repository whose default branch holds `files` in one commit; returns that commit's id. The commit is
   * the fake's identity's unless `author` names someone else (who is then its committer too).
   */
  createRepository(...args: [...names: Names, files: Record<string, string>, options?: NewRepository]): string {
    const names = args.slice(0, this.host.nameCount) as Names;
    const [files, { defaultBranch = 'main', message = 'Initial commit', author = this.identity } = {}] =
      this.afterNames<[Record<string, string>, NewRepository?]>(args);
    const key = names.join('/');
    if (this.repositories.has(key.toLowerCase())) throw new Error(`repository ${key} exists`);
    const repo = this.newRepository(names, defaultBranch);
    this.repositories.set(key.toLowerCase(), repo);
    const sha = repo.commitChanges(undefined, files, author, message);
    repo.refs.set(`refs/heads/${repo.defaultBranch}`, sha);
    return sha;
  }

  /** A new, empty repository of the host, named as the test named it. */
  protected abstract newRepository(names: Names, defaultBranch: string): Repo;

  /**
   * Commits changes to a branch (created from the default branch when missing): a string sets a file's content, null
   * deletes it. Returns the new commit's id. The commit is the fake's identity's unless `author` names someone else
   * (who is then its committer too), as a person pushing to the repository.
   */
  commitFiles(...args: [...names: Names, branch: string, files: Edits, message?: string, options?: Authored]): string {
    const [branch, files, message = 'Update files', { author = this.identity } = {}] =
      this.afterNames<[string, Edits, string?, Authored?]>(args);
    const repo = this.repositoryOf(args);
    const parent = repo.branchSha(branch) ?? repo.branchSha(repo.defaultBranch);
    const sha = repo.commitChanges(parent, files, author, message);
    repo.refs.set(`refs/heads/${branch}`, sha);
    this.branchMoved(repo);
    return sha;
  }

  /** Every file at a ref (a branch, `heads/x`, `refs/heads/x`, or a commit id), by path, as UTF-8 text. */
  files(...args: [...names: Names, ref: string]): Record<string, string> {
    return this.filesAt(this.repositoryOf(args), ...this.afterNames<[string]>(args));
  }

  /** The commit a branch (`main`) or ref (`heads/main`, `refs/heads/main`) points at, or undefined. */
  ref(...args: [...names: Names, ref: string]): string | undefined {
    const { refs } = this.repositoryOf(args);
    const [ref] = this.afterNames<[string]>(args);
    return refs.get(ref) ?? refs.get(`refs/${ref}`) ?? refs.get(`refs/heads/${ref}`);
  }

  commit(...args: [...names: Names, sha: string]): GitCommit | undefined {
    return this.repositoryOf(args).commit(...this.afterNames<[string]>(args));
  }

  /** How many commits `branch` has that `base` (default: the default branch) does not (`git rev-list --count`). */
  commitsAhead(...args: [...names: Names, branch: string, base?: string]): number {
    const repo = this.repositoryOf(args);
    const [branch, base = repo.defaultBranch] = this.afterNames<[string, string?]>(args);
    const head = repo.branchSha(branch);
    if (!head) throw new Error(`no branch ${branch}`);
    return repo.commitsAhead(head, repo.branchSha(base));
  }

  /** The repository a test-facing method's first arguments name. */
  private repositoryOf(args: readonly unknown[]): Repo {
    return this.repository(...(args.slice(0, this.host.nameCount) as string[]));
  }

  /** A test-facing method's arguments after those naming the repository. */
  private afterNames<T extends unknown[]>(args: readonly unknown[]): T {
    return args.slice(this.host.nameCount) as T;
  }

  /** Called after a test moved a branch: a host whose pull requests follow their branches updates them. */
  protected branchMoved(_repo: Repo): void {}

  /** Every file at a ref, by path: as UTF-8 text, or (`blobIds`) as blob ids. Throws for an unknown ref. */
  protected filesAt(repo: Repo, ref: string, blobIds = false): Record<string, string> {
    if (!repo.resolveCommit(ref)) throw new Error(`no ref ${ref}`);
    const files: Record<string, string> = {};
    for (const [path, entry] of repo.flatAt(ref)) {
      const content = blobIds ? entry.sha : repo.blob(entry.sha)?.toString('utf8');
      if (content !== undefined) files[path] = content;
    }
    return files;
  }

  private async answer(request: IncomingMessage, logged: R, matched: Matched<Context>, raw: Buffer): Promise<Reply> {
    const credential = matched?.entry.open
      ? (undefined as Credential)
      : this.authenticate(request, logged, matched?.entry);
    if (!matched) throw this.noRoute(logged);
    this.authorize(credential, matched.entry);
    let body: unknown;
    let form: FormData | undefined;
    const contentType = request.headers['content-type'] ?? '';
    if (this.takesForms && contentType.startsWith('multipart/form-data')) {
      form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    } else {
      body = parseJson(raw.toString('utf8'), () => this.hostError(400, this.invalidJson));
    }
    const repo = this.findRepository(matched.params, credential) as Repo;
    const { params } = matched;
    const { query } = logged;
    const { headers } = request;
    return matched.entry.handle(
      this.contextOf({ params, query, body, ...(form && { form }), request: logged, headers, credential, repo }),
    );
  }
}

/** What every host keeps of a pull request (a merge request on GitLab); a host adds its own fields. Times in ms. */
export interface PullRecord {
  number: number;
  title: string;
  description: string;
  /** Each host names it its own way (`opened`, `OPEN`, `active`…). */
  state: 'open' | 'closed' | 'merged';
  source: string;
  target: string;
  createdAt: number;
  updatedAt: number;
  closedAt?: number;
  /** The source branch's commit when the pull request was closed or merged: what it showed last. */
  closedSha?: string;
  mergeCommitSha?: string;
}

/** A fake host's repository: git's objects and refs, its pull requests, and what the host knows it by (`Info`). */
export type HostRepository<P extends PullRecord, Info> = GitRepository & { readonly pulls: PullRequests<P> } & Info;

/** A new, empty repository of a host; `changed`: called when a pull request's state changes. */
export function hostRepository<P extends PullRecord, Info extends object>(
  info: Info,
  defaultBranch: string,
  changed?: (pull: P) => void,
): HostRepository<P, Info> {
  const repo = new GitRepository(defaultBranch);
  return Object.assign(repo, { pulls: new PullRequests<P>(repo, changed) }, info);
}

/** A repository's pull requests, oldest first, and the bookkeeping the hosts share: opening, closing, merging. */
export class PullRequests<P extends PullRecord> {
  readonly all: P[] = [];

  constructor(
    private readonly repo: GitRepository,
    private readonly changed: (pull: P) => void = () => {},
  ) {}

  /** Opens a pull request, numbered after the repository's others unless the host numbers them otherwise. */
  add(fields: Omit<P, keyof PullRecord> & Pick<P, 'title' | 'description' | 'source' | 'target'>, number?: number): P {
    const now = Date.now();
    const pull = { ...fields, number: number ?? this.all.length + 1, state: 'open', createdAt: now, updatedAt: now };
    this.all.push(pull as P);
    return pull as P;
  }

  find(number: number | string | undefined): P | undefined {
    return this.all.find((pull) => String(pull.number) === String(number));
  }

  /** For the test-facing methods: the pull request numbered so (an open one, when `open`), or an Error. */
  expect(number: number, open = false): P {
    const pull = this.find(number);
    if (!pull || (open && pull.state !== 'open')) throw new Error(`no ${open ? 'open ' : ''}pull request ${number}`);
    return pull;
  }

  /** The open pull request from `source` (into `target`, when given), other than `except`. */
  openFrom(source: string, target?: string, except?: P): P | undefined {
    const into = (pull: P) => target === undefined || pull.target === target;
    return this.all.find((pull) => pull !== except && pull.state === 'open' && pull.source === source && into(pull));
  }

  /** The source's commit: its branch's while open, the last one seen once closed. */
  headSha(pull: P): string | undefined {
    return pull.closedSha ?? this.repo.branchSha(pull.source);
  }

  /** Closes an open pull request (merged: its changes reached the target), keeping the source's commit. */
  close(pull: P, state: 'closed' | 'merged' = 'closed'): void {
    if (pull.state !== 'open') return;
    pull.closedSha = this.repo.branchSha(pull.source) ?? pull.closedSha;
    pull.state = state;
    pull.closedAt = pull.updatedAt = Date.now();
    this.changed(pull);
  }

  reopen(pull: P): void {
    pull.state = 'open';
    pull.closedAt = pull.closedSha = undefined;
    pull.updatedAt = Date.now();
    this.changed(pull);
  }

  /**
   * Merges an open pull request: a merge commit of the source's changes since the merge base onto the target (the
   * source wins any conflict), or a fast-forward when `fastForward` and the target has not moved. Moves the target
   * and returns its new commit; undefined when a branch is gone.
   */
  merge(pull: P, committer: { name: string; email: string }, message: string, fastForward = false): string | undefined {
    const source = this.repo.branchSha(pull.source);
    const target = this.repo.branchSha(pull.target);
    if (!source || !target) return undefined;
    const fastForwards = fastForward && this.repo.isAncestor(target, source);
    const sha = fastForwards ? source : this.repo.mergeCommit(target, source, committer, message);
    this.repo.refs.set(`refs/heads/${pull.target}`, sha);
    this.close(pull, 'merged');
    pull.mergeCommitSha = sha;
    return sha;
  }

  /** Closes the open pull requests `which` picks, as `state`. */
  closeWhere(which: (pull: P) => boolean, state: 'closed' | 'merged' = 'closed'): void {
    for (const pull of this.all) if (pull.state === 'open' && which(pull)) this.close(pull, state);
  }

  /** Closes, as `state`, the open pull requests (from `branch`, when given) whose source commit their target has. */
  closeReached(state: 'closed' | 'merged', branch?: string): void {
    this.closeWhere((pull) => {
      const [from, to] = [this.repo.branchSha(pull.source), this.repo.branchSha(pull.target)];
      return (branch === undefined || pull.source === branch) && !!from && !!to && this.repo.isAncestor(from, to);
    }, state);
  }
}

/** What a simulated host's page of a pull (or merge) request shows: `GitHub`, `acme/fleet`, `#3`, `pull request`. */
type PullRequestPageInput = { hostName: string; repository: string; reference: string; word: string; pull: PullRecord };

/**
 * A pull (or merge) request's web page, as a fake host serves it when its web URLs name the fake itself: a link a
 * simulation shows (the demo's screen, the dashboard, `status`) opens the simulated record, labelled as simulated,
 * never a page of the real host that does not exist.
 */
export function pullRequestPage(input: PullRequestPageInput | undefined): Reply {
  const type = 'text/html; charset=utf-8';
  if (!input) return { status: 404, raw: { type, data: '<!doctype html><title>Not found</title><p>Not found</p>\n' } };
  const { hostName, repository, reference, word, pull } = input;
  const title = `${repository} ${reference}: ${pull.title}`;
  const data =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>\n` +
    `<p><strong>Simulated ${escapeHtml(hostName)}</strong>: this ${escapeHtml(word)} exists only in this simulation ` +
    `(pipelinectl demo), not on the real ${escapeHtml(hostName)}.</p>\n` +
    `<h1>${escapeHtml(title)}</h1>\n` +
    `<p>state: <span id="state">${pull.state}</span> · ${escapeHtml(pull.source)} → ${escapeHtml(pull.target)}</p>\n` +
    `<pre>${escapeHtml(pull.description)}</pre>\n</body></html>\n`;
  return { status: 200, raw: { type, data } };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
