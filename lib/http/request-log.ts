// The one structured log line per request. Signatures, keys, Secret values and bodies are never logged; what a
// route takes from the request (names, an event's revision and reason hints) is clipped and made printable, so the
// line is safe whichever logger writes it (Powertools' JSON on Lambda leaves C1 controls and bidi overrides raw).
import type { Logger } from '../logging/logger.js';
import { printable } from '../logging/printable.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { matchRoute, type RouteName } from './routes.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** What the log line of a request says besides route, method, status and duration; the routes fill it in. */
export interface RequestLog {
  route?: RouteName | 'unknown';
  outcome?: string;
  path?: string;
  cluster?: string;
  pipeline?: string;
  configSource?: string;
  env?: string;
  revision?: string;
  object?: { kind: string; namespace: string; name: string };
  hint?: { revision?: string; reason?: string };
  targets?: number;
  reason?: string;
  /** A webhook call refused from the pipeline's key as read in the last few seconds, without reading it again. */
  keyReadRecently?: boolean;
  /** A body over the cap: the Content-Length it declared and the bytes that arrived before the 413 (never the body). */
  declaredBytes?: number;
  receivedBytes?: number;
}

const MAX_LOGGED_CHARS = 256;

/** At most `max` characters of `value` (cut before escaping, so an escape is never cut in half), printable. */
export function clip(value: string, max = MAX_LOGGED_CHARS): string {
  return printable(value.length > max ? `${value.slice(0, max)}…` : value);
}

/** A Content-Length header's value, when it is a plain decimal number (anything else declares nothing). */
export function declaredLength(header: string | undefined): number | undefined {
  const value = header?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The sizes a 413 or an abandoned body is logged with: how many bytes were declared, how many arrived. */
export function bodySizes(
  declaredBytes: number | undefined,
  receivedBytes: number,
): Pick<RequestLog, 'declaredBytes' | 'receivedBytes'> {
  return declaredBytes === undefined ? { receivedBytes } : { declaredBytes, receivedBytes };
}

/**
 * For a server that answers 413 itself, before any handler (the node:http adapter): the same warning the receiver
 * writes for its own 413, with the route the path names and the sizes.
 */
export function logBodyTooLarge(
  logger: Pick<Logger, 'warn'>,
  request: { method: string; path: string; declaredBytes?: number; receivedBytes: number },
): void {
  logger.warn('request rejected', {
    route: matchRoute(request.path)?.route.name ?? 'unknown',
    method: clip(request.method, 16),
    status: 413,
    outcome: 'body-too-large',
    ...bodySizes(request.declaredBytes, request.receivedBytes),
  });
}

/** A client that went away while sending its body: its own doing, so debug, not an error of ours. */
export function logBodyAbandoned(
  logger: Pick<Logger, 'debug'>,
  request: { method: string; path: string; declaredBytes?: number; receivedBytes: number },
): void {
  logger.debug('request body abandoned by the client', {
    route: matchRoute(request.path)?.route.name ?? 'unknown',
    method: clip(request.method, 16),
    ...bodySizes(request.declaredBytes, request.receivedBytes),
  });
}

/** A failure is an error, a refused request (401, 413) a warning, anything else information. */
export function logRequest(
  logger: ReceiverDeps['logger'],
  request: HttpRequest,
  response: HttpResponse,
  log: RequestLog,
  durationMs: number,
  failure: unknown,
): void {
  const attributes: Record<string, unknown> = {
    route: log.route ?? 'unknown',
    method: clip(request.method, 16),
    status: response.statusCode,
    durationMs: Math.round(durationMs * 10) / 10,
    ...log,
  };
  if (failure !== undefined) {
    attributes.error =
      failure instanceof Error
        ? { name: failure.name, message: clip(failure.message, 1024) }
        : { name: 'NonError', message: 'a non-Error value was thrown' };
    logger.error('request failed', attributes);
  } else if (response.statusCode === 401 || response.statusCode === 413) {
    logger.warn('request rejected', attributes);
  } else {
    logger.info('request handled', attributes);
  }
}
