// pipelinectl unfreeze: lift stop switches set with `freeze`; the pipelines they held are decided again at once.
import type { Command } from 'commander';
import { objectKeyString } from '../../pipeline/model.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { printJson, printLines, printStderr } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('unfreeze')
    .summary('Lift the stop switch of a pipeline, or the installation-wide one')
    .argument('[pipeline]', 'NAMESPACE/NAME of the pipeline (or --all)')
    .option('--all', "the installation-wide switches (those set with freeze --all), not a pipeline's")
    .option('--env <env>', 'only the switch for this environment (default: every switch of the pipeline, or of --all)')
    .addOption(outputOption(['text', 'json']))
    .description(
      'Lift the stop switches set with pipelinectl freeze: those of one pipeline, or with --all the ' +
        'installation-wide ones; with --env only the one for that environment (a switch set without --env is ' +
        'lifted without --env). The removal is recorded with who made it in the audit trail of every pipeline the ' +
        'switches covered (freeze-cleared), and each such pipeline is decided again at once, so a promotion they ' +
        'held back starts now. When no such switch is set, nothing changes and the exit code is 1; the message names ' +
        'any switch that still holds the pipeline from elsewhere. With -o json it prints what was lifted as one ' +
        'JSON object.',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl unfreeze flux-system/podinfo --env prod\n  pipelinectl unfreeze --all\n' +
        '  pipelinectl unfreeze flux-system/podinfo -o json --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(
    async (name: string | undefined, options: { all?: boolean; env?: string; output: 'text' | 'json' }) => {
      const { targetOf } = await import('../operations/freeze.js');
      const { holdingText, unfreezeJson, unfreezePromotions } = await import('../operations/unfreeze.js');
      const target = targetOf(name, options.all, 'unfreeze');
      await withBackend(command, async (backend) => {
        const result = await unfreezePromotions(backend, target, options.env);
        if (options.output === 'json') printJson(unfreezeJson(result));
        else {
          for (const freeze of result.removed) {
            const where = 'pipeline' in freeze.scope ? objectKeyString(freeze.scope.pipeline) : 'installation-wide';
            const what = freeze.env ?? 'every environment';
            printLines([`${where}: ${what} unfrozen as ${result.by} (set by ${freeze.by}: ${freeze.reason})`]);
          }
        }
        if (result.holding.length > 0) printStderr(`note: ${holdingText(result.holding)}`);
        if (!result.delivered) {
          printStderr(
            `note: pipelinectl serve is not running on ${backend.description}: promotions resume when it starts`,
          );
        }
      });
    },
  );
}
