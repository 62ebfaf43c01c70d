// Every failure to read a cluster becomes a ClusterAccessError: its kind decides whether the verifier retries, its
// message names the cluster and what was being read, and never carries a token, a password or Secret content.
import { STATUS_CODES } from 'node:http';
import { ApiException } from '@kubernetes/client-node';
import { AnswerTooLargeError } from './bounded-fetch.js';
import { isRecord } from '../util/is-record.js';
import { ClusterAccessError, type ClusterErrorKind } from './port.js';

/** What a failed request was about, for its message. */
export interface FailedRequest {
  /** The cluster as `namespace/name`. */
  cluster: string;
  /** The origin of its API server. */
  server: string;
  /** Strings that must never show up in a message (tokens, passwords). */
  redact: readonly string[];
  /** What was being done, e.g. `reading helmreleases/podinfo in apps`. */
  what: string;
  /** The request's deadline, in ms. */
  timeoutMs: number;
}

/** The error a request ends with when its deadline passes. */
export function timeoutError(request: FailedRequest, options?: { cause?: unknown }): ClusterAccessError {
  const message = `cluster ${request.cluster}: no answer within ${request.timeoutMs} ms ${request.what}`;
  return new ClusterAccessError('timeout', message, undefined, options);
}

/** Classifies what a client-node request threw: timeout, HTTP status, network failure, or an unexpected answer. */
export function toClusterAccessError(request: FailedRequest, error: unknown, timedOut: boolean): ClusterAccessError {
  if (error instanceof ClusterAccessError) return error;
  const { what } = request;
  const prefix = `cluster ${request.cluster}:`;
  if (error instanceof AnswerTooLargeError) {
    return tooLarge(request.cluster, what, `an answer over ${formatBytes(error.maxBytes)}`, { cause: error });
  }
  if (timedOut || (isRecord(error) && error.name === 'AbortError')) return timeoutError(request, { cause: error });
  if (error instanceof ApiException) {
    const code = error.code;
    const status = `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;
    const detail = statusMessage(error.body);
    const extra = detail && detail !== STATUS_CODES[code] ? `: ${redact(detail, request.redact)}` : '';
    return new ClusterAccessError(kindOfStatus(code), `${prefix} ${status} ${what}${extra}`, code, { cause: error });
  }
  if (isRecord(error) && error.name === 'FetchError' && error.type === 'system') {
    // Connection refused or reset, DNS, TLS verification: node-fetch's `code` says which.
    const code = typeof error.code === 'string' ? error.code : 'network error';
    const message = `${prefix} cannot reach ${request.server} (${code}) ${what}`;
    return new ClusterAccessError('unreachable', message, undefined, { cause: error });
  }
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new ClusterAccessError(
    'server-error',
    `${prefix} unexpected answer ${what}: ${redact(message ?? '', request.redact).slice(0, 300)}`,
    undefined,
    { cause: error },
  );
}

/**
 * Whether a 404 is the API server's answer for an absent object of a resource it serves: a Status with reason
 * NotFound whose details name the resource. A path it does not serve, such as a version a CRD does not serve, falls
 * through to its not-found handler instead, whose answer is plain text (`404 page not found`).
 */
export function isAbsentObject(error: unknown, group: string, plural: string): boolean {
  if (!(error instanceof ClusterAccessError) || error.statusCode !== 404) return false;
  if (!(error.cause instanceof ApiException)) return false;
  const status = statusOfBody(error.cause.body);
  const details = status?.details;
  return status?.reason === 'NotFound' && isRecord(details) && details.group === group && details.kind === plural;
}

/** A cluster that is not registered, or whose credentials cannot be used: a person must fix it. */
export function badConfig(cluster: string, problem: string): ClusterAccessError {
  return new ClusterAccessError('bad-config', `cluster ${cluster}: ${problem}`);
}

/** An answer that is not what the Kubernetes API promises. */
export function unexpectedAnswer(cluster: string, what: string, problem: string): ClusterAccessError {
  return new ClusterAccessError('server-error', `cluster ${cluster}: unexpected answer ${what}: ${problem}`);
}

/**
 * An answer over one of the reader's bounds, e.g. `more than 100 pages` or `an answer over 16 MiB`: the cluster's
 * message names the bound, for the person who must look at that cluster.
 */
export function tooLarge(
  cluster: string,
  what: string,
  over: string,
  options?: { cause?: unknown },
): ClusterAccessError {
  const message = `cluster ${cluster}: ${over} ${what}, over the reader's bounds (not read further)`;
  return new ClusterAccessError('too-large', message, undefined, options);
}

/** `16 MiB`, `512 KiB`, `100 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function kindOfStatus(code: number): ClusterErrorKind {
  if (code === 401) return 'unauthorized';
  if (code === 403) return 'forbidden';
  return 'server-error';
}

/** A Kubernetes Status body as an object (client-node hands it over as a string), or undefined. */
function statusOfBody(body: unknown): Record<string, unknown> | undefined {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  return isRecord(value) ? value : undefined;
}

/** The `message` of a Kubernetes Status body, or undefined. */
function statusMessage(body: unknown): string | undefined {
  const message = statusOfBody(body)?.message;
  if (typeof message === 'string' && message !== '') return message.split('\n')[0]?.slice(0, 300);
  return undefined;
}

function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= 4) result = result.split(secret).join('[redacted]');
  return result;
}
