// What a poll does for the PipelineSets whose `apps` generators look at its (cluster, kind) (docs/pipeline-sets.md,
// "The apps generator"): from the objects the poll listed anyway (no LIST of its own), the apps each generator
// matches are kept on the set, an app missing for the first time marked so, one missing twice dropped; when that
// changes what the set generates, the set is applied again as `apply` would apply it (pipelines added, those it no
// longer generates pruned). Nothing is concluded from a LIST that failed.
import { isDeepStrictEqual } from 'node:util';
import type { ApplyPorts } from '../apply/index.js';
import type { SourceDocument } from '../config/yaml-source.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../pipeline/model.js';
import {
  appsElementsFrom,
  appsPlaceKey,
  appsPlaceOf,
  foundAfterPoll,
  matchesLabels,
  type FoundApp,
} from '../pipeline/pipeline-set.js';
import { secretKeyNames } from '../secrets/port.js';
import type { StoredPipelineSet } from '../store/port.js';
import { isRecord } from '../util/is-record.js';
import type { VerifierDeps } from './deps.js';

/** The namespaces the sets' apps generators look in on this (cluster, kind): the poll's LIST must cover them. */
export function setNamespaces(sets: readonly StoredPipelineSet[], cluster: ObjectKey, kind: string): string[] {
  return sets.flatMap((set) => placesOn(set, cluster, kind).map(({ namespace }) => namespace));
}

/** Follows the listed objects in each set; returns the sets applied again. */
export async function followSetApps(
  sets: readonly StoredPipelineSet[],
  listed: readonly Record<string, unknown>[],
  cluster: ObjectKey,
  kind: string,
  deps: VerifierDeps,
): Promise<ObjectKey[]> {
  const applied: ObjectKey[] = [];
  for (const set of sets) {
    const key = keyOfMetadata(set.document.metadata);
    const before = set.appsFound ?? {};
    const after = { ...before };
    for (const place of placesOn(set, cluster, kind)) {
      const placeKey = appsPlaceKey(place);
      // What any of the set's generators at this place matches is kept, with its labels.
      const selectors = set.document.spec.generators
        .map(({ apps }) => apps)
        .filter((apps) => apps && appsPlaceKey(appsPlaceOf(key, apps)) === placeKey)
        .map((apps) => apps?.matchLabels);
      const matching = listed.flatMap((object) => {
        const app = appOf(object);
        if (!app || app.namespace !== place.namespace) return [];
        if (!selectors.some((matchLabels) => matchesLabels(app.labels, matchLabels))) return [];
        return [{ name: app.name, labels: app.labels }];
      });
      after[placeKey] = foundAfterPoll(before[placeKey] ?? [], matching);
    }
    if (isDeepStrictEqual(after, before)) continue;
    if (!(await deps.store.recordPipelineSetApps(key, set.generation, after))) continue;
    const generates = (found: Record<string, FoundApp[]>) =>
      set.document.spec.generators.map(({ apps }) => (apps ? appsElementsFrom(() => found)(key, apps) : []));
    if (isDeepStrictEqual(generates(after), generates(before))) continue;
    await applySet(set, key, deps);
    applied.push(key);
  }
  return applied;
}

/** The set applied again as `apply` applies it, with what its generators found now (read back from the store). */
async function applySet(set: StoredPipelineSet, key: ObjectKey, deps: VerifierDeps): Promise<void> {
  const name = `PipelineSet ${objectKeyString(key)}`;
  const secrets = deps.configSources?.git.secrets ?? deps.verification?.secrets;
  const ports: ApplyPorts = {
    description: `the apps found for ${name}`,
    store: deps.store,
    putSecret: () => Promise.reject(new Error('a PipelineSet holds no Secret')),
    secretKeys: (secret) => (secrets ? secretKeyNames(secrets, secret) : Promise.resolve(undefined)),
    enqueue: async (message) => {
      await deps.queue.send(message);
      return true;
    },
    identity: () => Promise.resolve(name),
  };
  const source: SourceDocument = {
    file: `${name} (stored)`,
    index: 0,
    value: set.document,
    reservedKeys: [],
    locate: () => undefined,
  };
  // Loaded here, not at start: few polls find a set's apps changed, and apply brings the YAML parser with it.
  const { applyConfiguration } = await import('../apply/index.js');
  const result = await applyConfiguration(ports, {
    source: { sources: { documents: [source], problems: [] } },
    now: deps.now,
    // The set's source keeps owning it; only the set's own pipelines are pruned, not the rest of that source's.
    ...(set.owner ? { owner: set.owner, prune: false } : {}),
  });
  if (result.ok) {
    deps.logger.info('pipeline set applied for the apps found', {
      pipelineSet: objectKeyString(key),
      lines: result.lines,
    });
  } else {
    deps.logger.warn('pipeline set not applied for the apps found', {
      pipelineSet: objectKeyString(key),
      problems: result.problems,
    });
  }
}

function placesOn(set: StoredPipelineSet, cluster: ObjectKey, kind: string) {
  const key = keyOfMetadata(set.document.metadata);
  return set.document.spec.generators
    .flatMap(({ apps }) => (apps ? [appsPlaceOf(key, apps)] : []))
    .filter((place) => objectKeyString(place.cluster) === objectKeyString(cluster) && place.kind === kind);
}

/** An object's name, namespace and string labels, when it has them. */
function appOf(
  object: Record<string, unknown>,
): { name: string; namespace: string; labels: Record<string, string> } | undefined {
  const metadata = object.metadata;
  if (!isRecord(metadata) || typeof metadata.name !== 'string' || typeof metadata.namespace !== 'string') {
    return undefined;
  }
  const labels = isRecord(metadata.labels)
    ? Object.fromEntries(
        Object.entries(metadata.labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      )
    : {};
  return { name: metadata.name, namespace: metadata.namespace, labels };
}
