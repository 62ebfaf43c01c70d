// What the checks read through, so that the same checks run for the local data directory and for a deployed stack:
// each backend hands over its Secrets (and EKS access), the CLI builds the cluster reader and the Git hosts on them.
import type { ClusterReader } from '../clusters/port.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import type { GitHost } from '../promotion/pull-request/host.js';
import type { Pipeline, PipelineEnvironment } from '../pipeline/model.js';
import type { CheckResult, VerificationCheck } from '../pipeline/verification.js';
import type { SecretSource } from '../secrets/port.js';

/**
 * The notification sinks a deployment delivers to (by kind), or why that cannot be told; `remedy` says how to add
 * one (the Backend's `notificationSinks` answers this).
 */
export type NotificationSinksAnswer =
  { known: true; kinds: readonly string[]; remedy: string } | { known: false; reason: string; remedy: string };

export interface CheckPorts {
  /**
   * Reads app objects from the leaf clusters with the stored credentials, as the verifier does. The object comes as
   * the cluster serves it, so its `apiVersion` is the version that served it.
   */
  clusters: Pick<ClusterReader, 'getApp'>;
  /** The Git credentials, as the deployment reads them. */
  secrets: SecretSource;
  /** The adapter of a Git host type (loaded when first asked for); undefined when there is none. */
  gitHost(type: GitProviderType): Promise<GitHost | undefined>;
  /** The API base of every repository of a type, where the deployment overrides the one derived from its URL. */
  gitApiUrls?: Partial<Record<GitProviderType, string>>;
  /** Where notification promotions go; absent when the deployment cannot say. */
  notificationSinks?: () => Promise<NotificationSinksAnswer>;
  /**
   * Evaluates one verification check as the verifier would, with the deployment's credentials (docs/verification.md);
   * absent where the deployment cannot, and each check's row says so.
   */
  evaluateCheck?: (pipeline: Pipeline, env: PipelineEnvironment, check: VerificationCheck) => Promise<CheckResult>;
  /** How many targets (and repositories) are checked at once. Default 8. */
  concurrency?: number;
}
