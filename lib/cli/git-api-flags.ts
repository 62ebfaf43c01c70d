// The flags that say where the Git hosts' APIs are, shared by `serve` (which promotes through them) and `check`
// (which probes them): each with the environment variable the verifier Lambda reads, so one set of variables
// configures every runtime.
import type { GitProviderType } from '../pipeline/promotion.js';
import { parseHttpUrl } from './flags.js';

/** The options commander makes of them. */
export interface GitApiFlagValues {
  githubApiUrl?: string;
  gitlabApiUrl?: string;
  bitbucketServerApiUrl?: string;
  /** Commander's name for `--azure-devops-api-url` (it capitalises after each dash only). */
  azureDevopsApiUrl?: string;
}

export const GIT_API_FLAGS = [
  {
    flag: '--github-api-url',
    env: 'GITHUB_API_URL',
    type: 'github',
    attribute: 'githubApiUrl',
    description: 'GitHub API base URL (GitHub Enterprise); default: derived from each repository URL',
  },
  {
    flag: '--gitlab-api-url',
    env: 'GITLAB_API_URL',
    type: 'gitlab',
    attribute: 'gitlabApiUrl',
    description: 'GitLab API base URL (https://host/api/v4); default: derived from each repository URL',
  },
  {
    flag: '--bitbucket-server-api-url',
    env: 'BITBUCKET_SERVER_API_URL',
    type: 'bitbucket-server',
    attribute: 'bitbucketServerApiUrl',
    description: 'Bitbucket Server base URL (https://host[/context]); default: derived from each repository URL',
  },
  {
    flag: '--azure-devops-api-url',
    env: 'AZURE_DEVOPS_API_URL',
    type: 'azure-devops',
    attribute: 'azureDevopsApiUrl',
    description: 'Azure DevOps collection URL (https://dev.azure.com/org); default: derived from each repository URL',
  },
] as const satisfies readonly {
  flag: string;
  env: string;
  type: GitProviderType;
  attribute: keyof GitApiFlagValues;
  description: string;
}[];

/** The API base URL each flag given names, by host type; a value that is no http(s) URL is a CliError naming the flag. */
export function gitApiUrlsOf(flags: GitApiFlagValues): Partial<Record<GitProviderType, string>> {
  const urls: Partial<Record<GitProviderType, string>> = {};
  for (const { flag, type, attribute } of GIT_API_FLAGS) {
    const value = flags[attribute];
    if (value !== undefined) urls[type] = parseHttpUrl(value, flag);
  }
  return urls;
}
