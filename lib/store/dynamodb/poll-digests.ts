// The poll digests and the poller's plan (docs/architecture.md, "The poll digest"), and the configuration generation
// both are checked against. A pair's digest is one small item in its cluster's poll group (pollGroupOf), sorted by
// cluster: a `poll-clusters` message, whose clusters the poller took from one or two groups in name order, reads
// them in a Query per group, eventually consistent and billed by their size (about 250 bytes a pair, some 30 pairs a
// read unit), rather than half a unit per cluster. A digest is removed by counting an invalidation on its item, and
// written only over the count its poll read, so that a poll never writes one over a removal it did not see. The plan
// is one gzipped item, rewritten only when the generation moved. Both are caches: a stale or lost one costs a full
// poll.
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  objectKeyString,
  pollGroupOf,
  WATCHED_KIND_GROUPS,
  type ObjectKey,
  type WatchedKind,
} from '../../pipeline/model.js';
import type { PairDigest, PollDigests, PollPlan, StoredPairDigest } from '../port.js';
import { queryAll } from './query.js';
import { conditionHeld, keys, type TableContext } from './table.js';

/** Above every character of a key's part (encodeURIComponent's output is ASCII): the end of a cluster's range. */
const AFTER_PARTS = '\uffff';
/** A plan larger than this (gzipped) is not kept: the item must stay under DynamoDB's 400 KB. */
const MAX_PLAN_BYTES = 300 * 1024;

export class DynamoPollDigests implements PollDigests {
  constructor(private readonly table: TableContext) {}

  async getConfigurationGeneration(): Promise<number> {
    const { Item } = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.configurationGeneration, ConsistentRead: true }),
    );
    return typeof Item?.value === 'number' ? Item.value : 0;
  }

  /** Moves the generation on: called by the store after each write that changed the configuration. */
  async bumpConfigurationGeneration(): Promise<void> {
    await this.table.documents.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.configurationGeneration,
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }

  async getPollDigests(
    clusters: readonly ObjectKey[],
  ): Promise<Map<string, ReadonlyMap<WatchedKind, StoredPairDigest>>> {
    const byGroup = new Map<number, Map<string, ObjectKey>>();
    for (const cluster of clusters) {
      const group = pollGroupOf(cluster);
      const wanted = byGroup.get(group) ?? new Map<string, ObjectKey>();
      wanted.set(objectKeyString(cluster), cluster);
      byGroup.set(group, wanted);
    }
    const found = new Map<string, Map<WatchedKind, StoredPairDigest>>();
    await Promise.all(
      [...byGroup].map(async ([group, wanted]) => {
        // The range from the first cluster's digests to the last one's: the clusters of another message that fall
        // between them are read too, and left out.
        const prefixes = [...wanted.values()].map(keys.pollDigestPrefix).sort();
        const items = await queryAll(this.table, {
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
          ExpressionAttributeValues: {
            ':pk': keys.pollDigestGroup(group),
            ':first': prefixes[0],
            ':last': `${prefixes.at(-1)}${AFTER_PARTS}`,
          },
          ConsistentRead: false,
        });
        for (const item of items) {
          const { cluster, kind } = item;
          if (typeof cluster !== 'string' || !wanted.has(cluster)) continue;
          if (typeof kind !== 'string' || !Object.hasOwn(WATCHED_KIND_GROUPS, kind)) continue;
          const digest = pairDigestOf(item);
          const invalidations = typeof item.invalidations === 'number' ? item.invalidations : 0;
          const digests = found.get(cluster) ?? new Map<WatchedKind, StoredPairDigest>();
          digests.set(kind as WatchedKind, digest ? { digest, invalidations } : { invalidations });
          found.set(cluster, digests);
        }
      }),
    );
    return found;
  }

  async putPollDigest(cluster: ObjectKey, kind: WatchedKind, digest: PairDigest, seen: number): Promise<boolean> {
    const { generation, namespaces, writtenAt } = digest;
    const item = {
      ...keys.pollDigest(cluster, kind),
      cluster: objectKeyString(cluster),
      kind,
      generation,
      namespaces,
      digest: digest.digest,
      writtenAt,
      invalidations: seen,
    };
    return conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: item,
          // An item of a version before invalidations were counted has none: as good as 0.
          ConditionExpression: 'attribute_not_exists(invalidations) OR invalidations = :seen',
          ExpressionAttributeValues: { ':seen': seen },
        }),
      ),
    );
  }

  async invalidatePollDigest(cluster: ObjectKey, kind: WatchedKind): Promise<void> {
    await this.table.documents.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.pollDigest(cluster, kind),
        UpdateExpression:
          'SET invalidations = if_not_exists(invalidations, :zero) + :one, #cluster = :cluster, #kind = :kind ' +
          'REMOVE generation, namespaces, digest, writtenAt',
        ExpressionAttributeNames: { '#cluster': 'cluster', '#kind': 'kind' },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':cluster': objectKeyString(cluster), ':kind': kind },
      }),
    );
  }

  async getPollPlan(): Promise<PollPlan | undefined> {
    const { Item } = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.pollPlan }),
    );
    if (!(Item?.plan instanceof Uint8Array) || typeof Item.generation !== 'number') return undefined;
    if (typeof Item.listedAt !== 'string') return undefined;
    try {
      const plan = JSON.parse(gunzipSync(Item.plan).toString('utf8')) as Pick<PollPlan, 'pairs' | 'pipelines'>;
      return { generation: Item.generation, listedAt: Item.listedAt, pairs: plan.pairs, pipelines: plan.pipelines };
    } catch {
      return undefined;
    }
  }

  async putPollPlan(plan: PollPlan): Promise<boolean> {
    const packed = gzipSync(JSON.stringify({ pairs: plan.pairs, pipelines: plan.pipelines }));
    if (packed.byteLength > MAX_PLAN_BYTES) return false;
    await this.table.documents.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...keys.pollPlan, generation: plan.generation, listedAt: plan.listedAt, plan: packed },
      }),
    );
    return true;
  }
}

/** A stored digest as the port gives it; anything else (a hand edit, another version's shape) is no digest. */
function pairDigestOf(value: unknown): PairDigest | undefined {
  const digest = value as Partial<PairDigest> | undefined;
  if (
    typeof digest?.generation !== 'number' ||
    typeof digest.digest !== 'string' ||
    typeof digest.writtenAt !== 'string' ||
    !Array.isArray(digest.namespaces) ||
    !digest.namespaces.every((namespace) => typeof namespace === 'string')
  )
    return undefined;
  return {
    generation: digest.generation,
    namespaces: digest.namespaces,
    digest: digest.digest,
    writtenAt: digest.writtenAt,
  };
}
