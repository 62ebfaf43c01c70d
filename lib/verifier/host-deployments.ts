// Deployments shown on the Git host (docs/deployments.md): for an environment whose pull-request promotion says
// `deployments: true`, once the promotion's pull request is merged, where its rollout stands is recorded on the host
// (lib/promotion/pull-request/deployments.ts): `in_progress` while the targets take it and its checks run,
// `success` once the environment passed, `failure` with the reason when it failed. It is read from the decision, so
// it says what `explain` says. What was recorded (the host's id, the commit, the state) is kept on the promotion
// record, so each (environment, revision) has one deployment; a worker claims the record before it writes to the host,
// so that of the decisions made at once (a poll, an event) one writes each state, once. Nothing here may block or fail
// a promotion or a verification: a host that refuses or is unreachable (its rate limit waited out inside the call
// only when short) is logged, the claim expires, and a later decision tries again; the environment's state is
// unchanged.
import type { Decision, EnvironmentExplanation, HostDeploymentState } from '../decision/index.js';
import { promotionPullRequest } from '../decision/promotion-pull-request.js';
import { redact } from '../logging/redaction.js';
import { appKeyOf, appKeyString, objectKeyString, type Pipeline } from '../pipeline/model.js';
import type { ObservedTargetStatus, VersionedPromotionRecord } from '../store/port.js';
import type { VerifierDeps } from './deps.js';
import { environmentHealth } from './environment-health.js';
import { errorMessage } from '../util/error-message.js';

/**
 * How long a worker's claim on recording a rollout lasts: longer than the host's calls with their retries take; a
 * failed recording is tried again once it has passed.
 */
const CLAIM_MS = 60_000;

export type HostDeploymentDeps = Pick<VerifierDeps, 'store' | 'promoter' | 'logger' | 'now'>;

/** Records on the Git host what changed in the rollout of each merged promotion pull request of the pipeline. */
export async function recordHostDeployments(
  pipeline: Pipeline,
  decision: Decision,
  promotions: readonly VersionedPromotionRecord[],
  statuses: ReadonlyMap<string, ObservedTargetStatus>,
  deps: HostDeploymentDeps,
): Promise<void> {
  const recordDeployment = deps.promoter.recordDeployment?.bind(deps.promoter);
  if (!recordDeployment) return;
  if (!pipeline.environments.some((env) => env.promotion?.strategy['pull-request']?.deployments === true)) return;
  const health = environmentHealth(pipeline, statuses);
  for (const env of pipeline.environments) {
    if (env.promotion?.strategy['pull-request']?.deployments !== true) continue;
    const record = newestOf(promotions.filter((candidate) => candidate.env === env.name));
    const pull = record && promotionPullRequest(record, env.promotion);
    if (!record || pull?.state !== 'merged' || decision.candidate !== record.revision) continue;
    const explanation = decision.environments.find((explained) => explained.env === env.name);
    if (!explanation) continue;
    // A target Flux reports Failed on the revision fails the rollout, though the decision waits (for a rollback,
    // for a person) and says it is rolling out.
    const failed = health.find((entry) => entry.env === env.name && entry.health === 'failed');
    const failedHere = failed?.health === 'failed' && failed.revision === record.revision;
    const state = failedHere ? 'failure' : rolloutState(explanation);
    const description = failedHere ? failedTargetText(pipeline, env, record.revision, statuses) : explanation.message;
    const last = record.hostDeployment;
    if (state === undefined || state === last?.state || (state === 'in_progress' && last !== undefined)) continue;
    const where = { pipeline: objectKeyString(pipeline), env: env.name, revision: record.revision, state };
    const now = deps.now();
    // Another worker is recording it (a poll and an event decide at once): it writes the state, once.
    if (
      record.hostDeploymentClaimedUntil !== undefined &&
      Date.parse(record.hostDeploymentClaimedUntil) > now.getTime()
    ) {
      continue;
    }
    const claimed = await deps.store.claimHostDeployment(record, new Date(now.getTime() + CLAIM_MS));
    if (!claimed) continue;
    try {
      const recorded = await recordDeployment({
        pipeline,
        env,
        revision: record.revision,
        pullRequestUrl: pull.url,
        state,
        description,
        ...(last ? { recorded: { id: last.id, sha: last.sha, state: last.state } } : {}),
      });
      const kept = await deps.store.recordHostDeployment(claimed, { ...recorded, at: deps.now().toISOString() });
      if (kept) deps.logger.info('deployment recorded on the Git host', { ...where, deployment: recorded.id });
      else deps.logger.debug('the promotion record moved on meanwhile; the deployment is looked at again', where);
    } catch (error) {
      // A host's answer can repeat a credential, so the text is redacted.
      deps.logger.warn('cannot record the deployment on the Git host; tried again once its claim has expired', {
        ...where,
        error: redact(errorMessage(error)),
      });
    }
  }
}

/**
 * Where the rollout of the candidate stands, from the environment's explanation: undefined where it says nothing of
 * the rollout (another revision's promotion under way, an environment not reached).
 */
export function rolloutState(
  explanation: Pick<EnvironmentExplanation, 'state' | 'reason'>,
): HostDeploymentState | undefined {
  switch (explanation.state) {
    case 'passed':
      return 'success';
    case 'promoted':
    case 'soaking':
    case 'verifying':
      return 'in_progress';
    case 'in-progress':
      return explanation.reason === 'RollingOut' ? 'in_progress' : 'failure';
    case 'failed':
      return explanation.reason === 'VerificationFailed' || explanation.reason === 'VerificationInconclusive'
        ? 'failure'
        : undefined;
    case 'rolling-back':
      return 'failure';
    default:
      return undefined;
  }
}

/** The first Failed target of the environment on the revision, and what Flux says of it. */
function failedTargetText(
  pipeline: Pipeline,
  env: Pipeline['environments'][number],
  revision: string,
  statuses: ReadonlyMap<string, ObservedTargetStatus>,
): string {
  const failed = env.targets
    .map((target) => ({ target, observed: statuses.get(appKeyString(appKeyOf(pipeline, target))) }))
    .find(({ observed }) => observed?.status.phase === 'Failed' && observed.status.revision === revision);
  const message = failed?.observed?.status.message;
  return `a target of ${env.name} failed on ${revision}${message ? `: ${message}` : ''}`;
}

/** The record created last: the environment's newest promotion. */
function newestOf(records: readonly VersionedPromotionRecord[]): VersionedPromotionRecord | undefined {
  return records.reduce<VersionedPromotionRecord | undefined>(
    (newest, record) =>
      newest === undefined || Date.parse(record.createdAt) > Date.parse(newest.createdAt) ? record : newest,
    undefined,
  );
}
