// The verifier's dependencies, built one way for both runtimes: the verifier Lambda (verifier.ts) and the local mode
// (lib/local/mode.ts) call this, so what differs between them is a parameter here, in plain sight: the queue and the
// store behind the ports, EKS tokens (AWS only), and how promotions reach GitHub and the notification sinks.
import { cloudWatchAlarmsReader, evaluateCloudWatchAlarmsCheck } from '../verification/cloudwatch-alarms-check.js';
import { deferredKubernetesClusterReader } from '../clusters/deferred-reader.js';
import type { EksAccess } from '../clusters/eks.js';
import type { Logger } from '../logging/logger.js';
import type { PeopleNotifications } from '../notify/index.js';
import type { MessageHandler, Queue } from '../queue/index.js';
import type { SecretSource } from '../secrets/port.js';
import type { Store } from '../store/index.js';
import {
  createVerifier,
  DEFAULT_SETTINGS,
  DeferredDecisions,
  RecentPipelines,
  RecentReads,
  type ConfigSourceAccess,
  type EffectListener,
  type VerificationAccess,
  type VerifierSettings,
} from '../verifier/index.js';
import { createGitHosts, createPromoter, gitApiUrlsOf, type PromotionSettings } from './promoter.js';

export interface VerifierAssemblyOptions {
  store: Store;
  queue: Queue;
  /** Kubeconfig Secrets for the clusters, and the promotion strategies' credentials. */
  secrets: SecretSource;
  logger: Logger;
  now: () => Date;
  /** EKS IAM tokens, for GitopsClusters registered by EKS name: the Lambda has an AWS identity, the local mode not. */
  eksTokens?: EksAccess;
  promotion: PromotionSettings;
  settings?: Partial<VerifierSettings>;
  /** Told of every effect the verifier makes: metrics, say. */
  listeners?: readonly EffectListener[];
  /**
   * Notifications to people, over the installation's sinks: its listener joins `listeners`, and a ConfigSource commit
   * that failed for good is told through it too. None: nobody is told.
   */
  people?: PeopleNotifications;
  /**
   * How verification checks are evaluated besides the Secrets (read from `secrets`): the outbound rules' settings,
   * the CloudWatch alarms evaluator. Loopback http is never switched on here: a check allows it for itself.
   */
  verification?: Omit<VerificationAccess, 'secrets'>;
}

/** The verifier of one worker: the Lambda names each invocation's worker by its request id, `serve` one per run. */
export type VerifierOfWorker = (workerId: string) => MessageHandler;

/**
 * Builds the cluster reader, the promoter, the recent definitions (pipelines, cluster registrations) and the delayed
 * decisions of polls once, so that their connections and caches outlive a batch (a warm container, a running `serve`).
 */
export function assembleVerifier(options: VerifierAssemblyOptions): VerifierOfWorker {
  const { store, queue, secrets, logger, now, settings, people } = options;
  const listeners = [...(options.listeners ?? []), ...(people ? [people.listener] : [])];
  const pollPipelineMaxAgeMs = settings?.pollPipelineMaxAgeMs ?? DEFAULT_SETTINGS.pollPipelineMaxAgeMs;
  // A re-applied or deleted GitopsCluster is seen within that many seconds by the reads of its cluster.
  const registrations = new RecentReads(
    async (key) => (await store.getCluster(key))?.document,
    pollPipelineMaxAgeMs,
    now,
  );
  const clusters = deferredKubernetesClusterReader({
    getCluster: (key) => registrations.get(key),
    secrets,
    eksTokens: options.eksTokens,
  });
  const hosts = createGitHosts({ ...options.promotion, logger });
  const promoter = createPromoter({ ...options.promotion, secrets, logger, hosts, servedInputs: store, now });
  const configSources: ConfigSourceAccess = {
    git: { hosts, secrets, apiUrls: gitApiUrlsOf(options.promotion) },
    ...(people ? { onFailure: people.onConfigSyncFailure } : {}),
  };
  // One CloudWatch client per region for the life of the container: the default chain's credentials, the SDK's own
  // endpoint (AWS_ENDPOINT_URL_CLOUDWATCH where a test or a proxy sets one).
  const cloudwatch = cloudWatchAlarmsReader({});
  const verification: Omit<VerificationAccess, 'secrets'> = {
    cloudwatchAlarms: (name, check, context) => evaluateCloudWatchAlarmsCheck(name, check, { ...context, cloudwatch }),
    ...options.verification,
  };
  const recentPipelines = new RecentPipelines(store, pollPipelineMaxAgeMs, now);
  const deferredDecisions = new DeferredDecisions(
    queue,
    settings?.pollDecisionDelaySeconds ?? DEFAULT_SETTINGS.pollDecisionDelaySeconds,
    now,
  );
  return (workerId) =>
    createVerifier({
      store,
      queue,
      clusters,
      promoter,
      logger,
      now,
      workerId,
      settings,
      recentPipelines,
      deferredDecisions,
      clusterRegistrations: registrations,
      listeners,
      configSources,
      verification: { ...verification, secrets },
    });
}
