// The receiver (DESIGN §4): authenticates a request, validates it, looks up what it is about and enqueues a check;
// it never decides anything. Transport-neutral: the Lambda function URL and node:http adapters call
// `handleRequest`.
//
// Routes
//   POST /v1/events/{clusterNs}/{clusterName}            Flux generic-hmac events from a leaf cluster
//   POST /promotion/{ns}/{name}/{env}                    Weave-compatible promotion webhook (triggers a check)
//   POST /approval/{ns}/{name}/{env}/{revision}          Weave-compatible approval (HMAC over the empty body)
//   GET  /healthz
//
// Every answer is a fixed short JSON text that repeats nothing of the request, and is 200, 202, 4xx or 500 (never
// 204: Flux ≤ 2.6 counts it as a failure). Unknown cluster and bad signature are the same 401. One structured log
// line per request; signatures, keys, Secret values and bodies are never logged (the revision and reason hints of
// an event are, clipped).
import { appKindOfEvent, parseFluxEvent } from '../flux/index.js';
import type { FluxEvent } from '../flux/index.js';
import type { ObjectKey, Pipeline } from '../pipeline/model.js';
import type { Queue } from '../queue/index.js';
import type { MasterKeys } from '../secrets/master-keys.js';
import type { SecretSource } from '../secrets/port.js';
import type { Store } from '../store/port.js';
import {
  deriveClusterKey,
  EVENT_SIGNATURE_ALGORITHMS,
  verifySignature,
  verifySignatureWithAny,
  WEAVE_SIGNATURE_ALGORITHMS,
} from './hmac.js';
import { DEFAULT_MAX_BODY_BYTES, jsonResponse } from './types.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** The part of a structured logger the receiver uses; a Powertools Logger fits. */
export interface ReceiverLogger {
  info(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

export interface ReceiverDeps {
  store: Pick<Store, 'getCluster' | 'findTargets' | 'getPipeline' | 'approve'>;
  queue: Queue;
  secrets: SecretSource;
  /** The master key(s) the cluster keys are derived from; read per event request (adapters cache). */
  masterKeys: () => Promise<MasterKeys>;
  logger: ReceiverLogger;
  /** Default 512 KiB. */
  maxBodyBytes?: number;
  /** When an approval happened; default the system clock. */
  now?: () => Date;
}

/** The Secret key holding a Pipeline's webhook HMAC key (Weave). */
export const HMAC_KEY_SECRET_KEY = 'hmac-key';

// ---------------------------------------------------------------- fixed answers (never built from the request)

const ACCEPTED = jsonResponse(202, { status: 'accepted' });
const HEALTHY = jsonResponse(200, { status: 'ok' });
const UNAUTHORIZED = jsonResponse(401, { error: 'unauthorized' });
const NOT_FOUND = jsonResponse(404, { error: 'not found' });
const TOO_LARGE = jsonResponse(413, { error: 'request body too large' });
const UNKNOWN_ENVIRONMENT = jsonResponse(422, { error: 'unknown environment' });
const NOT_WAITING = jsonResponse(422, { error: 'no approval is waiting for that revision' });
const INTERNAL_ERROR = jsonResponse(500, { error: 'internal error' });

function methodNotAllowed(allow: string): HttpResponse {
  return jsonResponse(405, { error: 'method not allowed' }, { allow });
}

/** `reason` comes from parseFluxEvent, whose reasons are built from schema keys only, never from the body. */
function badRequest(reason: string): HttpResponse {
  return jsonResponse(400, { error: reason });
}

// ---------------------------------------------------------------- routing

type RouteName = 'events' | 'promotion' | 'approval' | 'healthz';

interface RouteSpec {
  name: RouteName;
  /** Literal segments after the leading `/`. */
  prefix: readonly string[];
  /** How many parameter segments follow the prefix, exactly. */
  params: number;
  method: 'GET' | 'POST';
}

const ROUTES: readonly RouteSpec[] = [
  { name: 'events', prefix: ['v1', 'events'], params: 2, method: 'POST' },
  { name: 'promotion', prefix: ['promotion'], params: 3, method: 'POST' },
  { name: 'approval', prefix: ['approval'], params: 4, method: 'POST' },
  { name: 'healthz', prefix: ['healthz'], params: 0, method: 'GET' },
];

interface RouteMatch {
  route: RouteSpec;
  /** Percent-decoded, each non-empty. */
  params: string[];
}

/**
 * The route of a path, with its parameters decoded segment by segment (so `%2F` inside a revision is a `/` of the
 * revision, not a separator). Extra, missing or empty segments and malformed percent-encoding match nothing.
 */
export function matchRoute(path: string): RouteMatch | undefined {
  if (!path.startsWith('/')) return undefined;
  const segments = path.slice(1).split('/');
  for (const route of ROUTES) {
    if (segments.length !== route.prefix.length + route.params) continue;
    if (!route.prefix.every((literal, index) => segments[index] === literal)) continue;
    const params: string[] = [];
    for (const raw of segments.slice(route.prefix.length)) {
      const decoded = decodeSegment(raw);
      if (decoded === undefined) return undefined;
      params.push(decoded);
    }
    return { route, params };
  }
  return undefined;
}

function decodeSegment(raw: string): string | undefined {
  try {
    const decoded = decodeURIComponent(raw);
    return decoded === '' ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/**
 * Could be a Kubernetes namespace or object name (DNS-1123, ≤ 253). Anything else cannot be registered or indexed,
 * so it is answered as unknown without a store lookup (and never becomes an oversized DynamoDB key).
 */
function isObjectName(value: string): boolean {
  return value.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value);
}

// ---------------------------------------------------------------- the handler

/** What the one log line of a request says besides route, method, status and duration. */
interface LogContext {
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

/** Answers one request. Never throws for a failure of its dependencies: that is a logged 500 (Flux retries 5xx). */
export async function handleRequest(request: HttpRequest, deps: ReceiverDeps): Promise<HttpResponse> {
  const started = performance.now();
  const context: LogContext = {};
  let response: HttpResponse;
  let failure: unknown;
  try {
    response = await route(request, deps, context);
  } catch (error) {
    failure = error;
    response = INTERNAL_ERROR;
  }
  logRequest(deps.logger, request, response, context, performance.now() - started, failure);
  return response;
}

async function route(request: HttpRequest, deps: ReceiverDeps, context: LogContext): Promise<HttpResponse> {
  const match = matchRoute(request.path);
  context.route = match?.route.name ?? 'unknown';
  if (isTooLarge(request, deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) {
    context.outcome = 'body-too-large';
    return TOO_LARGE;
  }
  if (!match) {
    context.path = clip(request.path);
    return NOT_FOUND;
  }
  if (request.method !== match.route.method) {
    context.outcome = 'method-not-allowed';
    return methodNotAllowed(match.route.method);
  }
  const [first = '', second = '', third = '', fourth = ''] = match.params;
  switch (match.route.name) {
    case 'healthz':
      return HEALTHY;
    case 'events':
      return receiveEvent(request, deps, context, { namespace: first, name: second });
    case 'promotion':
      return receivePromotion(request, deps, context, { namespace: first, name: second }, third);
    case 'approval':
      return receiveApproval(request, deps, context, { namespace: first, name: second }, third, fourth);
  }
}

/** Over the cap by the declared Content-Length (checked first) or by the bytes actually received. */
function isTooLarge(request: HttpRequest, maxBodyBytes: number): boolean {
  const declared = request.headers['content-length']?.trim();
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBodyBytes) return true;
  return request.body.length > maxBodyBytes;
}

// ---------------------------------------------------------------- POST /v1/events/{clusterNs}/{clusterName}

async function receiveEvent(
  request: HttpRequest,
  deps: ReceiverDeps,
  context: LogContext,
  cluster: ObjectKey,
): Promise<HttpResponse> {
  context.cluster = `${clip(cluster.namespace)}/${clip(cluster.name)}`;
  // The signature first: nothing is looked up for an unauthenticated request.
  const masterKeys = await deps.masterKeys();
  const keys = [masterKeys.current, masterKeys.previous]
    .filter((key): key is string => typeof key === 'string' && key !== '')
    .map((masterKey) => deriveClusterKey(masterKey, cluster));
  if (!verifySignatureWithAny(request.headers['x-signature'], request.body, keys, EVENT_SIGNATURE_ALGORITHMS)) {
    context.outcome = 'bad-signature';
    return UNAUTHORIZED;
  }
  const registered =
    isObjectName(cluster.namespace) && isObjectName(cluster.name) && (await deps.store.getCluster(cluster));
  if (!registered) {
    context.outcome = 'unknown-cluster';
    return UNAUTHORIZED;
  }

  const parsed = parseFluxEvent(request.body.toString('utf8'));
  if (!parsed.ok) {
    context.outcome = 'not-an-event';
    context.reason = parsed.reason;
    return badRequest(parsed.reason);
  }
  const { event } = parsed;
  const { kind, namespace, name } = event.involvedObject;
  context.object = { kind: clip(kind), namespace: clip(namespace), name: clip(name) };
  const hint = hintOf(event);
  context.hint = {
    ...(hint.revision && { revision: clip(hint.revision) }),
    ...(hint.reason && { reason: clip(hint.reason) }),
  };

  const appKind = appKindOfEvent(event);
  if (appKind === undefined) {
    context.outcome = 'not-an-app';
    return ACCEPTED;
  }
  if (!isObjectName(namespace) || !isObjectName(name)) {
    context.outcome = 'not-indexed';
    return ACCEPTED;
  }
  const app = { cluster, kind: appKind, namespace, name };
  const targets = await deps.store.findTargets(app);
  context.targets = targets.length;
  if (targets.length === 0) {
    context.outcome = 'not-indexed';
    return ACCEPTED;
  }
  await deps.queue.send({ type: 'check-app', app, cause: 'event', attempt: 0, hint });
  context.outcome = 'enqueued';
  return ACCEPTED;
}

/** The payload's revision and reason: passed on to be logged by the verifier, never used for a decision. */
function hintOf(event: FluxEvent): { revision?: string; reason?: string } {
  const hint: { revision?: string; reason?: string } = {};
  if (event.revisionHint) hint.revision = event.revisionHint;
  if (event.reason) hint.reason = event.reason;
  return hint;
}

// ---------------------------------------------------------------- Weave: /promotion and /approval

type PipelineAuthorization = { ok: true; pipeline: Pipeline; identity: string } | { ok: false; response: HttpResponse };

/**
 * Weave's order: the pipeline must exist (404), then the request must carry a valid signature under the `hmac-key`
 * of the Secret named by the Pipeline-level `spec.promotion.strategy.secretRef`, in the pipeline's namespace.
 * Unlike Weave, a pipeline without that secretRef is not open to anyone: it is a 401.
 */
async function authorizePipeline(
  request: HttpRequest,
  deps: ReceiverDeps,
  context: LogContext,
  key: ObjectKey,
  signed: Buffer,
): Promise<PipelineAuthorization> {
  context.pipeline = `${clip(key.namespace)}/${clip(key.name)}`;
  const stored = isObjectName(key.namespace) && isObjectName(key.name) ? await deps.store.getPipeline(key) : undefined;
  if (!stored) {
    context.outcome = 'unknown-pipeline';
    return { ok: false, response: NOT_FOUND };
  }
  const secretRef = stored.document.spec.promotion?.strategy.secretRef;
  if (!secretRef) {
    context.outcome = 'no-secret-ref';
    return { ok: false, response: UNAUTHORIZED };
  }
  let secret: Readonly<Record<string, string>> | undefined;
  try {
    secret = await deps.secrets.getSecret({ namespace: stored.pipeline.namespace, name: secretRef.name });
  } catch (error) {
    // On AWS the receiver may read only Secrets tagged for webhook HMAC use, so an untagged one answers
    // AccessDenied: either way the request cannot be authenticated, which is a 401, not a fault of ours to retry.
    context.outcome = 'hmac-secret-unreadable';
    context.reason = error instanceof Error ? error.name : 'unknown error';
    return { ok: false, response: UNAUTHORIZED };
  }
  const hmacKey = secret?.[HMAC_KEY_SECRET_KEY];
  if (!hmacKey) {
    context.outcome = 'no-hmac-key';
    return { ok: false, response: UNAUTHORIZED };
  }
  if (!verifySignature(request.headers['x-signature'], signed, hmacKey, WEAVE_SIGNATURE_ALGORITHMS)) {
    context.outcome = 'bad-signature';
    return { ok: false, response: UNAUTHORIZED };
  }
  return {
    ok: true,
    pipeline: stored.pipeline,
    identity: `${HMAC_KEY_SECRET_KEY} of Secret ${stored.pipeline.namespace}/${secretRef.name}`,
  };
}

function hasEnvironment(pipeline: Pipeline, env: string): boolean {
  return pipeline.environments.some((environment) => environment.name === env);
}

/** Signed like Weave's, but only triggers a check of `env`'s targets: the body is not otherwise used. */
async function receivePromotion(
  request: HttpRequest,
  deps: ReceiverDeps,
  context: LogContext,
  key: ObjectKey,
  env: string,
): Promise<HttpResponse> {
  context.env = clip(env);
  const authorization = await authorizePipeline(request, deps, context, key, request.body);
  if (!authorization.ok) return authorization.response;
  if (!hasEnvironment(authorization.pipeline, env)) {
    context.outcome = 'unknown-environment';
    return UNKNOWN_ENVIRONMENT;
  }
  await deps.queue.send({ type: 'check-pipeline', pipeline: key, env, cause: 'promotion-webhook' });
  context.outcome = 'enqueued';
  return ACCEPTED;
}

/** Weave signs the empty string whatever the body; the approval is recorded under the key's identity. */
async function receiveApproval(
  request: HttpRequest,
  deps: ReceiverDeps,
  context: LogContext,
  key: ObjectKey,
  env: string,
  revision: string,
): Promise<HttpResponse> {
  context.env = clip(env);
  context.revision = clip(revision);
  const authorization = await authorizePipeline(request, deps, context, key, Buffer.alloc(0));
  if (!authorization.ok) return authorization.response;
  if (!hasEnvironment(authorization.pipeline, env)) {
    context.outcome = 'unknown-environment';
    return UNKNOWN_ENVIRONMENT;
  }
  const outcome = await deps.store.approve(key, env, revision, authorization.identity, deps.now?.() ?? new Date());
  context.outcome = outcome;
  if (outcome === 'not-waiting') return NOT_WAITING;
  // Also after `already-approved`: the promotion record makes a repeated promote message harmless.
  await deps.queue.send({ type: 'promote', pipeline: key, env, revision });
  return ACCEPTED;
}

// ---------------------------------------------------------------- logging

const MAX_LOGGED_CHARS = 256;

function clip(value: string, max = MAX_LOGGED_CHARS): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

function logRequest(
  logger: ReceiverLogger,
  request: HttpRequest,
  response: HttpResponse,
  context: LogContext,
  durationMs: number,
  failure: unknown,
): void {
  const attributes: Record<string, unknown> = {
    route: context.route ?? 'unknown',
    method: clip(request.method, 16),
    status: response.statusCode,
    durationMs: Math.round(durationMs * 10) / 10,
    ...context,
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
