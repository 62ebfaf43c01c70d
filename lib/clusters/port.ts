// Reading Flux app objects (and Flagger Canaries) from leaf clusters. Everything the verifier knows about a target
// comes through here.
import type { WatchedKind } from '../config/schema.js';
import { redact } from '../logging/redaction.js';
import type { AppKey, ObjectKey } from '../pipeline/model.js';

export type ClusterErrorKind =
  /** Connection refused, DNS, TLS: the cluster could not be reached. Retried. */
  | 'unreachable'
  /** No answer within the timeout. Retried. */
  | 'timeout'
  /** 401: the credentials are wrong or expired. Not retried in a loop: a person must act (or a token refresh). */
  | 'unauthorized'
  /** 403: the credentials may not read this. Not retried in a loop. */
  | 'forbidden'
  /** 5xx or an unexpected answer from the API server. Retried. */
  | 'server-error'
  /** The cluster is not registered, or its Secret is missing or holds no usable kubeconfig. Not retried. */
  | 'bad-config'
  /**
   * The answer is over the reader's bounds (read-limits.ts): too many pages or objects in a LIST, or too many bytes.
   * Not retried in a loop: a cluster that holds that much, or an API server that misbehaves, needs a person.
   */
  | 'too-large';

/** A failed read of a cluster. The message is redacted: it often repeats the API server's answer. */
export class ClusterAccessError extends Error {
  override name = 'ClusterAccessError';

  constructor(
    readonly kind: ClusterErrorKind,
    message: string,
    readonly statusCode?: number,
    options?: { cause?: unknown },
  ) {
    super(redact(message), options);
  }

  /** Whether trying again soon may succeed (as opposed to a fault a person must fix). */
  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout' || this.kind === 'server-error';
  }
}

export interface ClusterReader {
  /**
   * The app object as the cluster serves it (in the newest API version the cluster serves for its kind), or
   * undefined when it does not exist. Throws ClusterAccessError for anything else. A consistent read.
   */
  getApp(app: AppKey): Promise<Record<string, unknown> | undefined>;
  /**
   * The Flagger Canary `canary` (flagger.app, in the newest version the cluster serves) on `cluster`, or undefined
   * when it does not exist or the cluster does not serve Flagger's API. Bounded and classified as getApp's reads;
   * throws ClusterAccessError for anything else.
   */
  getCanary(cluster: ObjectKey, canary: ObjectKey): Promise<Record<string, unknown> | undefined>;
  /**
   * Every object of `kind` in the cluster, all pages (limit/continue). When a cluster-wide list is forbidden, lists
   * each of `namespaces` instead. Throws ClusterAccessError.
   */
  listApps(cluster: ObjectKey, kind: WatchedKind, namespaces: readonly string[]): Promise<Record<string, unknown>[]>;
}
