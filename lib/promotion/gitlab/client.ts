// The GitLab client of the pull-request strategy: gitbeaker's REST resources (API v4) with the access token read from
// the Pipeline's Secret (credentials.ts), over a requester of our own, and the mapping of GitLab's answers to
// PromotionErrors.
//
// gitbeaker's own requester calls the global fetch with no timeout of its own (one `queryTimeout` signal covers a whole
// paginated listing), and retries 429 and 502 up to ten times with its own backoff, ignoring `Retry-After`. The
// requester here keeps gitbeaker's request and response formats (query and body encoding, pagination, its
// GitbeakerRequestError with `cause.response`) and does instead what the GitHost contract asks:
//
// - each HTTP request has its own timeout, through the fetch of the settings;
// - a 5xx, a network error or a timeout is retried a few times inside the call (retry n waits n² × retryBaseDelayMs);
// - a 429 is waited out inside the call when GitLab asks for a short wait (`Retry-After`, else `RateLimit-Reset`);
//   a longer one ends the call, and toPromotionError turns it into a retryable PromotionError with that wait.
import {
  createRequesterFn,
  type FormattedResponse,
  type RequestOptions,
  type ResourceOptions,
} from '@gitbeaker/requester-utils';
import {
  Branches,
  Commits,
  Deployments,
  GitbeakerRequestError,
  GitbeakerRetryError,
  GitbeakerTimeoutError,
  MergeRequests,
  PersonalAccessTokens,
  Projects,
  Repositories,
  RepositoryFiles,
} from '@gitbeaker/rest';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { failureKindOfStatus } from '../failure-kind.js';
import { PromotionError } from '../port.js';
import type { GitHostSettings } from '../pull-request/host.js';
import { originBoundFetch } from '../pull-request/origin-bound-fetch.js';
import { errorMessage } from '../../util/error-message.js';

/** The gitbeaker resources the adapter uses, sharing one requester. */
export interface GitLabClient {
  /** The API base, e.g. `https://gitlab.example.com/api/v4`. */
  readonly apiUrl: string;
  readonly branches: Branches<false>;
  readonly commits: Commits<false>;
  /** A merged promotion's rollout (lib/promotion/gitlab/deployments.ts). */
  readonly deployments: Deployments<false>;
  readonly mergeRequests: MergeRequests<false>;
  /** The token itself (`personal_access_tokens/self`): its scopes. */
  readonly personalAccessTokens: PersonalAccessTokens<false>;
  readonly projects: Projects<false>;
  readonly repositories: Repositories<false>;
  readonly repositoryFiles: RepositoryFiles<false>;
}

/** A request that got no HTTP answer: the connection failed or timed out. Retryable. */
export class GitLabConnectionError extends Error {
  override name = 'GitLabConnectionError';

  constructor(
    readonly method: string,
    readonly path: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`GitLab API ${method} ${path}: ${problem}`, options);
  }
}

export function createGitLabClient(apiUrl: string, token: string, settings: GitHostSettings = {}): GitLabClient {
  const base = `${apiUrl.replace(/\/+$/, '')}/`;
  const send = gitLabRequester(base, settings);
  const requesterFn = createRequesterFn(
    (_service: ResourceOptions, options: RequestOptions) => Promise.resolve(options),
    (endpoint, options) => send(endpoint, options),
  );
  const config = {
    token,
    requesterFn,
    // The requester times each request; gitbeaker's timeout would span a whole paginated listing.
    queryTimeout: null,
    // No client-side limiter: GitLab's 429 says when to slow down.
    rateLimits: {},
  };
  return {
    apiUrl: base.slice(0, -1),
    branches: new Branches(config),
    commits: new Commits(config),
    deployments: new Deployments(config),
    mergeRequests: new MergeRequests(config),
    personalAccessTokens: new PersonalAccessTokens(config),
    projects: new Projects(config),
    repositories: new Repositories(config),
    repositoryFiles: new RepositoryFiles(config),
  };
}

// ---------------------------------------------------------------- the requester

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function gitLabRequester(base: string, settings: GitHostSettings) {
  const fetchFn = originBoundFetch(settings.fetch);
  const retries = settings.retries ?? 3;
  const backoffMs = settings.retryBaseDelayMs ?? 500;
  const unitMs = settings.retryAfterUnitMs ?? 1000;
  const maxWaitMs = settings.maxRateLimitWaitMs ?? 10_000;
  const timeoutMs = settings.requestTimeoutMs ?? 15_000;
  const logger = settings.logger;

  return async function send(endpoint: string, options: RequestOptions = {}): Promise<FormattedResponse> {
    const url = new URL(endpoint, base);
    url.search = options.searchParams ?? '';
    const method = (options.method ?? 'GET').toUpperCase();
    const where = { method, path: url.pathname };
    let failures = 0;
    let rateLimitWaits = 0;
    for (;;) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const request = new Request(url, {
        method,
        headers: { 'user-agent': 'pipeline-controller', ...options.headers },
        body: options.body,
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
      let response: Response;
      try {
        response = await fetchFn(request);
      } catch (error) {
        const problem = timeout.aborted ? `no answer within ${timeoutMs} ms` : `no answer: ${errorMessage(error)}`;
        const failure = new GitLabConnectionError(method, url.pathname, problem, { cause: error });
        if (failures >= retries || options.signal?.aborted) throw failure;
        failures++;
        logger?.warn('GitLab API request failed; retrying', { ...where, problem, attempt: failures });
        await sleep(failures * failures * backoffMs);
        continue;
      }
      if (response.ok) return parseResponse(endpoint, response, options.asStream === true);
      if (response.status >= 500 && failures < retries) {
        failures++;
        await response.body?.cancel();
        logger?.warn('GitLab API answered a server error; retrying', {
          ...where,
          status: response.status,
          attempt: failures,
        });
        await sleep(failures * failures * backoffMs);
        continue;
      }
      if (response.status === 429) {
        const waitMs = rateLimitWaitSeconds(response.headers) * unitMs;
        const again = rateLimitWaits < retries && waitMs <= maxWaitMs;
        logger?.warn('GitLab API rate limit', { ...where, waitMs, retrying: again });
        if (again) {
          rateLimitWaits++;
          await response.body?.cancel();
          await sleep(waitMs);
          continue;
        }
      }
      throw await requestError(request, response);
    }
  };
}

/**
 * The body as gitbeaker's own requester gives it (JSON, text, or a Blob), except a raw file (`…/raw`), which is always
 * its text: GitLab labels a raw blob by its file type, and a `.json` file must not come back parsed.
 */
async function parseResponse(endpoint: string, response: Response, asStream: boolean): Promise<FormattedResponse> {
  const headers = Object.fromEntries(response.headers.entries());
  const { status } = response;
  if (asStream) return { body: response.body as ReadableStream, headers, status };
  if (status === 204) return { body: null, headers, status };
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const raw = /\/raw$/.test(endpoint.split('?')[0] ?? '');
  if (type === 'application/json' && !raw) {
    const body = (await response.json()) as Record<string, unknown> | Record<string, unknown>[] | null;
    return { body: body ?? {}, headers, status };
  }
  if (type.startsWith('text/') || raw) return { body: await response.text(), headers, status };
  return { body: await response.blob(), headers, status };
}

/** gitbeaker's error for a failed answer, with a readable description of GitLab's message. */
async function requestError(request: Request, response: Response): Promise<GitbeakerRequestError> {
  const text = await response.text().catch(() => '');
  let description = text;
  if (response.headers.get('content-type')?.includes('application/json')) {
    try {
      description = describeBody(JSON.parse(text) as unknown);
    } catch {
      // not JSON after all: keep the text
    }
  }
  description = description.replace(/\s+/g, ' ').trim().slice(0, 500) || (response.statusText ?? '');
  return new GitbeakerRequestError(description, { cause: { description, request, response } });
}

/**
 * GitLab's error bodies: `{"message": "404 Project Not Found"}`, `{"message": ["Another open merge request…"]}`,
 * `{"message": {"title": ["can't be blank"]}}`, `{"error": "branch is missing"}`, or OAuth's
 * `{"error": "insufficient_scope", "error_description": "…"}`.
 */
function describeBody(body: unknown): string {
  if (typeof body !== 'object' || body === null) return String(body);
  const { message, error, error_description: detail } = body as Record<string, unknown>;
  const text = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(text).join('; ');
    if (typeof value === 'object' && value !== null) {
      return Object.entries(value)
        .map(([key, inner]) => `${key} ${text(inner)}`)
        .join('; ');
    }
    return String(value);
  };
  if (message !== undefined) return text(message);
  if (error !== undefined) return typeof detail === 'string' ? `${text(error)}: ${detail}` : text(error);
  return JSON.stringify(body);
}

/** How long GitLab asks a rate-limited client to wait, in seconds: `Retry-After`, else until `RateLimit-Reset`. */
function rateLimitWaitSeconds(headers: Headers): number {
  const retryAfter = Number(headers.get('retry-after'));
  if (headers.get('retry-after') !== null && Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter;
  const reset = Number(headers.get('ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.max(reset - Math.floor(Date.now() / 1000), 1);
  return 60;
}

// ---------------------------------------------------------------- errors

interface RequestFailure {
  status: number;
  where: string;
  message: string;
  headers: Headers;
}

/** The answer behind a gitbeaker request error (its `cause` carries the request and the response). */
function requestFailure(error: unknown): RequestFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause = (error as { cause?: unknown }).cause as
    { description?: unknown; request?: unknown; response?: unknown } | undefined;
  if (!(cause?.response instanceof Response)) return undefined;
  let where = 'GitLab API';
  if (cause.request instanceof Request) {
    where = `GitLab API ${cause.request.method} ${new URL(cause.request.url).pathname}`;
  }
  const message = typeof cause.description === 'string' && cause.description !== '' ? cause.description : error.message;
  return { status: cause.response.status, where, message, headers: cause.response.headers };
}

/** Whether GitLab answered this status with this text in its message (e.g. 409 "Another open merge request…"). */
export function isGitLabError(error: unknown, status: number, text?: RegExp): boolean {
  const failure = requestFailure(error);
  return failure?.status === status && (text === undefined || text.test(failure.message));
}

/** How long a 429 asks to wait, in milliseconds of real time. */
function retryAfterMs(headers: Headers): number {
  if (headers.get('retry-after') === null && headers.get('ratelimit-reset') === null) return 60_000;
  return Math.max(rateLimitWaitSeconds(headers) * 1000, 1000);
}

/**
 * A PromotionError for anything a GitLab call threw, of the kind its status names (failure-kind.ts): 5xx, network
 * errors, timeouts and rate limits are retried (a rate limit with the wait GitLab asked for); 401, 403, 404 and the
 * other 4xx are not, and say what to fix.
 */
export function toPromotionError(error: unknown, secret: ObjectKey): PromotionError {
  if (error instanceof PromotionError) return error;
  const options = { cause: error };
  if (error instanceof GitLabConnectionError) return new PromotionError('HostUnavailable', error.message, options);
  const failure = requestFailure(error);
  if (!failure) {
    const message = errorMessage(error);
    // Gitbeaker's own: no answer in time, or 429s and 502s past its retries.
    const kind =
      error instanceof GitbeakerTimeoutError
        ? 'Timeout'
        : error instanceof GitbeakerRetryError
          ? 'HostUnavailable'
          : 'Unknown';
    return new PromotionError(kind, `GitLab${kind === 'Unknown' ? '' : ' API'}: ${message}`, options);
  }
  const { status, where, message } = failure;
  const name = `Secret ${objectKeyString(secret)}`;
  const stated = `${where}: ${status} ${message}`;
  const kind = failureKindOfStatus(status);
  if (status === 401) {
    return new PromotionError(
      kind,
      `${stated}: GitLab rejected the credentials of ${name} (a wrong, expired or revoked access token)`,
      options,
    );
  }
  if (status === 403) {
    return new PromotionError(
      kind,
      `${stated}: the access token of ${name} needs the api scope, and its user at least the Developer role on ` +
        'the project (allowed to push the promotion branch and to open merge requests)',
      options,
    );
  }
  if (status === 404) {
    return new PromotionError(
      kind,
      `${stated}: it does not exist, or the credentials of ${name} cannot see it`,
      options,
    );
  }
  if (status === 429) {
    return new PromotionError(kind, `${stated} (rate limit)`, {
      ...options,
      retryAfterMs: retryAfterMs(failure.headers),
    });
  }
  return new PromotionError(kind, stated, options);
}
