// POST /promotion/{ns}/{name}/{env}: Weave's promotion webhook. Signed like Weave's, but it only triggers a check
// of `env`'s targets: the body is not otherwise used, and the verifier decides from what the clusters report.
import type { ObjectKey } from '../pipeline/model.js';
import { authorizePipeline } from './pipeline-authorization.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { ACCEPTED, UNKNOWN_ENVIRONMENT } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';

export async function receivePromotion(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  key: ObjectKey,
  env: string,
): Promise<HttpResponse> {
  log.env = clip(env);
  const authorization = await authorizePipeline(request, deps, log, key, request.body);
  if (!authorization.ok) return authorization.response;
  if (!authorization.pipeline.environments.some((environment) => environment.name === env)) {
    log.outcome = 'unknown-environment';
    return UNKNOWN_ENVIRONMENT;
  }
  await deps.queue.send({ type: 'check-pipeline', pipeline: key, env, cause: 'promotion-webhook', readTargets: true });
  log.outcome = 'enqueued';
  return ACCEPTED;
}
