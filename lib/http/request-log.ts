// The one structured log line per request. Signatures, keys, Secret values and bodies are never logged; what a
// route takes from the request (names, an event's revision and reason hints) is clipped.
import type { ReceiverDeps } from './receiver-deps.js';
import type { RouteName } from './routes.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** What the log line of a request says besides route, method, status and duration; the routes fill it in. */
export interface RequestLog {
  route?: RouteName | 'unknown';
  outcome?: string;
  path?: string;
  cluster?: string;
  pipeline?: string;
  env?: string;
  revision?: string;
  object?: { kind: string; namespace: string; name: string };
  hint?: { revision?: string; reason?: string };
  targets?: number;
  reason?: string;
}

const MAX_LOGGED_CHARS = 256;

export function clip(value: string, max = MAX_LOGGED_CHARS): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
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
