// Which ConfigSource owns what, checked before anything is written: an object a source applied is changed only by
// that source (the CLI is told to change it in Git; another source has a Conflict), and a source's commit prunes the
// objects it applied earlier that the commit no longer holds (docs/config-sources.md, "Ownership and prune").
// Objects applied with the CLI are never pruned: a source adopts one it defines, and leaves the others alone.
import type { ConfigProblem, Configuration } from '../config/index.js';
import { keyOf } from '../config/references.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { ObjectOwner } from '../store/port.js';
import { liveOwner, type StoredObjects } from './stored-objects.js';

export interface OwnershipPlan {
  /** Objects this apply may not change, named with their owner; empty when it may go on. */
  problems: ConfigProblem[];
  /** Some problem is another source's object (a Conflict), rather than the CLI changing a source's. */
  conflict: boolean;
  /** What the source applied earlier and its commit no longer holds, removed after the apply's writes. */
  prunedPipelines: ObjectKey[];
  prunedClusters: ObjectKey[];
  prunedPipelineSets: ObjectKey[];
}

/**
 * The ownership checks and the prune of one apply: `owner` is the source applying (undefined: the CLI), `prune`
 * whether the source removes what its commit no longer holds.
 */
export function planOwnership(
  stored: StoredObjects,
  configuration: Configuration,
  owner: ObjectOwner | undefined,
  prune: boolean,
): OwnershipPlan {
  const problems: ConfigProblem[] = [];
  let conflict = false;
  const check = (
    kind: string,
    located: { key: ObjectKey; problemAt: Configuration['clusters'][number]['problemAt'] },
    storedOwner: ObjectOwner | undefined,
  ) => {
    if (!storedOwner) return;
    const source = objectKeyString(storedOwner.configSource);
    if (owner && objectKeyString(owner.configSource) === source) return;
    const applied = `${kind} ${objectKeyString(located.key)} is applied from Git by ConfigSource ${source}`;
    if (owner) conflict = true;
    problems.push(
      located.problemAt(
        ['metadata', 'name'],
        owner
          ? `${applied}; two sources may not define one object: remove it from one of them`
          : `${applied}: change it in Git (or delete the ConfigSource first)`,
      ),
    );
  };
  const storedPipelines = new Map(stored.pipelines.map((p) => [objectKeyString(keyOf(p.document.metadata)), p]));
  const storedClusters = new Map(stored.clusters.map((c) => [objectKeyString(keyOf(c.document.metadata)), c]));
  const ownerOf = (object: { owner?: ObjectOwner } | undefined) => object && liveOwner(stored, object);
  for (const located of configuration.pipelineDocuments) {
    check('Pipeline', located, ownerOf(storedPipelines.get(objectKeyString(located.key))));
  }
  for (const located of configuration.clusters) {
    check('GitopsCluster', located, ownerOf(storedClusters.get(objectKeyString(located.key))));
  }
  const storedSets = new Map(stored.pipelineSets.map((s) => [objectKeyString(keyOf(s.document.metadata)), s]));
  for (const located of configuration.pipelineSets) {
    check('PipelineSet', located, ownerOf(storedSets.get(objectKeyString(located.key))));
  }

  const ownedBySource = (stored: { owner?: ObjectOwner }) =>
    owner !== undefined &&
    stored.owner !== undefined &&
    objectKeyString(stored.owner.configSource) === objectKeyString(owner.configSource);
  const applied = new Set([
    ...configuration.pipelineDocuments.map(({ key }) => `Pipeline ${objectKeyString(key)}`),
    ...configuration.clusters.map(({ key }) => `GitopsCluster ${objectKeyString(key)}`),
    ...configuration.pipelineSets.map(({ key }) => `PipelineSet ${objectKeyString(key)}`),
  ]);
  const prunedPipelines = !prune
    ? []
    : stored.pipelines
        .filter((p) => ownedBySource(p) && !applied.has(`Pipeline ${objectKeyString(keyOf(p.document.metadata))}`))
        .map((p) => keyOf(p.document.metadata));
  const prunedClusters = !prune
    ? []
    : stored.clusters
        .filter((c) => ownedBySource(c) && !applied.has(`GitopsCluster ${objectKeyString(keyOf(c.document.metadata))}`))
        .map((c) => keyOf(c.document.metadata));
  const prunedPipelineSets = !prune
    ? []
    : stored.pipelineSets
        .filter((s) => ownedBySource(s) && !applied.has(`PipelineSet ${objectKeyString(keyOf(s.document.metadata))}`))
        .map((s) => keyOf(s.document.metadata));
  problems.push(...clustersStillListed(stored, configuration, prunedPipelines, prunedClusters));
  return { problems, conflict, prunedPipelines, prunedClusters, prunedPipelineSets };
}

/** A pruned cluster that a pipeline staying on still lists by clusterRef: removing it would strand those targets. */
function clustersStillListed(
  stored: StoredObjects,
  configuration: Configuration,
  prunedPipelines: readonly ObjectKey[],
  prunedClusters: readonly ObjectKey[],
): ConfigProblem[] {
  if (prunedClusters.length === 0) return [];
  const pruned = new Set(prunedClusters.map(objectKeyString));
  const problems: ConfigProblem[] = [];
  configuration.pipelines.forEach((pipeline, index) => {
    const located = configuration.pipelineDocuments[index];
    pipeline.environments.forEach((env, envIndex) => {
      env.targets.forEach((target, targetIndex) => {
        if (target.selected || !pruned.has(objectKeyString(target.cluster)) || !located) return;
        problems.push(
          located.problemAt(
            ['spec', 'environments', envIndex, 'targets', targetIndex, 'clusterRef'],
            `GitopsCluster ${objectKeyString(target.cluster)} is removed by this commit but still listed here`,
          ),
        );
      });
    });
  });
  const replacedOrPruned = new Set([
    ...prunedPipelines.map(objectKeyString),
    ...configuration.pipelineDocuments.map(({ key }) => objectKeyString(key)),
  ]);
  for (const { document, pipeline } of stored.pipelines) {
    const key = keyOf(document.metadata);
    if (replacedOrPruned.has(objectKeyString(key))) continue;
    const listed = pipeline.environments
      .flatMap((env) => env.targets)
      .filter((target) => !target.selected && pruned.has(objectKeyString(target.cluster)));
    for (const cluster of new Set(listed.map((target) => objectKeyString(target.cluster)))) {
      problems.push({
        document: `GitopsCluster ${cluster}`,
        message:
          `is removed by this commit, but the stored pipeline ${objectKeyString(key)} lists it by clusterRef: ` +
          'change that pipeline first',
      });
    }
  }
  return problems;
}
