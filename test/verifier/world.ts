// The verifier on its own: the real handlers and decision over the in-memory store, a scripted ClusterReader, a
// queue that records what is sent and a recording promoter, on a clock the test moves. Nothing listens on a port
// and nothing waits, so a rule is checked in milliseconds.
import type { PipelineDocument } from '../../lib/config/schema.js';
import { readTargetStatus, type TargetStatus } from '../../lib/flux/index.js';
import { resolvePipeline, type AppKey, type ObjectKey } from '../../lib/pipeline/model.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import type { AuditEntry } from '../../lib/store/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier, type EffectListener, type VerifierSettings } from '../../lib/verifier/index.js';
import { deployedHelmRelease as deployed } from '../fixtures/flux-objects.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';

export const T0 = new Date('2026-11-01T10:00:00.000Z');
export const WORKER = 'verifier-test';
export const PIPELINE: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };

const cluster = (name: string): ObjectKey => ({ namespace: 'flux-system', name });
const podinfo = (clusterName: string, namespace: string): AppKey => ({
  cluster: cluster(clusterName),
  kind: 'HelmRelease',
  namespace,
  name: 'podinfo',
});
export const DEV_CLUSTER = cluster('dev');
export const PROD_CLUSTER = cluster('prod');
export const DEV = podinfo('dev', 'apps');
export const PROD = podinfo('prod', 'apps');
export const PROD_EU = podinfo('prod', 'apps-eu');

/**
 * dev → prod (two targets on one cluster), promoted by notification; prod waits for an approval when `manual`, and
 * for dev's soak when `devSoak` is given.
 */
export function pipelineDocument(options: { manual?: boolean; devSoak?: string } = {}): PipelineDocument {
  const target = (clusterName: string, namespace: string) => ({
    namespace,
    clusterRef: { kind: 'GitopsCluster' as const, name: clusterName },
  });
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { ...PIPELINE },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: [target('dev', 'apps')], ...(options.devSoak ? { soak: options.devSoak } : {}) },
        { name: 'prod', targets: [target('prod', 'apps'), target('prod', 'apps-eu')] },
      ],
      promotion: { ...(options.manual ? { manual: true } : {}), strategy: { notification: {} } },
    },
  };
}

export { deployedHelmRelease as deployed, upgradingHelmRelease as upgrading } from '../fixtures/flux-objects.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  attributes?: Record<string, unknown>;
}

export interface WorldOptions {
  manual?: boolean;
  /** dev's `soak`, e.g. `30m`. */
  devSoak?: string;
  settings?: Partial<VerifierSettings>;
  listeners?: readonly EffectListener[];
}

export type World = Awaited<ReturnType<typeof verifierWorld>>;

export async function verifierWorld(options: WorldOptions = {}) {
  const store = new MemoryStore();
  const clusters = new ScriptedClusters();
  const queue = new RecordingQueue();
  const promoter = new RecordingPromoter();
  const logs: LogLine[] = [];
  const log =
    (level: LogLine['level']) =>
    (message: string, attributes?: Record<string, unknown>): void =>
      void logs.push({ level, message, ...(attributes ? { attributes } : {}) });
  const logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  let now = T0;
  const handle = createVerifier({
    store,
    queue,
    clusters,
    promoter,
    logger,
    now: () => now,
    workerId: WORKER,
    settings: options.settings,
    listeners: options.listeners,
  });
  const document = pipelineDocument({ manual: options.manual, devSoak: options.devSoak });
  await store.applyPipeline(document, resolvePipeline(document), T0);

  return {
    store,
    clusters,
    queue,
    promoter,
    logs,
    now: () => now,
    advance(ms: number): void {
      now = new Date(now.getTime() + ms);
    },
    /** Hands the verifier one message, as the consumer does. */
    handle(message: QueueMessage): Promise<void> {
      return handle(message, { messageId: 'message-1', receiveCount: 1 });
    },
    /** The same, for a message received a second time (an earlier receive failed or timed out). */
    handleAgain(message: QueueMessage): Promise<void> {
      return handle(message, { messageId: 'message-1', receiveCount: 2 });
    },
    /**
     * Puts the app on its cluster running `version` and, unless `recorded` is false, records the status a read of it
     * gives, as an earlier message would have.
     */
    async deploy(app: AppKey, version: string, recorded = true): Promise<void> {
      const object = deployed(version, app.namespace);
      clusters.put(app, object);
      if (recorded) await store.recordTargetStatus(app, readTargetStatus(object), now);
    },
    /** A first attempt of promoting `revision` to prod, made by another worker, failed and is due again in 30 s. */
    async failedAttempt(revision: string): Promise<void> {
      await store.createPromotion(PIPELINE, 'prod', revision, now);
      const claimed = await store.claimPromotion(PIPELINE, 'prod', revision, 'another-worker', 60_000, now);
      if (!claimed) throw new Error('the attempt could not be claimed');
      await store.failPromotion(claimed, 'GitHub answered 502', new Date(now.getTime() + 30_000), now);
    },
    async statusOf(app: AppKey): Promise<TargetStatus | undefined> {
      return (await store.getTargetStatus(app))?.status;
    },
    /** The audit trail oldest first, as `type env revision`. */
    async audit(): Promise<string[]> {
      const { items } = await store.listAudit(PIPELINE);
      return items
        .filter((entry) => !isEnvironmentFact(entry))
        .reverse()
        .map((entry: AuditEntry) => `${entry.type} ${entry.env} ${entry.revision}`);
    },
    /** What was sent since the last call. */
    sent(): { message: QueueMessage; delaySeconds?: number }[] {
      return queue.take();
    },
  };
}
