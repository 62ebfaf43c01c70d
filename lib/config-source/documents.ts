// What a ConfigSource applies of the documents in its folder: Pipelines and GitopsClusters. Everything else a Flux
// repository's folder holds (a Flux Kustomization, a kustomization.yaml, a HelmRelease, a Weave folder's other
// objects, a ConfigSource kept beside its pipelines) is skipped and counted, so such a folder works as it is. A
// Secret with values is refused: secrets stay out of Git (docs/config-sources.md).
import { type ConfigProblem, type Configuration, type ConfigurationSources } from '../config/index.js';
import { expandDocument, problemAt } from '../config/validate.js';
import { parseConfigText } from '../config/yaml-source.js';
import { isRecord } from '../util/is-record.js';
import type { SourceFile } from './repository.js';

/** The kinds a ConfigSource applies; a `List` of them (a `kubectl get -o yaml` export) too. */
export const APPLIED_KINDS: readonly string[] = ['Pipeline', 'GitopsCluster'];

/** Documents in one source folder at most (over all its files), so a commit cannot make a sync unbounded. */
export const MAX_SOURCE_DOCUMENTS = 5_000;

export interface SelectedDocuments {
  /** The documents to validate and apply, with every problem found reading them. */
  sources: ConfigurationSources;
  /** Documents of other kinds, skipped. */
  skipped: number;
}

/** Parses the files (within the input limits, as `apply` does) and keeps what a source applies. */
export function selectDocuments(files: readonly SourceFile[]): SelectedDocuments {
  const sources: ConfigurationSources = { documents: [], problems: [] };
  let skipped = 0;
  let count = 0;
  for (const file of files) {
    const parsed = parseConfigText(file.text, file.path);
    for (const problem of parsed.problems) sources.problems.push(problem);
    for (const document of parsed.documents) {
      count += 1;
      const kind = isRecord(document.value) ? document.value.kind : undefined;
      if (typeof kind === 'string' && (APPLIED_KINDS.includes(kind) || kind === 'List')) {
        sources.documents.push(document);
      } else if (kind === 'Secret' && holdsValues(document.value)) {
        for (const at of expandDocument(document)) {
          sources.problems.push(
            problemAt(
              at,
              [],
              'a Secret with values is not applied from Git (secrets stay out of Git): apply it with ' +
                'pipelinectl apply, or on AWS keep it in Secrets Manager, and remove it from the repository',
            ),
          );
        }
      } else if (document.value !== null && document.value !== undefined) {
        skipped += 1;
      }
    }
  }
  if (count > MAX_SOURCE_DOCUMENTS) {
    sources.problems.push({
      message: `the folder holds ${count} YAML documents, more than the ${MAX_SOURCE_DOCUMENTS} a ConfigSource reads`,
    });
  }
  if (sources.documents.length === 0 && sources.problems.length === 0) {
    sources.problems.push({
      message:
        'the folder holds no Pipeline or GitopsCluster: nothing is applied and nothing pruned (a commit that ' +
        'empties the folder by mistake must not delete every pipeline; delete the ConfigSource instead)',
    });
  }
  return { sources, skipped };
}

/** The objects of a valid configuration whose namespace the source may not define objects in. */
export function namespaceProblems(
  configuration: Configuration,
  namespaces: readonly string[] | undefined,
): ConfigProblem[] {
  if (!namespaces) return [];
  const allowed = new Set(namespaces);
  const message = (namespace: string) =>
    `namespace ${namespace} is not one this ConfigSource may define objects in (spec.namespaces: ${namespaces.join(', ')})`;
  return [...configuration.pipelineDocuments, ...configuration.clusters]
    .filter(({ key }) => !allowed.has(key.namespace))
    .map((located) => located.problemAt(['metadata', 'namespace'], message(located.key.namespace)));
}

function holdsValues(value: unknown): boolean {
  return isRecord(value) && (isRecord(value.data) || isRecord(value.stringData));
}
