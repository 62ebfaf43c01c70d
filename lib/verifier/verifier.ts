// The verifier: what each queue message means (DESIGN §5). It reads targets from their leaf clusters, records
// what it saw, and decides for every pipeline concerned. It is the same code in the Lambda (SQS) and in the local
// mode (embedded queue); both hand it messages through `consumeBatch`.
//
// Retries: a read that failed in a way that may pass (unreachable, timeout, 5xx) is recorded on the target and the
// message is then failed, so the queue delivers it again with a growing delay (lib/queue/redelivery.ts) and, after
// its maximum receive count, dead-letters it.
// A fault a person must fix (401, 403, no such object, bad kubeconfig) is recorded and the message succeeds: the
// scheduled poll looks again, no retry loop hammers the cluster.
import { ClusterAccessError } from '../clusters/port.js';
import { appKeyString, objectKeyString, type AppKey, type ObjectKey } from '../pipeline/model.js';
import type { MessageHandler } from '../queue/consumer.js';
import type { CheckAppMessage, CheckPipelineMessage, PollMessage } from '../queue/messages.js';
import { settingsOf, type VerifierDeps } from './deps.js';
import { appsOf, evaluatePipeline } from './evaluate.js';
import { failureStatus, observeApp, record, scheduleRecheck, statusOf, type Observation } from './observe.js';
import { RecentPipelines } from './recent-pipelines.js';

/** How many targets are read from clusters at once for one message. */
const READ_CONCURRENCY = 8;

export function createVerifier(deps: VerifierDeps): MessageHandler {
  const recentPipelines =
    deps.recentPipelines ?? new RecentPipelines(deps.store, settingsOf(deps).pollPipelineMaxAgeMs, deps.now);
  return async (message) => {
    switch (message.type) {
      case 'check-app':
        return checkApp(message, deps);
      case 'check-pipeline':
        return checkPipeline(message, deps);
      case 'poll':
        return poll(message, deps, recentPipelines);
      case 'promote':
        // The approval is already in the store; the decision turns it into the promotion.
        await evaluatePipeline(message.pipeline, deps);
        return;
    }
  };
}

async function checkApp(message: CheckAppMessage, deps: VerifierDeps): Promise<void> {
  const targets = await deps.store.findTargets(message.app);
  if (targets.length === 0) {
    deps.logger.debug('app is in no pipeline any more; nothing to check', { app: appKeyString(message.app) });
    return;
  }
  if (message.hint) deps.logger.debug('checking app', { app: appKeyString(message.app), hint: message.hint });
  const observation = await observeApp(message.app, deps);
  await scheduleRecheck(observation, message.attempt, deps);
  for (const pipeline of uniqueKeys(targets.map((target) => target.pipeline))) await evaluatePipeline(pipeline, deps);
  if (observation.retryableFailure) throw observation.retryableFailure;
}

async function checkPipeline(message: CheckPipelineMessage, deps: VerifierDeps): Promise<void> {
  // After a webhook or an apply the targets are read afresh; an approval, a retry or a poll only needs a decision.
  let failure: ClusterAccessError | undefined;
  if (message.cause === 'promotion-webhook' || message.cause === 'apply') {
    const stored = await deps.store.getPipeline(message.pipeline);
    if (!stored) return;
    const observations = await mapLimit(appsOf(stored.pipeline, message.env), READ_CONCURRENCY, (app) =>
      observeApp(app, deps),
    );
    for (const observation of observations) await scheduleRecheck(observation, 0, deps);
    failure = observations.find((observation) => observation.retryableFailure)?.retryableFailure;
  }
  await evaluatePipeline(message.pipeline, deps);
  if (failure) throw failure;
}

/**
 * One LIST for the (cluster, kind), every target of every pipeline using it updated, and a decision for each pipeline
 * with a target that changed. A pipeline spanning many clusters is not re-decided once per cluster on every poll
 * when nothing changed: the poller's own `check-pipeline` per pipeline covers what comes due with time.
 */
async function poll(message: PollMessage, deps: VerifierDeps, recentPipelines: RecentPipelines): Promise<void> {
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

  const observedAt = deps.now();
  let observations: Observation[];
  let failure: Error | undefined;
  try {
    const objects = await deps.clusters.listApps(message.cluster, message.kind, usage.namespaces);
    const byName = new Map(objects.map((object) => [nameOf(object), object]));
    observations = [...expected.values()].map((app) => ({
      app,
      status: statusOf(app, byName.get(`${app.namespace}/${app.name}`)),
    }));
  } catch (error) {
    const status = failureStatus(error);
    deps.logger.warn('cannot list apps', {
      cluster: objectKeyString(message.cluster),
      kind: message.kind,
      reason: status.reason,
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
      await evaluatePipeline({ namespace: pipeline.namespace, name: pipeline.name }, deps);
    }
  }
  if (failure) throw failure;
}

function nameOf(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { namespace?: unknown; name?: unknown };
  return `${String(metadata.namespace)}/${String(metadata.name)}`;
}

function uniqueKeys(keys: readonly ObjectKey[]): ObjectKey[] {
  return [...new Map(keys.map((key) => [objectKeyString(key), key])).values()];
}

/** Runs `work` over `items` with at most `limit` at once, keeping the order of results. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
