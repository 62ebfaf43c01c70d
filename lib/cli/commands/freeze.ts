// pipelinectl freeze: the stop switch. Promotions into the environments it covers do not start until it is lifted
// (`unfreeze`) or its --until passes; a promotion already under way finishes.
import type { Command } from 'commander';
import { objectKeyString } from '../../pipeline/model.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { printJson, printLines, printStderr } from '../output.js';

interface FreezeCommandFlags {
  all?: boolean;
  env?: string;
  reason: string;
  until?: string;
  window?: string[];
  timeZone?: string;
  output: 'text' | 'json';
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function register(program: Command): void {
  const command = program
    .command('freeze')
    .summary('Stop promotions into a pipeline, or every pipeline, until unfrozen')
    .argument('[pipeline]', 'NAMESPACE/NAME of the pipeline (or --all)')
    .option('--all', 'every pipeline of the installation, also those applied later')
    .option('--env <env>', 'only promotions into this environment (default: every environment)')
    .requiredOption('--reason <text>', 'why: shown wherever the switch holds a promotion back, and in the audit trail')
    .option('--until <time>', 'end by itself then: an ISO 8601 time (2026-11-24T08:00:00Z) or a duration (2h, 30m, 2d)')
    .option(
      '--window <range>',
      'hold only within this recurring window: "Fri 16:00-Mon 08:00" or "22:00-06:00" (repeatable)',
      collect,
    )
    .option('--time-zone <zone>', 'the IANA time zone of --window, such as Europe/Berlin or UTC')
    .addOption(outputOption(['text', 'json']))
    .description(
      'Set a stop switch: no promotion into the environments it covers starts until it is lifted with ' +
        'pipelinectl unfreeze, or until --until. It covers one pipeline, or with --all every pipeline of the ' +
        'installation; every environment, or with --env one. A promotion already under way finishes. With --window ' +
        '(and --time-zone) it holds only within those recurring windows: an installation-wide schedule. Setting a ' +
        'switch where one is set (same pipeline or --all, same --env) replaces it. The switch is recorded with who ' +
        "set it (local:<user> in the local mode, the caller's ARN on AWS) in the audit trail of every pipeline it " +
        'covers (freeze-set). With -o json it prints the switch as one JSON object.',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl freeze flux-system/podinfo --env prod --reason "incident 4711" --until 2h\n' +
        '  pipelinectl freeze --all --reason "release freeze" --until 2026-12-27T08:00:00Z\n' +
        '  pipelinectl freeze --all --env prod --reason weekend --window "Fri 16:00-Mon 08:00" ' +
        '--time-zone Europe/Berlin',
    );
  addBackendOptions(command).action(async (name: string | undefined, options: FreezeCommandFlags) => {
    const { freezePromotions, freezeResultJson, readFreezeFlags, targetOf } = await import('../operations/freeze.js');
    const { switchText } = await import('../../freeze/set-freeze.js');
    const target = targetOf(name, options.all, 'freeze');
    const now = new Date();
    const input = readFreezeFlags(
      {
        env: options.env,
        reason: options.reason,
        until: options.until,
        windows: options.window ?? [],
        timeZone: options.timeZone,
      },
      now,
    );
    await withBackend(command, async (backend) => {
      const result = await freezePromotions(backend, target, input, now);
      if (options.output === 'json') printJson(freezeResultJson(result));
      else {
        const where = 'pipeline' in target ? `${objectKeyString(target.pipeline)}: ` : '';
        printLines([`${where}${switchText(result.freeze)}, set by ${result.freeze.by}`]);
      }
      if (result.replaced) {
        printStderr(
          `note: this replaces the switch set by ${result.replaced.by} at ${result.replaced.at}: ${result.replaced.reason}`,
        );
      }
      if (result.warnings.includes('environment-in-no-pipeline')) {
        printStderr(
          `warning: no stored pipeline has an environment "${options.env}": the switch holds nothing until one has it`,
        );
      }
    });
  });
}
