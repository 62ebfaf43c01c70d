// What the CLI commands act on: the local data directory (also while `serve` runs) or a deployed stack. Commands
// depend on this interface only, so each works the same against both.
import type { EksAccess } from '../clusters/eks.js';
import type { MasterKeys } from '../secrets/master-keys.js';
import type { SecretSource } from '../secrets/port.js';
import type { ObjectKey } from '../pipeline/model.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import type { ApplyPorts } from '../apply/ports.js';

export interface DeadLetterView {
  messageId: string;
  /** The message type and key fields, or `undecodable` (the body itself is not shown: it may be anything). */
  summary: string;
  reason?: string;
  receiveCount?: number;
}

export interface RedriveResult {
  /** Sent to the work queue and deleted from the dead-letter queue. */
  moved: number;
  /** Left in the dead-letter queue because they do not decode. */
  undecodable: number;
}

export type { NotificationSinksInfo } from '../apply/ports.js';

/** Everything applying needs (ApplyPorts), and what the other commands read. */
export interface Backend extends ApplyPorts {
  /** Where targets without a clusterRef run, when the deployment has one. */
  readonly defaultCluster?: ObjectKey;
  masterKeys(): Promise<MasterKeys>;
  /** The dead-letter queue, where the deployment has one (AWS). */
  readonly deadLetters?: {
    list(max: number): Promise<DeadLetterView[]>;
    /**
     * Moves every dead letter that decodes back to the work queue. One that does not decode stays where it is:
     * the consumer would only dead-letter it again.
     */
    redrive(): Promise<RedriveResult>;
  };
  /**
   * The Secrets with their values, where the deployment reads them (local: the data directory; AWS: Secrets Manager
   * with the caller's credentials): what `check` reads clusters and Git hosts with. Values are never shown.
   */
  readonly secrets?: SecretSource;
  /** EKS tokens made with the caller's AWS credentials, for GitopsClusters registered by EKS name (AWS only). */
  eksAccess?(): Promise<EksAccess>;
  /**
   * The Git API base URLs the deployment uses in place of those derived from repository URLs, where it says so (a
   * running serve's flags).
   */
  gitApiUrls?(): Promise<Partial<Record<GitProviderType, string>>>;
  /**
   * Why the clusters and Git hosts its Secrets point at cannot answer, where the deployment knows (a demo's data
   * directory while no demo runs): what `check` says in place of each connection error.
   */
  unreachableReason?(): Promise<string | undefined>;
  /**
   * Whether the world it promotes in is simulated (a demo's data directory): a repository URL then names no real
   * repository, and the dashboard shows it as text marked simulated, not as a link.
   */
  simulated?(): Promise<boolean>;
  close(): Promise<void>;
}
