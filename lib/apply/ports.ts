// What applying a configuration needs from where it is stored: the CLI's Backend (the local data directory or a
// deployed stack) and the verifier's sync of a ConfigSource both provide it, so both apply the same way.
import type { ObjectKey } from '../pipeline/model.js';
import type { QueueMessage } from '../queue/messages.js';
import type { SecretPurpose } from '../secrets/tags.js';
import type { Store } from '../store/port.js';

/** The notification sinks a deployment delivers to (by kind), or why that cannot be told; `remedy` says how to add one. */
export type NotificationSinksInfo =
  { known: true; kinds: readonly string[]; remedy: string } | { known: false; reason: string; remedy: string };

export interface ApplyPorts {
  /** What is applied to, for messages: `local data directory .data (serve running)`, `AWS table …`. */
  readonly description: string;
  readonly store: Store;
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
  /** Hands a message to the verifier; false when nothing runs to take it (the next start decides from the store). */
  enqueue(message: QueueMessage): Promise<boolean>;
  /** Who acts, recorded in the audit trail: `local:<user>`, the AWS caller's ARN, a ConfigSource. */
  identity(): Promise<string>;
  /** Where notification promotions would go, for apply's warnings; absent when the deployment cannot tell. */
  notificationSinks?(): Promise<NotificationSinksInfo>;
  /**
   * False where no AWS identity signs EKS tokens (the local mode), so a GitopsCluster given by `spec.eks` cannot be
   * read and apply warns; absent where the deployment reads EKS clusters (AWS) or it is not apply's to say.
   */
  readonly readsEks?: boolean;
}
