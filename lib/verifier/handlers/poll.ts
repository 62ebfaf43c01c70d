// `poll`: one LIST for a (cluster, kind), every target of every pipeline using it recorded, and a decision for each
// pipeline with a target that changed. A pipeline spanning many clusters is not re-decided once per cluster on
// every poll when nothing changed: the poller's own `check-pipeline` per pipeline covers what comes due with time.
import { ClusterAccessError } from '../../clusters/port.js';
import { appKeyString, objectKeyString, type AppKey, pipelineKeyOf } from '../../pipeline/model.js';
import type { PollMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { evaluatePipeline } from '../evaluate.js';
import { appsOf } from '../pipeline-state.js';
import { failureStatus, record, scheduleRecheck, statusOf, type Observation } from '../observe.js';
import type { RecentPipelines } from '../recent-pipelines.js';

export async function poll(message: PollMessage, deps: VerifierDeps, recentPipelines: RecentPipelines): Promise<void> {
  const usage = await deps.store.getClusterKind(message.cluster, message.kind);
  if (!usage) return;
  const pipelines = (await Promise.all(usage.pipelines.map((key) => recentPipelines.get(key)))).flatMap((p) =>
    p ? [p.pipeline] : [],
  );
  const expected = new Map<string, AppKey>();
  for (const pipeline of pipelines) {
    for (const app of appsOf(pipeline)) {
      if (app.kind === message.kind && objectKeyString(app.cluster) === objectKeyString(message.cluster)) {
        expected.set(appKeyString(app), app);
      }
    }
  }

  // Only what a stored definition lists is read: a usage item an interrupted apply left names no target.
  if (expected.size === 0) return;
  const namespaces = [...new Set([...expected.values()].map((app) => app.namespace))];

  const observedAt = deps.now();
  let observations: Pick<Observation, 'app' | 'status'>[];
  let failure: Error | undefined;
  try {
    const objects = await deps.clusters.listApps(message.cluster, message.kind, namespaces);
    const byName = new Map(objects.map((object) => [nameOf(object), object]));
    // A target missing from the list is recorded as not found, as a GET of it would be.
    observations = [...expected.values()].map((app) => ({
      app,
      status: statusOf(app, byName.get(`${app.namespace}/${app.name}`)),
    }));
  } catch (error) {
    const status = failureStatus(error);
    deps.logger.warn('cannot list apps', {
      cluster: objectKeyString(message.cluster),
      kind: message.kind,
      phase: status.phase,
      reason: status.reason,
      message: status.message,
    });
    observations = [...expected.values()].map((app) => ({ app, status }));
    if (!(error instanceof ClusterAccessError) || error.retryable) {
      failure = error instanceof Error ? error : new Error('listing apps failed');
    }
  }
  const changed = new Set<string>();
  for (const observation of observations) {
    if (await record(observation.app, observation.status, observedAt, deps)) changed.add(appKeyString(observation.app));
    await scheduleRecheck(observation, 0, deps);
  }
  for (const pipeline of pipelines) {
    if (appsOf(pipeline).some((app) => changed.has(appKeyString(app)))) {
      await evaluatePipeline(pipelineKeyOf(pipeline), deps, 'status-changed');
    }
  }
  if (failure) throw failure;
}

function nameOf(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { namespace?: unknown; name?: unknown };
  return `${String(metadata.namespace)}/${String(metadata.name)}`;
}
