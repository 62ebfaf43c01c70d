// pipelinectl get pipelines|clusters|configsources|pipelinesets: what is stored, as a table or as the documents themselves.
import { Argument, type Command } from 'commander';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { CliError } from '../errors.js';
import { printJson, printLines, printStderr, printYaml } from '../output.js';

const KINDS = ['pipelines', 'clusters', 'configsources', 'configsource', 'pipelinesets'] as const;
type Kind = (typeof KINDS)[number];

export function register(program: Command): void {
  const command = program
    .command('get')
    .summary('List the stored pipelines, clusters, config sources or pipeline sets')
    .description(
      'List the stored Pipelines (namespace, name, app, targets, environments in promotion order), GitopsClusters ' +
        '(namespace, name, how many pipelines use each, how the verifier reaches it) or ConfigSources (repository, ' +
        'branch, folder, the commit applied, whether the last sync succeeded and why not). With -o json or -o yaml ' +
        'the documents are printed as applied, as a v1 List that apply -f takes back; a ConfigSource with its status ' +
        '(which apply ignores). A ConfigSource may be named (NAMESPACE/NAME) to show only that one. PipelineSets: ' +
        'namespace, name, how many pipelines each generates, its generators; a generated pipeline is listed with ' +
        'get pipelines too, in the SET column.',
    )
    .addArgument(new Argument('<kind>', 'what to list').choices(KINDS))
    .argument('[name]', 'NAMESPACE/NAME of one ConfigSource')
    .addOption(outputOption(['table', 'json', 'yaml']))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl get pipelines\n  pipelinectl get clusters -o yaml > clusters.yaml\n' +
        '  pipelinectl get pipelinesets\n' +
        '  pipelinectl get configsources\n  pipelinectl get configsource flux-system/fleet -o json\n' +
        '  pipelinectl get pipelines --aws --stack PipelineControllerStack -o json',
    );
  addBackendOptions(command).action(
    async (kind: Kind, name: string | undefined, options: { output: 'table' | 'json' | 'yaml' }) => {
      if (kind === 'configsources' || kind === 'configsource') return getConfigSources(command, name, options.output);
      if (kind === 'pipelinesets' && name === undefined) return getPipelineSets(command, options.output);
      if (name !== undefined) {
        throw new CliError(`get ${kind} lists every one of them: a name is taken only by get configsources`);
      }
      const { clustersTable, documentList, pipelinesTable, storedConfiguration } = await import('../operations/get.js');
      await withBackend(command, async (backend) => {
        const { pipelines, clusters } = await storedConfiguration(backend, kind === 'clusters');
        const documents = kind === 'pipelines' ? pipelines.map((p) => p.document) : clusters.map((c) => c.document);
        if (options.output === 'json') return printJson(documentList(documents));
        if (options.output === 'yaml') return printYaml(documentList(documents));
        if (documents.length === 0) return printStderr(`no ${kind} stored in ${backend.description}`);
        const now = new Date();
        printLines(kind === 'pipelines' ? pipelinesTable(pipelines, now) : clustersTable(clusters, pipelines, now));
      });
    },
  );
}

/** Every ConfigSource as a v1 List, or the one named as itself (as `kubectl get KIND NAME -o yaml` prints it). */
async function getConfigSources(
  command: Command,
  name: string | undefined,
  output: 'table' | 'json' | 'yaml',
): Promise<void> {
  const key = name === undefined ? undefined : parseObjectKey(name, 'the configsource');
  const { configSourceJson, configSourcesTable, storedConfigSources } = await import('../operations/config-sources.js');
  const { documentList } = await import('../operations/get.js');
  await withBackend(command, async (backend) => {
    const sources = await storedConfigSources(backend, key);
    const documents = sources.map(configSourceJson);
    const value = key ? documents[0] : documentList(documents);
    if (output === 'json') return printJson(value);
    if (output === 'yaml') return printYaml(value);
    if (sources.length === 0) return printStderr(`no configsources stored in ${backend.description}`);
    printLines(configSourcesTable(sources));
  });
}

/** Every PipelineSet as a v1 List, or as a table with how many pipelines each generates. */
async function getPipelineSets(command: Command, output: 'table' | 'json' | 'yaml'): Promise<void> {
  const { pipelineSetsTable, storedPipelineSets } = await import('../operations/pipeline-sets.js');
  const { documentList } = await import('../operations/get.js');
  await withBackend(command, async (backend) => {
    const rows = await storedPipelineSets(backend);
    const value = documentList(rows.map(({ set }) => set.document));
    if (output === 'json') return printJson(value);
    if (output === 'yaml') return printYaml(value);
    if (rows.length === 0) return printStderr(`no pipelinesets stored in ${backend.description}`);
    printLines(pipelineSetsTable(rows, new Date()));
  });
}
