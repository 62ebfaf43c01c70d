// Loading the configuration to apply: its files (or text), read once within the input limits, checked against what
// is stored (clusters it refers to without defining them, and the keys of stored Secrets it refers to).
import { appsElementsFrom } from '../pipeline/pipeline-set.js';
import { keyOf, namedDocument } from '../config/references.js';
import { expandDocument } from '../config/validate.js';
import { parseConfigText } from '../config/yaml-source.js';
import {
  configSourceTreatment,
  generatedDocuments,
  loadSources,
  readConfigurationFiles,
  type ConfigurationSources,
  type KnownSecret,
  type LoadOptions,
  type LoadResult,
} from '../config/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import { secretUses } from '../secrets/uses.js';
import type { ApplyPorts } from './ports.js';
import type { StoredObjects } from './stored-objects.js';

/**
 * Files and directories (read as `loadConfiguration` reads them), YAML text such as standard input, or documents
 * read already (readConfigurationFiles, parseConfigText).
 */
export type ConfigurationSource =
  { paths: readonly string[] } | { text: string; file: string } | { sources: ConfigurationSources };

/** `documents`: which documents to load (LoadOptions): every one, as `apply` does, or a ConfigSource's. */
export async function loadConfigurationSource(
  backend: Pick<ApplyPorts, 'secretKeys'>,
  source: ConfigurationSource,
  stored: StoredObjects,
  defaultCluster: ObjectKey | undefined,
  documents: LoadOptions['documents'] = 'all',
): Promise<LoadResult> {
  const sources =
    'sources' in source
      ? source.sources
      : 'text' in source
        ? parseConfigText(source.text, source.file)
        : await readConfigurationFiles(source.paths);
  const found = new Map(
    stored.pipelineSets.map((set) => [objectKeyString(keyOf(set.document.metadata)), set.appsFound]),
  );
  const options: LoadOptions = {
    defaultCluster,
    documents,
    // A set's apps generators keep generating what the last poll found.
    appsElements: appsElementsFrom((set) => found.get(objectKeyString(set))),
    known: {
      clusters: stored.clusters.map((cluster) => keyOf(cluster.document.metadata)),
      secrets: await knownSecrets(backend, sources, documents),
    },
  };
  return loadSources(sources, options);
}

/**
 * The stored Secrets this configuration refers to without defining them, with their key names (never values), so
 * that the loader can check their keys. The documents are read leniently for this; the loader validates them.
 */
async function knownSecrets(
  backend: Pick<ApplyPorts, 'secretKeys'>,
  sources: ConfigurationSources,
  loaded: LoadOptions['documents'],
): Promise<KnownSecret[]> {
  const documents = sources.documents
    .flatMap((document) => expandDocument(document))
    .filter((at) => loaded !== 'config-source' || configSourceTreatment(at).treatment !== 'skip')
    .flatMap((at) => [at, ...generatedDocuments(at)])
    .map((at) => namedDocument(at))
    .filter((named) => named !== undefined);
  const defined = new Set(documents.filter((d) => d.kind === 'Secret').map((d) => objectKeyString(d.key)));
  const referenced = new Map<string, ObjectKey>();
  for (const { kind, key, value } of documents) {
    for (const use of secretUses(kind, key, value)) {
      const id = objectKeyString(use.secret);
      if (!defined.has(id)) referenced.set(id, use.secret);
    }
  }
  const known = await Promise.all(
    [...referenced.values()].map(async (key): Promise<KnownSecret | undefined> => {
      const keys = await backend.secretKeys(key);
      return keys && { ...key, keys };
    }),
  );
  return known.filter((secret) => secret !== undefined);
}
