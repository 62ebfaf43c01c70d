// pipelinectl delete pipeline|gitopscluster|configsource|pipelineset NAMESPACE/NAME: remove one stored object.
import { Argument, type Command } from 'commander';
import { addBackendOptions, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printLines, printStderr } from '../output.js';
import type { DeletableKind } from '../../apply/delete.js';

export function register(program: Command): void {
  const command = program
    .command('delete')
    .summary('Delete a stored pipeline, cluster, config source or pipeline set')
    .description(
      'Delete a stored Pipeline (with its approval markers and promotion records; the audit trail is kept until it ' +
        'expires) or GitopsCluster. A cluster that a pipeline lists by clusterRef is not deleted: the command names ' +
        'the pipelines to change first. Pipelines that select the cluster by labels (targetSelector) lose its ' +
        'targets and are checked again. A ConfigSource is deleted alone: the pipelines and clusters it applied stay ' +
        'as they are and can then be changed with apply. A PipelineSet is deleted with every pipeline it generated; a ' +
        'pipeline a stored set generates is not deleted alone. Secrets are left where they are.',
    )
    .addArgument(
      new Argument('<kind>', 'what to delete').choices(['pipeline', 'gitopscluster', 'configsource', 'pipelineset']),
    )
    .argument('<name>', 'NAMESPACE/NAME of the object')
    .option('--dry-run', 'print what would change, deleting nothing')
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl delete gitopscluster flux-system/prod-eu-7\n' +
        '  pipelinectl delete pipeline flux-system/podinfo --dry-run\n' +
        '  pipelinectl delete configsource flux-system/fleet\n' +
        '  pipelinectl delete gitopscluster flux-system/prod-eu-7 --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (kind: DeletableKind, name: string, options: { dryRun?: boolean }) => {
    const key = parseObjectKey(name, `the ${kind}`);
    const { deleteObject } = await import('../../apply/delete.js');
    await withBackend(command, async (backend) => {
      const result = await deleteObject(backend, kind, key, { dryRun: options.dryRun });
      printLines(result.lines);
      if (!result.checksDelivered) {
        printStderr(
          `note: pipelinectl serve is not running on ${backend.description}: it checks the changes when it starts`,
        );
      }
    });
  });
}
