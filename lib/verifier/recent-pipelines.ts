// The pipeline definitions a `poll` message needs, to know which targets to expect on its (cluster, kind). A poll
// of a fleet is one message per (cluster, kind), so a pipeline spanning 200 clusters would be read 200 times per
// poll, several read units each (the definition holds every target). A definition a few seconds old is good enough
// here: the poll only records what it sees (statuses belong to apps, not pipelines), an apply sends its own check,
// and every decision reads the pipeline afresh.
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Store, StoredPipeline } from '../store/port.js';

export class RecentPipelines {
  /** The read (a promise, so that concurrent messages share one read) and when it was started. */
  readonly #reads = new Map<string, { startedAt: number; read: Promise<StoredPipeline | undefined> }>();

  constructor(
    private readonly store: Pick<Store, 'getPipeline'>,
    private readonly maxAgeMs: number,
    private readonly now: () => Date,
  ) {}

  get(key: ObjectKey): Promise<StoredPipeline | undefined> {
    const now = this.now().getTime();
    const id = objectKeyString(key);
    const recent = this.#reads.get(id);
    if (recent && now - recent.startedAt <= this.maxAgeMs) return recent.read;
    for (const [other, entry] of this.#reads) if (now - entry.startedAt > this.maxAgeMs) this.#reads.delete(other);
    const read = this.store.getPipeline(key);
    this.#reads.set(id, { startedAt: now, read });
    // A failed read is not remembered: the next message tries again.
    read.catch(() => this.#reads.delete(id));
    return read;
  }
}
