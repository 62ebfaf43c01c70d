// The Azure DevOps client of the pull-request strategy: with the personal access token read from the Pipeline's Secret
// (credentials.ts), azure-devops-node-api's GitApi (Git REST 7.x) over an HTTP client of our own, and the mapping of
// Azure DevOps' answers to PromotionErrors.
//
// Only GitApi and its HTTP base are imported: the package's WebApi pulls in every API of Azure DevOps, and its
// getGitApi() asks the organization's resource areas first, which the Git area does not need (it is served at the
// collection URL itself); its PAT handler module pulls in typed-rest-client's NTLM handler (underscore, MD4, DES),
// so the few lines of the PAT handler are written here. GitApi still learns its routes and versions from `OPTIONS
// {collection}/_apis/git` once per client (VsoClient), so clients are cached per collection and token.
//
// typed-rest-client, under GitApi, answers a 404 with a null result rather than an error (so an unknown repository
// would look like an empty one), retries only GETs on 502/503/504 with its own backoff when asked to, and knows
// nothing of Azure's throttling. The HTTP client here (every GitApi call goes through its `request`) does instead
// what the GitHost contract asks:
//
// - each request has a timeout (typed-rest-client's socket timeout);
// - a 5xx, a network error or a timeout is retried a few times inside the call (retry n waits n² × retryBaseDelayMs);
// - a 429 is waited out inside the call when Azure asks for a short wait (`Retry-After`, else `X-RateLimit-Reset`); a
//   longer one ends the call, and toPromotionError turns it into a retryable PromotionError with that wait;
// - any other answer of 400 or more (404 included) ends the call with an AzureDevOpsApiError carrying the status,
//   the method and path, and Azure's message (`TF401019: The Git repository … does not exist …`).
import { AdoHttpClient } from 'azure-devops-node-api/AdoHttpClientBases.js';
import { GitApi } from 'azure-devops-node-api/GitApi.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { failureKindOfStatus } from '../failure-kind.js';
import { PromotionError } from '../port.js';
import { basicAuthorization } from '../pull-request/basic-authorization.js';
import type { GitHostSettings } from '../pull-request/host.js';
import { isSameOrigin } from '../pull-request/origin-bound-fetch.js';
import { NEEDED_SCOPE } from './credentials.js';
import { errorMessage } from '../../util/error-message.js';

const USER_AGENT = 'pipeline-controller';

/** An answer of 400 or more from Azure DevOps, after the retries and waits of the call. */
export class AzureDevOpsApiError extends Error {
  override name = 'AzureDevOpsApiError';

  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    /** Azure's own message (`TF401028: …`), or the status text when the body says nothing. */
    readonly description: string,
    /** The exception type Azure names (`GitReferenceStaleException`), when it names one. */
    readonly typeKey: string | undefined,
    readonly headers: Readonly<Record<string, string | string[] | undefined>>,
  ) {
    super(`Azure DevOps API ${method} ${path}: ${status} ${description}`);
  }
}

/** A request that got no HTTP answer: the connection failed or timed out. Retryable. */
export class AzureDevOpsConnectionError extends Error {
  override name = 'AzureDevOpsConnectionError';

  constructor(
    readonly method: string,
    readonly path: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`Azure DevOps API ${method} ${path}: ${problem}`, options);
  }
}

/** The GitApi of one collection, with one token. */
export interface AzureDevOpsClient {
  /** The collection URL the client connects to, e.g. `https://dev.azure.com/acme`. */
  readonly collectionUrl: string;
  readonly git: GitApi;
}

export function createAzureDevOpsClient(
  collectionUrl: string,
  token: string,
  settings: GitHostSettings = {},
): AzureDevOpsClient {
  const base = collectionUrl.replace(/\/+$/, '');
  const handlers = [personalAccessTokenHandler(base, token)];
  const options = { socketTimeout: settings.requestTimeoutMs ?? 15_000, allowRetries: false };
  const git = new GitApi(base, handlers, options, USER_AGENT);
  const http = new GuardedHttpClient(USER_AGENT, handlers, options, settings);
  // GitApi sends JSON through `rest` (whose `client` is an HttpClient) and streams through `http`; the resource
  // location discovery of its VsoClient goes through the same `rest`.
  git.http = http;
  git.rest.client = http;
  return { collectionUrl: base, git };
}

type RequestHandler = ConstructorParameters<typeof GitApi>[1][number];

/**
 * A personal access token as Azure DevOps takes it: Basic with an empty user name, and the sign-in redirect
 * suppressed (a refused token is a 401, not a 203 with the sign-in page). Sent only to the collection's own origin,
 * never to another host or port a redirect names.
 */
function personalAccessTokenHandler(collectionUrl: string, token: string): RequestHandler {
  const collection = new URL(collectionUrl);
  const authorization = basicAuthorization('', token);
  return {
    prepareRequest(options) {
      const headers = (options.headers ??= {}) as Record<string, string>;
      // typed-rest-client prepares each request of a redirect again, with only the host and port of where it goes;
      // it refuses a redirect from https to http, so the scheme is the collection's.
      const host = options.hostname ?? options.host;
      const target = `${collection.protocol}//${host ?? ''}${options.port ? `:${String(options.port)}` : ''}/`;
      if (host && URL.canParse(target) && isSameOrigin(target, collection)) headers.Authorization = authorization;
      headers['X-TFS-FedAuthRedirect'] = 'Suppress';
    },
    canHandleAuthentication: () => false,
    handleAuthentication: () => Promise.reject(new Error('Azure DevOps rejected the personal access token')),
  };
}

// ---------------------------------------------------------------- the HTTP client

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type RequestArguments = Parameters<AdoHttpClient['request']>;
type Response = Awaited<ReturnType<AdoHttpClient['request']>>;
type Headers = Readonly<Record<string, string | string[] | undefined>>;

class GuardedHttpClient extends AdoHttpClient {
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly unitMs: number;
  private readonly maxWaitMs: number;

  constructor(
    userAgent: string,
    handlers: ConstructorParameters<typeof AdoHttpClient>[1],
    options: ConstructorParameters<typeof AdoHttpClient>[2],
    private readonly settings: GitHostSettings,
  ) {
    super(userAgent, handlers, options);
    this.retries = settings.retries ?? 3;
    this.backoffMs = settings.retryBaseDelayMs ?? 500;
    this.unitMs = settings.retryAfterUnitMs ?? 1000;
    this.maxWaitMs = settings.maxRateLimitWaitMs ?? 10_000;
  }

  override async request(...[verb, requestUrl, data, headers]: RequestArguments): Promise<Response> {
    const method = verb.toUpperCase();
    const path = new URL(requestUrl).pathname;
    const where = { method, path };
    const logger = this.settings.logger;
    // A body sent as a stream cannot be sent twice: only a string body (all of GitApi's JSON) is retried.
    const repeatable = data === null || data === undefined || typeof data === 'string';
    let failures = 0;
    let rateLimitWaits = 0;
    for (;;) {
      let response: Response;
      try {
        response = await super.request(verb, requestUrl, data, headers);
      } catch (error) {
        const problem = `no answer: ${errorMessage(error)}`;
        const failure = new AzureDevOpsConnectionError(method, path, problem, { cause: error });
        if (failures >= this.retries || !repeatable) throw failure;
        failures++;
        logger?.warn('Azure DevOps API request failed; retrying', { ...where, problem, attempt: failures });
        await sleep(failures * failures * this.backoffMs);
        continue;
      }
      const status = response.message.statusCode ?? 0;
      if (status < 400 && !isSignInPage(response)) return response;
      if (status >= 500 && failures < this.retries && repeatable) {
        failures++;
        await response.readBody().catch(() => '');
        logger?.warn('Azure DevOps API answered a server error; retrying', { ...where, status, attempt: failures });
        await sleep(failures * failures * this.backoffMs);
        continue;
      }
      if (status === 429) {
        const waitMs = rateLimitWaitSeconds(response.message.headers) * this.unitMs;
        const again = rateLimitWaits < this.retries && waitMs <= this.maxWaitMs && repeatable;
        logger?.warn('Azure DevOps API rate limit', { ...where, waitMs, retrying: again });
        if (again) {
          rateLimitWaits++;
          await response.readBody().catch(() => '');
          await sleep(waitMs);
          continue;
        }
      }
      throw await apiError(method, path, response);
    }
  }
}

/**
 * Azure answers a request whose credentials it does not take, when the client did not suppress the redirect, with
 * its sign-in page as a 203; the PAT handler suppresses it, but should one come it means the same as a 401.
 */
function isSignInPage(response: Response): boolean {
  const type = String(response.message.headers['content-type'] ?? '');
  return response.message.statusCode === 203 && type.startsWith('text/html');
}

const AzureErrorBody = (body: unknown): { message?: string; typeKey?: string } => {
  if (typeof body !== 'object' || body === null) return {};
  const { message, typeKey } = body as Record<string, unknown>;
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof typeKey === 'string' ? { typeKey } : {}),
  };
};

/** The error for a failed answer, with Azure's message (`{"message": "TF401019: …", "typeKey": …}`). */
async function apiError(method: string, path: string, response: Response): Promise<AzureDevOpsApiError> {
  const signIn = isSignInPage(response);
  const status = signIn ? 401 : (response.message.statusCode ?? 0);
  const text = await response.readBody().catch(() => '');
  let parsed: { message?: string; typeKey?: string } = {};
  if (String(response.message.headers['content-type'] ?? '').includes('json')) {
    try {
      parsed = AzureErrorBody(JSON.parse(text) as unknown);
    } catch {
      // not JSON after all: Azure's gateways answer some failures with HTML
    }
  }
  // An HTML page (sign-in, gateway errors) says nothing a person needs here: its status text does.
  const description =
    parsed.message?.replace(/\s+/g, ' ').trim().slice(0, 500) ||
    (signIn ? 'sign-in page instead of an answer' : response.message.statusMessage || `status ${status}`);
  return new AzureDevOpsApiError(status, method, path, description, parsed.typeKey, response.message.headers);
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** How long Azure asks a throttled client to wait, in seconds: `Retry-After`, else until `X-RateLimit-Reset`. */
function rateLimitWaitSeconds(headers: Headers): number {
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter !== undefined && Number.isFinite(Number(retryAfter)) && Number(retryAfter) >= 0) {
    return Number(retryAfter);
  }
  const reset = Number(header(headers, 'x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.max(reset - Math.floor(Date.now() / 1000), 1);
  return 60;
}

// ---------------------------------------------------------------- errors

/** Whether Azure answered this status (any when undefined) with this text in its message (e.g. 409 `TF401179`). */
export function isAzureDevOpsError(error: unknown, status: number | undefined, text?: RegExp): boolean {
  return (
    error instanceof AzureDevOpsApiError &&
    (status === undefined || error.status === status) &&
    (text === undefined || text.test(error.description) || (error.typeKey !== undefined && text.test(error.typeKey)))
  );
}

/**
 * A PromotionError for anything an Azure DevOps call threw, of the kind its status names (failure-kind.ts): 5xx,
 * network errors, timeouts and rate limits are retried (a rate limit with the wait Azure asked for); 401, 403, 404
 * and the other 4xx are not, and say what to fix.
 */
export function toPromotionError(error: unknown, secret: ObjectKey): PromotionError {
  if (error instanceof PromotionError) return error;
  const options = { cause: error };
  if (error instanceof AzureDevOpsConnectionError) return new PromotionError('HostUnavailable', error.message, options);
  if (!(error instanceof AzureDevOpsApiError)) {
    const message = errorMessage(error);
    // VsoClient's own error when the OPTIONS answer lists no Git resources: not an Azure DevOps collection.
    if (/Failed to find api location/i.test(message)) {
      return new PromotionError(
        'UnexpectedAnswer',
        `Azure DevOps: ${message}; is the API URL an Azure DevOps collection (organization) URL?`,
        options,
      );
    }
    return new PromotionError('Unknown', `Azure DevOps: ${message}`, options);
  }
  const name = `Secret ${objectKeyString(secret)}`;
  const stated = error.message;
  const kind = failureKindOfStatus(error.status);
  switch (error.status) {
    case 401:
      return new PromotionError(
        kind,
        `${stated}: Azure DevOps rejected the credentials of ${name} (a wrong, expired or revoked personal access ` +
          `token, one of another organization, or one without the ${NEEDED_SCOPE} scope)`,
        options,
      );
    case 403:
      return new PromotionError(
        kind,
        `${stated}: the personal access token of ${name} needs the ${NEEDED_SCOPE} scope, and its user the ` +
          'Contribute, Create branch and Contribute to pull requests permissions on the repository (and Force push, ' +
          'to reset the promotion branch onto the base branch)',
        options,
      );
    case 404:
      return new PromotionError(
        kind,
        `${stated}: it does not exist, or the credentials of ${name} cannot see it`,
        options,
      );
    case 429:
      return new PromotionError(kind, `${stated} (rate limit)`, {
        ...options,
        retryAfterMs: retryAfterMs(error.headers),
      });
    default:
      return new PromotionError(kind, stated, options);
  }
}

/** How long a 429 asks to wait, in milliseconds of real time. */
function retryAfterMs(headers: Headers): number {
  if (header(headers, 'retry-after') === undefined && header(headers, 'x-ratelimit-reset') === undefined) {
    return 60_000;
  }
  return Math.max(rateLimitWaitSeconds(headers) * 1000, 1000);
}
