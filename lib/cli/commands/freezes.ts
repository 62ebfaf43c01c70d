// pipelinectl freezes: the stop switches in force, installation-wide first.
import type { Command } from 'commander';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines, printStderr } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('freezes')
    .summary('List the stop switches in force')
    .argument('[pipeline]', 'NAMESPACE/NAME: only the switches that cover this pipeline (its own, installation-wide)')
    .addOption(outputOption(['table', 'json']))
    .description(
      'List the stop switches set with pipelinectl freeze that are in force (not past their --until): each with ' +
        'its scope (installation-wide or a pipeline), environment, when it ends, its recurring windows if any, who ' +
        'set it and why. Installation-wide switches come first. With -o json they are printed as one JSON object.',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl freezes\n  pipelinectl freezes flux-system/podinfo -o json\n' +
        '  pipelinectl freezes --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (name: string | undefined, options: { output: 'table' | 'json' }) => {
    const pipeline = name === undefined ? undefined : parseObjectKey(name, 'the pipeline');
    const { freezeJson, freezesTable, readFreezes } = await import('../operations/freezes.js');
    await withBackend(command, async (backend) => {
      const now = new Date();
      const freezes = await readFreezes(backend, pipeline, now);
      if (options.output === 'json') return printJson({ freezes: freezes.map(freezeJson) });
      if (freezes.length === 0) return printStderr(`no stop switch is in force in ${backend.description}`);
      printLines(freezesTable(freezes, now));
    });
  });
}
