// pipelinectl status: every pipeline (or one), environment by environment, with the decision for each.
import type { Command } from 'commander';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('status')
    .summary('Every pipeline, environment by environment, with the decision for each')
    .argument('[pipeline]', 'NAMESPACE/NAME of one pipeline (default: every pipeline)')
    .description(
      'Show each pipeline environment by environment: every target (cluster and namespace) with the revision it ' +
        'runs, its phase (Ready, Progressing, Failed, Suspended, Absent, Unreadable; Unobserved before the first ' +
        'read) and when it was last seen; the decision for the environment (state, reason) with its explanation, made now from the stored state as the verifier would make it; ' +
        'the revision waiting for approval; and the promotions made, with their pull request or error.',
    )
    .addOption(outputOption(['table', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl status\n  pipelinectl status flux-system/podinfo -o json\n' +
        '  pipelinectl status --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (name: string | undefined, options: { output: 'table' | 'json' }) => {
    const key = name === undefined ? undefined : parseObjectKey(name, 'the pipeline');
    const { pipelineViews, statusJson, statusTable } = await import('../actions/status.js');
    await withBackend(command, async (backend) => {
      const now = new Date();
      const views = await pipelineViews(backend, key, now);
      if (options.output === 'json') return printJson({ pipelines: views.map(statusJson) });
      if (views.length === 0) return console.error(`no pipelines stored in ${backend.description}`);
      printLines(views.flatMap((view, i) => [...(i > 0 ? [''] : []), ...statusTable(view, now)]));
    });
  });
}
