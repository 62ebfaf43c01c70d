// What `pipelinectl get pipelinesets` prints: each stored PipelineSet, its generators in a few words and how many
// pipelines it generates now (the stored pipelines carrying its label), or the documents as a `v1 List`.
import type { PipelineSetDocument } from '../../config/schema.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { generatingSet } from '../../pipeline/pipeline-set.js';
import type { StoredPipeline, StoredPipelineSet } from '../../store/port.js';
import type { Backend } from '../backend.js';
import { ago, formatTable } from '../output.js';
import { listAll } from '../../util/paged.js';

export interface PipelineSetRow {
  set: StoredPipelineSet;
  /** The stored pipelines it generated, by key. */
  generated: ObjectKey[];
}

/** Every stored PipelineSet with the pipelines it generated (two listings, whatever the fleet's size). */
export async function storedPipelineSets(backend: Backend): Promise<PipelineSetRow[]> {
  const [sets, pipelines] = await Promise.all([
    listAll((page) => backend.store.listPipelineSets(page)),
    listAll((page) => backend.store.listPipelines(page)),
  ]);
  const bySet = pipelinesBySet(pipelines);
  return sets.map((set) => ({
    set,
    generated: bySet.get(objectKeyString(keyOfMetadata(set.document.metadata))) ?? [],
  }));
}

/** The stored pipelines by the `ns/name` of the set that generated them; hand-written ones are left out. */
export function pipelinesBySet(pipelines: readonly StoredPipeline[]): Map<string, ObjectKey[]> {
  const bySet = new Map<string, ObjectKey[]>();
  for (const { document } of pipelines) {
    const set = generatingSet(document.metadata);
    if (!set) continue;
    const id = objectKeyString(set);
    bySet.set(id, [...(bySet.get(id) ?? []), keyOfMetadata(document.metadata)]);
  }
  return bySet;
}

/** The table of sets: name, how many pipelines they generate, when applied, their generators. */
export function pipelineSetsTable(rows: readonly PipelineSetRow[], now: Date): string[] {
  return formatTable(
    [
      { header: 'NAMESPACE', max: 30 },
      { header: 'NAME', max: 40 },
      { header: 'PIPELINES' },
      { header: 'APPLIED' },
      { header: 'GENERATORS' },
    ],
    rows.map(({ set, generated }) => {
      const key = keyOfMetadata(set.document.metadata);
      return [key.namespace, key.name, String(generated.length), ago(set.appliedAt, now), generators(set.document)];
    }),
  );
}

/** `list of 2, apps: HelmRelease in apps on flux-system/dev-1 labelled promotion=standard`. */
export function generators(document: PipelineSetDocument): string {
  const namespace = keyOfMetadata(document.metadata).namespace;
  return document.spec.generators
    .map(({ list, apps }) => {
      if (list) return `list of ${list.elements.length}`;
      if (!apps) return 'none';
      const cluster = objectKeyString({
        namespace: apps.clusterRef.namespace ?? namespace,
        name: apps.clusterRef.name,
      });
      const labels = Object.entries(apps.matchLabels ?? {}).map(([label, value]) => `${label}=${value}`);
      return `apps: ${apps.kind} in ${apps.namespace} on ${cluster}${labels.length ? ` labelled ${labels.join(',')}` : ''}`;
    })
    .join('; ');
}

/**
 * Pipelines grouped as `status` shows them: the hand-written ones first, in their order, then each set's generated
 * ones under their set (sets by name).
 */
export function groupedBySet<T extends { stored: { document: StoredPipeline['document'] } }>(
  items: readonly T[],
): { set?: ObjectKey; items: T[] }[] {
  const handWritten: T[] = [];
  const bySet = new Map<string, { set: ObjectKey; items: T[] }>();
  for (const item of items) {
    const set = generatingSet(item.stored.document.metadata);
    if (!set) {
      handWritten.push(item);
      continue;
    }
    const id = objectKeyString(set);
    const group = bySet.get(id) ?? { set, items: [] };
    group.items.push(item);
    bySet.set(id, group);
  }
  const sets = [...bySet.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
  return [...(handWritten.length > 0 ? [{ items: handWritten }] : []), ...sets];
}

/** `PipelineSet flux-system/web-apps: 300 pipelines generated`, the line above a set's pipelines in `status`. */
export function setHeading(set: ObjectKey, pipelines: number): string {
  return `PipelineSet ${objectKeyString(set)}: ${pipelines} pipeline${pipelines === 1 ? '' : 's'} generated`;
}
