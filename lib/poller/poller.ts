// The scheduled backstop for lost events and for time: one `poll` message per (cluster, app kind) in use, which
// reads that cluster once and decides for the pipelines whose targets it found changed; and one `check-pipeline`
// per pipeline, which decides from the stored records alone, so a retry or an expired lease that came due is acted
// on even when no target changed. One query and one batch send per ten messages, whatever the size of the fleet.
import { objectKeyString } from '../pipeline/model.js';
import type { Queue } from '../queue/port.js';
import type { AppsIndex } from '../store/port.js';

export async function enqueuePolls(deps: {
  store: Pick<AppsIndex, 'listClusterKinds'>;
  queue: Queue;
}): Promise<number> {
  const usage = await deps.store.listClusterKinds();
  await deps.queue.sendBatch(usage.map(({ cluster, kind }) => ({ message: { type: 'poll' as const, cluster, kind } })));
  const pipelines = new Map(usage.flatMap(({ pipelines }) => pipelines.map((key) => [objectKeyString(key), key])));
  await deps.queue.sendBatch(
    [...pipelines.values()].map((pipeline) => ({
      message: { type: 'check-pipeline' as const, pipeline, cause: 'poll' as const, readTargets: false },
    })),
  );
  return usage.length;
}
