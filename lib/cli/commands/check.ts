// pipelinectl check: whether the promotions of a pipeline (or of all) can work, before the first one is due.
import { Option, type Command } from 'commander';
import { parseObjectKey } from '../flags.js';
import { GIT_API_FLAGS, gitApiUrlsOf, type GitApiFlagValues } from '../git-api-flags.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { printJson, printLines, printStderr } from '../output.js';

interface CheckFlags extends GitApiFlagValues {
  output: 'table' | 'json';
}

const GIT_HOSTS = "Where the Git hosts are, as for serve (default: a running serve's, else each repository URL's):";

export function register(program: Command): void {
  const command = program
    .command('check')
    .summary('Whether the promotions of a pipeline can work, before the first one')
    .argument('[pipeline]', 'NAMESPACE/NAME of one pipeline (default: every pipeline)')
    .description(
      'Check, for one pipeline or all, what its promotions need, with the credentials the deployment uses: every ' +
        "target's cluster answers and the app object exists on it (and which Flux API version serves it); for each " +
        "environment promoted by pull request, the repository can be read with the Pipeline's Secret, it may push, " +
        "the base branch exists and at least one file holds the environment's $promotion marker; for each one " +
        'promoted by notification, a notification sink is configured. One row per check: ok, failed, warning (cannot ' +
        'be told from here) or skipped (a check it rests on failed). It changes nothing. Exit code: 0 when no check ' +
        'failed (warnings included), 2 when one failed, 1 when the checks could not run (an unknown pipeline).',
    )
    .addOption(outputOption(['table', 'json']));
  for (const { flag, env, description } of GIT_API_FLAGS) {
    command.addOption(new Option(`${flag} <url>`, description).env(env).helpGroup(GIT_HOSTS));
  }
  command.addHelpText(
    'after',
    '\nExamples:\n  pipelinectl check\n  pipelinectl check flux-system/podinfo -o json\n' +
      '  pipelinectl check --github-api-url https://github.example.com/api/v3\n' +
      '  pipelinectl check --aws --stack PipelineControllerStack',
  );
  addBackendOptions(command).action(async (name: string | undefined, flags: CheckFlags) => {
    const pipeline = name === undefined ? undefined : parseObjectKey(name, 'the pipeline');
    const gitApiUrls = gitApiUrlsOf(flags);
    const { runChecks, checkTable, checkFailure } = await import('../operations/check.js');
    await withBackend(command, async (backend) => {
      const report = await runChecks(backend, { pipeline, gitApiUrls });
      if (flags.output === 'json') printJson(report);
      else if (report.pipelines.length === 0) printStderr(`no pipelines stored in ${backend.description}`);
      else printLines(checkTable(report));
      const failure = checkFailure(report.summary);
      if (failure) throw failure;
    });
  });
}
