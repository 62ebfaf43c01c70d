// What the CLI commands act on: the local data directory (also while `serve` runs) or a deployed stack. Commands
// depend on this interface only, so each works the same against both.
import type { EksAccess } from '../clusters/eks.js';
import type { MasterKeys } from '../secrets/master-keys.js';
import type { SecretSource } from '../secrets/port.js';
import type { SecretPurpose } from '../secrets/tags.js';
import type { ObjectKey } from '../pipeline/model.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import type { QueueMessage } from '../queue/messages.js';
import type { Store } from '../store/port.js';

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

/** The notification sinks a deployment delivers to (by kind), or why that cannot be told; `remedy` says how to add one. */
export type NotificationSinksInfo =
  { known: true; kinds: readonly string[]; remedy: string } | { known: false; reason: string; remedy: string };

export interface Backend {
  /** What the commands act on, for messages: `local data directory .data (serve running)`, `AWS table …`. */
  readonly description: string;
  readonly store: Store;
  /** Where targets without a clusterRef run, when the deployment has one. */
  readonly defaultCluster?: ObjectKey;
  /** Stores a Secret where the deployment reads it (local: the data directory; AWS: Secrets Manager, tagged by use). */
  putSecret(
    key: ObjectKey,
    values: Readonly<Record<string, string>>,
    purposes: readonly SecretPurpose[],
  ): Promise<void>;
  /** The key names of a stored Secret (never its values), or undefined when there is none. */
  secretKeys(key: ObjectKey): Promise<string[] | undefined>;
  /**
   * Re-marks a stored Secret with what now references it (AWS: its purpose tag), leaving its values alone: used
   * when a Pipeline or GitopsCluster starts or stops referring to a Secret applied earlier. `missing` when there
   * is no such Secret.
   */
  setSecretPurposes?(key: ObjectKey, purposes: readonly SecretPurpose[]): Promise<'changed' | 'unchanged' | 'missing'>;
  /**
   * Hands a message to the verifier: on AWS through SQS; locally through the running `serve`. False when no local
   * mode runs to take it (the next `serve` decides from the store anyway).
   */
  enqueue(message: QueueMessage): Promise<boolean>;
  masterKeys(): Promise<MasterKeys>;
  /** Who acts, recorded on approvals: `local:<user>`, or the AWS caller's ARN. */
  identity(): Promise<string>;
  /** The dead-letter queue, where the deployment has one (AWS). */
  readonly deadLetters?: {
    list(max: number): Promise<DeadLetterView[]>;
    /**
     * Moves every dead letter that decodes back to the work queue. One that does not decode stays where it is:
     * the consumer would only dead-letter it again.
     */
    redrive(): Promise<RedriveResult>;
  };
  /** Where notification promotions would go (serve.json, the stack's NotificationSinks output), for apply's warnings. */
  notificationSinks?(): Promise<NotificationSinksInfo>;
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
  close(): Promise<void>;
}
