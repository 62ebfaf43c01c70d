// The scheduled backstop for lost events and for time: one `poll` message per (cluster, app kind) in use, which
// reads that cluster once and decides for the pipelines whose targets it found changed; and one `check-pipeline`
// per pipeline, which decides from the stored records alone, so a retry or an expired lease that came due is acted
// on even when no target changed (only a pipeline whose decision time alone can change is decided then). Each poll
// message carries the cluster's registration, listed once for all of them, so that the verifier does not read it
// per message. And one `sync-config-source` per ConfigSource. A few queries and one batch send per ten messages,
// whatever the size of the fleet.
import { appsPlaceOf } from '../config/pipeline-set.js';
import type { WatchedKind } from '../config/schema.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Queue } from '../queue/port.js';
import type { AppsIndex, ConfigSources, ConfigurationStore, PipelineSets } from '../store/port.js';
import { listAll } from '../util/paged.js';

/** Above this size (JSON bytes) a registration stays out of the message and the verifier reads it from the store. */
const MAX_REGISTRATION_BYTES = 16 * 1024;

export async function enqueuePolls(deps: {
  store: Pick<AppsIndex, 'listClusterKinds'> &
    Pick<ConfigurationStore, 'listClusters'> &
    Pick<ConfigSources, 'listConfigSources'> &
    Pick<PipelineSets, 'listPipelineSets'>;
  queue: Queue;
  /**
   * The cause of the check of every pipeline: `poll` (default) decides only a pipeline time can change; `resume`,
   * the local mode's first poll after a start, decides every one, as what the stopped process had queued is lost.
   */
  pipelineCheck?: 'poll' | 'resume';
}): Promise<number> {
  const { store } = deps;
  const usage = await store.listClusterKinds();
  // The (cluster, kind) pairs PipelineSets' apps generators look at: polled with the pipelines' pairs, one LIST
  // each for both; a pair no pipeline uses yet is polled for the sets alone.
  const followers = new Map<string, { cluster: ObjectKey; kind: WatchedKind; sets: ObjectKey[] }>();
  for (const { document } of await listAll((page) => store.listPipelineSets(page))) {
    const set = keyOfMetadata(document.metadata);
    for (const { apps } of document.spec.generators) {
      if (!apps) continue;
      const { cluster, kind } = appsPlaceOf(set, apps);
      const id = `${objectKeyString(cluster)}|${kind}`;
      const follower = followers.get(id) ?? { cluster, kind, sets: [] };
      if (!follower.sets.some((each) => objectKeyString(each) === objectKeyString(set))) follower.sets.push(set);
      followers.set(id, follower);
    }
  }
  const pairs: { cluster: ObjectKey; kind: WatchedKind }[] = [...usage];
  for (const follower of followers.values()) {
    const id = `${objectKeyString(follower.cluster)}|${follower.kind}`;
    if (!usage.some(({ cluster, kind }) => `${objectKeyString(cluster)}|${kind}` === id)) pairs.push(follower);
  }
  const registrations = new Map<string, Record<string, unknown>>();
  if (pairs.length > 0) {
    for (const { document } of await listAll((page) => store.listClusters(page))) {
      if (Buffer.byteLength(JSON.stringify(document)) > MAX_REGISTRATION_BYTES) continue;
      registrations.set(objectKeyString(keyOfMetadata(document.metadata)), document);
    }
  }
  await deps.queue.sendBatch(
    pairs.map(({ cluster, kind }) => {
      const registration = registrations.get(objectKeyString(cluster));
      const sets = followers.get(`${objectKeyString(cluster)}|${kind}`)?.sets;
      return {
        message: {
          type: 'poll' as const,
          cluster,
          kind,
          ...(registration ? { registration } : {}),
          ...(sets ? { pipelineSets: sets } : {}),
        },
      };
    }),
  );
  // Each ConfigSource's head is read by the verifier (one Git request; a commit seen before writes nothing), so the
  // poller reads no Git host and holds no Git credentials.
  const sources = await listAll((page) => store.listConfigSources(page));
  await deps.queue.sendBatch(
    sources.map(({ document }) => ({
      message: {
        type: 'sync-config-source' as const,
        source: keyOfMetadata(document.metadata),
        cause: 'poll' as const,
      },
    })),
  );
  const pipelines = new Map(usage.flatMap(({ pipelines }) => pipelines.map((key) => [objectKeyString(key), key])));
  await deps.queue.sendBatch(
    [...pipelines.values()].map((pipeline) => ({
      message: { type: 'check-pipeline' as const, pipeline, cause: deps.pipelineCheck ?? 'poll', readTargets: false },
    })),
  );
  return pairs.length;
}
