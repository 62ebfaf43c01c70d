// Pipelines, clusters and the apps index. Applying a pipeline writes, in this order: the index entries it gains,
// the usage of (cluster, kind, namespace) it gains, its definition (conditional on the generation read), then
// removes the entries and usage it lost. A crash part-way leaves extra index entries at worst, never missing
// ones; readers check an entry against the pipeline's definition, and applying again repairs it.
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryPages } from './query.js';
import type { AppKind, GitopsClusterDocument, PipelineDocument } from '../../config/schema.js';
import { appKeyOf, objectKeyString, type AppKey, type ObjectKey, type Pipeline } from '../../pipeline/model.js';
import type {
  AppsIndex,
  ClusterKindUsage,
  ConfigurationStore,
  IndexedTarget,
  Page,
  PageRequest,
  StoredCluster,
  StoredPipeline,
} from '../port.js';
import { ConcurrentChangeError } from '../errors.js';
import { batchWrite, deleteRequest, putRequest } from './batch.js';
import { fingerprint } from './fingerprint.js';
import { decodeCursor, encodeCursor, isConditionFailure, keys, TABLE_SCHEMA, type TableContext } from './table.js';

interface IndexEntry {
  app: AppKey;
  env: string;
  targetIndex: number;
}

function indexEntries(pipeline: Pipeline): IndexEntry[] {
  return pipeline.environments.flatMap((env) =>
    env.targets.map((target, targetIndex) => ({ app: appKeyOf(pipeline, target), env: env.name, targetIndex })),
  );
}

const pipelineKeyOf = (pipeline: Pipeline): ObjectKey => ({ namespace: pipeline.namespace, name: pipeline.name });
const entryId = (pipeline: ObjectKey, entry: IndexEntry) => {
  const { pk, sk } = keys.indexEntry(entry.app, pipeline, entry.env, entry.targetIndex);
  return `${pk} ${sk}`;
};
const usageId = (app: AppKey) => {
  const { sk } = keys.usage(app.cluster, app.kind, app.namespace);
  return sk;
};

export class DynamoConfiguration implements ConfigurationStore, AppsIndex {
  constructor(private readonly table: TableContext) {}

  async applyPipeline(document: PipelineDocument, pipeline: Pipeline, now: Date): Promise<{ changed: boolean }> {
    const key = pipelineKeyOf(pipeline);
    const existing = await this.getPipelineItem(key);
    const print = fingerprint({ document, pipeline });
    if (existing && existing.fingerprint === print) return { changed: false };

    const pipelineName = objectKeyString(key);
    const before = existing ? indexEntries(existing.pipeline) : [];
    const after = indexEntries(pipeline);
    const beforeIds = new Set(before.map((entry) => entryId(key, entry)));
    const afterIds = new Set(after.map((entry) => entryId(key, entry)));
    const beforeUsage = new Map(before.map((entry) => [usageId(entry.app), entry.app]));
    const afterUsage = new Map(after.map((entry) => [usageId(entry.app), entry.app]));

    await batchWrite(
      this.table,
      after
        .filter((entry) => !beforeIds.has(entryId(key, entry)))
        .map((entry) => putRequest(this.indexItem(key, entry))),
    );
    for (const [id, app] of afterUsage) if (!beforeUsage.has(id)) await this.addUsage(app, pipelineName);

    await this.putVersioned(
      {
        ...keys.pipeline(key),
        [TABLE_SCHEMA.indexPartitionKey]: keys.pipelinesIndex,
        [TABLE_SCHEMA.indexSortKey]: keys.objectSortKey(key),
        entity: 'pipeline',
        document,
        pipeline,
        fingerprint: print,
        appliedAt: now.toISOString(),
      },
      existing?.generation,
      `Pipeline ${pipelineName}`,
    );

    await batchWrite(
      this.table,
      before
        .filter((entry) => !afterIds.has(entryId(key, entry)))
        .map((entry) => deleteRequest(keys.indexEntry(entry.app, key, entry.env, entry.targetIndex))),
    );
    for (const [id, app] of beforeUsage) if (!afterUsage.has(id)) await this.removeUsage(app, pipelineName);
    return { changed: true };
  }

  async deletePipeline(key: ObjectKey): Promise<boolean> {
    const existing = await this.getPipelineItem(key);
    if (!existing) return false;
    const entries = indexEntries(existing.pipeline);
    await batchWrite(
      this.table,
      entries.map((entry) => deleteRequest(keys.indexEntry(entry.app, key, entry.env, entry.targetIndex))),
    );
    const usage = new Map(entries.map((entry) => [usageId(entry.app), entry.app]));
    for (const app of usage.values()) await this.removeUsage(app, objectKeyString(key));
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
    const item = await this.getPipelineItem(key);
    return item && storedPipeline(item);
  }

  async listPipelines(page: PageRequest = {}): Promise<Page<StoredPipeline>> {
    const result = await this.queryIndex(keys.pipelinesIndex, page);
    return { items: result.items.map((item) => storedPipeline(item as PipelineItem)), cursor: result.cursor };
  }

  async applyCluster(document: GitopsClusterDocument, now: Date): Promise<{ changed: boolean }> {
    const key = { namespace: document.metadata.namespace ?? 'default', name: document.metadata.name };
    const existing = await this.getItem<ClusterItem>(keys.cluster(key));
    const print = fingerprint(document);
    if (existing && existing.fingerprint === print) return { changed: false };
    await this.putVersioned(
      {
        ...keys.cluster(key),
        [TABLE_SCHEMA.indexPartitionKey]: keys.clustersIndex,
        [TABLE_SCHEMA.indexSortKey]: keys.objectSortKey(key),
        entity: 'cluster',
        document,
        fingerprint: print,
        appliedAt: now.toISOString(),
      },
      existing?.generation,
      `GitopsCluster ${objectKeyString(key)}`,
    );
    return { changed: true };
  }

  async getCluster(key: ObjectKey): Promise<StoredCluster | undefined> {
    const item = await this.getItem<ClusterItem>(keys.cluster(key));
    return item && storedCluster(item);
  }

  async listClusters(page: PageRequest = {}): Promise<Page<StoredCluster>> {
    const result = await this.queryIndex(keys.clustersIndex, page);
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

  async getClusterKind(cluster: ObjectKey, kind: AppKind): Promise<ClusterKindUsage | undefined> {
    // The pair's items (one per namespace) share the sort-key prefix `<cluster>/<kind>/`.
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.usagePartition, ':prefix': keys.usagePrefix(cluster, kind) },
    });
    return usageOf(items)[0];
  }

  /**
   * Writes the next generation of a definition, conditional on the generation read before (or on absence), so two
   * concurrent applies cannot both win with different content.
   */
  private async putVersioned(item: Record<string, unknown>, previous: number | undefined, what: string): Promise<void> {
    try {
      await this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...item, generation: (previous ?? 0) + 1 },
          ConditionExpression: previous === undefined ? 'attribute_not_exists(pk)' : 'generation = :generation',
          ExpressionAttributeValues: previous === undefined ? undefined : { ':generation': previous },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConcurrentChangeError(what);
      throw error;
    }
  }

  private indexItem(pipeline: ObjectKey, entry: IndexEntry): Record<string, unknown> {
    return {
      ...keys.indexEntry(entry.app, pipeline, entry.env, entry.targetIndex),
      entity: 'index-entry',
      pipelineNamespace: pipeline.namespace,
      pipelineName: pipeline.name,
      env: entry.env,
      targetIndex: entry.targetIndex,
    };
  }

  /** Adds the pipeline to the set of those using (cluster, kind, namespace); the set makes it idempotent. */
  private async addUsage(app: AppKey, pipelineName: string): Promise<void> {
    await this.table.documents.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.usage(app.cluster, app.kind, app.namespace),
        UpdateExpression:
          'ADD pipelines :pipeline SET entity = :entity, clusterNamespace = :cns, clusterName = :cn, kind = :kind, #ns = :ns',
        ExpressionAttributeNames: { '#ns': 'namespace' },
        ExpressionAttributeValues: {
          ':pipeline': new Set([pipelineName]),
          ':entity': 'usage',
          ':cns': app.cluster.namespace,
          ':cn': app.cluster.name,
          ':kind': app.kind,
          ':ns': app.namespace,
        },
      }),
    );
  }

  /** Removes the pipeline from the set; the item goes once no pipeline is left (conditional, so a concurrent add wins). */
  private async removeUsage(app: AppKey, pipelineName: string): Promise<void> {
    const key = keys.usage(app.cluster, app.kind, app.namespace);
    const result = await this.table.documents
      .send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key,
          UpdateExpression: 'DELETE pipelines :pipeline',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':pipeline': new Set([pipelineName]) },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch((error: unknown) => {
        if (isConditionFailure(error)) return undefined;
        throw error;
      });
    if (!result || (result.Attributes?.pipelines as Set<string> | undefined)?.size) return;
    await this.table.documents
      .send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: key,
          ConditionExpression: 'attribute_not_exists(pipelines)',
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  private async getPipelineItem(key: ObjectKey): Promise<PipelineItem | undefined> {
    return this.getItem<PipelineItem>(keys.pipeline(key));
  }

  private async getItem<T>(key: { pk: string; sk: string }): Promise<T | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: key, ConsistentRead: true }),
    );
    return result.Item as T | undefined;
  }

  private async queryIndex(partition: string, page: PageRequest): Promise<{ items: unknown[]; cursor?: string }> {
    const result = await this.table.documents.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: TABLE_SCHEMA.index,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        Limit: page.limit,
        ExclusiveStartKey: decodeCursor(page.cursor),
      }),
    );
    return { items: result.Items ?? [], cursor: encodeCursor(result.LastEvaluatedKey) };
  }
}

interface PipelineItem {
  document: PipelineDocument;
  pipeline: Pipeline;
  generation: number;
  fingerprint: string;
  appliedAt: string;
}

interface ClusterItem {
  document: GitopsClusterDocument;
  generation: number;
  fingerprint: string;
  appliedAt: string;
}

interface IndexItem {
  pipelineNamespace: string;
  pipelineName: string;
  env: string;
  targetIndex: number;
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
  return { document: item.document, pipeline: item.pipeline, generation: item.generation, appliedAt: item.appliedAt };
}

function storedCluster(item: ClusterItem): StoredCluster {
  return { document: item.document, generation: item.generation, appliedAt: item.appliedAt };
}

/** The usage items (one per cluster, kind and namespace) grouped by (cluster, kind). */
function usageOf(items: readonly Record<string, unknown>[]): ClusterKindUsage[] {
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
