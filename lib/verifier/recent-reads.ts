// A definition read a few seconds ago, shared by the messages a warm verifier handles meanwhile (concurrent ones
// share one read): the pipeline definitions a `poll` or `check-app` needs to know which targets to expect, and the
// cluster registrations a read of a leaf cluster starts from. A definition a few seconds old is good enough there:
// those messages only record what they see (statuses belong to apps, not pipelines), an apply sends its own check,
// and every decision reads the pipeline afresh. A failed read is not remembered: the next message tries again.
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';

export class RecentReads<T> {
  /** The read (a promise, so that concurrent messages share one read) and when it was started. */
  readonly #reads = new Map<string, { startedAt: number; read: Promise<T> }>();

  constructor(
    private readonly read: (key: ObjectKey) => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => Date,
  ) {}

  /** Remembers what a read of `key` just gave elsewhere (a registration the poller listed), as if read now. */
  remember(key: ObjectKey, value: T): void {
    this.#reads.set(objectKeyString(key), { startedAt: this.now().getTime(), read: Promise.resolve(value) });
  }

  /** Forgets every read, so that the next `get` of each key reads again. */
  clear(): void {
    this.#reads.clear();
  }

  get(key: ObjectKey): Promise<T> {
    const now = this.now().getTime();
    const id = objectKeyString(key);
    const recent = this.#reads.get(id);
    if (recent && now - recent.startedAt <= this.maxAgeMs) return recent.read;
    for (const [other, entry] of this.#reads) if (now - entry.startedAt > this.maxAgeMs) this.#reads.delete(other);
    const read = this.read(key);
    this.#reads.set(id, { startedAt: now, read });
    read.catch(() => this.#reads.delete(id));
    return read;
  }
}
