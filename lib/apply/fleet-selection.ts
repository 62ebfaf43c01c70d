// Targets chosen by cluster labels follow the fleet: whenever clusters are applied (or deleted), every pipeline with
// a targetSelector is resolved again against the whole fleet, the stored clusters with this apply's on top. A stored
// pipeline the apply does not name is stored again only when its selection changed, so relabelling one cluster
// writes for the pipelines whose selection it joins or leaves, not for the fleet. A re-selected pipeline is written
// like an applied one, so the store's limits are checked over it too (checkStoreLimits' `reselected`): a selection
// the store cannot hold is refused before anything is written, by name, rather than failing half-way.
import { keyOf } from '../config/references.js';
import { formatPath, type Configuration } from '../config/index.js';
import type { GitopsClusterDocument } from '../config/schema.js';
import {
  objectKeyString,
  selectTargets,
  type LabelledCluster,
  type ObjectKey,
  type Pipeline,
} from '../pipeline/model.js';
import { canonicalJson, type PipelineToStore } from '../store/index.js';
import type { StoredObjects } from './stored-objects.js';

/** The fleet after this apply: the stored clusters, replaced or joined by the configuration's. */
export function fleetAfter(
  stored: StoredObjects,
  applied: readonly { document: GitopsClusterDocument }[],
  removed: readonly ObjectKey[] = [],
): LabelledCluster[] {
  const fleet = new Map<string, LabelledCluster>();
  for (const { document } of [...stored.clusters, ...applied]) {
    const key = keyOf(document.metadata);
    fleet.set(objectKeyString(key), { key, labels: document.metadata.labels });
  }
  for (const key of removed) fleet.delete(objectKeyString(key));
  return [...fleet.values()];
}

/** The configuration with each pipeline's selected targets resolved against the fleet. */
export function withSelectedTargets(configuration: Configuration, fleet: readonly LabelledCluster[]): Configuration {
  return { ...configuration, pipelines: configuration.pipelines.map((pipeline) => selectTargets(pipeline, fleet)) };
}

/** A stored pipeline with its targets selected again (`pipeline`), reporting its problems as the stored one. */
export interface Reselection extends PipelineToStore {
  key: ObjectKey;
  /** How many selected targets joined and left. */
  joined: number;
  left: number;
}

/** The stored pipelines, other than `except`, whose selected targets change with the fleet. */
export function reselectedPipelines(
  stored: StoredObjects,
  fleet: readonly LabelledCluster[],
  except: readonly ObjectKey[] = [],
): Reselection[] {
  const skipped = new Set(except.map(objectKeyString));
  const changed: Reselection[] = [];
  for (const { document, pipeline } of stored.pipelines) {
    const key = keyOf(document.metadata);
    if (skipped.has(objectKeyString(key))) continue;
    if (!pipeline.environments.some((env) => env.targetSelector)) continue;
    const reselected = selectTargets(pipeline, fleet);
    if (canonicalJson(reselected) === canonicalJson(pipeline)) continue;
    const before = new Set(selectedIds(pipeline));
    const after = new Set(selectedIds(reselected));
    const label = `Pipeline ${objectKeyString(key)} (stored)`;
    changed.push({
      key,
      document,
      pipeline: reselected,
      // Not from this apply's files: the problem names the stored pipeline, and the field of its document.
      problemAt: (path, message) => ({
        document: label,
        path: path.length > 0 ? formatPath(path) : undefined,
        message,
      }),
      joined: [...after].filter((id) => !before.has(id)).length,
      left: [...before].filter((id) => !after.has(id)).length,
    });
  }
  return changed;
}

function selectedIds(pipeline: Pipeline): string[] {
  return pipeline.environments.flatMap((env) =>
    env.targets
      .filter((target) => target.selected)
      .map((target) => `${env.name}/${objectKeyString(target.cluster)}/${target.namespace}`),
  );
}
