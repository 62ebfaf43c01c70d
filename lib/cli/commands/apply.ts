// pipelinectl apply: validate a configuration against what is stored and, when all of it is valid, store it.
import type { Command } from 'commander';
import { MAX_FILE_BYTES } from '../../config/limits.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { CliError } from '../errors.js';
import { addBackendOptions, withBackend } from '../options.js';
import { printLines, printStderr } from '../output.js';
import { currentTerminal } from '../terminal.js';

export function register(program: Command): void {
  const command = program
    .command('apply')
    .summary('Validate a configuration against what is stored, then store it')
    .description(
      'Validate Pipelines, GitopsClusters, Secrets and ConfigSources (YAML files or directories) against what is stored and, when ' +
        'every document and reference is valid, store them: Secrets first (marked by use: webhook-hmac, ' +
        'git-credentials, kubeconfig), then clusters, then pipelines, and ask the verifier to check each pipeline ' +
        'that changed. Every problem is printed with its file, line and field, and then nothing is written. What Weave ' +
        'accepts but is probably a mistake is applied with a warning on standard error. A waiting approval in a Weave ' +
        "Pipeline's status (a kubectl export) becomes the environment's approval marker, unless it has one. An object " +
        'a ConfigSource applied from Git is changed in Git, not here.',
    )
    .requiredOption(
      '-f, --filename <path...>',
      'a YAML file or a directory of them (repeatable); - reads standard input',
    )
    .option('--dry-run', 'validate and print what would change, writing nothing')
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl apply -f config/\n  pipelinectl apply -f pipelines.yaml -f clusters.yaml --dry-run\n' +
        '  pipelinectl get pipelines -o yaml | pipelinectl apply -f -\n' +
        '  pipelinectl apply --aws --stack PipelineControllerStack -f config/',
    );
  addBackendOptions(command).action(async (options: { filename: string[]; dryRun?: boolean }) => {
    const { applyConfiguration } = await import('../../apply/apply.js');
    const source = options.filename.includes('-')
      ? { text: await readStdin(options.filename), file: '<stdin>' }
      : undefined;
    await withBackend(command, async (backend, { defaultCluster }) => {
      const result = await applyConfiguration(backend, {
        source: source ?? { paths: options.filename },
        dryRun: options.dryRun,
        defaultCluster,
      });
      if (!result.ok) {
        for (const problem of result.problems) printStderr(problem);
        const count = result.problems.length;
        throw new CliError(`${count} problem${count === 1 ? '' : 's'} in the configuration: nothing was applied`);
      }
      for (const warning of result.warnings) printStderr(warning);
      printLines(result.lines);
      if (!result.checksDelivered) {
        printStderr(
          `note: pipelinectl serve is not running on ${backend.description}: it checks the changes when it starts`,
        );
      }
      if (!options.dryRun && result.changedPipelines.length > 0) printStderr(checkHint(result.changedPipelines));
    });
  });
}

/** One line pointing at `pipelinectl check` for the pipelines just created or changed, naming the one when only one. */
function checkHint(pipelines: readonly ObjectKey[]): string {
  const [only] = pipelines;
  return pipelines.length === 1 && only
    ? `hint: run pipelinectl check ${objectKeyString(only)} to see whether its promotions can work`
    : 'hint: run pipelinectl check to see whether their promotions can work';
}

/**
 * Standard input, for `-f -` (which cannot be combined with files: the configuration is validated as one). It is
 * read no further than the limit of a configuration file.
 */
async function readStdin(filenames: readonly string[]): Promise<string> {
  if (filenames.length > 1) throw new CliError('-f - (standard input) cannot be combined with other files');
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const read of currentTerminal().stdin) {
    const chunk = typeof read === 'string' ? Buffer.from(read) : read;
    chunks.push(chunk);
    length += chunk.length;
    if (length > MAX_FILE_BYTES) {
      throw new CliError(
        `standard input holds more than ${MAX_FILE_BYTES / 1024 / 1024} MiB; a configuration file may hold at most ` +
          `that: split it into several files and pass their directory with -f`,
      );
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
