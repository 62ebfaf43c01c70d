// `poll-clusters`: the scheduled poll of a group of clusters, every kind in use on each. For each (cluster, kind) the
// pair's poll digest says what its last full poll listed: the same namespaces are listed again, and when the LIST
// holds exactly what it held then, under the same configuration generation, there is nothing to record and nothing
// more is read (docs/architecture.md, "The poll digest"). Any other pair is polled as a `poll` message polls it, from
// the same LIST, and its digest rewritten. A pair whose poll fails is polled again by a `poll` message of its own, so
// that one unreachable cluster neither holds up nor repeats the rest of its group.
import { objectKeyString, type ObjectKey, type WatchedKind } from '../../pipeline/model.js';
import type { PollClustersMessage, PollMessage } from '../../queue/messages.js';
import type { PairDigest, StoredPairDigest } from '../../store/port.js';
import { redact } from '../../logging/redaction.js';
import { errorMessage } from '../../util/error-message.js';
import { mapLimit } from '../../util/map-limit.js';
import { settingsOf, type VerifierDeps } from '../deps.js';
import type { DeferredDecisions } from '../deferred-decisions.js';
import { listDigest } from '../list-digest.js';
import type { RecentPipelines } from '../recent-pipelines.js';
import { poll, rememberRegistration, type ListedBefore } from './poll.js';

/** Pairs of one message polled at once. */
export const PAIR_CONCURRENCY = 8;

/** How one pair's poll went: what the effect on the store was, for the log and the tests. */
export type PairPollOutcome =
  /** The LIST held what the digest says: nothing recorded, nothing more read. */
  | 'unchanged'
  /** Polled in full (no digest, another generation, a stale digest, or the LIST changed). */
  | 'polled'
  /** The poll failed: a `poll` message of its own polls the pair again. */
  | 'retried';

export async function pollClusters(
  message: PollClustersMessage,
  deps: VerifierDeps,
  recentPipelines: RecentPipelines,
  deferredDecisions: DeferredDecisions,
  redelivered = false,
): Promise<PairPollOutcome[]> {
  // Read before any definition: a digest written under it is computed from definitions at least as new.
  const generation = await deps.store.getConfigurationGeneration();
  recentPipelines.atGeneration(generation);
  for (const { cluster, registration } of message.clusters) rememberRegistration(cluster, registration, deps);
  // A message received again may have recorded its changes and failed before they were decided: poll it in full.
  const digests = redelivered
    ? new Map<string, ReadonlyMap<WatchedKind, StoredPairDigest>>()
    : await deps.store.getPollDigests(message.clusters.map(({ cluster }) => cluster));
  // A cluster's kinds are polled one after the other, so that its LISTs share the connection the first one opens: one
  // TLS handshake per cluster and poll, not one per kind read at once (each poll's connections are new, the kept ones
  // idle for 5 minutes). Every cluster's first kind comes first, then every cluster's second kind, and so on, so that
  // with more clusters than PAIR_CONCURRENCY a pair seldom has to wait for its cluster's last one.
  const pairs = message.clusters
    .flatMap(({ cluster, registration, kinds }) =>
      kinds.map(({ kind, pipelineSets }, position) => ({
        position,
        message: {
          type: 'poll' as const,
          cluster,
          kind,
          ...(registration ? { registration } : {}),
          ...(pipelineSets ? { pipelineSets } : {}),
        },
        stored: digests.get(objectKeyString(cluster))?.get(kind),
      })),
    )
    .sort((a, b) => a.position - b.position);
  const retries: PollMessage[] = [];
  // The pipelines the message's pairs found changed are left to the delayed decision once, after the last pair, not
  // once per pair: after an apply every pair of a pipeline spanning the group changes.
  const toDecide = new Map<string, ObjectKey>();
  const collected: Pick<DeferredDecisions, 'delaySeconds' | 'decideSoon'> = {
    delaySeconds: deferredDecisions.delaySeconds,
    decideSoon: (pipelines) => {
      for (const pipeline of pipelines) toDecide.set(objectKeyString(pipeline), pipeline);
      return Promise.resolve();
    },
  };
  /** Each cluster's pair polled last, which the next of its kinds waits for. */
  const lastOfCluster = new Map<string, Promise<PairPollOutcome>>();
  const pollPair = async (pair: (typeof pairs)[number]): Promise<PairPollOutcome> => {
    const { cluster, kind } = pair.message;
    // A PipelineSet's apps generator counts the polls an app is missing from (pipeline-set-apps.ts): its pairs are
    // polled in full each time.
    const followed = (pair.message.pipelineSets?.length ?? 0) > 0;
    const digest = pair.stored?.digest;
    const trusted = !followed && digest && isTrusted(digest, generation, deps) ? digest : undefined;
    let listedBefore: ListedBefore | undefined;
    if (trusted) {
      listedBefore = await listOnce(cluster, kind, trusted.namespaces, deps);
      if ('objects' in listedBefore.outcome && listDigest(listedBefore.outcome.objects) === trusted.digest) {
        return 'unchanged';
      }
    }
    try {
      const listed = await poll(pair.message, deps, recentPipelines, collected, redelivered, listedBefore);
      if (listed) {
        // Not over an invalidation since the digests were read: a failed read recorded meanwhile is not in the LIST.
        const written = await deps.store.putPollDigest(
          cluster,
          kind,
          {
            generation,
            namespaces: listed.namespaces,
            digest: listDigest(listed.objects),
            writtenAt: deps.now().toISOString(),
          },
          pair.stored?.invalidations ?? 0,
        );
        if (!written) {
          deps.logger.debug('poll digest invalidated during the poll; not written', {
            cluster: objectKeyString(cluster),
            kind,
          });
        }
      } else if (digest) {
        // Nothing listed (no target left, or a fault a person must fix was recorded): nothing to vouch for.
        await deps.store.invalidatePollDigest(cluster, kind);
      }
      return 'polled';
    } catch (error) {
      deps.logger.warn('poll of a cluster failed; polling it again on its own', {
        cluster: objectKeyString(cluster),
        kind,
        error: redact(errorMessage(error)),
      });
      // What the failed poll recorded (an unreachable cluster) is not what the digest vouched for.
      if (digest) await deps.store.invalidatePollDigest(cluster, kind);
      retries.push(pair.message);
      return 'retried';
    }
  };
  const outcomes = await mapLimit(pairs, PAIR_CONCURRENCY, (pair) => {
    const id = objectKeyString(pair.message.cluster);
    const before = lastOfCluster.get(id);
    const polled = before ? before.catch(() => undefined).then(() => pollPair(pair)) : pollPair(pair);
    lastOfCluster.set(id, polled);
    return polled;
  });
  if (toDecide.size > 0) await deferredDecisions.decideSoon([...toDecide.values()]);
  // Sent at once: a failure of its own is then put back by the queue with its growing delays, as any message is.
  await deps.queue.sendBatch(retries.map((retry) => ({ message: retry })));
  return outcomes;
}

/** A digest is trusted under the generation it was written in, and for a while only, so no miss outlives that. */
function isTrusted(digest: PairDigest, generation: number, deps: VerifierDeps): boolean {
  const age = deps.now().getTime() - Date.parse(digest.writtenAt);
  return digest.generation === generation && age >= 0 && age <= settingsOf(deps).pollDigestMaxAgeMs;
}

async function listOnce(
  cluster: ObjectKey,
  kind: WatchedKind,
  namespaces: readonly string[],
  deps: VerifierDeps,
): Promise<ListedBefore> {
  try {
    return { namespaces, outcome: { objects: await deps.clusters.listApps(cluster, kind, namespaces) } };
  } catch (error) {
    return { namespaces, outcome: { error } };
  }
}
