// The documents of a ConfigSource's folder at one commit, and what the source admits of a valid configuration. Which
// documents it applies (Pipelines and GitopsClusters; other kinds skipped, a Secret with values refused) is the
// loader's rule, shared with `pipelinectl validate` (lib/config/config-source-documents.ts); what is here is the
// source's own: how much one commit may hold, its namespaces, and that a commit holding nothing never prunes all.
import type { ConfigProblem, Configuration, ConfigurationSources } from '../config/index.js';
import { parseConfigText, tooLarge } from '../config/yaml-source.js';
import type { SourceFile } from './repository.js';

/** Documents in one source folder at most (over all its files), so a commit cannot make a sync unbounded. */
export const MAX_SOURCE_DOCUMENTS = 5_000;

/**
 * Parses the files, each within the input limits `apply` holds a file to. Parsing stops at the file that takes the
 * folder over MAX_SOURCE_DOCUMENTS: a commit of many large files is refused without holding all their documents.
 */
export function readDocuments(files: readonly SourceFile[]): ConfigurationSources {
  const sources: ConfigurationSources = { documents: [], problems: [] };
  for (const file of files) {
    const parsed =
      'tooLarge' in file
        ? { documents: [], problems: [tooLarge(file.path, file.tooLarge)] }
        : parseConfigText(file.text, file.path);
    for (const problem of parsed.problems) sources.problems.push(problem);
    for (const document of parsed.documents) sources.documents.push(document);
    if (sources.documents.length > MAX_SOURCE_DOCUMENTS) {
      const count = (value: number) => value.toLocaleString('en-US');
      return {
        documents: [],
        problems: [
          {
            file: file.path,
            message:
              `the folder holds more than the ${count(MAX_SOURCE_DOCUMENTS)} YAML documents a ConfigSource reads ` +
              `(${count(sources.documents.length)} up to this file): point it at a narrower folder`,
          },
        ],
      };
    }
  }
  return sources;
}

/** The problems the source has with a configuration valid on its own: nothing to apply, or a namespace it may not use. */
export function admissionProblems(
  configuration: Configuration,
  namespaces: readonly string[] | undefined,
): ConfigProblem[] {
  if (
    configuration.pipelineDocuments.length === 0 &&
    configuration.clusters.length === 0 &&
    configuration.pipelineSets.length === 0
  ) {
    return [
      {
        message:
          'the folder holds no Pipeline or GitopsCluster: nothing is applied and nothing pruned (a commit that ' +
          'empties the folder by mistake must not delete every pipeline; delete the ConfigSource instead)',
      },
    ];
  }
  if (!namespaces) return [];
  const allowed = new Set(namespaces);
  const message = (namespace: string) =>
    `namespace ${namespace} is not one this ConfigSource may define objects in (spec.namespaces: ` +
    `${namespaces.join(', ')})`;
  return [...configuration.pipelineSets, ...configuration.pipelineDocuments, ...configuration.clusters]
    .filter(({ key }) => !allowed.has(key.namespace))
    .map((located) => located.problemAt(['metadata', 'namespace'], message(located.key.namespace)));
}
