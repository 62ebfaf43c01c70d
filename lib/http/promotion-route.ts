// POST /promotion/{ns}/{name}/{env}: Weave's promotion webhook. Signed like Weave's, and refused like Weave's: a body
// that is not a Flux event is a 400; an event about another object than the pipeline's app in `env`, or an `env`
// with no environment after it, is a 422 (docs/weave-compatibility.md). Otherwise it only triggers a check of `env`'s
// targets: the event's revision is a hint, and the verifier decides from what the clusters report.
import { parseFluxEvent, watchedKindOfEvent, type FluxEvent } from '../flux/event.js';
import type { ObjectKey, Pipeline, PipelineEnvironment } from '../pipeline/model.js';
import { authorizePipeline } from './pipeline-authorization.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { ACCEPTED, badRequest, LAST_ENVIRONMENT, NOT_THE_PIPELINE_APP, UNKNOWN_ENVIRONMENT } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';
import { successorsOf } from '../pipeline/environment-graph.js';

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
  const { pipeline } = authorization;

  const parsed = parseFluxEvent(request.body.toString('utf8'));
  if (!parsed.ok) {
    log.outcome = 'not-an-event';
    log.reason = parsed.reason;
    return badRequest(parsed.reason);
  }
  const { kind, namespace, name } = parsed.event.involvedObject;
  log.object = { kind: clip(kind), namespace: clip(namespace), name: clip(name) };
  if (parsed.event.revisionHint) log.hint = { revision: clip(parsed.event.revisionHint) };

  const environment = pipeline.environments.find((candidate) => candidate.name === env);
  if (environment === undefined) {
    log.outcome = 'unknown-environment';
    return UNKNOWN_ENVIRONMENT;
  }
  // Nothing is promoted from an environment no other follows: the last of a line, the end of a graph's branch.
  if (successorsOf(pipeline.environments, env).length === 0) {
    log.outcome = 'last-environment';
    return LAST_ENVIRONMENT;
  }
  if (!isAboutPipelineApp(parsed.event, pipeline, environment)) {
    log.outcome = 'not-the-pipeline-app';
    return NOT_THE_PIPELINE_APP;
  }
  await deps.queue.send({ type: 'check-pipeline', pipeline: key, env, cause: 'promotion-webhook', readTargets: true });
  log.outcome = 'enqueued';
  return ACCEPTED;
}

/**
 * Weave's check: the object is the pipeline's app (kind and name; a Flux kind of Flux's API group, whatever its
 * version, so a Flux upgrade does not break the webhook) in the namespace of one of the environment's targets. The
 * cluster cannot be told from an event, so it is not checked (nor is it in Weave).
 */
function isAboutPipelineApp(event: FluxEvent, pipeline: Pipeline, environment: PipelineEnvironment): boolean {
  const { namespace, name } = event.involvedObject;
  return (
    watchedKindOfEvent(event) === pipeline.appRef.kind &&
    name === pipeline.appRef.name &&
    environment.targets.some((target) => target.namespace === namespace)
  );
}
