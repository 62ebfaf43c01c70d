// A merged promotion's rollout as an Azure DevOps pull request status (docs/deployments.md): one status context per
// environment (genre `pipeline-controller`, name `{namespace}/{pipeline}/{environment}`), posted `pending`, then
// `succeeded` or `failed`; the pull request's page shows the newest of each context. Azure's completed pull request
// names its merge commit (`lastMergeCommit`), kept as the commit the rollout is of.
import { GitStatusState, PullRequestStatus } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import * as z from 'zod';
import { PromotionError } from '../port.js';
import {
  deploymentStatusKey,
  pullRequestNumber,
  type DeploymentReport,
  type RecordedDeployment,
} from '../pull-request/deployments.js';
import type { AzureDevOpsClient } from './client.js';

const PullRequestsAnswer = z.array(
  z.object({
    pullRequestId: z.number(),
    status: z.unknown(),
    lastMergeCommit: z.object({ commitId: z.string() }).nullish(),
  }),
);

const STATE = {
  in_progress: GitStatusState.Pending,
  success: GitStatusState.Succeeded,
  failure: GitStatusState.Failed,
} as const;

/** The genre of the status context: Azure shows a status as `{genre}/{name}`, the key the other hosts use. */
export const DEPLOYMENT_STATUS_GENRE = 'pipeline-controller';

export async function recordAzureDevOpsDeployment(
  client: AzureDevOpsClient,
  repository: string,
  project: string,
  report: DeploymentReport,
): Promise<RecordedDeployment> {
  const id = pullRequestNumber(report.pullRequestUrl);
  const sha = report.recorded?.sha ?? (await mergeCommitOf(client, repository, project, id, report));
  const key = deploymentStatusKey(report.environment);
  await client.git.createPullRequestStatus(
    {
      state: STATE[report.state],
      description: report.description,
      context: { name: report.environment, genre: DEPLOYMENT_STATUS_GENRE },
      targetUrl: report.environmentUrl ?? report.pullRequestUrl,
    },
    repository,
    id,
    project,
  );
  return { id: key, sha };
}

async function mergeCommitOf(
  client: AzureDevOpsClient,
  repository: string,
  project: string,
  id: number,
  report: DeploymentReport,
): Promise<string> {
  const listed = await client.git.getPullRequests(
    repository,
    { sourceRefName: `refs/heads/${report.branch}`, status: PullRequestStatus.Completed },
    project,
    undefined,
    0,
    100,
  );
  const pull = PullRequestsAnswer.parse(listed).find((candidate) => candidate.pullRequestId === id);
  const sha = pull?.lastMergeCommit?.commitId;
  if (!sha) throw new PromotionError('Invalid', `the pull request ${report.pullRequestUrl} is not completed`);
  return sha;
}
