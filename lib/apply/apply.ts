// What `pipelinectl apply` does: validate a whole configuration against what is stored, then store it and ask the
// verifier to check every pipeline that changed. One problem anywhere and nothing is written. The steps, in order:
// loading (apply/configuration-source.ts, within the input limits of lib/config/limits.ts), Secret purposes
// (apply/secret-purposes.ts), the store's limits (the same in a dry run), then, for a real run: settling what
// interrupted applies left, storing the objects (apply/store-objects.ts), carrying over the approvals a Weave export's
// status says are waiting (apply/waiting-approvals.ts), re-marking the Secrets applied earlier, then the checks.
// Warnings (what Weave accepts but is probably a mistake) never stop an apply; they come back with its result.
import {
  formatProblem,
  formatWarning,
  type ConfigProblem,
  type Configuration,
  type LoadOptions,
} from '../config/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { ObjectOwner } from '../store/port.js';
import { checkStoreLimits } from '../store/index.js';
import type { ApplyPorts } from './ports.js';
import { loadConfigurationSource, type ConfigurationSource } from './configuration-source.js';
import { fleetAfter, reselectedPipelines, withSelectedTargets } from './fleet-selection.js';
import { planSecretPurposes, remarkSecrets } from './secret-purposes.js';
import { storeObjects, type ObjectChanges } from './store-objects.js';
import { planOwnership, type OwnershipPlan } from './ownership.js';
import { planPipelineSets } from './pipeline-sets.js';
import { clusterAccessWarnings } from './cluster-access-warnings.js';
import { strategyWarnings } from './strategy-warnings.js';
import { readStoredObjects } from './stored-objects.js';
import { carryOverApprovals } from './waiting-approvals.js';

export type { ConfigurationSource } from './configuration-source.js';

export interface ApplyOptions {
  source: ConfigurationSource;
  dryRun?: boolean;
  defaultCluster?: ObjectKey;
  now?: () => Date;
  /** The ConfigSource applying, and its commit; undefined: the CLI, which may not change a source's objects. */
  owner?: ObjectOwner;
  /** With `owner`: remove what the source applied earlier and this configuration no longer holds. Default true. */
  prune?: boolean;
  /** Problems of the caller's own about a valid configuration (a ConfigSource's namespaces), checked before writing. */
  admit?: (configuration: Configuration) => ConfigProblem[];
  /** Which documents are applied: every one (`apply`), or those a ConfigSource applies, the others skipped. */
  documents?: LoadOptions['documents'];
}

/** Why nothing was applied: a problem in the configuration, or another source's objects in it. */
export type ApplyRefusal = 'invalid' | 'conflict';

export type ApplyResult =
  | { ok: false; problems: string[]; refusal: ApplyRefusal }
  | {
      ok: true;
      /** One line per object: `pipeline flux-system/podinfo created`, `secret apps/github configured`, … */
      lines: string[];
      /** What changed, by `Kind namespace/name`: what a ConfigSource's audit entry lists. */
      changes: ObjectChanges;
      /** Pipelines and GitopsClusters the configuration holds, changed or not. */
      objects: number;
      /** Documents left out (with `documents: 'config-source'`): other kinds. */
      skipped: number;
      /** One line per warning, printed as is on standard error: `warning: file:line:column: document: field: …`. */
      warnings: string[];
      /** Pipelines that changed, each sent a `check-pipeline` (unless dry run). */
      changedPipelines: ObjectKey[];
      /** False when a check could not be handed to a verifier (local mode without `serve`). */
      checksDelivered: boolean;
    };

/** Validates and (unless dry run) applies a configuration; never throws for a problem with the configuration. */
export async function applyConfiguration(backend: ApplyPorts, options: ApplyOptions): Promise<ApplyResult> {
  const dryRun = options.dryRun ?? false;
  const stored = await readStoredObjects(backend.store);
  const loaded = await loadConfigurationSource(
    backend,
    options.source,
    stored,
    options.defaultCluster,
    options.documents,
  );
  if (!loaded.ok) return { ok: false, problems: loaded.problems.map(formatProblem), refusal: 'invalid' };
  const refused = options.admit?.(loaded.configuration) ?? [];
  if (refused.length > 0) return { ok: false, problems: refused.map(formatProblem), refusal: 'invalid' };
  const ownership = planOwnership(stored, loaded.configuration, options.owner, options.prune ?? true);
  if (ownership.problems.length > 0) {
    const refusal = ownership.conflict ? 'conflict' : 'invalid';
    return { ok: false, problems: ownership.problems.map(formatProblem), refusal };
  }
  const sets = planPipelineSets(stored, loaded.configuration);
  if (sets.problems.length > 0) return { ok: false, problems: sets.problems.map(formatProblem), refusal: 'invalid' };
  // What an applied set no longer generates is pruned as a source's commit prunes what it no longer holds.
  const pruned = new Set(ownership.prunedPipelines.map(objectKeyString));
  for (const key of sets.prunedPipelines) {
    if (!pruned.has(objectKeyString(key))) ownership.prunedPipelines.push(key);
  }
  // Targets chosen by cluster labels, against the fleet as it will be: this apply's pipelines, and the stored ones
  // whose selection the applied (or pruned) clusters change.
  const fleet = fleetAfter(stored, loaded.configuration.clusters, ownership.prunedClusters);
  const configuration = withSelectedTargets(loaded.configuration, fleet);
  const reselections = reselectedPipelines(stored, fleet, [
    ...configuration.pipelineDocuments.map((document) => document.key),
    ...ownership.prunedPipelines,
  ]);
  const warnings = [...loaded.warnings, ...clusterAccessWarnings(backend, configuration)].map(
    (warning) => `warning: ${formatWarning(warning)}`,
  );
  warnings.push(...(await strategyWarnings(backend, configuration)));

  const purposes = planSecretPurposes(stored, configuration);
  if (purposes.problems.length > 0) return { ok: false, problems: purposes.problems, refusal: 'invalid' };

  // What the store cannot hold is refused here, before anything is written, in a dry run as in the real run.
  const limits = checkStoreLimits({ ...configuration, reselected: reselections }, stored.pipelines);
  if (limits.length > 0) return { ok: false, problems: limits.map(formatProblem), refusal: 'invalid' };

  const now = options.now ?? (() => new Date());
  if (!dryRun) await backend.store.repairInterruptedApplies?.(now());
  const { lines, changedPipelines, changedSources, changes } = await storeObjects(backend, configuration, stored, {
    reselections,
    dryRun,
    now,
    purposesOf: purposes.of,
    owner: options.owner,
  });
  // Before the checks, so that the verifier's first decision sees the markers.
  lines.push(...(await carryOverApprovals(backend, configuration, stored, { dryRun, now })));
  lines.push(...(await pruneObjects(backend, ownership, { dryRun })));
  changes.pruned.push(
    ...ownership.prunedPipelines.map((key) => `Pipeline ${objectKeyString(key)}`),
    ...ownership.prunedClusters.map((key) => `GitopsCluster ${objectKeyString(key)}`),
    ...ownership.prunedPipelineSets.map((key) => `PipelineSet ${objectKeyString(key)}`),
  );
  const objects = configuration.pipelineDocuments.length + configuration.clusters.length;
  const skipped = loaded.skipped.length;
  if (dryRun) return { ok: true, lines, changes, objects, skipped, warnings, changedPipelines, checksDelivered: true };

  lines.push(...(await remarkSecrets(backend, purposes)));
  const checksDelivered = await requestChecks(backend, changedPipelines, changedSources);
  return { ok: true, lines, changes, objects, skipped, warnings, changedPipelines, checksDelivered };
}

/** Removes what a source's commit no longer holds, as `pipelinectl delete` would: pipelines, then clusters. */
async function pruneObjects(
  backend: ApplyPorts,
  ownership: OwnershipPlan,
  options: { dryRun: boolean },
): Promise<string[]> {
  const suffix = options.dryRun ? ' (dry run)' : '';
  const lines: string[] = [];
  for (const key of ownership.prunedPipelines) {
    if (!options.dryRun) await backend.store.deletePipeline(key);
    lines.push(`pipeline ${objectKeyString(key)} pruned${suffix}`);
  }
  for (const key of ownership.prunedClusters) {
    if (!options.dryRun) await backend.store.deleteCluster(key);
    lines.push(`gitopscluster ${objectKeyString(key)} pruned${suffix}`);
  }
  for (const key of ownership.prunedPipelineSets) {
    if (!options.dryRun) await backend.store.deletePipelineSet(key);
    lines.push(`pipelineset ${objectKeyString(key)} pruned${suffix}`);
  }
  return lines;
}

/**
 * One `check-pipeline` per changed pipeline, one `sync-config-source` per changed source; false when any could not
 * be handed to a verifier.
 */
async function requestChecks(
  backend: ApplyPorts,
  pipelines: readonly ObjectKey[],
  sources: readonly ObjectKey[],
): Promise<boolean> {
  let delivered = true;
  for (const pipeline of pipelines) {
    delivered =
      (await backend.enqueue({ type: 'check-pipeline', pipeline, cause: 'apply', readTargets: true })) && delivered;
  }
  for (const source of sources) {
    delivered = (await backend.enqueue({ type: 'sync-config-source', source, cause: 'apply' })) && delivered;
  }
  return delivered;
}
