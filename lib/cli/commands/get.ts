// pipelinectl get pipelines|clusters: what is stored, as a table or as the documents themselves.
import { Argument, type Command } from 'commander';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { printJson, printLines, printStderr, printYaml } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('get')
    .summary('List the stored pipelines or clusters')
    .description(
      'List the stored Pipelines (namespace, name, app, targets, environments in promotion order) or GitopsClusters ' +
        '(namespace, name, how many pipelines use each, how the verifier reaches it). With -o json or -o yaml the ' +
        'documents are printed as applied, as a v1 List that apply -f takes back.',
    )
    .addArgument(new Argument('<kind>', 'what to list').choices(['pipelines', 'clusters']))
    .addOption(outputOption(['table', 'json', 'yaml']))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl get pipelines\n  pipelinectl get clusters -o yaml > clusters.yaml\n' +
        '  pipelinectl get pipelines --aws --stack PipelineControllerStack -o json',
    );
  addBackendOptions(command).action(
    async (kind: 'pipelines' | 'clusters', options: { output: 'table' | 'json' | 'yaml' }) => {
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
