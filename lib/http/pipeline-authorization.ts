// Who may call a pipeline's Weave webhooks (`/promotion`, `/approval`): whoever signs the request with the
// `hmac-key` of the Secret the pipeline names. See docs/weave-compatibility.md for how this differs from Weave.
import type { ObjectKey, Pipeline } from '../pipeline/model.js';
import { verifySignature, WEAVE_SIGNATURE_ALGORITHMS } from '../signing/hmac.js';
import { isObjectName } from './object-name.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { NOT_FOUND, UNAUTHORIZED } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** The Secret key holding a Pipeline's webhook HMAC key (Weave). */
export const HMAC_KEY_SECRET_KEY = 'hmac-key';

export type PipelineAuthorization =
  /** `identity` names the key that signed: what an approval is recorded under. */
  { ok: true; pipeline: Pipeline; identity: string } | { ok: false; response: HttpResponse };

/**
 * Weave's order: the pipeline must exist (404), then the request must carry a valid signature of `signed` under the
 * `hmac-key` of the Secret named by the Pipeline-level `spec.promotion.strategy.secretRef`, in the pipeline's
 * namespace. Unlike Weave, a pipeline without that secretRef is not open to anyone: it is a 401.
 */
export async function authorizePipeline(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  key: ObjectKey,
  signed: Buffer,
): Promise<PipelineAuthorization> {
  log.pipeline = `${clip(key.namespace)}/${clip(key.name)}`;
  const stored = isObjectName(key.namespace) && isObjectName(key.name) ? await deps.store.getPipeline(key) : undefined;
  if (!stored) {
    log.outcome = 'unknown-pipeline';
    return { ok: false, response: NOT_FOUND };
  }
  const secretRef = stored.document.spec.promotion?.strategy.secretRef;
  if (!secretRef) {
    log.outcome = 'no-secret-ref';
    return { ok: false, response: UNAUTHORIZED };
  }
  let secret: Readonly<Record<string, string>> | undefined;
  try {
    secret = await deps.secrets.getSecret({ namespace: stored.pipeline.namespace, name: secretRef.name });
  } catch (error) {
    // On AWS the receiver may read only Secrets tagged for webhook HMAC use, so an untagged one answers
    // AccessDenied: either way the request cannot be authenticated, which is a 401, not a fault of ours to retry.
    log.outcome = 'hmac-secret-unreadable';
    log.reason = error instanceof Error ? error.name : 'unknown error';
    return { ok: false, response: UNAUTHORIZED };
  }
  const hmacKey = secret?.[HMAC_KEY_SECRET_KEY];
  if (!hmacKey) {
    log.outcome = 'no-hmac-key';
    return { ok: false, response: UNAUTHORIZED };
  }
  if (!verifySignature(request.headers['x-signature'], signed, hmacKey, WEAVE_SIGNATURE_ALGORITHMS)) {
    log.outcome = 'bad-signature';
    return { ok: false, response: UNAUTHORIZED };
  }
  return {
    ok: true,
    pipeline: stored.pipeline,
    identity: `${HMAC_KEY_SECRET_KEY} of Secret ${stored.pipeline.namespace}/${secretRef.name}`,
  };
}
