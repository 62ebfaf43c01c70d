// POST /v1/config-sources/{ns}/{name}: a Git host's push webhook for a ConfigSource. Only a trigger: the route
// authenticates it as the host signs (lib/signing/push-signatures.ts) with the `webhook-secret` of the Secret the
// source names, and enqueues a sync of the source, which reads the branch head itself. Of the payload only the
// event's kind and the refs it pushed are read, so that a ping or a push to another branch costs nothing more.
import { repositoryTypeOf } from '../pipeline/repository-address.js';
import type { ObjectKey } from '../pipeline/model.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import { carriesPushCredential, verifyPushCredential } from '../signing/push-signatures.js';
import { isObjectName } from './object-name.js';
import { concernsBranch, pushEventOf } from './push-event.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { ACCEPTED, NOT_FOUND, PING_ANSWERED, PUSH_IGNORED, UNAUTHORIZED } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** The key of a ConfigSource's Secret that holds the push webhooks' secret. */
export const WEBHOOK_SECRET_KEY = 'webhook-secret';

/**
 * The request must carry the credential of the source's Git host, made with the `webhook-secret` of the Secret in
 * `spec.secretRef`. As on `/promotion`: a request without anything shaped like a credential is a 401 before anything
 * is read, and an unknown source is a 404; every other refusal is the same 401, saying nothing of the source.
 */
export async function receivePush(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  key: ObjectKey,
): Promise<HttpResponse> {
  log.configSource = `${clip(key.namespace)}/${clip(key.name)}`;
  if (!carriesPushCredential(request.headers)) {
    log.outcome = 'malformed-signature';
    return UNAUTHORIZED;
  }
  if (!isObjectName(key.namespace) || !isObjectName(key.name)) {
    log.outcome = 'unknown-config-source';
    return NOT_FOUND;
  }
  const stored = await deps.store.getConfigSource(key);
  if (!stored) {
    log.outcome = 'unknown-config-source';
    return NOT_FOUND;
  }
  const { spec } = stored.document;
  // The schema refuses a source whose host cannot be told, so this is only a source stored by an older version.
  const type: GitProviderType | undefined = repositoryTypeOf(spec.url, spec.type);
  if (type === undefined) {
    log.outcome = 'unknown-git-host';
    return UNAUTHORIZED;
  }
  let secret: Readonly<Record<string, string>> | undefined;
  try {
    secret = await deps.secrets.getSecret({ namespace: key.namespace, name: spec.secretRef.name });
  } catch (error) {
    // On AWS the receiver may read only Secrets tagged for it, so an untagged one answers AccessDenied: either way
    // the request cannot be authenticated, which is a 401, not a fault of ours to retry.
    log.outcome = 'webhook-secret-unreadable';
    log.reason = error instanceof Error ? error.name : 'unknown error';
    return UNAUTHORIZED;
  }
  const webhookSecret = secret?.[WEBHOOK_SECRET_KEY];
  if (!webhookSecret) {
    log.outcome = 'no-webhook-secret';
    return UNAUTHORIZED;
  }
  if (!verifyPushCredential(type, request.headers, request.body, webhookSecret)) {
    log.outcome = 'bad-signature';
    return UNAUTHORIZED;
  }

  const event = pushEventOf(type, request.headers, request.body);
  if (event.kind === 'ping') {
    log.outcome = 'ping';
    return PING_ANSWERED;
  }
  if (event.kind === 'not-a-push') {
    log.outcome = 'not-a-push';
    log.reason = clip(event.event, 64);
    return PUSH_IGNORED;
  }
  if (!concernsBranch(event, spec.branch)) {
    log.outcome = 'other-branch';
    return PUSH_IGNORED;
  }
  await deps.queue.send({ type: 'sync-config-source', source: key, cause: 'webhook' });
  log.outcome = 'enqueued';
  return ACCEPTED;
}
