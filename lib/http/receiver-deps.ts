// What the receiver's routes are given: the ports they read and write through, and the settings of a deployment.
import type { Logger } from '../logging/logger.js';
import type { Queue } from '../queue/index.js';
import type { MasterKeys } from '../secrets/master-keys.js';
import type { SecretSource } from '../secrets/port.js';
import type { ReceiverStore } from '../store/port.js';
import type { EventOutcome } from './event-outcome.js';
import type { WebhookKeyCache } from './webhook-key-cache.js';

export interface ReceiverDeps {
  /** Lookups of the routes, and the writes of an approval (lib/approval). */
  store: ReceiverStore;
  queue: Queue;
  secrets: SecretSource;
  /** The master key(s) the cluster keys are derived from; read per event request (adapters cache). */
  masterKeys: () => Promise<MasterKeys>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Default 3 MiB (`DEFAULT_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
  /** When an approval happened; default the system clock. */
  now?: () => Date;
  /**
   * The pipelines' webhook keys as read within the last few seconds, so that forged `/promotion` and `/approval`
   * calls cost no reads. Default: one cache per `store` object, shared by every request given that store.
   */
  webhookKeys?: WebhookKeyCache;
  /**
   * The approver who holds the pipelines' webhook keys, where one person does: the local mode's owner, whose data
   * directory holds them, so that their approval with a key and with pipelinectl count once. Unset on AWS.
   */
  webhookKeyHolder?: string;
  /** Told what became of each request to the events route (the receiver Lambda counts them); default none. */
  onEvent?: (outcome: EventOutcome) => void;
}
