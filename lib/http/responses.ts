// The receiver's answers. Each is a fixed short JSON text that repeats nothing of the request, and is 200, 202, 4xx
// or 500, never 204: Flux up to 2.6 counts a 204 as a failed delivery. An unknown cluster and a bad signature are
// the same 401, so an answer never tells a caller which clusters exist.
import { jsonResponse, type HttpResponse } from './types.js';

export const ACCEPTED = jsonResponse(202, { status: 'accepted' });
export const HEALTHY = jsonResponse(200, { status: 'ok' });
export const UNAUTHORIZED = jsonResponse(401, { error: 'unauthorized' });
export const NOT_FOUND = jsonResponse(404, { error: 'not found' });
export const TOO_LARGE = jsonResponse(413, { error: 'request body too large' });
export const UNKNOWN_ENVIRONMENT = jsonResponse(422, { error: 'unknown environment' });
export const LAST_ENVIRONMENT = jsonResponse(422, { error: 'cannot promote beyond the last environment' });
export const NOT_THE_PIPELINE_APP = jsonResponse(422, {
  error: "the event is not about the pipeline's app in that environment",
});
export const NOT_WAITING = jsonResponse(422, { error: 'no approval is waiting for that revision' });
/** A Git host's test of a ConfigSource's push webhook, authenticated. */
export const PING_ANSWERED = jsonResponse(200, { status: 'ok' });
/** An authenticated webhook that cannot change the source's branch (another branch, a tag, a merge request…). */
export const PUSH_IGNORED = jsonResponse(200, {
  status: 'ignored',
  reason: "not a push to the ConfigSource's branch",
});
export const INTERNAL_ERROR = jsonResponse(500, { error: 'internal error' });

export function methodNotAllowed(allow: string): HttpResponse {
  return jsonResponse(405, { error: 'method not allowed' }, { allow });
}

/** `reason` comes from parseFluxEvent, whose reasons are built from schema keys only, never from the body. */
export function badRequest(reason: string): HttpResponse {
  return jsonResponse(400, { error: reason });
}
