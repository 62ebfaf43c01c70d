// pipelinectl check: whether the promotions of a pipeline (or of all) can work, before the first one is due.
import { Option, type Command } from 'commander';
import type { GitProviderType } from '../../pipeline/promotion.js';
import { parseHttpUrl, parseObjectKey } from '../flags.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { printJson, printLines } from '../output.js';

interface CheckFlags {
  output: 'table' | 'json';
  githubApiUrl?: string;
  gitlabApiUrl?: string;
  bitbucketServerApiUrl?: string;
  /** Commander's name for `--azure-devops-api-url` (it capitalises after each dash only). */
  azureDevopsApiUrl?: string;
}

const GIT_HOSTS = "Where the Git hosts are, as for serve (default: a running serve's, else each repository URL's):";

/** serve's flags for the Git API base URLs, with the same environment variables, and the host type each sets. */
const GIT_API_FLAGS = [
  {
    flag: '--github-api-url',
    env: 'GITHUB_API_URL',
    type: 'github',
    attribute: 'githubApiUrl',
    description: 'GitHub API base URL (GitHub Enterprise)',
  },
  {
    flag: '--gitlab-api-url',
    env: 'GITLAB_API_URL',
    type: 'gitlab',
    attribute: 'gitlabApiUrl',
    description: 'GitLab API base URL (https://host/api/v4)',
  },
  {
    flag: '--bitbucket-server-api-url',
    env: 'BITBUCKET_SERVER_API_URL',
    type: 'bitbucket-server',
    attribute: 'bitbucketServerApiUrl',
    description: 'Bitbucket Server base URL (https://host[/context])',
  },
  {
    flag: '--azure-devops-api-url',
    env: 'AZURE_DEVOPS_API_URL',
    type: 'azure-devops',
    attribute: 'azureDevopsApiUrl',
    description: 'Azure DevOps collection URL (https://dev.azure.com/org)',
  },
] as const satisfies readonly {
  flag: string;
  env: string;
  type: GitProviderType;
  attribute: keyof CheckFlags;
  description: string;
}[];

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
    const gitApiUrls: Partial<Record<GitProviderType, string>> = {};
    for (const { flag, type, attribute } of GIT_API_FLAGS) {
      const value = flags[attribute];
      if (value !== undefined) gitApiUrls[type] = parseHttpUrl(value, flag);
    }
    const { runChecks, checkTable, checkFailure } = await import('../actions/check.js');
    await withBackend(command, async (backend) => {
      const report = await runChecks(backend, { pipeline, gitApiUrls });
      if (flags.output === 'json') printJson(report);
      else if (report.pipelines.length === 0) console.error(`no pipelines stored in ${backend.description}`);
      else printLines(checkTable(report));
      const failure = checkFailure(report.summary);
      if (failure) throw failure;
    });
  });
}
