// POST /v1/events/{clusterNs}/{clusterName}: a Flux event from a leaf cluster. An event is only a trigger: the
// route authenticates it, finds the pipeline targets its app belongs to and enqueues a check of the app; the
// verifier reads the app from the cluster. The payload's revision and status are never trusted.
import { parseFluxEvent, watchedKindOfEvent, type FluxEvent } from '../flux/event.js';
import type { ObjectKey } from '../pipeline/model.js';
import { deriveClusterKey, EVENT_SIGNATURE_ALGORITHMS, verifySignatureWithAny } from '../signing/hmac.js';
import { isObjectName } from './object-name.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { ACCEPTED, badRequest, UNAUTHORIZED } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';

export async function receiveEvent(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  cluster: ObjectKey,
): Promise<HttpResponse> {
  log.cluster = `${clip(cluster.namespace)}/${clip(cluster.name)}`;
  // The signature first: nothing is looked up for an unauthenticated request.
  const masterKeys = await deps.masterKeys();
  const keys = [masterKeys.current, masterKeys.previous]
    .filter((key): key is string => typeof key === 'string' && key !== '')
    .map((masterKey) => deriveClusterKey(masterKey, cluster));
  if (!verifySignatureWithAny(request.headers['x-signature'], request.body, keys, EVENT_SIGNATURE_ALGORITHMS)) {
    log.outcome = 'bad-signature';
    return UNAUTHORIZED;
  }
  const registered =
    isObjectName(cluster.namespace) && isObjectName(cluster.name) && (await deps.store.getCluster(cluster));
  if (!registered) {
    log.outcome = 'unknown-cluster';
    return UNAUTHORIZED;
  }

  const parsed = parseFluxEvent(request.body.toString('utf8'));
  if (!parsed.ok) {
    log.outcome = 'not-an-event';
    log.reason = parsed.reason;
    return badRequest(parsed.reason);
  }
  const { event } = parsed;
  const { kind, namespace, name } = event.involvedObject;
  log.object = { kind: clip(kind), namespace: clip(namespace), name: clip(name) };
  const hint = hintOf(event);
  log.hint = {
    ...(hint.revision && { revision: clip(hint.revision) }),
    ...(hint.reason && { reason: clip(hint.reason) }),
  };

  const watchedKind = watchedKindOfEvent(event);
  if (watchedKind === undefined) {
    log.outcome = 'not-watched';
    return ACCEPTED;
  }
  if (!isObjectName(namespace) || !isObjectName(name)) {
    log.outcome = 'not-indexed';
    return ACCEPTED;
  }
  const app = { cluster, kind: watchedKind, namespace, name };
  const targets = await deps.store.findTargets(app);
  log.targets = targets.length;
  if (targets.length === 0) {
    log.outcome = 'not-indexed';
    return ACCEPTED;
  }
  const pipelines = [
    ...new Map(targets.map(({ pipeline }) => [`${pipeline.namespace}/${pipeline.name}`, pipeline])).values(),
  ];
  await deps.queue.send({ type: 'check-app', app, cause: 'event', attempt: 0, hint, pipelines });
  log.outcome = 'enqueued';
  return ACCEPTED;
}

/** The payload's revision and reason: passed on to be logged by the verifier, never used for a decision. */
function hintOf(event: FluxEvent): { revision?: string; reason?: string } {
  const hint: { revision?: string; reason?: string } = {};
  if (event.revisionHint) hint.revision = event.revisionHint;
  if (event.reason) hint.reason = event.reason;
  return hint;
}
