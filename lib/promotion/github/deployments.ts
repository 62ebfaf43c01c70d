// A merged promotion's rollout as a GitHub Deployment (docs/deployments.md): one deployment per environment and
// revision on the pull request's merge commit, made without auto-merge or required contexts (the commit is already
// on the base), and a deployment status for each state the rollout reaches. The repository's Environments page then
// shows what runs where. A deployment made before (a retry whose record of it was lost) is found by its commit,
// environment and the revision in its payload, and reused.
import { PromotionError } from '../port.js';
import { pullRequestNumber, type DeploymentReport, type RecordedDeployment } from '../pull-request/deployments.js';
import type { GitHubClient } from './client.js';

interface GitHubRepo {
  owner: string;
  repo: string;
}

export async function recordGitHubDeployment(
  client: GitHubClient,
  repo: GitHubRepo,
  report: DeploymentReport,
): Promise<RecordedDeployment> {
  const recorded = report.recorded ?? (await findOrCreateDeployment(client, repo, report));
  await client.repos.createDeploymentStatus({
    ...repo,
    deployment_id: Number(recorded.id),
    state: report.state,
    description: report.description,
    log_url: report.pullRequestUrl,
    ...(report.environmentUrl === undefined ? {} : { environment_url: report.environmentUrl }),
  });
  return recorded;
}

async function findOrCreateDeployment(
  client: GitHubClient,
  repo: GitHubRepo,
  report: DeploymentReport,
): Promise<RecordedDeployment> {
  const { data: pull } = await client.pulls.get({ ...repo, pull_number: pullRequestNumber(report.pullRequestUrl) });
  const sha = pull.merge_commit_sha;
  if (!pull.merged_at || !sha) {
    throw new PromotionError('Invalid', `the pull request ${report.pullRequestUrl} is not merged`);
  }
  const { data: listed } = await client.repos.listDeployments({
    ...repo,
    sha,
    environment: report.environment,
    per_page: 100,
  });
  const earlier = listed.find((deployment) => revisionOf(deployment.payload) === report.revision);
  if (earlier) return { id: String(earlier.id), sha };
  const { data: created } = await client.repos.createDeployment({
    ...repo,
    ref: sha,
    environment: report.environment,
    auto_merge: false,
    required_contexts: [],
    payload: { revision: report.revision, pullRequest: report.pullRequestUrl },
    description: `${report.revision} to ${report.environment}`,
  });
  // 202 ("Auto-merged …") is only answered with auto_merge, which is off.
  if (!('id' in created)) throw new PromotionError('Unknown', `GitHub made no deployment: ${created.message ?? ''}`);
  return { id: String(created.id), sha };
}

function revisionOf(payload: unknown): string | undefined {
  const parsed: unknown = typeof payload === 'string' ? safeJson(payload) : payload;
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { revision } = parsed as Record<string, unknown>;
  return typeof revision === 'string' ? revision : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
