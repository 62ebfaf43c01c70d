// The poll digests and the poller's plan (docs/architecture.md, "The poll digest"), and the configuration generation
// both are checked against. A cluster's digests are one small item beside its registration, read eventually
// consistent in batches of a hundred clusters: half a read unit per cluster and poll. The plan is one gzipped item,
// rewritten only when the generation moved. Both are caches: a stale or lost one costs a full poll.
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { objectKeyString, WATCHED_KIND_GROUPS, type ObjectKey, type WatchedKind } from '../../pipeline/model.js';
import type { PairDigest, PollDigests, PollPlan } from '../port.js';
import { batchGet } from './batch.js';
import { keys, type TableContext } from './table.js';

/** The attribute of a cluster's digest item holding one kind's digest. */
const digestAttribute = (kind: WatchedKind): string => `${DIGEST_PREFIX}${kind}`;
const DIGEST_PREFIX = 'digest ';
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

  async getPollDigests(clusters: readonly ObjectKey[]): Promise<Map<string, ReadonlyMap<WatchedKind, PairDigest>>> {
    const unique = [...new Map(clusters.map((cluster) => [objectKeyString(cluster), cluster])).values()];
    const items = await batchGet(this.table, unique.map(keys.pollDigests), false);
    const found = new Map<string, ReadonlyMap<WatchedKind, PairDigest>>();
    for (const item of items) {
      const digests = new Map<WatchedKind, PairDigest>();
      for (const [attribute, value] of Object.entries(item)) {
        const kind = attribute.slice(DIGEST_PREFIX.length);
        if (!attribute.startsWith(DIGEST_PREFIX) || !Object.hasOwn(WATCHED_KIND_GROUPS, kind)) continue;
        const digest = pairDigestOf(value);
        if (digest) digests.set(kind as WatchedKind, digest);
      }
      found.set(String(item.cluster), digests);
    }
    return found;
  }

  async putPollDigest(cluster: ObjectKey, kind: WatchedKind, digest: PairDigest | undefined): Promise<void> {
    await this.table.documents.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.pollDigests(cluster),
        UpdateExpression: digest ? 'SET #digest = :digest, #cluster = :cluster' : 'REMOVE #digest',
        ExpressionAttributeNames: { '#digest': digestAttribute(kind), ...(digest ? { '#cluster': 'cluster' } : {}) },
        ...(digest ? { ExpressionAttributeValues: { ':digest': digest, ':cluster': objectKeyString(cluster) } } : {}),
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
