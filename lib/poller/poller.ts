// The scheduled backstop for lost events: one `poll` message per (cluster, app kind) in use. One query and one
// batch send per ten pairs, whatever the size of the fleet; the verifier does the reading.
import type { Queue } from '../queue/port.js';
import type { AppsIndex } from '../store/port.js';

export async function enqueuePolls(deps: {
  store: Pick<AppsIndex, 'listClusterKinds'>;
  queue: Queue;
}): Promise<number> {
  const usage = await deps.store.listClusterKinds();
  await deps.queue.sendBatch(usage.map(({ cluster, kind }) => ({ message: { type: 'poll' as const, cluster, kind } })));
  return usage.length;
}
