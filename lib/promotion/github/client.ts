// The GitHub client of the pull-request strategy: an Octokit with the retry and throttling plugins for the credentials
// read from the Pipeline's Secret (credentials.ts), and the mapping of GitHub's answers to PromotionErrors.
//
// Inside one call: a 5xx (or a network error or timeout) is retried a few times with short backoff, and a secondary
// rate limit is retried after its `retry-after` when that is short. A primary rate limit is never waited out inside
// the function: the call ends with a retryable PromotionError whose `retryAfterMs` reaches the reset time, and the
// promotion is tried again then.
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { Logger } from '../../logging/logger.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { failureKindOfStatus } from '../failure-kind.js';
import { PromotionError } from '../port.js';
import { credentialsKey } from '../pull-request/client-cache.js';
import { originBoundFetch } from '../pull-request/origin-bound-fetch.js';
import type { GitHubCredentials } from './credentials.js';
import { errorMessage } from '../../util/error-message.js';

export interface GitHubClientSettings {
  /** Overrides the global fetch (tests, proxies). */
  fetch?: typeof fetch;
  logger?: Pick<Logger, 'debug' | 'info' | 'warn'>;
  /** How many times a 5xx, a network error or a timeout is retried inside one call. Default 3. */
  retries?: number;
  /** Backoff of those retries: retry n waits n² × this. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** How many times a secondary rate limit is retried inside one call. Default 2. */
  secondaryRateLimitRetries?: number;
  /** How long one second of GitHub's `retry-after` lasts here. Default 1000; tests make it short. */
  retryAfterUnitMs?: number;
  /** A secondary rate limit asking for a longer wait than this ends the call (retryable). Default 10 s. */
  maxRateLimitWaitMs?: number;
  /**
   * Spacing of write requests per client. Default: the throttling plugin's, which follows GitHub's advice against
   * secondary rate limits: 1 s between writes, 3 s between writes that notify people (opening a pull request).
   */
  writeIntervalMs?: number;
  /** Timeout of each HTTP request. Default 15 s. */
  requestTimeoutMs?: number;
}

// Annotated: the plugins' inferred type names a file @octokit/rest does not export, which declaration emit refuses.
const GitHubOctokit: typeof Octokit = Octokit.plugin(retry, throttling);
export type GitHubClient = Octokit;

export function createGitHubClient(
  apiUrl: string,
  credentials: GitHubCredentials,
  settings: GitHubClientSettings = {},
): GitHubClient {
  const logger = settings.logger;
  const retryAfterUnitMs = settings.retryAfterUnitMs ?? 1000;
  const maxWaitMs = settings.maxRateLimitWaitMs ?? 10_000;
  const secondaryRetries = settings.secondaryRateLimitRetries ?? 2;
  const timeoutMs = settings.requestTimeoutMs ?? 15_000;
  const baseFetch = originBoundFetch(settings.fetch);
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return baseFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
  };
  const throttle: ThrottlingOptions = {
    id: credentialsKey(apiUrl, credentials).slice(0, 16),
    retryAfterBaseValue: retryAfterUnitMs,
    onSecondaryRateLimit: (retryAfter, options, _octokit, retryCount) => {
      const again = retryCount < secondaryRetries && retryAfter * retryAfterUnitMs <= maxWaitMs;
      logger?.warn('GitHub secondary rate limit', {
        request: `${options.method} ${options.url}`,
        retryAfterSeconds: retryAfter,
        retrying: again,
      });
      return again;
    },
    // A primary rate limit lasts until its reset, up to an hour: fail now and let the promotion be retried then.
    onRateLimit: (retryAfter, options) => {
      logger?.warn('GitHub rate limit exhausted', {
        request: `${options.method} ${options.url}`,
        retryAfterSeconds: retryAfter,
      });
      return false;
    },
  };
  if (settings.writeIntervalMs !== undefined) {
    throttle.write = spacedGroup(settings.writeIntervalMs);
    throttle.notifications = spacedGroup(settings.writeIntervalMs);
  }
  const common = {
    baseUrl: apiUrl.replace(/\/+$/, ''),
    userAgent: 'pipeline-controller',
    request: { fetch: timedFetch },
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => logger?.warn(`octokit: ${message}`),
      // Octokit's request log reports every failed request here, including expected ones (a 404 while checking
      // whether the promotion branch exists); the failures that matter surface as PromotionErrors instead.
      error: (message: string) => logger?.debug?.(`octokit: ${message}`),
    },
    retry: {
      retries: settings.retries ?? 3,
      retryAfterBaseValue: settings.retryBaseDelayMs ?? 500,
      // 429 is a rate limit: the throttling plugin (and the mapping below) deal with it. 409 is a write that lost a
      // race (a file changed meanwhile): the same request would lose again, the caller reads the branch anew.
      doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451],
    },
    throttle,
  };
  if (credentials.kind === 'token') return new GitHubOctokit({ ...common, auth: credentials.token });
  return new GitHubOctokit({
    ...common,
    authStrategy: createAppAuth,
    auth: {
      appId: credentials.appId,
      privateKey: credentials.privateKey,
      installationId: credentials.installationId,
    },
  });
}

/**
 * A stand-in for the throttling plugin's write and notification limiters (Bottleneck groups with `minTime` 1 s and
 * 3 s): the plugin only calls `key(id).schedule(options, fn)`, and this spaces those calls `intervalMs` apart.
 */
function spacedGroup(intervalMs: number): NonNullable<ThrottlingOptions['write']> {
  const limiters = new Map<string, { schedule: (...args: unknown[]) => Promise<unknown> }>();
  const group = {
    key(id = '') {
      let limiter = limiters.get(id);
      if (!limiter) {
        let next = 0;
        limiter = {
          async schedule(...args: unknown[]) {
            const index = args.findIndex((arg) => typeof arg === 'function');
            const job = args[index] as (...jobArgs: unknown[]) => unknown;
            const at = Math.max(Date.now(), next);
            next = at + intervalMs;
            if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
            return job(...args.slice(index + 1));
          },
        };
        limiters.set(id, limiter);
      }
      return limiter;
    },
  };
  return group as unknown as NonNullable<ThrottlingOptions['write']>;
}

// ---------------------------------------------------------------- errors

interface RequestErrorLike extends Error {
  status: number;
  request?: { method?: string; url?: string };
  response?: { headers?: Record<string, unknown>; data?: unknown };
}

export function isRequestError(error: unknown): error is RequestErrorLike {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

/** Whether GitHub answered 422 with this text in its message or errors (e.g. "Reference already exists"). */
export function isValidationError(error: unknown, text: RegExp): boolean {
  if (!isRequestError(error) || error.status !== 422) return false;
  return text.test(`${error.message} ${JSON.stringify(error.response?.data ?? '')}`);
}

function header(error: RequestErrorLike, name: string): string | undefined {
  const value = error.response?.headers?.[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

function apiMessage(error: RequestErrorLike): string {
  const data = error.response?.data;
  if (typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string') {
    return (data as { message: string }).message;
  }
  return error.message;
}

function describeRequest(error: RequestErrorLike): string {
  const { method, url } = error.request ?? {};
  if (!method || !url) return 'GitHub API';
  let path = url;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    // keep the URL as it is
  }
  return `GitHub API ${method} ${path}`;
}

/**
 * A PromotionError for anything a GitHub call threw, of the kind its status names (failure-kind.ts): 5xx, network
 * errors, timeouts and rate limits are retried (a rate limit with the wait GitHub asked for); 401 and the other 4xx
 * are not.
 */
export function toPromotionError(error: unknown, secret: ObjectKey): PromotionError {
  if (error instanceof PromotionError) return error;
  if (!isRequestError(error)) {
    const message = errorMessage(error);
    return new PromotionError('Unknown', `GitHub: ${message}`, { cause: error });
  }
  const where = describeRequest(error);
  const message = apiMessage(error);
  const status = error.status;
  const options = { cause: error };
  if (status === 401) {
    return new PromotionError(
      'Unauthorized',
      `${where}: 401 ${message}: GitHub rejected the credentials of Secret ${objectKeyString(secret)}`,
      options,
    );
  }
  if ((status === 403 || status === 429) && header(error, 'x-ratelimit-remaining') === '0') {
    const reset = Number(header(error, 'x-ratelimit-reset'));
    const retryAfterMs =
      Number.isFinite(reset) && reset > 0 ? Math.max(reset * 1000 - Date.now() + 1000, 1000) : 60_000;
    return new PromotionError('RateLimited', `${where}: ${status} ${message} (primary rate limit)`, {
      ...options,
      retryAfterMs,
    });
  }
  if (status === 429 || (status === 403 && /\bsecondary rate\b/i.test(message))) {
    const seconds = Number(header(error, 'retry-after'));
    const retryAfterMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000;
    return new PromotionError('RateLimited', `${where}: ${status} ${message}`, { ...options, retryAfterMs });
  }
  let hint = '';
  if (status === 404) {
    hint = `: it does not exist, or the credentials of Secret ${objectKeyString(secret)} cannot see it`;
  } else if (status === 403) {
    hint = `: the credentials of Secret ${objectKeyString(secret)} need Contents and Pull requests read and write access`;
  }
  return new PromotionError(failureKindOfStatus(status), `${where}: ${status} ${message}${hint}`, options);
}
