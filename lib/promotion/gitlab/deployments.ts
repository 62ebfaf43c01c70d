// A merged promotion's rollout as a GitLab deployment (docs/deployments.md): one deployment per environment and
// revision, of the merge request's merge commit (its squash commit, or its head when GitLab fast-forwarded) on the
// target branch, made `running`, then set to `success` or `failed`. The environment is created by the first one, and
// its page then shows what runs where. A deployment made before (a retry whose record of it was lost) is found by its
// environment and commit, and reused.
import * as z from 'zod';
import { PromotionError } from '../port.js';
import { pullRequestNumber, type DeploymentReport, type RecordedDeployment } from '../pull-request/deployments.js';
import type { GitLabClient } from './client.js';

const MergedAnswer = z.array(
  z.object({
    iid: z.number(),
    state: z.string(),
    target_branch: z.string(),
    sha: z.string().nullish(),
    merge_commit_sha: z.string().nullish(),
    squash_commit_sha: z.string().nullish(),
  }),
);
const DeploymentAnswer = z.object({ id: z.number(), sha: z.string() });

const STATUS = { in_progress: 'running', success: 'success', failure: 'failed' } as const;

export async function recordGitLabDeployment(
  client: GitLabClient,
  project: string,
  report: DeploymentReport,
): Promise<RecordedDeployment> {
  const status = STATUS[report.state];
  if (report.recorded) {
    await client.deployments.edit(project, Number(report.recorded.id), status);
    return report.recorded;
  }
  const iid = pullRequestNumber(report.pullRequestUrl);
  const listed = MergedAnswer.parse(
    await client.mergeRequests.all({
      projectId: project,
      sourceBranch: report.branch,
      state: 'merged',
      perPage: 100,
      maxPages: 1,
    }),
  );
  const merged = listed.find((mr) => mr.iid === iid);
  const sha = merged && (merged.merge_commit_sha ?? merged.squash_commit_sha ?? merged.sha);
  if (!merged || !sha) throw new PromotionError('Invalid', `the merge request ${report.pullRequestUrl} is not merged`);
  const earlier = z
    .array(DeploymentAnswer)
    .parse(await client.deployments.all(project, { environment: report.environment, perPage: 100, maxPages: 1 }))
    .find((deployment) => deployment.sha === sha);
  if (earlier) {
    await client.deployments.edit(project, earlier.id, status);
    return { id: String(earlier.id), sha };
  }
  const created = DeploymentAnswer.parse(
    await client.deployments.create(project, report.environment, sha, merged.target_branch, false, { status }),
  );
  return { id: String(created.id), sha };
}
