// Pipelines, clusters and the apps index. Applying a changed pipeline, in this order:
//   1. records an apply intent (partition APPLYING): the pipeline it is about to index, the generation it heads for;
//   2. writes the index entries and usage it gains, each tagged with that generation;
//   3. writes the definition, conditional on the generation read (so at most one apply lands per generation);
//   4. removes the entries and usage it lost, then settles the intents that are over (its own included).
// An apply cut off before 3 leaves an intent naming everything it may have written. Once a definition of that
// generation or a later one is stored, the intent's apply can never land (3 is conditional), so whatever it wrote
// that the stored definition does not use is removed: by the next apply of the pipeline (changed or not), by a
// failing apply itself, or by any apply once the intent is older than ABANDONED_AFTER_MS (the stored generation is
// raised first, so a slow apply still under way fails rather than landing without its entries). Removals are
// conditional on the item's generation, so an entry or usage written by an apply heading for a later generation is
// never removed by the settling of an earlier one. Readers check an entry against the definition anyway (the
// verifier reads no app that the pipeline's definition does not list).
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryIndexPage, queryPages } from './query.js';
import type { WatchedKind, GitopsClusterDocument, PipelineDocument } from '../../config/schema.js';
import {
  appKeyOf,
  objectKeyString,
  type AppKey,
  type ObjectKey,
  type Pipeline,
  pipelineKeyOf,
} from '../../pipeline/model.js';
import type {
  AppsIndex,
  ClusterKindUsage,
  ConfigurationStore,
  IndexedTarget,
  ObjectOwner,
  Page,
  PageRequest,
  StoredCluster,
  StoredPipeline,
} from '../port.js';
import { ConcurrentChangeError } from '../errors.js';
import { owningSourceId } from '../object-owner.js';
import { batchWrite, deleteRequest, putRequest } from './batch.js';
import { fingerprint } from './fingerprint.js';
import { conditionHeld, keys, TABLE_SCHEMA, type TableContext, unlessConditionFailed } from './table.js';

/** How old an apply intent of another pipeline must be before any apply settles it (an apply takes seconds). */
export const ABANDONED_AFTER_MS = 10 * 60_000;

/** Conditional removals sent at once (each is one request: DynamoDB batches take no conditions). */
const REMOVAL_CONCURRENCY = 16;

export interface IndexEntry {
  app: AppKey;
  env: string;
  targetIndex: number;
  /**
   * What tells the entry apart from the environment's other targets in its key: a listed target's position, a
   * selected target's cluster. A cluster joining or leaving a selection then writes or removes its own entry only,
   * never shifting the others.
   */
  slot: string;
  /** The pipeline's source object rather than a target (env: the first environment, which it is promoted into). */
  source?: true;
}

/** The slot of a pipeline's source entry: no target's slot (a position or `@cluster`) can take it. */
export const SOURCE_SLOT = 'source';

export function indexEntries(pipeline: Pipeline): IndexEntry[] {
  const entries: IndexEntry[] = pipeline.environments.flatMap((env) =>
    env.targets.map((target, targetIndex) => ({
      app: appKeyOf(pipeline, target),
      env: env.name,
      targetIndex,
      slot: target.selected ? `@${objectKeyString(target.cluster)}` : String(targetIndex),
    })),
  );
  const [first] = pipeline.environments;
  if (pipeline.source && first) {
    entries.push({ app: pipeline.source, env: first.name, targetIndex: 0, slot: SOURCE_SLOT, source: true });
  }
  return entries;
}

const entryId = (pipeline: ObjectKey, entry: IndexEntry) => {
  const { pk, sk } = keys.indexEntry(entry.app, pipeline, entry.env, entry.slot);
  return `${pk} ${sk}`;
};
const usageId = (app: AppKey) => {
  const { sk } = keys.usage(app.cluster, app.kind, app.namespace);
  return sk;
};

/** The usage item's attribute holding the generation of the apply that last added this pipeline to it. */
export const usageGenerationAttribute = (pipelineName: string): string => `generation ${pipelineName}`;

// ---------------------------------------------------------------- the items an apply writes (limits.ts sizes them)

/**
 * What tells a stored definition unchanged: its document (and resolved form), and which ConfigSource owns it, so a
 * definition adopted by a source (or let go) is rewritten; the owner's commit is left out, so a commit that does not
 * change a definition writes nothing for it.
 */
export function definitionFingerprint(value: object, owner: ObjectOwner | undefined): string {
  return fingerprint(owner ? { ...value, owner: owningSourceId(owner) } : value);
}

/** A cluster's fingerprint is of its document alone when no source owns it (written so before owners existed). */
function clusterFingerprint(document: GitopsClusterDocument, owner: ObjectOwner | undefined): string {
  return owner ? definitionFingerprint({ document }, owner) : fingerprint(document);
}

export function pipelineItem(
  document: PipelineDocument,
  pipeline: Pipeline,
  now: Date,
  generation: number,
  owner?: ObjectOwner,
): Record<string, unknown> {
  const key = pipelineKeyOf(pipeline);
  return {
    ...keys.pipeline(key),
    [TABLE_SCHEMA.indexPartitionKey]: keys.pipelinesIndex,
    [TABLE_SCHEMA.indexSortKey]: keys.objectSortKey(key),
    entity: 'pipeline',
    document,
    pipeline,
    fingerprint: definitionFingerprint({ document, pipeline }, owner),
    appliedAt: now.toISOString(),
    generation,
    ...(owner ? { owner } : {}),
  };
}

export function clusterItem(
  document: GitopsClusterDocument,
  now: Date,
  generation: number,
  owner?: ObjectOwner,
): Record<string, unknown> {
  const key = clusterKeyOf(document);
  return {
    ...keys.cluster(key),
    [TABLE_SCHEMA.indexPartitionKey]: keys.clustersIndex,
    [TABLE_SCHEMA.indexSortKey]: keys.objectSortKey(key),
    entity: 'cluster',
    document,
    fingerprint: clusterFingerprint(document, owner),
    appliedAt: now.toISOString(),
    generation,
    ...(owner ? { owner } : {}),
  };
}

export function indexEntryItem(pipeline: ObjectKey, entry: IndexEntry, generation: number): Record<string, unknown> {
  return {
    ...keys.indexEntry(entry.app, pipeline, entry.env, entry.slot),
    entity: 'index-entry',
    pipelineNamespace: pipeline.namespace,
    pipelineName: pipeline.name,
    env: entry.env,
    targetIndex: entry.targetIndex,
    ...(entry.source ? { source: true } : {}),
    generation,
  };
}

/** A usage item as it is once `pipelines` (`ns/name` → the generation that added it) use (cluster, kind, ns). */
export function usageItem(app: AppKey, pipelines: ReadonlyMap<string, number>): Record<string, unknown> {
  const item: Record<string, unknown> = {
    ...keys.usage(app.cluster, app.kind, app.namespace),
    entity: 'usage',
    clusterNamespace: app.cluster.namespace,
    clusterName: app.cluster.name,
    kind: app.kind,
    namespace: app.namespace,
    pipelines: new Set(pipelines.keys()),
  };
  for (const [name, generation] of pipelines) item[usageGenerationAttribute(name)] = generation;
  return item;
}

export function applyIntentItem(
  pipeline: Pipeline,
  applyId: string,
  generation: number,
  now: Date,
): Record<string, unknown> {
  const key = pipelineKeyOf(pipeline);
  return {
    ...keys.applyIntent(key, applyId),
    entity: 'apply-intent',
    pipelineNamespace: key.namespace,
    pipelineName: key.name,
    generation,
    startedAt: now.toISOString(),
    pipeline,
  };
}

export function clusterKeyOf(document: GitopsClusterDocument): ObjectKey {
  return { namespace: document.metadata.namespace ?? 'default', name: document.metadata.name };
}

// ---------------------------------------------------------------- the adapter

/** Which generation to raise the stored definition to before settling, given the pipeline's intents. */
type FenceTarget = (intents: readonly ApplyIntent[]) => number | undefined;

export class DynamoConfiguration implements ConfigurationStore, AppsIndex {
  constructor(private readonly table: TableContext) {}

  async applyPipeline(
    document: PipelineDocument,
    pipeline: Pipeline,
    now: Date,
    owner?: ObjectOwner,
  ): Promise<{ changed: boolean }> {
    const key = pipelineKeyOf(pipeline);
    const existing = await this.getDefinition(key);
    if (
      existing?.entity === 'pipeline' &&
      existing.fingerprint === definitionFingerprint({ document, pipeline }, owner)
    ) {
      // Applying what is stored asserts it: an apply of other content still under way loses (as it would had this
      // one come after it), and whatever interrupted applies left is removed.
      await this.settle(key, now, (intents) => maxGeneration(intents));
      return { changed: false };
    }

    const stored = existing?.entity === 'pipeline' ? existing.pipeline : undefined;
    const generation = (existing?.generation ?? 0) + 1;
    await this.put(applyIntentItem(pipeline, randomUUID(), generation, now));
    try {
      await this.writeGained(key, stored, pipeline, generation);
      await this.putVersioned(
        pipelineItem(document, pipeline, now, generation, owner),
        existing?.generation,
        `Pipeline ${objectKeyString(key)}`,
      );
    } catch (error) {
      // Best effort: make sure this apply can no longer land, and remove what it wrote. When even that fails (the
      // table cannot be reached), the next apply does it.
      await this.settle(key, now, () => generation).catch(() => undefined);
      throw error;
    }
    await this.removeLost(key, stored, pipeline, generation);
    await this.settle(key, now, () => undefined);
    return { changed: true };
  }

  /**
   * Settles the apply intents of every pipeline: those that are over (a definition of their generation or a later
   * one is stored), and those older than ABANDONED_AFTER_MS. Returns how many were settled.
   */
  async repairInterruptedApplies(now: Date): Promise<number> {
    const intents = (
      await queryAll(this.table, {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.applyIntentPartition },
        ConsistentRead: true,
      })
    ).map((item) => item as unknown as ApplyIntent);
    const pipelines = new Map(
      intents.map((intent) => [objectKeyString(intentPipeline(intent)), intentPipeline(intent)]),
    );
    let settled = 0;
    for (const key of pipelines.values()) {
      settled += await this.settle(key, now, (own) =>
        maxGeneration(own.filter((intent) => now.getTime() - Date.parse(intent.startedAt) > ABANDONED_AFTER_MS)),
      );
    }
    return settled;
  }

  async deletePipeline(key: ObjectKey): Promise<boolean> {
    // First what interrupted or concurrent applies wrote (they can no longer land), then the definition's own.
    await this.settle(key, new Date(), (intents) => maxGeneration(intents));
    const existing = await this.getDefinition(key);
    // A fence stays: it keeps an interrupted first apply from landing after its entries were removed.
    if (existing?.entity !== 'pipeline') return false;
    const entries = indexEntries(existing.pipeline);
    await batchWrite(
      this.table,
      entries.map((entry) => deleteRequest(keys.indexEntry(entry.app, key, entry.env, entry.slot))),
    );
    const usage = new Map(entries.map((entry) => [usageId(entry.app), entry.app]));
    for (const app of usage.values()) await this.removeUsage(app, objectKeyString(key), Number.MAX_SAFE_INTEGER);
    // The definition, approval markers and promotion records share the pipeline's partition.
    const partition = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.pipeline(key).pk },
      ProjectionExpression: 'pk, sk',
    });
    for await (const items of partition) {
      await batchWrite(
        this.table,
        items.map((item) => deleteRequest({ pk: String(item.pk), sk: String(item.sk) })),
      );
    }
    return true;
  }

  async getPipeline(key: ObjectKey): Promise<StoredPipeline | undefined> {
    const item = await this.getDefinition(key);
    return item?.entity === 'pipeline' ? storedPipeline(item) : undefined;
  }

  async listPipelines(page: PageRequest = {}): Promise<Page<StoredPipeline>> {
    const result = await queryIndexPage(this.table, keys.pipelinesIndex, page);
    return { items: result.items.map((item) => storedPipeline(item as PipelineItem)), cursor: result.cursor };
  }

  async applyCluster(document: GitopsClusterDocument, now: Date, owner?: ObjectOwner): Promise<{ changed: boolean }> {
    const key = clusterKeyOf(document);
    const existing = await this.getItem<ClusterItem>(keys.cluster(key));
    const print = clusterFingerprint(document, owner);
    if (existing && existing.fingerprint === print) return { changed: false };
    const generation = (existing?.generation ?? 0) + 1;
    await this.putVersioned(
      clusterItem(document, now, generation, owner),
      existing?.generation,
      `GitopsCluster ${objectKeyString(key)}`,
    );
    return { changed: true };
  }

  async getCluster(key: ObjectKey): Promise<StoredCluster | undefined> {
    const item = await this.getItem<ClusterItem>(keys.cluster(key));
    return item && storedCluster(item);
  }

  async deleteCluster(key: ObjectKey): Promise<boolean> {
    const existing = await this.getItem<ClusterItem>(keys.cluster(key));
    if (!existing) return false;
    await this.table.documents.send(new DeleteCommand({ TableName: this.table.tableName, Key: keys.cluster(key) }));
    return true;
  }

  async listClusters(page: PageRequest = {}): Promise<Page<StoredCluster>> {
    const result = await queryIndexPage(this.table, keys.clustersIndex, page);
    return { items: result.items.map((item) => storedCluster(item as ClusterItem)), cursor: result.cursor };
  }

  async findTargets(app: AppKey): Promise<IndexedTarget[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.app(app), ':prefix': keys.indexEntryPrefix },
    });
    return items.map((item) => {
      const entry = item as unknown as IndexItem;
      return {
        pipeline: { namespace: entry.pipelineNamespace, name: entry.pipelineName },
        env: entry.env,
        targetIndex: entry.targetIndex,
        ...(entry.source === true ? { source: true as const } : {}),
      };
    });
  }

  async listClusterKinds(): Promise<ClusterKindUsage[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.usagePartition },
    });
    return usageOf(items);
  }

  async getClusterKind(cluster: ObjectKey, kind: WatchedKind): Promise<ClusterKindUsage | undefined> {
    // The pair's items (one per namespace) share the sort-key prefix `<cluster>/<kind>/`.
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.usagePartition, ':prefix': keys.usagePrefix(cluster, kind) },
    });
    return usageOf(items)[0];
  }

  /**
   * Writes the next generation of a definition (the item carries it), conditional on the generation read before (or
   * on absence), so two concurrent applies cannot both win with different content.
   */
  private async putVersioned(item: Record<string, unknown>, previous: number | undefined, what: string): Promise<void> {
    const written = await conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: item,
          ConditionExpression: previous === undefined ? 'attribute_not_exists(pk)' : 'generation = :generation',
          ExpressionAttributeValues: previous === undefined ? undefined : { ':generation': previous },
        }),
      ),
    );
    if (!written) throw new ConcurrentChangeError(what);
  }

  /** Step 2 of an apply: the index entries and usage the pipeline gains over what is stored, tagged `generation`. */
  private async writeGained(
    key: ObjectKey,
    stored: Pipeline | undefined,
    pipeline: Pipeline,
    generation: number,
  ): Promise<void> {
    const before = stored ? indexEntries(stored) : [];
    const beforeIds = new Set(before.map((entry) => entryId(key, entry)));
    const beforeUsage = new Set(before.map((entry) => usageId(entry.app)));
    const after = indexEntries(pipeline);
    await batchWrite(
      this.table,
      after
        .filter((entry) => !beforeIds.has(entryId(key, entry)))
        .map((entry) => putRequest(indexEntryItem(key, entry, generation))),
    );
    const gained = new Map(after.map((entry) => [usageId(entry.app), entry.app]));
    for (const [id, app] of gained) {
      if (!beforeUsage.has(id)) await this.addUsage(app, objectKeyString(key), generation);
    }
  }

  /** Step 4 of an apply: the entries and usage the stored definition had and the applied one has not. */
  private async removeLost(
    key: ObjectKey,
    stored: Pipeline | undefined,
    pipeline: Pipeline,
    generation: number,
  ): Promise<void> {
    if (!stored) return;
    await this.removeUnused(key, indexEntries(stored), indexEntries(pipeline), generation);
  }

  /**
   * Removes `written` entries (and their usage) that `kept` does not have, each only if no apply heading for a
   * generation after `generation` wrote it since.
   */
  private async removeUnused(
    key: ObjectKey,
    written: readonly IndexEntry[],
    kept: readonly IndexEntry[],
    generation: number,
  ): Promise<number> {
    const keptIds = new Set(kept.map((entry) => entryId(key, entry)));
    const keptUsage = new Set(kept.map((entry) => usageId(entry.app)));
    const entries = written.filter((entry) => !keptIds.has(entryId(key, entry)));
    await inParallel(entries, REMOVAL_CONCURRENCY, (entry) =>
      this.deleteItem(keys.indexEntry(entry.app, key, entry.env, entry.slot), generation),
    );
    const usage = new Map(written.map((entry) => [usageId(entry.app), entry.app]));
    for (const [id, app] of usage) {
      if (!keptUsage.has(id)) await this.removeUsage(app, objectKeyString(key), generation);
    }
    return entries.length;
  }

  /**
   * Settles a pipeline's apply intents: after raising the stored generation to what `fenceTarget` asks (so those
   * applies can no longer land), every intent at or below the stored generation is over; what it wrote and the
   * stored definition does not use is removed, then the intent. Returns how many intents were settled.
   */
  private async settle(key: ObjectKey, now: Date, fenceTarget: FenceTarget): Promise<number> {
    const intents = await this.intentsOf(key);
    if (intents.length === 0) return 0;
    const target = fenceTarget(intents);
    if (target !== undefined) await this.fence(key, target, now);
    const current = await this.getDefinition(key);
    const storedGeneration = current?.generation ?? 0;
    const kept = current?.entity === 'pipeline' ? indexEntries(current.pipeline) : [];
    let settled = 0;
    for (const intent of intents) {
      if (intent.generation > storedGeneration) continue;
      await this.removeUnused(key, indexEntries(intent.pipeline), kept, storedGeneration);
      await this.deleteItem({ pk: intent.pk, sk: intent.sk });
      settled += 1;
    }
    return settled;
  }

  /**
   * Raises the stored generation of a pipeline to at least `generation`, so that no apply heading for it or an
   * earlier one can land (their writes are conditional on the generation they read). Without a definition, a fence
   * item takes its place: readers see no pipeline, and the next apply replaces it.
   */
  private async fence(key: ObjectKey, generation: number, now: Date): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const current = await this.getDefinition(key);
      if (current && current.generation >= generation) return;
      const fenced = await conditionHeld(
        current
          ? this.table.documents.send(
              new UpdateCommand({
                TableName: this.table.tableName,
                Key: keys.pipeline(key),
                UpdateExpression: 'SET generation = :generation',
                ConditionExpression: 'generation = :read',
                ExpressionAttributeValues: { ':generation': generation, ':read': current.generation },
              }),
            )
          : this.table.documents.send(
              new PutCommand({
                TableName: this.table.tableName,
                Item: { ...keys.pipeline(key), entity: 'pipeline-fence', generation, fencedAt: now.toISOString() },
                ConditionExpression: 'attribute_not_exists(pk)',
              }),
            ),
      );
      if (fenced) return;
    }
    throw new ConcurrentChangeError(`Pipeline ${objectKeyString(key)}`);
  }

  private async intentsOf(key: ObjectKey): Promise<ApplyIntent[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.applyIntentPartition, ':prefix': keys.applyIntentPrefix(key) },
      ConsistentRead: true,
    });
    return items.map((item) => item as unknown as ApplyIntent);
  }

  /**
   * Adds the pipeline to the set of those using (cluster, kind, namespace), with the generation of the apply that
   * adds it; the set makes it idempotent. An apply heading for an earlier generation than the one recorded leaves it
   * as it is (the later one put the pipeline there).
   */
  private async addUsage(app: AppKey, pipelineName: string, generation: number): Promise<void> {
    await unlessConditionFailed(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.usage(app.cluster, app.kind, app.namespace),
          UpdateExpression:
            'ADD pipelines :pipeline SET entity = :entity, clusterNamespace = :cns, clusterName = :cn, kind = :kind, ' +
            '#ns = :ns, #generation = :generation',
          ConditionExpression: 'attribute_not_exists(#generation) OR #generation <= :generation',
          ExpressionAttributeNames: { '#ns': 'namespace', '#generation': usageGenerationAttribute(pipelineName) },
          ExpressionAttributeValues: {
            ':pipeline': new Set([pipelineName]),
            ':entity': 'usage',
            ':cns': app.cluster.namespace,
            ':cn': app.cluster.name,
            ':kind': app.kind,
            ':ns': app.namespace,
            ':generation': generation,
          },
        }),
      ),
    );
  }

  /**
   * Removes the pipeline from the set, unless an apply heading for a generation after `generation` added it; the
   * item goes once no pipeline is left (conditional, so a concurrent add wins).
   */
  private async removeUsage(app: AppKey, pipelineName: string, generation: number): Promise<void> {
    const key = keys.usage(app.cluster, app.kind, app.namespace);
    const result = await unlessConditionFailed(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key,
          UpdateExpression: 'DELETE pipelines :pipeline REMOVE #generation',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(#generation) OR #generation <= :generation)',
          ExpressionAttributeNames: { '#generation': usageGenerationAttribute(pipelineName) },
          ExpressionAttributeValues: { ':pipeline': new Set([pipelineName]), ':generation': generation },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!result || (result.Attributes?.pipelines as Set<string> | undefined)?.size) return;
    await unlessConditionFailed(
      this.table.documents.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: key,
          ConditionExpression: 'attribute_not_exists(pipelines)',
        }),
      ),
    );
  }

  private async put(item: Record<string, unknown>): Promise<void> {
    await this.table.documents.send(new PutCommand({ TableName: this.table.tableName, Item: item }));
  }

  /** Deletes an item; with `generation`, only if it carries none or one at most that (else it is left). */
  private async deleteItem(key: { pk: string; sk: string }, generation?: number): Promise<void> {
    await unlessConditionFailed(
      this.table.documents.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: key,
          ...(generation === undefined
            ? {}
            : {
                ConditionExpression: 'attribute_not_exists(generation) OR generation <= :generation',
                ExpressionAttributeValues: { ':generation': generation },
              }),
        }),
      ),
    );
  }

  /** The item at a pipeline's `DEF` key: its definition, or the fence an interrupted apply's settling left. */
  private async getDefinition(key: ObjectKey): Promise<PipelineItem | FenceItem | undefined> {
    return this.getItem<PipelineItem | FenceItem>(keys.pipeline(key));
  }

  private async getItem<T>(key: { pk: string; sk: string }): Promise<T | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: key, ConsistentRead: true }),
    );
    return result.Item as T | undefined;
  }
}

interface PipelineItem {
  entity: 'pipeline';
  document: PipelineDocument;
  pipeline: Pipeline;
  generation: number;
  fingerprint: string;
  appliedAt: string;
  owner?: ObjectOwner;
}

/** Holds a pipeline's generation where no definition is stored, so an interrupted first apply cannot land later. */
interface FenceItem {
  entity: 'pipeline-fence';
  generation: number;
}

interface ApplyIntent {
  pk: string;
  sk: string;
  pipelineNamespace: string;
  pipelineName: string;
  generation: number;
  /** ISO 8601. */
  startedAt: string;
  pipeline: Pipeline;
}

const intentPipeline = (intent: ApplyIntent): ObjectKey => ({
  namespace: intent.pipelineNamespace,
  name: intent.pipelineName,
});

function maxGeneration(intents: readonly ApplyIntent[]): number | undefined {
  return intents.reduce<number | undefined>((max, intent) => Math.max(max ?? 0, intent.generation), undefined);
}

/** Runs `task` over the items, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

interface ClusterItem {
  document: GitopsClusterDocument;
  generation: number;
  fingerprint: string;
  appliedAt: string;
  owner?: ObjectOwner;
}

interface IndexItem {
  pipelineNamespace: string;
  pipelineName: string;
  env: string;
  targetIndex: number;
  source?: boolean;
}

interface UsageItem {
  clusterNamespace: string;
  clusterName: string;
  kind: ClusterKindUsage['kind'];
  namespace: string;
  /** `ns/name` of each pipeline using it (Kubernetes names contain no `/`). */
  pipelines?: Set<string>;
}

function storedPipeline(item: PipelineItem): StoredPipeline {
  const { document, pipeline, generation, appliedAt, owner } = item;
  return { document, pipeline, generation, appliedAt, ...(owner ? { owner } : {}) };
}

function storedCluster(item: ClusterItem): StoredCluster {
  const { document, generation, appliedAt, owner } = item;
  return { document, generation, appliedAt, ...(owner ? { owner } : {}) };
}

/** The usage items (one per cluster, kind and namespace) grouped by (cluster, kind). */
export function usageOf(items: readonly Record<string, unknown>[]): ClusterKindUsage[] {
  const usage = new Map<string, ClusterKindUsage>();
  for (const item of items) {
    const { clusterNamespace, clusterName, kind, namespace, pipelines } = item as unknown as UsageItem;
    const id = `${clusterNamespace}/${clusterName}/${kind}`;
    const entry: ClusterKindUsage = usage.get(id) ?? {
      cluster: { namespace: clusterNamespace, name: clusterName },
      kind,
      namespaces: [],
      pipelines: [],
    };
    entry.namespaces.push(namespace);
    for (const name of pipelines ?? []) {
      if (entry.pipelines.some((known) => objectKeyString(known) === name)) continue;
      const [pipelineNamespace = '', ...rest] = name.split('/');
      entry.pipelines.push({ namespace: pipelineNamespace, name: rest.join('/') });
    }
    usage.set(id, entry);
  }
  return [...usage.values()];
}
