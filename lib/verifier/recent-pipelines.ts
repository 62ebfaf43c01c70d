// The pipeline definitions a `poll` message needs, to know which targets to expect on its (cluster, kind), and a
// `check-app` message, to know whether the app is still listed (recent-reads.ts says why a few seconds' age is
// fine). A poll of a fleet looks at every (cluster, kind), so a pipeline spanning 200 clusters would otherwise be read
// 200 times per poll, several read units each (the definition holds every target).
//
// A message that has read the configuration generation (docs/architecture.md, "The poll digest") may go further: a
// definition read under the generation it read is the stored one whatever its age, as every change of a definition
// moves the generation on after its write. The poll's check of each pipeline reads its definitions so, once per
// generation in a warm container instead of once per poll.
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Store, StoredPipeline } from '../store/port.js';
import { RecentReads } from './recent-reads.js';

export class RecentPipelines extends RecentReads<StoredPipeline | undefined> {
  /** The latest generation a message told, and the definitions read since it was told, by pipeline. */
  #generation = 0;
  readonly #current = new Map<string, Promise<StoredPipeline | undefined>>();

  constructor(
    private readonly store: Pick<Store, 'getPipeline'>,
    maxAgeMs: number,
    now: () => Date,
  ) {
    super((key) => store.getPipeline(key), maxAgeMs, now);
  }

  /**
   * Told the configuration generation a message read before it reads any definition: when it moved on since, every
   * definition kept is forgotten, so that what the message reads next is at least as new as that generation (what a
   * poll digest written under it must be computed from).
   */
  atGeneration(generation: number): void {
    if (generation <= this.#generation) return;
    this.#generation = generation;
    this.clear();
    this.#current.clear();
  }

  /**
   * The definition as stored at `generation`, which the caller has just read: kept from a read made since this
   * container was told that generation, else read now (and kept for the next caller that read the same one).
   */
  async atCurrentGeneration(key: ObjectKey, generation: number): Promise<StoredPipeline | undefined> {
    this.atGeneration(generation);
    if (generation < this.#generation) return this.store.getPipeline(key);
    const id = objectKeyString(key);
    const kept = this.#current.get(id);
    if (kept) return kept;
    const read = this.store.getPipeline(key);
    this.#current.set(id, read);
    read.catch(() => this.#current.delete(id));
    return read;
  }
}
