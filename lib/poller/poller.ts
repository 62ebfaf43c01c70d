// The scheduled backstop for lost events and for time: `poll-clusters` messages, each for a group of clusters and
// every (cluster, app kind) in use on them, which read each pair once and record what changed (a pair whose LIST is
// what its last full poll recorded costs nothing more: docs/architecture.md, "The poll digest"); and one
// `check-pipeline` per pipeline, which decides from the stored records alone, so a retry or an expired lease that
// came due is acted on even when no target changed (only a pipeline whose decision time alone can change is decided
// then). Each message carries its clusters' registrations, listed once for all of them, so that the verifier does
// not read them. And one `sync-config-source` per ConfigSource.
//
// Which pairs are in use is listed from the apps index only when the configuration changed since the last poll (or
// an hour went by): the plan of the poll is kept in the store under the configuration generation it was listed in.
// A few reads and one batch send per ten messages, whatever the size of the fleet. The clusters are dealt into
// messages by poll group (pollGroupOf), so that each message's poll digests are read together.
import type { WatchedKind } from '../config/schema.js';
import { keyOfMetadata, objectKeyString, pollGroupOf, type ObjectKey } from '../pipeline/model.js';
import { appsPlaceOf } from '../pipeline/pipeline-set.js';
import type { PollClustersMessage } from '../queue/messages.js';
import type { Queue } from '../queue/port.js';
import type {
  AppsIndex,
  ConfigSources,
  ConfigurationStore,
  PipelineSets,
  PollDigests,
  PollPlan,
} from '../store/port.js';
import { listAll } from '../util/paged.js';

/** Above this size (JSON bytes) a registration stays out of the message and the verifier reads it from the store. */
const MAX_REGISTRATION_BYTES = 16 * 1024;
/**
 * Clusters per `poll-clusters` message at most: few enough that a message's LISTs end within seconds (eight at a
 * time), many enough that a fleet of 2,000 clusters is 80 messages a poll, not 4,000.
 */
export const CLUSTERS_PER_POLL_MESSAGE = 25;
/** The JSON bytes of one message at most, registrations included: under SQS's 256 KiB. */
const MAX_POLL_MESSAGE_BYTES = 192 * 1024;
/** How long a stored plan is used while the configuration does not change: the apps index is listed again after. */
const PLAN_MAX_AGE_MS = 60 * 60_000;

export interface PollRound {
  /** (cluster, kind) pairs polled. */
  pairs: number;
  /** `poll-clusters` messages sent. */
  messages: number;
  /** The pipelines with a target on a polled pair: each was sent a `check-pipeline`. */
  pipelines: ObjectKey[];
}

export async function enqueuePolls(deps: {
  store: Pick<AppsIndex, 'listClusterKinds'> &
    Pick<ConfigurationStore, 'listClusters'> &
    Pick<ConfigSources, 'listConfigSources'> &
    Pick<PipelineSets, 'listPipelineSets'> &
    Pick<PollDigests, 'getConfigurationGeneration' | 'getPollPlan' | 'putPollPlan'>;
  queue: Queue;
  /**
   * The cause of the check of every pipeline: `poll` (default) decides only a pipeline time can change; `resume`,
   * the local mode's first poll after a start, decides every one, as what the stopped process had queued is lost.
   */
  pipelineCheck?: 'poll' | 'resume';
  now?: () => Date;
}): Promise<PollRound> {
  const { store } = deps;
  const plan = await currentPlan(store, (deps.now ?? (() => new Date()))());
  // The (cluster, kind) pairs PipelineSets' apps generators look at: polled with the pipelines' pairs, one LIST
  // each for both; a pair no pipeline uses yet is polled for the sets alone.
  const followers = new Map<string, { cluster: ObjectKey; kind: WatchedKind; sets: ObjectKey[] }>();
  for (const { document } of await listAll((page) => store.listPipelineSets(page))) {
    const set = keyOfMetadata(document.metadata);
    for (const { apps } of document.spec.generators) {
      if (!apps) continue;
      const { cluster, kind } = appsPlaceOf(set, apps);
      const id = pairId(cluster, kind);
      const follower = followers.get(id) ?? { cluster, kind, sets: [] };
      if (!follower.sets.some((each) => objectKeyString(each) === objectKeyString(set))) follower.sets.push(set);
      followers.set(id, follower);
    }
  }
  const pairs: { cluster: ObjectKey; kind: WatchedKind }[] = [...plan.pairs];
  const planned = new Set(plan.pairs.map(({ cluster, kind }) => pairId(cluster, kind)));
  for (const follower of followers.values()) {
    if (!planned.has(pairId(follower.cluster, follower.kind))) pairs.push(follower);
  }
  const registrations = new Map<string, Record<string, unknown>>();
  if (pairs.length > 0) {
    for (const { document } of await listAll((page) => store.listClusters(page))) {
      if (Buffer.byteLength(JSON.stringify(document)) > MAX_REGISTRATION_BYTES) continue;
      registrations.set(objectKeyString(keyOfMetadata(document.metadata)), document);
    }
  }
  const byCluster = new Map<string, PollClustersMessage['clusters'][number]>();
  for (const { cluster, kind } of pairs) {
    const id = objectKeyString(cluster);
    const registration = registrations.get(id);
    const entry = byCluster.get(id) ?? { cluster, ...(registration ? { registration } : {}), kinds: [] };
    const sets = followers.get(pairId(cluster, kind))?.sets;
    entry.kinds.push({ kind, ...(sets ? { pipelineSets: sets } : {}) });
    byCluster.set(id, entry);
  }
  const messages = packed(inPollGroupOrder([...byCluster.values()]));
  await deps.queue.sendBatch(messages.map((clusters) => ({ message: { type: 'poll-clusters' as const, clusters } })));
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
  await deps.queue.sendBatch(
    plan.pipelines.map((pipeline) => ({
      message: { type: 'check-pipeline' as const, pipeline, cause: deps.pipelineCheck ?? 'poll', readTargets: false },
    })),
  );
  return { pairs: pairs.length, messages: messages.length, pipelines: plan.pipelines };
}

/**
 * The pairs in use and their pipelines: the stored plan while the configuration generation it was listed in holds
 * (and it is under an hour old), else listed from the apps index and stored for the next poll. The generation is
 * read before the listing, so a plan is never newer than the generation it is stored under.
 */
async function currentPlan(
  store: Pick<AppsIndex, 'listClusterKinds'> &
    Pick<PollDigests, 'getConfigurationGeneration' | 'getPollPlan' | 'putPollPlan'>,
  now: Date,
): Promise<PollPlan> {
  const generation = await store.getConfigurationGeneration();
  const stored = await store.getPollPlan();
  const age = stored ? now.getTime() - Date.parse(stored.listedAt) : Infinity;
  if (stored?.generation === generation && age >= 0 && age <= PLAN_MAX_AGE_MS) return stored;
  const usage = await store.listClusterKinds();
  const pipelines = new Map(usage.flatMap(({ pipelines }) => pipelines.map((key) => [objectKeyString(key), key])));
  const plan: PollPlan = {
    generation,
    listedAt: now.toISOString(),
    pairs: usage.map(({ cluster, kind }) => ({ cluster, kind })),
    pipelines: [...pipelines.values()],
  };
  await store.putPollPlan(plan);
  return plan;
}

/** The clusters dealt into messages of at most CLUSTERS_PER_POLL_MESSAGE clusters and MAX_POLL_MESSAGE_BYTES. */
function packed<Entry>(entries: readonly Entry[]): Entry[][] {
  const messages: Entry[][] = [];
  let current: Entry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry));
    if (current.length > 0 && (current.length === CLUSTERS_PER_POLL_MESSAGE || bytes + size > MAX_POLL_MESSAGE_BYTES)) {
      messages.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) messages.push(current);
  return messages;
}

/**
 * The clusters by poll group, then by name: a message's clusters are then one or two groups' neighbours, whose poll
 * digests the verifier reads in a Query or two (pollGroupOf).
 */
function inPollGroupOrder<Entry extends { cluster: ObjectKey }>(entries: readonly Entry[]): Entry[] {
  const keyed = entries.map((entry) => ({
    entry,
    group: pollGroupOf(entry.cluster),
    id: objectKeyString(entry.cluster),
  }));
  keyed.sort((a, b) => a.group - b.group || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return keyed.map(({ entry }) => entry);
}

const pairId = (cluster: ObjectKey, kind: WatchedKind): string => `${objectKeyString(cluster)}|${kind}`;
