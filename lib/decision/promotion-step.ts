// What to do with the environment the candidate is promoted to next (docs/architecture.md, "The decision").
// Weave's level-triggered controller called the strategy again on every reconcile and ignored manual approval
// (docs/weave-compatibility.md); here the promotion record and the approval marker decide, so an effect is asked for
// only when nobody else is making it and, for a manual environment, only after an approval of exactly the candidate.
import { sameRevision } from '../flux/revision.js';
import { objectKeyString, type ObjectKey, type PipelineEnvironment } from '../pipeline/model.js';
import { strategyOf } from '../pipeline/promotion.js';
import { promotionStage } from './promotion-lifecycle.js';
import { promotionPullRequest } from './promotion-pull-request.js';
import { withDetail } from './text.js';
import type { Action, ApprovalMarker, EnvironmentReason, EnvironmentState, PromotionRecord } from './types.js';

export interface PromotionStepInput {
  /** The pipeline's key, for the commands a message names. */
  pipeline: ObjectKey;
  env: PipelineEnvironment;
  /** The revision to promote, as the first environment runs it. */
  candidate: string;
  /** The environment's approval marker, whatever revision it is for. */
  approval: ApprovalMarker | undefined;
  /** The environment's promotion record for the candidate, if one was made. */
  record: PromotionRecord | undefined;
  now: Date;
}

export interface PromotionStep {
  state: EnvironmentState;
  reason: EnvironmentReason;
  message: string;
  actions: Action[];
}

export function promotionStep(input: PromotionStepInput): PromotionStep {
  const { env, candidate, record } = input;
  // `env.promotion` is already the environment's own block or else the pipeline's, when that names a strategy (a
  // pipeline block holding only the webhook key does not); with neither, Weave had nothing to run either (and its
  // level-triggered path crashed on it). Saying so beats guessing a strategy.
  if (!env.promotion) {
    return step('no-strategy', 'NoStrategy', `no promotion configured for ${env.name}: ${candidate} is not promoted`);
  }
  // A record comes first, even for a manual environment: it exists only once the promotion was allowed, and it is
  // what makes the effect happen at most once per revision.
  if (record) return recordedStep(input, record);
  if (env.promotion.manual === true) return approvalStep(env, candidate, input.approval);
  const how = strategyOf(env.promotion);
  return step('promoting', 'PromotionDue', `promoting ${candidate} by ${how}`, promote(env, candidate));
}

/**
 * Follows an existing promotion record for the candidate: never start a second effect while a worker holds a live
 * lease, resume one whose worker vanished, and retry a failure only when the record says when.
 */
function recordedStep(input: PromotionStepInput, record: PromotionRecord): PromotionStep {
  const { env, candidate, now } = input;
  const attempt = `attempt ${record.attempts}`;
  const failure = withDetail(`promotion of ${candidate} failed (${attempt})`, record.error);
  switch (promotionStage(record, now)) {
    case 'succeeded':
      // Made: repeating it would only re-open or re-send it. What is left is a person's merge, or the targets' rollout.
      return succeededStep(input, record);
    case 'leased':
      return step(
        'promoting',
        'PromotionInProgress',
        `promotion of ${candidate} in progress (${attempt}), leased until ${record.leaseExpiresAt}`,
      );
    case 'pending':
    case 'lease-expired': {
      // The worker that held it crashed or timed out; the strategy is idempotent, so resuming is safe.
      let why = 'no lease';
      if (record.leaseExpiresAt !== undefined) {
        why = Number.isNaN(Date.parse(record.leaseExpiresAt))
          ? `unreadable lease ${record.leaseExpiresAt}`
          : `lease expired at ${record.leaseExpiresAt}`;
      }
      const message = `resuming promotion of ${candidate} (${attempt}, ${why})`;
      return step('promoting', 'PromotionResumed', message, promote(env, candidate));
    }
    case 'failed-for-good':
      // No retryAt (or one we cannot read): the failure is permanent, e.g. a bad token or a missing marker.
      return step('failed', 'FailedForGood', `${failure}; not retried, a person must act`);
    case 'retry-due':
      return step('failed', 'RetryDue', `${failure}; retrying now`, promote(env, candidate));
    case 'retry-scheduled':
      return step('failed', 'RetryScheduled', `${failure}; retrying at ${record.retryAt}`);
  }
}

/**
 * A succeeded promotion: its pull request waits for a person while it is open (as the host last said, read by the
 * poll), and says so when it was closed unmerged; once merged, or sent without one, the targets are taking it.
 */
function succeededStep(input: PromotionStepInput, record: PromotionRecord): PromotionStep {
  const { env, candidate } = input;
  const pull = promotionPullRequest(record, env.promotion);
  if (pull?.state === 'open') {
    return step(
      'pull-request-open',
      'PullRequestOpen',
      `pull request for ${candidate} open: ${pull.url}; waiting for its merge`,
    );
  }
  if (pull?.state === 'closed') {
    const retry = `pipelinectl retry ${objectKeyString(input.pipeline)} ${env.name} --revision ${candidate}`;
    return step(
      'pull-request-closed',
      'PullRequestClosed',
      `pull request for ${candidate} closed without merging: ${pull.url}; nothing is promoted here until a newer ` +
        `candidate comes, or \`${retry}\` opens a new pull request`,
    );
  }
  if (env.promotion && strategyOf(env.promotion) === 'external-service') {
    // Nothing is pushed: each leaf cluster's Flux Operator pulls the input on its own schedule (docs/external-service.md).
    return step(
      'promoted',
      'InputServed',
      `waiting for the leaf clusters to pull ${candidate} (served since ${record.updatedAt.replace(/\.\d+Z$/, 'Z')})`,
    );
  }
  if (pull?.state === 'merged') {
    return step(
      'promoted',
      'PullRequestMerged',
      `pull request for ${candidate} merged: ${pull.url}; waiting for the targets to run it`,
    );
  }
  return step(
    'promoted',
    'PromotionSucceeded',
    `${withDetail(`promotion of ${candidate} succeeded`, record.result)}; waiting for the targets to run it`,
  );
}

/**
 * A manual environment promotes only on an approval of exactly the candidate: an approval is a person's consent to
 * one revision, so a marker approved for any other revision is replaced, never honoured.
 */
function approvalStep(env: PipelineEnvironment, candidate: string, marker: ApprovalMarker | undefined): PromotionStep {
  if (marker && sameRevision(marker.revision, candidate)) {
    // A rejection stands until a newer candidate replaces the marker: later approvals of this one do not count.
    if (marker.rejectedAt !== undefined) {
      const by = marker.rejectedBy === undefined ? '' : ` by ${marker.rejectedBy}`;
      const why = marker.rejectionReason === undefined ? '' : `: ${marker.rejectionReason}`;
      const message = `${candidate} was rejected for ${env.name}${by} at ${marker.rejectedAt}${why}; waiting for a newer candidate`;
      return step('rejected', 'Rejected', message);
    }
    if (marker.approvedAt !== undefined) {
      const by = marker.approvedBy === undefined ? '' : ` by ${approversOf(marker) ?? marker.approvedBy}`;
      const message = `promoting ${candidate}, approved${by} at ${marker.approvedAt}`;
      return step('promoting', 'Approved', message, promote(env, candidate));
    }
    const need = env.approval?.required ?? 1;
    const have = marker.approvals?.length ?? 0;
    if (have > 0) {
      const message =
        `${have} of ${need} approvals of ${candidate} (${approversOf(marker) ?? ''}); ` +
        `waiting for ${need - have} more`;
      return step('waiting-approval', 'ApprovalsShort', message);
    }
    const message = `waiting for approval of ${candidate} (requested at ${marker.requestedAt})`;
    return step('waiting-approval', 'AwaitingApproval', message);
  }
  const request = { type: 'request-approval', env: env.name, revision: candidate } as const;
  if (marker) {
    return step(
      'waiting-approval',
      'ApprovalReplaced',
      `waiting for approval of ${candidate} (replaces the request for ${marker.revision})`,
      { ...request, replaces: marker.revision },
    );
  }
  return step('waiting-approval', 'ApprovalRequested', `waiting for approval of ${candidate}`, request);
}

/** `local:alice, local:bob`: who approved under a policy, when the marker lists them. */
function approversOf(marker: ApprovalMarker): string | undefined {
  const names = marker.approvals?.map((approval) => approval.by) ?? [];
  return names.length > 0 ? names.join(', ') : undefined;
}

function step(
  state: EnvironmentState,
  reason: EnvironmentReason,
  message: string,
  ...actions: Action[]
): PromotionStep {
  return { state, reason, message, actions };
}

function promote(env: PipelineEnvironment, revision: string): Action {
  return { type: 'promote', env: env.name, revision };
}
