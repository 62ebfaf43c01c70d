// The open pull requests from a promotion branch, in one read (`GET /pulls?state=open&head=owner:branch`). The branch
// write asks it before choosing how to write (a branch under an open pull request is never reset onto the base: GitHub
// would close the pull request), and the pull-request write reuses the answer, so an open pull request is updated
// without first being refused a second one (422).
import type { GitHubClient } from './client.js';

export interface OpenPullRequest {
  number: number;
  /** The web URL. */
  url: string;
  title: string;
  body: string;
  /** The branch it merges into. */
  base: string;
}

export async function openPullRequestsFrom(
  client: GitHubClient,
  repo: { owner: string; repo: string },
  branch: string,
): Promise<OpenPullRequest[]> {
  const open = await client.paginate(client.pulls.list, {
    ...repo,
    state: 'open',
    head: `${repo.owner}:${branch}`,
    per_page: 100,
  });
  return open
    .filter((pull) => pull.head.ref === branch)
    .map((pull) => ({
      number: pull.number,
      url: pull.html_url,
      title: pull.title,
      body: pull.body ?? '',
      base: pull.base.ref,
    }));
}
