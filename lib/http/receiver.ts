// The receiver: authenticates a request, validates it, looks up what it is about and enqueues a check; it never
// decides anything (docs/architecture.md, "Shape"). Transport-neutral: the Lambda function URL and node:http
// adapters call `handleRequest`. The route table is routes.ts; each route is a module of its own.
import { receiveApproval } from './approval-route.js';
import { receivePush } from './config-source-route.js';
import { eventOutcomeOf } from './event-outcome.js';
import { receiveEvent } from './event-route.js';
import { serveInputs } from './inputs-route.js';
import { receivePromotion } from './promotion-route.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { bodySizes, clip, declaredLength, logRequest, type RequestLog } from './request-log.js';
import { HEALTHY, INTERNAL_ERROR, methodNotAllowed, NOT_FOUND, TOO_LARGE } from './responses.js';
import { matchRoute } from './routes.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpRequest, type HttpResponse } from './types.js';

/** Answers one request. Never throws for a failure of its dependencies: that is a logged 500 (Flux retries 5xx). */
export async function handleRequest(request: HttpRequest, deps: ReceiverDeps): Promise<HttpResponse> {
  const started = performance.now();
  const log: RequestLog = {};
  let response: HttpResponse;
  let failure: unknown;
  try {
    response = await route(request, deps, log);
  } catch (error) {
    failure = error;
    response = INTERNAL_ERROR;
  }
  logRequest(deps.logger, request, response, log, performance.now() - started, failure);
  if (log.route === 'events') deps.onEvent?.(eventOutcomeOf(log.outcome, failure));
  return response;
}

async function route(request: HttpRequest, deps: ReceiverDeps, log: RequestLog): Promise<HttpResponse> {
  const match = matchRoute(request.path);
  log.route = match?.route.name ?? 'unknown';
  if (isTooLarge(request, deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) {
    log.outcome = 'body-too-large';
    Object.assign(log, bodySizes(declaredLength(request.headers['content-length']), receivedLength(request)));
    return TOO_LARGE;
  }
  if (!match) {
    log.path = clip(request.path);
    return NOT_FOUND;
  }
  if (request.method !== match.route.method) {
    log.outcome = 'method-not-allowed';
    return methodNotAllowed(match.route.method);
  }
  const [first = '', second = '', third = '', fourth = ''] = match.params;
  switch (match.route.name) {
    case 'healthz':
      return HEALTHY;
    case 'events':
      return receiveEvent(request, deps, log, { namespace: first, name: second });
    case 'promotion':
      return receivePromotion(request, deps, log, { namespace: first, name: second }, third);
    case 'approval':
      return receiveApproval(request, deps, log, { namespace: first, name: second }, third, fourth);
    case 'config-sources':
      return receivePush(request, deps, log, { namespace: first, name: second });
    case 'inputs':
      return serveInputs(request, deps, log, { namespace: first, name: second }, third);
  }
}

/** Over the cap by the declared Content-Length (checked first) or by the bytes actually received. */
function isTooLarge(request: HttpRequest, maxBodyBytes: number): boolean {
  const declared = declaredLength(request.headers['content-length']);
  if (declared !== undefined && declared > maxBodyBytes) return true;
  return receivedLength(request) > maxBodyBytes;
}

/** The body's length, counting a body the adapter left unread for being over its cap. */
function receivedLength(request: HttpRequest): number {
  return request.oversizedBodyBytes ?? request.body.length;
}
