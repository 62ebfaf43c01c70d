// Who may call a pipeline's Weave webhooks (`/promotion`, `/approval`): whoever signs the request with the
// `hmac-key` of the Secret the pipeline names. See docs/weave-compatibility.md for how this differs from Weave.
import { webhookKeyIdentity } from '../pipeline/approver-identity.js';
import type { ObjectKey, Pipeline } from '../pipeline/model.js';
import { isWellFormedSignature, verifySignature, WEAVE_SIGNATURE_ALGORITHMS } from '../signing/hmac.js';
import { isObjectName } from './object-name.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { NOT_FOUND, UNAUTHORIZED } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';
import { WebhookKeyCache, type WebhookKeyVerdict } from './webhook-key-cache.js';

/** The Secret key holding a Pipeline's webhook HMAC key (Weave). */
export const HMAC_KEY_SECRET_KEY = 'hmac-key';

export type PipelineAuthorization =
  /** `identity` names the key that signed: what an approval is recorded under. */
  { ok: true; pipeline: Pipeline; identity: string } | { ok: false; response: HttpResponse };

/**
 * The request must carry a valid signature of `signed` under the `hmac-key` of the Secret named by the
 * Pipeline-level `spec.promotion.strategy.secretRef`, in the pipeline's namespace; an unknown pipeline is a 404
 * (Weave's order). Unlike Weave, a pipeline without that secretRef is not open to anyone: it is a 401.
 *
 * What a forged call costs is kept small: a header that cannot be a signature is a 401 before anything is read, and
 * a well-formed one is checked against what was read for the pipeline in the last few seconds (`WebhookKeyCache`).
 * Only a signature that verifies under that key, or a pipeline not read lately, reads the pipeline and its Secret
 * again, so a correctly signed call always acts on the pipeline and key as they are now.
 */
export async function authorizePipeline(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  key: ObjectKey,
  signed: Buffer,
): Promise<PipelineAuthorization> {
  log.pipeline = `${clip(key.namespace)}/${clip(key.name)}`;
  const signature = request.headers['x-signature'];
  if (!isWellFormedSignature(signature, WEAVE_SIGNATURE_ALGORITHMS)) {
    log.outcome = 'malformed-signature';
    return { ok: false, response: UNAUTHORIZED };
  }
  if (!isObjectName(key.namespace) || !isObjectName(key.name)) {
    log.outcome = 'unknown-pipeline';
    return { ok: false, response: NOT_FOUND };
  }
  const cache = webhookKeysOf(deps);
  const recent = cache.get(key);
  if (recent !== undefined && !(recent.kind === 'key' && verifies(signature, signed, recent.hmacKey))) {
    log.keyReadRecently = true;
    return refuse(recent, log);
  }
  const read = await cache.refresh(
    key,
    () => readWebhookKey(deps, key),
    (result) => (result.found ? { kind: 'key', hmacKey: result.hmacKey } : result.refusal),
  );
  if (!read.found) return refuse(read.refusal, log);
  if (!verifies(signature, signed, read.hmacKey)) return refuse(BAD_SIGNATURE, log);
  return {
    ok: true,
    pipeline: read.pipeline,
    identity: webhookKeyIdentity(read.pipeline.namespace, read.secretName),
  };
}

const BAD_SIGNATURE: Refusal = { kind: 'refused', response: UNAUTHORIZED, outcome: 'bad-signature' };

function verifies(signature: string | undefined, signed: Buffer, hmacKey: string): boolean {
  return verifySignature(signature, signed, hmacKey, WEAVE_SIGNATURE_ALGORITHMS);
}

/** A key that does not verify the request is refused as a bad signature. */
function refuse(verdict: WebhookKeyVerdict, log: RequestLog): { ok: false; response: HttpResponse } {
  if (verdict.kind === 'key') return refuse(BAD_SIGNATURE, log);
  log.outcome = verdict.outcome;
  if (verdict.reason !== undefined) log.reason = verdict.reason;
  return { ok: false, response: verdict.response };
}

type Refusal = Extract<WebhookKeyVerdict, { kind: 'refused' }>;

type WebhookKeyRead =
  { found: true; hmacKey: string; pipeline: Pipeline; secretName: string } | { found: false; refusal: Refusal };

const refused = (response: HttpResponse, outcome: string, reason?: string): WebhookKeyRead => ({
  found: false,
  refusal: { kind: 'refused', response, outcome, ...(reason !== undefined && { reason }) },
});

/** The pipeline and its webhook key as they are now: one store read, and one Secret read when it names one. */
async function readWebhookKey(deps: ReceiverDeps, key: ObjectKey): Promise<WebhookKeyRead> {
  const stored = await deps.store.getPipeline(key);
  if (!stored) return refused(NOT_FOUND, 'unknown-pipeline');
  const secretRef = stored.document.spec.promotion?.strategy.secretRef;
  if (!secretRef) return refused(UNAUTHORIZED, 'no-secret-ref');
  let secret: Readonly<Record<string, string>> | undefined;
  try {
    secret = await deps.secrets.getSecret({ namespace: stored.pipeline.namespace, name: secretRef.name });
  } catch (error) {
    // On AWS the receiver may read only Secrets tagged for webhook HMAC use, so an untagged one answers
    // AccessDenied: either way the request cannot be authenticated, which is a 401, not a fault of ours to retry.
    return refused(UNAUTHORIZED, 'hmac-secret-unreadable', error instanceof Error ? error.name : 'unknown error');
  }
  const hmacKey = secret?.[HMAC_KEY_SECRET_KEY];
  if (!hmacKey) return refused(UNAUTHORIZED, 'no-hmac-key');
  return { found: true, hmacKey, pipeline: stored.pipeline, secretName: secretRef.name };
}

const CACHES_BY_STORE = new WeakMap<object, WebhookKeyCache>();

/**
 * The cache `deps` carries, or else the one of its store. The Lambda keeps its dependencies per container and the
 * local mode keeps one store, so requests share a cache without either having to build one; a test's fresh store
 * gets a fresh cache.
 */
function webhookKeysOf(deps: ReceiverDeps): WebhookKeyCache {
  if (deps.webhookKeys) return deps.webhookKeys;
  let cache = CACHES_BY_STORE.get(deps.store);
  if (cache === undefined) {
    cache = new WebhookKeyCache();
    CACHES_BY_STORE.set(deps.store, cache);
  }
  return cache;
}
