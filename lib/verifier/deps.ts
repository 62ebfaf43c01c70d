// What the verifier needs from the outside, and its tunables (documented in docs/architecture.md, "Retries").
import type { ClusterReader } from '../clusters/port.js';
import type { GitopsClusterDocument } from '../config/schema.js';
import type { Logger } from '../logging/logger.js';
import type { Promoter } from '../promotion/port.js';
import type { Queue } from '../queue/port.js';
import type { Store } from '../store/port.js';
import type { GitAccess } from '../config-source/repository.js';
import type { SyncDeps } from '../config-source/sync.js';
import type { EffectListener } from './effect-listener.js';
import type { DeferredDecisions } from './deferred-decisions.js';
import type { RecentPipelines } from './recent-pipelines.js';
import type { RecentReads } from './recent-reads.js';
import type { AwsCredentialsProvider } from '../clusters/eks.js';
import type { SecretSource } from '../secrets/port.js';
import type { CloudWatchAlarmsEvaluator } from '../verification/evaluate-check.js';
import type { OutboundRequestOptions } from '../verification/outbound-request.js';

export interface VerifierSettings {
  /**
   * Delays (seconds) before each re-check of a target that has not settled: a HelmRelease announces success
   * before it writes its status. After the last one the scheduled poll takes over.
   */
  recheckDelaysSeconds: readonly number[];
  /** How long a worker owns a promotion attempt; another may resume it after that. */
  promotionLeaseMs: number;
  /** Delays before retrying a promotion that failed with a retryable fault; after the last, it waits for a person. */
  promotionRetryDelaysSeconds: readonly number[];
  /** How old a pipeline definition read by an earlier `poll` message may be when another one reuses it. */
  pollPipelineMaxAgeMs: number;
  /**
   * Seconds after which a pipeline whose target a `poll` message found changed is decided, by one delayed
   * `check-pipeline` that the other poll messages of the same poll rely on (deferred-decisions.ts); 0 decides it
   * within the poll message, once per message. Whole seconds, at most 900.
   */
  pollDecisionDelaySeconds: number;
  /**
   * How long a pair's poll digest is trusted after the full poll that wrote it: after that the pair is polled in full
   * again, whatever its LIST holds, so that nothing a digest could miss outlives it.
   */
  pollDigestMaxAgeMs: number;
}

export const DEFAULT_SETTINGS: VerifierSettings = {
  recheckDelaysSeconds: [5, 10, 20, 40, 80],
  promotionLeaseMs: 5 * 60_000,
  promotionRetryDelaysSeconds: [30, 60, 120, 300, 600],
  pollPipelineMaxAgeMs: 30_000,
  pollDecisionDelaySeconds: 5,
  pollDigestMaxAgeMs: 60 * 60_000,
};

export interface VerifierDeps {
  store: Store;
  queue: Queue;
  clusters: ClusterReader;
  promoter: Promoter;
  logger: Logger;
  now: () => Date;
  /** Names this worker on the promotion records it holds (e.g. the Lambda request id). */
  workerId: string;
  settings?: Partial<VerifierSettings>;
  /**
   * Pipeline definitions shared by `poll` messages; pass one that outlives a Lambda invocation to share them across
   * the batches of a warm container. Default: one per verifier.
   */
  recentPipelines?: RecentPipelines;
  /**
   * The delayed decisions `poll` messages share; pass one that outlives a Lambda invocation so that the batches of a
   * warm container share them. Default: one per verifier.
   */
  deferredDecisions?: DeferredDecisions;
  /**
   * The cluster registrations the cluster reader reads from, when they are remembered (recent-reads.ts): a `poll`
   * message hands over the one the poller listed, so that the reader does not read it again. Default: none kept.
   */
  clusterRegistrations?: RecentReads<GitopsClusterDocument | undefined>;
  /** Told of every effect the verifier makes (notifications, metrics); default none. */
  listeners?: readonly EffectListener[];
  /** How ConfigSources' repositories are read; without it `sync-config-source` does nothing. */
  configSources?: ConfigSourceAccess;
  /** How verification checks are evaluated (the `verify` action); default no Secrets, the outbound rules' defaults. */
  verification?: VerificationAccess;
}

/** What evaluating an environment's checks needs besides the cluster reader (lib/verification/evaluate-check.ts). */
export interface VerificationAccess {
  /** Where the Secrets the checks name (`secretRef`) are read, in the pipeline's namespace. */
  secrets?: SecretSource;
  /**
   * The outbound rules' settings for every check (a CA, a resolver, time limits). Never loopback http: each check
   * allows that for itself (`allowInsecureLoopback`).
   */
  outbound?: Omit<OutboundRequestOptions, 'allowLoopbackHttp'>;
  /** SigV4's credentials for Amazon Managed Service for Prometheus; default the AWS SDK's provider chain. */
  awsCredentials?: AwsCredentialsProvider;
  /** Evaluates `cloudwatchAlarms` checks; without it they are inconclusive. */
  cloudwatchAlarms?: CloudWatchAlarmsEvaluator;
}

export interface ConfigSourceAccess {
  git: GitAccess;
  /** Told once a commit failed for good: people are told `config-sync-failed` (lib/notify); default nobody. */
  onFailure?: SyncDeps['onFailure'];
}

export function settingsOf(deps: VerifierDeps): VerifierSettings {
  return { ...DEFAULT_SETTINGS, ...deps.settings };
}
