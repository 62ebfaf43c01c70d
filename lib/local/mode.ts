// The local mode (`pipelinectl serve`): the receiver, the verifier and the poller in one process, on the same lib/
// code as the Lambdas, with dynalite on disk and the embedded queue (being written).
import type { ObjectKey } from '../pipeline/model.js';
import type { StructuredLogger } from '../runtime/logger.js';
import type { MasterKeys } from '../secrets/master-keys.js';
import type { Store } from '../store/port.js';

export interface LocalModeOptions {
  /** A file or directory of configuration (Pipelines, GitopsClusters, Secrets), applied at start. */
  configDir: string;
  /** Default `.data`. */
  dataDir: string;
  /** The receiver's port; 0 picks a free one. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  pollIntervalMs: number;
  defaultCluster?: ObjectKey;
  /** GitHub API base for every pull request (the demo's simulated GitHub, or GitHub Enterprise). */
  githubApiUrl?: string;
  /** Secrets layered over the configuration's, e.g. the demo's simulated kubeconfigs and GitHub token. */
  secrets?: readonly { key: ObjectKey; values: Record<string, string> }[];
  /** Notification webhook, as on AWS. */
  notificationWebhook?: { url: string; hmacKey?: string };
  logger: StructuredLogger;
  now?: () => Date;
}

export interface LocalMode {
  /** e.g. `http://127.0.0.1:8080`. */
  receiverUrl: string;
  store: Store;
  masterKeys: MasterKeys;
  /** Enqueues a poll of every (cluster, kind) in use, as the interval does. */
  poll(): Promise<void>;
  /** Stops taking requests, lets in-flight work finish, stops the store, removes serve.json. */
  stop(): Promise<void>;
}

export function startLocalMode(_options: LocalModeOptions): Promise<LocalMode> {
  return Promise.reject(new Error('the local mode is being written'));
}
