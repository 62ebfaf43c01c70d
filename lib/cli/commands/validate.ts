// pipelinectl validate: checks the configuration files of a ConfigSource's folder, with no store and no cluster (or
// against what a deployment stores), for CI on the pull requests that change them.
import { Option, type Command } from 'commander';
import { CliError } from '../errors.js';
import { addBackendOptions, backendOptionsOf, outputOption, withBackend } from '../options.js';
import { printJson, printLines, printStderr } from '../output.js';
import type { ValidateOptions, ValidateReport } from '../operations/validate.js';

interface ValidateFlags {
  output: 'text' | 'github' | 'json';
  unresolved: 'problem' | 'warning';
  aws?: boolean;
}

/** How a reference not among the files given can be resolved: said in each such problem. */
const RESOLVE_HINT = 'pass --data-dir or --aws to resolve it against a deployment';

export function register(program: Command): void {
  const command = program
    .command('validate')
    .summary('Check configuration files as a ConfigSource reads them, with no store and no cluster')
    .argument('[paths...]', 'YAML files or directories (read recursively); default: the current directory')
    .description(
      "Check the files of a ConfigSource's folder as its sync reads them, writing nothing: every Pipeline and " +
        'GitopsCluster is validated (schema, names, references); documents of other kinds (a Flux Kustomization, a ' +
        'HelmRelease, a kustomization.yaml) are skipped and counted; a Secret with values is a problem (secrets stay ' +
        'out of Git). References are resolved among the files given: one to a GitopsCluster or Secret that is not ' +
        'among them is a problem that says so, unless --data-dir or --aws names a deployment whose stored clusters and ' +
        'Secrets (their key names, never values) resolve it; --unresolved warning makes such a reference a warning ' +
        '(for CI with no access to the deployment). Exit code: 0 when valid (warnings included), 1 on any problem. ' +
        '-o github prints GitHub Actions annotations, shown on the lines of the files in a pull request.',
    )
    .addOption(outputOption(['text', 'github', 'json']))
    .addOption(
      new Option(
        '--unresolved <report>',
        'how a reference not among the files given is reported, without --data-dir or --aws',
      )
        .choices(['problem', 'warning'])
        .default('problem'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl validate pipelines/\n  pipelinectl validate -o github --unresolved warning pipelines/\n' +
        '  pipelinectl validate --data-dir .data\n' +
        '  pipelinectl validate --aws --stack PipelineControllerStack pipelines/',
    );
  addBackendOptions(command).action(async (paths: string[], flags: ValidateFlags) => {
    const { validateFiles } = await import('../operations/validate.js');
    const files = paths.length > 0 ? paths : ['.'];
    // The default data directory is not read unless asked for: validate needs no deployment.
    const againstDeployment = flags.aws || command.getOptionValueSource('dataDir') === 'cli';
    if (againstDeployment && command.getOptionValueSource('unresolved') === 'cli') {
      throw new CliError(
        '--unresolved is for the files checked on their own: with --data-dir or --aws every reference is resolved',
      );
    }
    const report = againstDeployment
      ? await withBackend(command, (backend, { defaultCluster }) => validateFiles(files, { backend, defaultCluster }))
      : await validateFiles(files, filesOnly(command, flags));
    await print(report, flags.output);
  });
}

function filesOnly(command: Command, flags: ValidateFlags): ValidateOptions {
  return {
    defaultCluster: backendOptionsOf(command).defaultCluster,
    filesOnly: { hint: RESOLVE_HINT, unresolved: flags.unresolved },
  };
}

async function print(report: ValidateReport, output: ValidateFlags['output']): Promise<void> {
  const { githubAnnotations, problemLines, validateJson, validSummary } = await import('../operations/validate.js');
  if (output === 'json') printJson(validateJson(report));
  else if (output === 'github') printLines(githubAnnotations(report));
  else for (const line of problemLines(report)) printStderr(line);
  const problems = report.problems.length;
  if (problems > 0) throw new CliError(`${problems} problem${problems === 1 ? '' : 's'} in the configuration`);
  if (output !== 'json') printLines([validSummary(report)]);
}
