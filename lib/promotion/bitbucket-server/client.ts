// The Bitbucket Server / Data Center client of the pull-request strategy: with the credentials read from the Pipeline's
// Secret (credentials.ts: an HTTP access token, or a username and password as Weave used), a small REST client on
// fetch, the REST 1.0 resources the adapter (host.ts) uses with their answers checked by zod, and the mapping of
// Bitbucket's answers to PromotionErrors.
//
// Inside one call:
// - every request has its own timeout;
// - a 5xx, a network error or a timeout is retried a few times (retry n waits n² × retryBaseDelayMs). Writes are
//   retried too: each write the adapter makes is checked against the repository again when it conflicts, so a write
//   that went through before its answer was lost is found, not repeated;
// - a rate limit (429 from Data Center's token buckets) is waited out when its `Retry-After` is short; a longer one
//   ends the call, and toPromotionError turns it into a retryable PromotionError with that wait.
//
// Bitbucket answers an error as `{"errors":[{"context":…,"message":…,"exceptionName":…}]}`; BitbucketServerApiError
// carries it with the request's method and path (never its credentials).
import * as z from 'zod';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { failureKindOfStatus } from '../failure-kind.js';
import { PromotionError } from '../port.js';
import { basicAuthorization } from '../pull-request/basic-authorization.js';
import type { GitHostSettings } from '../pull-request/host.js';
import { originBoundFetch } from '../pull-request/origin-bound-fetch.js';
import { describeIssue } from '../../util/zod-issue.js';
import type { BitbucketServerCredentials } from './credentials.js';
import { errorMessage } from '../../util/error-message.js';

// ---------------------------------------------------------------- errors

const ErrorEntry = z.looseObject({
  context: z.string().nullish(),
  message: z.string().nullish(),
  exceptionName: z.string().nullish(),
});
export type BitbucketErrorEntry = z.infer<typeof ErrorEntry>;
const ErrorBody = z.looseObject({ errors: z.array(ErrorEntry) });

/** Bitbucket answered with an error status. */
export class BitbucketServerApiError extends Error {
  override name = 'BitbucketServerApiError';
  /** Bitbucket's error entries (empty when the body was not Bitbucket's error JSON). */
  readonly errors: readonly BitbucketErrorEntry[];

  constructor(
    readonly status: number,
    readonly method: string,
    /** The URL's path, context path included, without the query. */
    readonly path: string,
    /** The answer's body: the parsed JSON, or the text when it was not JSON. */
    readonly body: unknown,
    /** A rate limit's `Retry-After`, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    const parsed = ErrorBody.safeParse(body);
    const errors = parsed.success ? parsed.data.errors : [];
    const messages = errors.map((entry) => entry.message).filter((message): message is string => !!message);
    super(`Bitbucket Server API ${method} ${path}: ${status} ${messages.join('; ') || statusText(status)}`);
    this.errors = errors;
  }

  /** The first error's exception class, e.g. `com.atlassian.bitbucket.pull.DuplicatePullRequestException`. */
  get exceptionName(): string | undefined {
    return this.errors.find((entry) => entry.exceptionName)?.exceptionName ?? undefined;
  }

  /** Bitbucket's message, without the request. */
  get apiMessage(): string {
    return this.message.slice(`Bitbucket Server API ${this.method} ${this.path}: ${this.status} `.length);
  }
}

/** No answer: a network error, or the request timed out. Always worth another try. */
export class BitbucketServerConnectionError extends Error {
  override name = 'BitbucketServerConnectionError';

  constructor(
    readonly method: string,
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Bitbucket Server API ${method} ${path}: ${reason}`, options);
  }
}

/** A 2xx answer that is not what the REST API answers: the API URL most likely names something else. */
export class BitbucketServerAnswerError extends Error {
  override name = 'BitbucketServerAnswerError';

  constructor(
    readonly method: string,
    readonly path: string,
    problem: string,
  ) {
    super(
      `Bitbucket Server API ${method} ${path}: ${problem}; is the API URL that of a Bitbucket Server or Data ` +
        'Center instance (https://host[/context])?',
    );
  }
}

export function isApiError(error: unknown, ...statuses: number[]): error is BitbucketServerApiError {
  return error instanceof BitbucketServerApiError && (statuses.length === 0 || statuses.includes(error.status));
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    409: 'Conflict',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return texts[status] ?? 'Error';
}

/**
 * A PromotionError for anything a Bitbucket Server call threw, of the kind its status names (failure-kind.ts): 5xx,
 * network errors, timeouts and rate limits are retried (a rate limit with the wait Bitbucket asked for); rejected
 * credentials name the Secret; the other 4xx say what a person must fix.
 */
export function toPromotionError(error: unknown, secret: ObjectKey): PromotionError {
  if (error instanceof PromotionError) return error;
  const options = { cause: error };
  const secretName = `Secret ${objectKeyString(secret)}`;
  if (error instanceof BitbucketServerConnectionError)
    return new PromotionError('HostUnavailable', error.message, options);
  if (error instanceof BitbucketServerAnswerError)
    return new PromotionError('UnexpectedAnswer', error.message, options);
  if (!(error instanceof BitbucketServerApiError)) {
    const message = errorMessage(error);
    return new PromotionError('Unknown', `Bitbucket Server: ${message}`, options);
  }
  const { status } = error;
  // Bitbucket answers 401 both to credentials it rejects and to valid ones without the permission a resource needs.
  const lacksPermission =
    status === 403 ||
    (status === 401 && /AuthorisationException$/.test(error.exceptionName ?? '')) ||
    (status === 401 && /not permitted/i.test(error.apiMessage));
  if (lacksPermission) {
    return new PromotionError(
      'Forbidden',
      `${error.message}: the credentials of ${secretName} need write permission on the repository ` +
        '(REPO_WRITE: an HTTP access token with "Repository write", or a user with write access)',
      options,
    );
  }
  if (status === 401) {
    return new PromotionError(
      'Unauthorized',
      `${error.message}: Bitbucket Server rejected the credentials of ${secretName}`,
      options,
    );
  }
  if (status === 429) {
    const seconds = error.retryAfterSeconds;
    const retryAfterMs = seconds !== undefined && seconds > 0 ? seconds * 1000 : 60_000;
    return new PromotionError('RateLimited', `${error.message} (rate limited)`, { ...options, retryAfterMs });
  }
  const hint = status === 404 ? `: it does not exist, or the credentials of ${secretName} cannot see it` : '';
  return new PromotionError(failureKindOfStatus(status), `${error.message}${hint}`, options);
}

// ---------------------------------------------------------------- the REST client

type Query = Record<string, string | number | boolean | undefined>;

interface RequestOptions {
  query?: Query;
  json?: unknown;
  form?: FormData;
}

interface Answer {
  status: number;
  body: Buffer;
  contentType: string;
  /** A 429's wait: `Retry-After`, else the token bucket's refill interval. */
  retryAfterSeconds?: number;
}

const Page = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    values: z.array(item),
    isLastPage: z.boolean(),
    nextPageStart: z.number().int().nullish(),
    start: z.number().int().optional(),
    limit: z.number().int().optional(),
  });

export interface PageOf<T> {
  values: T[];
  isLastPage: boolean;
}

/** One Bitbucket Server instance with one set of credentials. */
/** How long an archive's whole body may take to arrive. */
const ARCHIVE_TIMEOUT_MS = 5 * 60_000;

export class BitbucketServerClient {
  private readonly base: string;
  private readonly authorization: string;
  private readonly fetch: typeof fetch;
  private readonly retries: number;
  private readonly retryBaseDelayMs: number;
  private readonly retryAfterUnitMs: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly requestTimeoutMs: number;

  constructor(
    /** `https://host[/context]`, below which `/rest/api/1.0` is served. */
    apiUrl: string,
    credentials: BitbucketServerCredentials,
    private readonly settings: GitHostSettings = {},
  ) {
    this.base = apiUrl.replace(/\/+$/, '');
    this.authorization =
      credentials.kind === 'token'
        ? `Bearer ${credentials.token}`
        : basicAuthorization(credentials.username, credentials.password);
    this.fetch = originBoundFetch(settings.fetch);
    this.retries = settings.retries ?? 3;
    this.retryBaseDelayMs = settings.retryBaseDelayMs ?? 500;
    this.retryAfterUnitMs = settings.retryAfterUnitMs ?? 1000;
    this.maxRateLimitWaitMs = settings.maxRateLimitWaitMs ?? 10_000;
    this.requestTimeoutMs = settings.requestTimeoutMs ?? 15_000;
  }

  /** A JSON answer, checked against `schema`. */
  async json<S extends z.ZodType>(method: string, path: string, schema: S, options: RequestOptions = {}) {
    const answer = await this.request(method, path, options);
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString('utf8')) as unknown;
    } catch {
      throw new BitbucketServerAnswerError(method, this.pathOf(path), `the answer is not JSON (${answer.contentType})`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const problem = describeIssue(parsed.error, body, { whole: 'the answer' });
      throw new BitbucketServerAnswerError(
        method,
        this.pathOf(path),
        `the answer does not have the expected form (${problem})`,
      );
    }
    return parsed.data;
  }

  /** A raw answer's bytes (a file's content). */
  async bytes(method: string, path: string, options: RequestOptions = {}): Promise<Buffer> {
    return (await this.request(method, path, options)).body;
  }

  /**
   * A GET whose body is handed on as it arrives (an archive): one attempt, with the longer ARCHIVE_TIMEOUT_MS for
   * the whole body; an answer that is not 2xx is an API error, as for any other request.
   */
  async stream(path: string, options: RequestOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const response = await this.fetch(this.urlOf(path, options.query), {
      headers: { authorization: this.authorization, 'user-agent': 'pipeline-controller' },
      signal: AbortSignal.timeout(ARCHIVE_TIMEOUT_MS),
    });
    if (!response.ok || response.body === null) {
      const body = Buffer.from(await response.arrayBuffer());
      const answer = { status: response.status, body, contentType: response.headers.get('content-type') ?? '' };
      throw new BitbucketServerApiError(response.status, 'GET', this.pathOf(path), parseBody(answer));
    }
    return response.body;
  }

  /** A request whose answer has no body worth reading (204). */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<void> {
    await this.request(method, path, options);
  }

  /** One page of a paged resource, from `start`. */
  async page<S extends z.ZodType>(
    path: string,
    item: S,
    query: Query,
    start = 0,
  ): Promise<PageOf<z.infer<S>> & { nextPageStart?: number | null }> {
    const page = await this.json('GET', path, Page(item), { query: { ...query, start } });
    return { values: page.values, isLastPage: page.isLastPage, nextPageStart: page.nextPageStart };
  }

  /**
   * Every item of a paged resource, page after page (`nextPageStart`), or those up to the first that `enough`
   * accepts. A page that is not the last but names no next page is a listing Bitbucket cut short: an error.
   */
  async all<S extends z.ZodType>(
    path: string,
    item: S,
    query: Query,
    enough?: (item: z.infer<S>) => boolean,
  ): Promise<z.infer<S>[]> {
    const items: z.infer<S>[] = [];
    let start = 0;
    for (;;) {
      const page = await this.page(path, item, query, start);
      for (const value of page.values) {
        items.push(value);
        if (enough?.(value)) return items;
      }
      if (page.isLastPage) return items;
      const next = page.nextPageStart;
      if (next === undefined || next === null || next <= start) {
        throw new BitbucketServerAnswerError(
          'GET',
          this.pathOf(path),
          'a page that is not the last one names no next page (the listing was cut short by a server limit)',
        );
      }
      start = next;
    }
  }

  /** The request with its retries: 5xx, network errors and timeouts, and short rate limits. */
  private async request(method: string, path: string, options: RequestOptions): Promise<Answer> {
    const url = this.urlOf(path, options.query);
    const where = `${method} ${this.pathOf(path)}`;
    let failures = 0;
    let rateLimits = 0;
    for (;;) {
      let answer: Answer;
      try {
        answer = await this.fetchOnce(method, url, options);
      } catch (error) {
        const reason = isTimeout(error)
          ? `no answer within ${this.requestTimeoutMs} ms`
          : `request failed: ${error instanceof Error ? (causeMessage(error) ?? error.message) : String(error)}`;
        if (failures < this.retries) {
          failures++;
          this.settings.logger?.debug('Bitbucket Server request failed; retrying', { request: where, reason });
          await sleep(failures * failures * this.retryBaseDelayMs);
          continue;
        }
        throw new BitbucketServerConnectionError(method, this.pathOf(path), reason, { cause: error });
      }
      if (answer.status >= 200 && answer.status < 300) return answer;
      const body = parseBody(answer);
      if (answer.status === 429) {
        const seconds = answer.retryAfterSeconds;
        const waitMs = (seconds ?? 60) * this.retryAfterUnitMs;
        const again = rateLimits < Math.max(this.retries, 1) && waitMs <= this.maxRateLimitWaitMs;
        this.settings.logger?.warn('Bitbucket Server rate limit', {
          request: where,
          retryAfterSeconds: seconds,
          retrying: again,
        });
        if (again) {
          rateLimits++;
          await sleep(waitMs);
          continue;
        }
        throw new BitbucketServerApiError(429, method, this.pathOf(path), body, seconds ?? 60);
      }
      if (answer.status >= 500 && failures < this.retries) {
        failures++;
        this.settings.logger?.debug('Bitbucket Server answered a server error; retrying', {
          request: where,
          status: answer.status,
        });
        await sleep(failures * failures * this.retryBaseDelayMs);
        continue;
      }
      throw new BitbucketServerApiError(answer.status, method, this.pathOf(path), body);
    }
  }

  private async fetchOnce(method: string, url: string, options: RequestOptions): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'user-agent': 'pipeline-controller',
      // Atlassian's XSRF protection refuses multipart requests without it.
      'x-atlassian-token': 'no-check',
    };
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const signal = AbortSignal.timeout(this.requestTimeoutMs);
    const response = await this.fetch(url, { method, headers, body, signal });
    const bytes = Buffer.from(await response.arrayBuffer());
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      status: response.status,
      body: bytes,
      contentType: response.headers.get('content-type') ?? 'no content type',
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : rateLimitInterval(response),
    };
  }

  private urlOf(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    return `${this.base}${path}${search ? `?${search}` : ''}`;
  }

  /** The request's path as messages show it: the context path included, decoded, no query. */
  private pathOf(path: string): string {
    let full = `${this.base}${path}`;
    try {
      full = decodeURIComponent(new URL(full).pathname);
    } catch {
      // keep it as it is
    }
    return full;
  }
}

/** Without `Retry-After`: the interval after which Data Center's token bucket holds a token again. */
function rateLimitInterval(response: Response): number | undefined {
  if (response.status !== 429) return undefined;
  const interval = Number(response.headers.get('x-ratelimit-interval-seconds'));
  return Number.isFinite(interval) && interval > 0 ? interval : undefined;
}

function parseBody(answer: Answer): unknown {
  const text = answer.body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.slice(0, 500);
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

function causeMessage(error: Error): string | undefined {
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : undefined;
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

// ---------------------------------------------------------------- the resources of one repository

const PathObject = z.looseObject({ components: z.array(z.string()), toString: z.string().optional() });

const Branch = z.looseObject({ id: z.string(), displayId: z.string(), latestCommit: z.string() });

const Repository = z.looseObject({ slug: z.string(), name: z.string(), project: z.looseObject({ key: z.string() }) });

const BrowseChild = z.looseObject({
  path: PathObject,
  type: z.string(),
  contentId: z.string().optional(),
  node: z.string().optional(),
});
export type BrowseChild = z.infer<typeof BrowseChild>;
const Directory = z.looseObject({
  children: z.looseObject({
    values: z.array(BrowseChild),
    isLastPage: z.boolean(),
    nextPageStart: z.number().int().nullish(),
  }),
});

const Change = z.looseObject({
  contentId: z.string().optional(),
  path: PathObject,
  srcPath: PathObject.nullish(),
  type: z.string(),
  nodeType: z.string().optional(),
});
export type Change = z.infer<typeof Change>;

const Commit = z.looseObject({
  id: z.string(),
  parents: z.array(z.looseObject({ id: z.string() })),
});
export type Commit = z.infer<typeof Commit>;

/** A commit's author: a person as git names them, or the Bitbucket user their e-mail maps to. */
const CommitWithAuthor = z.looseObject({
  id: z.string(),
  author: z
    .looseObject({
      name: z.string().nullish(),
      emailAddress: z.string().nullish(),
      displayName: z.string().nullish(),
    })
    .nullish(),
});

const Ref = z.looseObject({ id: z.string(), displayId: z.string().optional() });
const PullRequest = z.looseObject({
  id: z.number().int(),
  version: z.number().int(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.enum(['OPEN', 'MERGED', 'DECLINED']),
  fromRef: Ref,
  toRef: Ref,
  reviewers: z.array(z.looseObject({ user: z.looseObject({ name: z.string() }) })).optional(),
  links: z.looseObject({ self: z.array(z.looseObject({ href: z.string() })).min(1) }),
});
export type PullRequest = z.infer<typeof PullRequest>;

const DuplicatePullRequest = z.looseObject({
  errors: z.array(z.looseObject({ existingPullRequest: PullRequest.optional() })),
});

/** A path's text as Bitbucket writes it: its components joined by `/`. */
export function pathString(path: z.infer<typeof PathObject>): string {
  return path.components.join('/');
}

/** The web URL of a pull request (`links.self[0].href`). */
export function pullRequestUrl(pull: PullRequest): string {
  return pull.links.self[0]?.href ?? '';
}

/** The pull request a 409 DuplicatePullRequestException names as the open one, when it names it. */
export function existingPullRequestOf(error: BitbucketServerApiError): PullRequest | undefined {
  const parsed = DuplicatePullRequest.safeParse(error.body);
  return parsed.success
    ? parsed.data.errors.find((entry) => entry.existingPullRequest)?.existingPullRequest
    : undefined;
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The REST 1.0 resources of one repository (`/projects/{key}/repos/{slug}`; `~user` for a personal one). */
export class BitbucketRepositoryApi {
  private readonly repo: string;
  private readonly branchUtils: string;

  constructor(
    readonly client: BitbucketServerClient,
    readonly projectKey: string,
    readonly slug: string,
  ) {
    const owner = `projects/${encodeURIComponent(projectKey)}/repos/${encodeURIComponent(slug)}`;
    this.repo = `/rest/api/1.0/${owner}`;
    this.branchUtils = `/rest/branch-utils/1.0/${owner}`;
  }

  /** The repository itself: its name (what the repository search filters on) and its project. */
  async repository(): Promise<z.infer<typeof Repository>> {
    return this.client.json('GET', this.repo, Repository);
  }

  /**
   * Whether the credentials may write to the repository: the repository search (`/repos`) lists the repositories they
   * have REPO_WRITE on; it is asked for those with this repository's name, and this one is looked for among them.
   */
  async writable(name: string): Promise<boolean> {
    const same = (text: string, other: string) => text.toLowerCase() === other.toLowerCase();
    const isThis = (candidate: z.infer<typeof Repository>) =>
      same(candidate.slug, this.slug) && same(candidate.project.key, this.projectKey);
    const found = await this.client.all(
      '/rest/api/1.0/repos',
      Repository,
      { name, permission: 'REPO_WRITE', limit: 100 },
      isThis,
    );
    return found.some(isThis);
  }

  /** The branch's head commit; undefined when there is no such branch. */
  async branchHead(branch: string): Promise<string | undefined> {
    const id = `refs/heads/${branch}`;
    // filterText matches anywhere in the name; boostMatches puts the exact match first.
    const branches = await this.client.all(
      `${this.repo}/branches`,
      Branch,
      { filterText: branch, boostMatches: true, details: false, limit: 100 },
      (candidate) => candidate.id === id,
    );
    return branches.find((candidate) => candidate.id === id)?.latestCommit;
  }

  /** One directory's page of children at a commit. */
  async browse(directory: string, commit: string, start = 0) {
    const path = directory === '' ? `${this.repo}/browse` : `${this.repo}/browse/${encodePath(directory)}`;
    const answer = await this.client.json('GET', path, Directory, { query: { at: commit, start, limit: 1000 } });
    return answer.children;
  }

  /** The gzipped tar of the commit's tree (`archive?at=&format=tgz`), its files at the root, as a stream. */
  async archive(commit: string): Promise<ReadableStream<Uint8Array>> {
    return this.client.stream(`${this.repo}/archive`, { query: { at: commit, format: 'tgz' } });
  }

  async raw(path: string, commit: string): Promise<Buffer> {
    return this.client.bytes('GET', `${this.repo}/raw/${encodePath(path)}`, { query: { at: commit } });
  }

  /** A page of the changes between two commits (`git diff since until`). */
  async changes(since: string, until: string, limit: number): Promise<PageOf<Change>> {
    return this.client.page(`${this.repo}/changes`, Change, { since, until, limit });
  }

  /** One commit, with its author. */
  async commit(id: string): Promise<z.infer<typeof CommitWithAuthor>> {
    return this.client.json('GET', `${this.repo}/commits/${encodeURIComponent(id)}`, CommitWithAuthor);
  }

  /** A page of the commits reachable from `until` but not from `since`, newest first. */
  async commitsBetween(since: string, until: string, limit: number): Promise<PageOf<Commit>> {
    return this.client.page(`${this.repo}/commits`, Commit, { since, until, limit });
  }

  /** Creates a branch at a commit (409 when it exists). */
  async createBranch(name: string, startPoint: string): Promise<void> {
    await this.client.json('POST', `${this.branchUtils}/branches`, Branch, { json: { name, startPoint } });
  }

  /** Deletes a branch if it still points at `endPoint` (400 when it moved; nothing when it is gone). */
  async deleteBranch(name: string, endPoint: string): Promise<void> {
    await this.client.send('DELETE', `${this.branchUtils}/branches`, { json: { name, endPoint } });
  }

  /**
   * Commits a file's new content onto a branch: one commit per file. `sourceCommitId` is the commit the edit was
   * made on; Bitbucket refuses the edit (409) when the file changed on the branch since.
   */
  async editFile(edit: {
    path: string;
    content: string;
    branch: string;
    message: string;
    sourceCommitId: string;
  }): Promise<Commit> {
    const form = new FormData();
    form.set('branch', edit.branch);
    form.set('message', edit.message);
    form.set('sourceCommitId', edit.sourceCommitId);
    // A file part, not a text field: a text field's line breaks would be sent as CRLF.
    const name = edit.path.slice(edit.path.lastIndexOf('/') + 1);
    form.set('content', new Blob([Buffer.from(edit.content, 'utf8')]), name);
    return this.client.json('PUT', `${this.repo}/browse/${encodePath(edit.path)}`, Commit, { form });
  }

  /** Pull requests from a branch, newest first: one page of `limit`, or every page. */
  async pullRequestsFrom(branch: string, state: 'OPEN' | 'ALL', limit: number, allPages: boolean) {
    const query = { state, at: `refs/heads/${branch}`, direction: 'OUTGOING', order: 'NEWEST', limit };
    const path = `${this.repo}/pull-requests`;
    const pulls = allPages
      ? await this.client.all(path, PullRequest, query)
      : (await this.client.page(path, PullRequest, query)).values;
    // Only the branch's own: the filter is Bitbucket's, the check is cheap.
    return pulls.filter((pull) => pull.fromRef.id === `refs/heads/${branch}`);
  }

  async pullRequest(id: number): Promise<PullRequest> {
    return this.client.json('GET', `${this.repo}/pull-requests/${id}`, PullRequest);
  }

  async createPullRequest(create: { title: string; description: string; from: string; to: string }) {
    const repository = { slug: this.slug, project: { key: this.projectKey } };
    return this.client.json('POST', `${this.repo}/pull-requests`, PullRequest, {
      json: {
        title: create.title,
        description: create.description,
        fromRef: { id: `refs/heads/${create.from}`, repository },
        toRef: { id: `refs/heads/${create.to}`, repository },
      },
    });
  }

  /**
   * Sets a pull request's title and description at `version` (409 when it is out of date). The reviewers are sent as
   * they are: an update that leaves the reviewers out removes them.
   */
  async updatePullRequest(pull: PullRequest, update: { title: string; description: string }): Promise<PullRequest> {
    return this.client.json('PUT', `${this.repo}/pull-requests/${pull.id}`, PullRequest, {
      json: {
        version: pull.version,
        title: update.title,
        description: update.description,
        reviewers: (pull.reviewers ?? []).map((reviewer) => ({ user: { name: reviewer.user.name } })),
      },
    });
  }

  /** Reopens a declined pull request at `version`. */
  async reopenPullRequest(pull: PullRequest): Promise<PullRequest> {
    // Older versions read the version from the query, Data Center 8 from the body.
    return this.client.json('POST', `${this.repo}/pull-requests/${pull.id}/reopen`, PullRequest, {
      query: { version: pull.version },
      json: { version: pull.version },
    });
  }
}
