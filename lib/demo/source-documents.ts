// The Pipelines and GitopsClusters the demo's ConfigSources will apply, read from the files its simulated repository
// starts with: the world (clusters, manifests) is planned before the controller first syncs them. They are read as a
// sync reads them (the source's folder, its `.yaml`/`.yml` files, the loader's ConfigSource rule), so that what the
// demo plans is what the controller applies.
import {
  formatProblem,
  loadSources,
  type Configuration,
  type ConfigSourceDocument,
  type Located,
} from '../config/index.js';
import { readDocuments } from '../config-source/documents.js';
import { filesInFolder } from '../config-source/repository.js';
import { objectKeyString } from '../pipeline/model.js';
import { repositoryPath } from '../pipeline/repository-address.js';

/**
 * The configuration with what its ConfigSources' folders hold in `repositoryFiles` added, or the problems (one line
 * each) that stop the demo from planning it.
 */
export function withSourceDocuments(
  configuration: Configuration,
  repositoryFiles: Readonly<Record<string, string>>,
): { configuration: Configuration; problems: string[] } {
  const problems: string[] = [];
  const merged: Configuration = {
    ...configuration,
    pipelines: [...configuration.pipelines],
    pipelineDocuments: [...configuration.pipelineDocuments],
    clusters: [...configuration.clusters],
  };
  for (const source of configuration.configSources) {
    const where = `ConfigSource ${objectKeyString(source.key)}`;
    const files = filesOf(source, repositoryFiles);
    if (files.length === 0) {
      problems.push(
        `${where}: the simulated repository holds no .yaml or .yml file under path ` +
          `${source.document.spec.path ?? '.'}: give the files it starts with (--repository)`,
      );
      continue;
    }
    const loaded = loadSources(readDocuments(files), {
      documents: 'config-source',
      known: {
        clusters: merged.clusters.map((cluster) => cluster.key),
        secrets: configuration.secrets.map((secret) => ({ ...secret.key, keys: Object.keys(secret.values) })),
      },
    });
    if (!loaded.ok) {
      problems.push(...loaded.problems.map((problem) => `${where}: ${formatProblem(problem)}`));
      continue;
    }
    const defined = new Set([...merged.pipelineDocuments, ...merged.clusters].map(nameOf));
    for (const name of [...loaded.configuration.pipelineDocuments, ...loaded.configuration.clusters].map(nameOf)) {
      if (defined.has(name)) {
        problems.push(`${where}: ${name} is defined twice (in the configuration or another source)`);
      }
    }
    merged.pipelines.push(...loaded.configuration.pipelines);
    merged.pipelineDocuments.push(...loaded.configuration.pipelineDocuments);
    merged.clusters.push(...loaded.configuration.clusters);
  }
  return { configuration: merged, problems };
}

/** `Pipeline ns/name`, `GitopsCluster ns/name`. */
function nameOf(located: Located<{ kind: string }>): string {
  return `${located.document.kind} ${objectKeyString(located.key)}`;
}

/** The YAML files under the source's folder, in path order, as a sync lists them. */
function filesOf(
  source: Located<ConfigSourceDocument>,
  repositoryFiles: Readonly<Record<string, string>>,
): { path: string; text: string }[] {
  const folder = repositoryPath(source.document.spec.path ?? '') ?? '';
  const files = Object.entries(repositoryFiles).map(([path, text]) => ({ path, text }));
  return filesInFolder(files, folder);
}
