// The pipeline definitions a `poll` message needs, to know which targets to expect on its (cluster, kind), and a
// `check-app` message, to know whether the app is still listed (recent-reads.ts says why a few seconds' age is
// fine). A poll of a fleet is one message per (cluster, kind), so a pipeline spanning 200 clusters would otherwise be
// read 200 times per poll, several read units each (the definition holds every target).
import type { Store, StoredPipeline } from '../store/port.js';
import { RecentReads } from './recent-reads.js';

export class RecentPipelines extends RecentReads<StoredPipeline | undefined> {
  constructor(store: Pick<Store, 'getPipeline'>, maxAgeMs: number, now: () => Date) {
    super((key) => store.getPipeline(key), maxAgeMs, now);
  }
}
