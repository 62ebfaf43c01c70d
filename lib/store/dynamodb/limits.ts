// What the table can hold, checked before an apply writes anything, over the very items it would write (the
// adapter's own item builders), so that `apply --dry-run` and the real run agree: DynamoDB's 400 KB per item
// (counted as DynamoDB counts: attribute names and values, UTF-8), 2,048 / 1,024 bytes per partition / sort key,
// 32 levels of nested maps and lists, and numbers the SDK can write. The local mode (dynalite) and AWS share this
// adapter, so they share the check; dynalite itself counts more leniently (UTF-16 code units), AWS does not.
import type { ConfigProblem } from '../../config/problems.js';
import type { GitopsClusterDocument, PipelineDocument } from '../../config/schema.js';
import { appKeyOf, objectKeyString, type AppKey, type Pipeline, pipelineKeyOf } from '../../pipeline/model.js';
import type { StoreLimits } from '../port.js';
import {
  applyIntentItem,
  clusterItem,
  indexEntries,
  indexEntryItem,
  pipelineItem,
  usageItem,
} from './configuration.js';
import { keys, TABLE_SCHEMA } from './table.js';
import { pathOf, type Place } from '../../util/value-place.js';

export const STORE_LIMITS: StoreLimits = {
  itemBytes: 400 * 1024,
  // The computation below follows DynamoDB's published rules and counts every number at its largest (21 bytes);
  // the margin covers what those rules leave unsaid.
  marginBytes: 4 * 1024,
  partitionKeyBytes: 2048,
  sortKeyBytes: 1024,
  nestingLevels: 32,
};

/** The largest item the store writes: DynamoDB's limit less the margin. */
const MAX_ITEM_BYTES = STORE_LIMITS.itemBytes - STORE_LIMITS.marginBytes;

/** A problem at a field of the document being stored (its path as the user wrote the document). */
export type ProblemAt = (path: readonly PropertyKey[], message: string) => ConfigProblem;

/** A pipeline as it would be stored: its document, resolved, with where its problems are reported. */
export interface PipelineToStore {
  document: PipelineDocument;
  pipeline: Pipeline;
  problemAt: ProblemAt;
}

/** A validated configuration, as the loader gives it (lib/config's `Configuration`). */
export interface ConfigurationToStore {
  /** Resolved, in the order of `pipelineDocuments`. */
  pipelines: readonly Pipeline[];
  pipelineDocuments: readonly { document: PipelineDocument; problemAt: ProblemAt }[];
  clusters: readonly { document: GitopsClusterDocument; problemAt: ProblemAt }[];
  /**
   * Stored pipelines written again with the targets their selectors select once the fleet changes (clusters applied
   * or deleted): written like the configuration's own, so held to the same limits.
   */
  reselected?: readonly PipelineToStore[];
}

// Values that only change an item's size within bounds the computation already assumes (a number counts 21 bytes).
const SAMPLE_NOW = new Date('2000-01-01T00:00:00.000Z');
const SAMPLE_GENERATION = 1;
const SAMPLE_APPLY_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Every problem the store would have with writing this configuration; empty when it fits. `stored` are the
 * pipelines stored now: they share the usage records of (cluster, kind, namespace) with the applied ones.
 */
export function checkStoreLimits(
  configuration: ConfigurationToStore,
  stored: readonly { pipeline: Pipeline }[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const pipelines: PipelineToStore[] = configuration.pipelineDocuments.flatMap(({ document, problemAt }, index) => {
    const pipeline = configuration.pipelines[index];
    return pipeline ? [{ document, pipeline, problemAt }] : [];
  });
  pipelines.push(...(configuration.reselected ?? []));
  for (const cluster of configuration.clusters) {
    const item = clusterItem(cluster.document, SAMPLE_NOW, SAMPLE_GENERATION);
    const measured = measureItem(item);
    for (const problem of valueProblems(measured, cluster.problemAt)) problems.push(problem);
    for (const problem of keyProblems(item, [], cluster.problemAt)) problems.push(problem);
    if (measured.bytes > MAX_ITEM_BYTES) {
      const message = `the stored GitopsCluster takes ${size(measured.bytes)}; the store holds at most ${size(MAX_ITEM_BYTES)} per cluster`;
      problems.push(cluster.problemAt([], message));
    }
  }
  for (const pipeline of pipelines) {
    for (const problem of pipelineProblems(pipeline)) problems.push(problem);
  }
  for (const problem of usageProblems(pipelines, stored)) problems.push(problem);
  return problems;
}

function pipelineProblems({ document, pipeline, problemAt }: PipelineToStore): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const item = pipelineItem(document, pipeline, SAMPLE_NOW, SAMPLE_GENERATION);
  const measured = measureItem(item);
  for (const problem of valueProblems(measured, problemAt)) problems.push(problem);
  for (const problem of keyProblems(item, [], problemAt)) problems.push(problem);
  if (measured.bytes > MAX_ITEM_BYTES)
    problems.push(pipelineSizeProblem(document, pipeline, measured.bytes, problemAt));
  else {
    // The record of an apply under way holds the resolved pipeline: smaller than the definition, which holds it too.
    const intent = measureItem(applyIntentItem(pipeline, SAMPLE_APPLY_ID, SAMPLE_GENERATION, SAMPLE_NOW));
    if (intent.bytes > MAX_ITEM_BYTES) problems.push(pipelineSizeProblem(document, pipeline, intent.bytes, problemAt));
  }
  const key = pipelineKeyOf(pipeline);
  for (const entry of indexEntries(pipeline)) {
    // The index entry's keys; the target's status shares its partition key.
    const path = entry.source
      ? ['spec', 'source']
      : targetPath(
          pipeline,
          pipeline.environments.findIndex((candidate) => candidate.name === entry.env),
          entry.targetIndex,
        );
    for (const problem of keyProblems(indexEntryItem(key, entry, SAMPLE_GENERATION), path, problemAt))
      problems.push(problem);
  }
  return problems;
}

/** Where a resolved target comes from in the document: its place in the list, or the selector that chose it. */
function targetPath(pipeline: Pipeline, env: number, target: number): PropertyKey[] {
  return pipeline.environments[env]?.targets[target]?.selected
    ? ['spec', 'environments', env, 'targetSelector']
    : ['spec', 'environments', env, 'targets', target];
}

/** `10,000 targets make the stored pipeline 1.2 MB; …`, or the size alone when the targets are not the cause. */
function pipelineSizeProblem(
  document: PipelineDocument,
  pipeline: Pipeline,
  bytes: number,
  problemAt: ProblemAt,
): ConfigProblem {
  const targets = pipeline.environments.reduce((sum, env) => sum + env.targets.length, 0);
  const withoutTargets = measureItem(
    pipelineItem(
      {
        ...document,
        spec: { ...document.spec, environments: document.spec.environments.map((env) => ({ ...env, targets: [] })) },
      },
      { ...pipeline, environments: pipeline.environments.map((env) => ({ ...env, targets: [] })) },
      SAMPLE_NOW,
      SAMPLE_GENERATION,
    ),
  ).bytes;
  const limit = `the store holds at most ${size(MAX_ITEM_BYTES)} per pipeline`;
  if (targets > 0 && bytes - withoutTargets >= bytes / 2) {
    const perTarget = (bytes - withoutTargets) / targets;
    const fit = Math.max(0, Math.floor((MAX_ITEM_BYTES - withoutTargets) / perTarget));
    const tooMany = `${count(targets)} targets make the stored pipeline ${size(bytes)}; ${limit} (about ${count(fit)} targets like these)`;
    // Targets chosen by labels grow with the fleet rather than the document: name the selector that chose most.
    const selecting = largestSelection(pipeline);
    if (selecting && 2 * selecting.selected > targets) {
      return problemAt(
        ['spec', 'environments', selecting.env, 'targetSelector'],
        `selects ${count(selecting.selected)} GitopsClusters: ${tooMany}: narrow the selector or split the pipeline`,
      );
    }
    return problemAt(['spec', 'environments'], tooMany);
  }
  return problemAt([], `the stored pipeline takes ${size(bytes)}; ${limit}`);
}

/** The environment whose targetSelector chose the most targets, with how many. */
function largestSelection(pipeline: Pipeline): { env: number; selected: number } | undefined {
  let largest: { env: number; selected: number } | undefined;
  pipeline.environments.forEach((env, index) => {
    const selected = env.targets.filter((target) => target.selected).length;
    if (selected > (largest?.selected ?? 0)) largest = { env: index, selected };
  });
  return largest;
}

/**
 * The usage records the applied pipelines touch, as they will be: one per (cluster, kind, namespace), with the name
 * of every pipeline (stored and applied) that has a target there.
 */
function usageProblems(
  pipelines: readonly PipelineToStore[],
  stored: readonly { pipeline: Pipeline }[],
): ConfigProblem[] {
  const applied = new Set(pipelines.map(({ pipeline }) => pipelineName(pipeline)));
  const users = new Map<
    string,
    { app: AppKey; pipelines: Set<string>; first?: { at: PipelineToStore; path: PropertyKey[] } }
  >();
  const use = (pipeline: Pipeline, at?: PipelineToStore) => {
    pipeline.environments.forEach((env, e) =>
      env.targets.forEach((target, t) => {
        const app = appKeyOf(pipeline, target);
        const id = keys.usage(app.cluster, app.kind, app.namespace).sk;
        const record = users.get(id) ?? { app, pipelines: new Set<string>() };
        record.pipelines.add(pipelineName(pipeline));
        if (at && !record.first) record.first = { at, path: targetPath(pipeline, e, t) };
        users.set(id, record);
      }),
    );
  };
  for (const { pipeline } of stored) if (!applied.has(pipelineName(pipeline))) use(pipeline);
  for (const at of pipelines) use(at.pipeline, at);

  const problems: ConfigProblem[] = [];
  for (const { app, pipelines, first } of users.values()) {
    if (!first) continue;
    const item = usageItem(app, new Map([...pipelines].map((name) => [name, SAMPLE_GENERATION])));
    for (const problem of keyProblems(item, first.path, first.at.problemAt)) problems.push(problem);
    const bytes = measureItem(item).bytes;
    if (bytes <= MAX_ITEM_BYTES) continue;
    const perPipeline = bytes / pipelines.size;
    const message =
      `${count(pipelines.size)} pipelines have ${app.kind} targets in namespace ${app.namespace} of cluster ` +
      `${objectKeyString(app.cluster)}; the store's record of them takes ${size(bytes)} and holds at most ` +
      `${size(MAX_ITEM_BYTES)} (about ${count(Math.floor(MAX_ITEM_BYTES / perPipeline))} pipelines)`;
    problems.push(first.at.problemAt(first.path, message));
  }
  return problems;
}

const pipelineName = (pipeline: Pipeline) => objectKeyString(pipelineKeyOf(pipeline));

function keyProblems(
  item: Record<string, unknown>,
  path: readonly PropertyKey[],
  problemAt: ProblemAt,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const check = (attribute: string, limit: number, which: string) => {
    const value = item[attribute];
    if (typeof value !== 'string') return;
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > limit) {
      const message = `makes a ${which} key of ${count(bytes)} bytes; the store's ${which} keys hold at most ${count(limit)} bytes (UTF-8): use shorter names`;
      problems.push(problemAt(path, message));
    }
  };
  check(TABLE_SCHEMA.partitionKey, STORE_LIMITS.partitionKeyBytes, 'partition');
  check(TABLE_SCHEMA.sortKey, STORE_LIMITS.sortKeyBytes, 'sort');
  check(TABLE_SCHEMA.indexPartitionKey, STORE_LIMITS.partitionKeyBytes, 'partition');
  check(TABLE_SCHEMA.indexSortKey, STORE_LIMITS.sortKeyBytes, 'sort');
  return problems;
}

interface Measured {
  bytes: number;
  /** The first place nested deeper than the store holds, with its depth. */
  tooDeep?: { path: PropertyKey[]; depth: number };
  /** Numbers the SDK or DynamoDB cannot store, where they are. */
  badNumbers: { path: PropertyKey[]; value: number }[];
}

/** Numbers counted at their largest: DynamoDB stores up to 38 digits in at most 21 bytes. */
const NUMBER_BYTES = 21;

/**
 * An item's size as DynamoDB counts it: each attribute's name and value; strings in UTF-8; a number at most 21
 * bytes; true, false and null 1; a map or list 3 bytes plus 1 per element, a map's keys counted like names; a set
 * its elements (plus 1 each, to be safe). Undefined values are dropped, as the document client writes them.
 * Iterative, so a deep value cannot overflow the stack.
 */
function measureItem(item: Record<string, unknown>): Measured {
  const measured: Measured = { bytes: 0, badNumbers: [] };
  const stack: { value: unknown; place: Place; depth: number }[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    measured.bytes += Buffer.byteLength(name, 'utf8');
    stack.push({ value, place: { key: name, parent: undefined }, depth: 0 });
  }
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, place, depth } = next;
    if (typeof value === 'string') measured.bytes += Buffer.byteLength(value, 'utf8');
    else if (typeof value === 'number') {
      measured.bytes += NUMBER_BYTES;
      if (!storableNumber(value) && measured.badNumbers.length < 10)
        measured.badNumbers.push({ path: pathOf(place), value });
    } else if (typeof value === 'boolean' || value === null) measured.bytes += 1;
    else if (value instanceof Set) {
      for (const element of value as Set<unknown>) measured.bytes += Buffer.byteLength(String(element), 'utf8') + 1;
    } else if (typeof value === 'object') {
      const level = depth + 1;
      if (level > STORE_LIMITS.nestingLevels && !measured.tooDeep)
        measured.tooDeep = { path: pathOf(place), depth: level };
      measured.bytes += 3;
      const entries: [PropertyKey, unknown][] = Array.isArray(value)
        ? value.map((element: unknown, index) => [index, element])
        : Object.entries(value as Record<string, unknown>);
      for (const [key, element] of entries) {
        if (element === undefined || typeof element === 'function') continue;
        measured.bytes += 1 + (typeof key === 'string' ? Buffer.byteLength(key, 'utf8') : 0);
        stack.push({ value: element, place: { key, parent: place }, depth: level });
      }
    }
  }
  return measured;
}

/** What the document client writes (finite, within 2^53) and DynamoDB keeps (magnitude 1e-130 to 1e126). */
function storableNumber(value: number): boolean {
  if (!Number.isFinite(value) || !Number.isSafeInteger(Math.trunc(value))) return false;
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= 1e-130 && magnitude < 1e126);
}

/** Problems with values inside the stored document (`document.…` in the item): numbers, nesting. */
function valueProblems(measured: Measured, problemAt: ProblemAt): ConfigProblem[] {
  const inDocument = (path: PropertyKey[]) => (path[0] === 'document' ? path.slice(1) : undefined);
  const problems: ConfigProblem[] = [];
  for (const { path, value } of measured.badNumbers) {
    const at = inDocument(path);
    if (at) {
      problems.push(
        problemAt(at, `the number ${String(value)} cannot be stored as a number: quote it to keep it as text`),
      );
    }
  }
  if (measured.tooDeep) {
    const at = inDocument(measured.tooDeep.path) ?? [];
    const message = `nests more than ${STORE_LIMITS.nestingLevels - 1} levels of mappings and lists inside the document; the store holds no deeper`;
    problems.push(problemAt(at, message));
  }
  return problems;
}

/** Sizes as DynamoDB states its limits (1 KB = 1,024 bytes): `396 KB`, `1.2 MB`. */
function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${count(Math.round(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const count = (value: number) => value.toLocaleString('en-US');
