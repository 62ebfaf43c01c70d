// A merged promotion's rollout as a Bitbucket Server build status on the merge commit (docs/deployments.md): one
// status per environment (its key), `INPROGRESS`, then `SUCCESSFUL` or `FAILED`, each replacing the one before on the
// commit; the pull request's and the commit's pages show it. Bitbucket names the merge commit on the merged pull
// request (`properties.mergeCommit`).
import * as z from 'zod';
import { PromotionError } from '../port.js';
import {
  deploymentStatusKey,
  pullRequestNumber,
  type DeploymentReport,
  type RecordedDeployment,
} from '../pull-request/deployments.js';
import type { BitbucketRepositoryApi } from './client.js';

const MergedPullRequest = z.object({
  state: z.string(),
  properties: z.object({ mergeCommit: z.object({ id: z.string() }).nullish() }).nullish(),
});

const STATE = { in_progress: 'INPROGRESS', success: 'SUCCESSFUL', failure: 'FAILED' } as const;

export async function recordBitbucketDeployment(
  api: BitbucketRepositoryApi,
  report: DeploymentReport,
): Promise<RecordedDeployment> {
  const key = deploymentStatusKey(report.environment);
  const sha = report.recorded?.sha ?? (await mergeCommitOf(api, report.pullRequestUrl));
  await api.client.send('POST', `/rest/build-status/1.0/commits/${encodeURIComponent(sha)}`, {
    json: {
      state: STATE[report.state],
      key,
      name: `${report.environment} ${report.revision}`,
      url: report.environmentUrl ?? report.pullRequestUrl,
      description: report.description,
    },
  });
  return { id: key, sha };
}

async function mergeCommitOf(api: BitbucketRepositoryApi, url: string): Promise<string> {
  const owner = `projects/${encodeURIComponent(api.projectKey)}/repos/${encodeURIComponent(api.slug)}`;
  const pull = await api.client.json(
    'GET',
    `/rest/api/1.0/${owner}/pull-requests/${pullRequestNumber(url)}`,
    MergedPullRequest,
  );
  const sha = pull.properties?.mergeCommit?.id;
  if (pull.state !== 'MERGED' || !sha) throw new PromotionError('Invalid', `the pull request ${url} is not merged`);
  return sha;
}
