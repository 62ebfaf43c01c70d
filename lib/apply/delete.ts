// Deleting one stored object, as `pipelinectl delete` does (and a ConfigSource's prune). A pipeline goes with its index entries, approval markers and promotion records. A
// GitopsCluster goes only when no pipeline lists it by clusterRef (deleting it would leave targets nobody can read);
// the pipelines that select it by labels are stored again without it first, so no stored pipeline ever names a
// cluster that is gone, and each is checked again (an environment left with no target becomes unknown). Those
// pipelines are held to the store's limits as an apply holds them (a store an earlier version filled with more
// selected clusters than one pipeline can list refuses the delete by name rather than with DynamoDB's error).
import { formatProblem } from '../config/index.js';
import { keyOf } from '../config/references.js';
import { objectKeyString, type ObjectKey, pipelineKeyOf } from '../pipeline/model.js';
import { generatingSet } from '../pipeline/pipeline-set.js';
import { checkStoreLimits, type ObjectOwner } from '../store/index.js';
import { listAll } from '../util/paged.js';
import type { ApplyPorts } from './ports.js';
import { fleetAfter, reselectedPipelines } from './fleet-selection.js';
import { liveOwner, owningSource, readStoredObjects, type StoredObjects } from './stored-objects.js';

/** A delete (or apply) refused as a whole: nothing was written; the message names the object and why. */
export class RefusedChangeError extends Error {
  override name = 'RefusedChangeError';
}

export type DeletableKind = 'pipeline' | 'gitopscluster' | 'configsource' | 'pipelineset';

export interface DeleteOptions {
  dryRun?: boolean;
  now?: () => Date;
}

export interface DeleteResult {
  /** One line per object changed: `gitopscluster flux-system/prod-1 deleted`, `pipeline … configured (…)`. */
  lines: string[];
  /** False when a check could not be handed to a verifier (local mode without `serve`). */
  checksDelivered: boolean;
}

/** Deletes one stored object; throws a RefusedChangeError naming it when it is not stored or is still in use. */
export async function deleteObject(
  backend: ApplyPorts,
  kind: DeletableKind,
  key: ObjectKey,
  options: DeleteOptions = {},
): Promise<DeleteResult> {
  switch (kind) {
    case 'pipeline':
      return deletePipeline(backend, key, options);
    case 'gitopscluster':
      return deleteCluster(backend, key, options);
    case 'configsource':
      return deleteConfigSource(backend, key, options);
    case 'pipelineset':
      return deletePipelineSet(backend, key, options);
  }
}

/** Deletes a PipelineSet and every pipeline it generated (with their markers, records and history). */
async function deletePipelineSet(backend: ApplyPorts, key: ObjectKey, options: DeleteOptions): Promise<DeleteResult> {
  const name = objectKeyString(key);
  const set = await backend.store.getPipelineSet(key);
  if (!set) throw notStored('pipelineset', name, backend);
  if (await owningSource(backend.store, set.owner)) refuseOwned('pipelineset', name, set.owner);
  const generated = (await listAll((page) => backend.store.listPipelines(page)))
    .map(({ document }) => ({ pipeline: keyOf(document.metadata), set: generatingSet(document.metadata) }))
    .filter((each) => each.set && objectKeyString(each.set) === name)
    .map((each) => each.pipeline);
  const lines: string[] = [];
  for (const pipeline of generated) {
    if (!options.dryRun) await backend.store.deletePipeline(pipeline);
    lines.push(`pipeline ${objectKeyString(pipeline)} deleted${suffix(options)}`);
  }
  if (!options.dryRun) await backend.store.deletePipelineSet(key);
  lines.push(`pipelineset ${name} deleted${suffix(options)}`);
  return { lines, checksDelivered: true };
}

/**
 * Deletes a ConfigSource: its Git repository is no longer read. The objects it applied stay as they are, with their
 * owner naming the source that is gone, and can then be changed with `apply` (docs/cli.md, "delete"); its trail of
 * applied commits stays until it expires.
 */
async function deleteConfigSource(backend: ApplyPorts, key: ObjectKey, options: DeleteOptions): Promise<DeleteResult> {
  const name = objectKeyString(key);
  if (!(await backend.store.getConfigSource(key))) throw notStored('configsource', name, backend);
  if (!options.dryRun) await backend.store.deleteConfigSource(key);
  return { lines: [`configsource ${name} deleted${suffix(options)}`], checksDelivered: true };
}

async function deletePipeline(backend: ApplyPorts, key: ObjectKey, options: DeleteOptions): Promise<DeleteResult> {
  const name = objectKeyString(key);
  const stored = await backend.store.getPipeline(key);
  if (!stored) throw notStored('pipeline', name, backend);
  if (await owningSource(backend.store, stored.owner)) refuseOwned('pipeline', name, stored.owner);
  const set = generatingSet(stored.document.metadata);
  if (set && (await backend.store.getPipelineSet(set))) {
    throw new RefusedChangeError(
      `pipeline ${name} is generated by PipelineSet ${objectKeyString(set)}: remove its element from the set (or ` +
        'delete the set, which deletes its pipelines); nothing was deleted',
    );
  }
  if (!options.dryRun) await backend.store.deletePipeline(key);
  return { lines: [`pipeline ${name} deleted${suffix(options)}`], checksDelivered: true };
}

async function deleteCluster(backend: ApplyPorts, key: ObjectKey, options: DeleteOptions): Promise<DeleteResult> {
  const name = objectKeyString(key);
  const stored = await readStoredObjects(backend.store);
  const cluster = stored.clusters.find((each) => objectKeyString(keyOf(each.document.metadata)) === name);
  if (!cluster) throw notStored('gitopscluster', name, backend);
  refuseOwned('gitopscluster', name, liveOwner(stored, cluster));
  const listing = pipelinesListing(stored, key);
  if (listing.length > 0) {
    throw new RefusedChangeError(
      `gitopscluster ${name} is listed by clusterRef in pipeline ${listing.join(', ')}: remove those targets from ` +
        'the pipeline (or the pipeline) and apply it first; nothing was deleted',
    );
  }
  const now = options.now ?? (() => new Date());
  const lines: string[] = [];
  const reselections = reselectedPipelines(stored, fleetAfter(stored, [], [key]));
  const limits = checkStoreLimits(
    { pipelines: [], pipelineDocuments: [], clusters: [], reselected: reselections },
    stored.pipelines,
  );
  if (limits.length > 0) {
    throw new RefusedChangeError(
      `cannot delete gitopscluster ${name}: ${limits.map(formatProblem).join('; ')}; nothing was deleted`,
    );
  }
  for (const reselection of reselections) {
    if (!options.dryRun) await backend.store.applyPipeline(reselection.document, reselection.pipeline, now());
    lines.push(
      `pipeline ${objectKeyString(reselection.key)} configured (targets selected by cluster labels: ` +
        `${reselection.joined} joined, ${reselection.left} left)${suffix(options)}`,
    );
  }
  if (!options.dryRun) await backend.store.deleteCluster(key);
  lines.push(`gitopscluster ${name} deleted${suffix(options)}`);
  if (options.dryRun) return { lines, checksDelivered: true };
  let checksDelivered = true;
  for (const { key: pipeline } of reselections) {
    const message = { type: 'check-pipeline', pipeline, cause: 'apply', readTargets: true } as const;
    checksDelivered = (await backend.enqueue(message)) && checksDelivered;
  }
  return { lines, checksDelivered };
}

/** The stored pipelines with a listed (not selected) target on the cluster. */
function pipelinesListing(stored: StoredObjects, cluster: ObjectKey): string[] {
  const name = objectKeyString(cluster);
  return stored.pipelines
    .filter(({ pipeline }) =>
      pipeline.environments.some((env) =>
        env.targets.some((target) => !target.selected && objectKeyString(target.cluster) === name),
      ),
    )
    .map(({ pipeline }) => objectKeyString(pipelineKeyOf(pipeline)));
}

/** An object a (stored) ConfigSource applied is removed from Git, where the source prunes it. */
function refuseOwned(kind: DeletableKind, name: string, owner: ObjectOwner | undefined): void {
  if (!owner) return;
  throw new RefusedChangeError(
    `${kind} ${name} is applied from Git by ConfigSource ${objectKeyString(owner.configSource)}: remove it from ` +
      'Git, where the source prunes it (or delete the ConfigSource first); nothing was deleted',
  );
}

function notStored(kind: DeletableKind, name: string, backend: ApplyPorts): RefusedChangeError {
  return new RefusedChangeError(`${kind} ${name} is not stored in ${backend.description}`);
}

function suffix(options: DeleteOptions): string {
  return options.dryRun ? ' (dry run)' : '';
}
