// What the receiver last read of each pipeline's webhook key, for a few seconds: the key, or why there is none.
// Weave's `/promotion` and `/approval` are signed with a per-pipeline key that lives in a Secret the Pipeline names,
// so without this every forged call would cost a store read and a Secret read before its signature could be
// refused. Bounded in size and time; what it holds is never logged.
import type { ObjectKey } from '../pipeline/model.js';
import type { HttpResponse } from './types.js';

/** What reading a pipeline's webhook key found. */
export type WebhookKeyVerdict =
  | { kind: 'key'; hmacKey: string }
  /** How a request for this pipeline is refused, and the log line's outcome and reason. */
  | { kind: 'refused'; response: HttpResponse; outcome: string; reason?: string };

export interface WebhookKeyCacheOptions {
  /** How long a verdict is used. Default 5 s: a rotated or newly applied key is picked up within that. */
  ttlMs?: number;
  /** How many pipelines are remembered; the oldest read is forgotten first. Default 1,000. */
  maxEntries?: number;
  /** Milliseconds on a clock that only moves forward. Default `performance.now`. */
  clock?: () => number;
}

export const WEBHOOK_KEY_TTL_MS = 5_000;
const MAX_ENTRIES = 1_000;

export class WebhookKeyCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  /**
   * In the order read (a Map keeps insertion order), so the first entry is the oldest. A private field: neither
   * util.inspect nor JSON.stringify shows it, so logging the cache by mistake still does not log a key.
   */
  readonly #entries = new Map<string, { verdict: WebhookKeyVerdict; readAt: number }>();
  /** Reads under way, by pipeline: as many as there are pipelines being read at one moment. */
  readonly #reading = new Map<string, Promise<unknown>>();

  constructor(options: WebhookKeyCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? WEBHOOK_KEY_TTL_MS;
    this.#maxEntries = Math.max(1, options.maxEntries ?? MAX_ENTRIES);
    this.#clock = options.clock ?? (() => performance.now());
  }

  /** The verdict read for `pipeline` less than the TTL ago, if any. */
  get(pipeline: ObjectKey): WebhookKeyVerdict | undefined {
    const id = idOf(pipeline);
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (this.#clock() - entry.readAt < this.#ttlMs) return entry.verdict;
    this.#entries.delete(id);
    return undefined;
  }

  /**
   * Reads `pipeline`'s key with `read` and remembers its verdict. Calls that come while a read of the same pipeline
   * is under way share it (it started moments ago), so a burst of forged calls costs one read, not one each.
   */
  refresh<R>(pipeline: ObjectKey, read: () => Promise<R>, verdictOf: (result: R) => WebhookKeyVerdict): Promise<R> {
    const id = idOf(pipeline);
    const running = this.#reading.get(id);
    // Only `refresh` puts promises here, and each pipeline's are read by one caller with one `R`.
    if (running !== undefined) return running as Promise<R>;
    const reading = read()
      .then((result) => {
        this.set(pipeline, verdictOf(result));
        return result;
      })
      .finally(() => this.#reading.delete(id));
    this.#reading.set(id, reading);
    return reading;
  }

  /** Remembers what was just read for `pipeline`. */
  set(pipeline: ObjectKey, verdict: WebhookKeyVerdict): void {
    const id = idOf(pipeline);
    this.#entries.delete(id);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(id, { verdict, readAt: this.#clock() });
  }

  /** How many pipelines are remembered, expired ones included until they are looked up or pushed out. */
  get size(): number {
    return this.#entries.size;
  }
}

/** Namespaces and names are DNS-1123 (checked before anything is read), so `/` cannot be part of either. */
function idOf(pipeline: ObjectKey): string {
  return `${pipeline.namespace}/${pipeline.name}`;
}
