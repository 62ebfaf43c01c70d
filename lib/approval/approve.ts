// Approving the revision that waits in a manual environment. Three doors lead here, Weave's `/approval` webhook
// (lib/http/approval-route.ts), `pipelinectl approve` (lib/cli/operations/approve.ts) and the dashboard: each
// authenticates its caller and words its own answers; what an approval checks and does is decided here, once:
// the environment's approval policy (who may approve, how many must; docs/approval-policies.md), who the approver
// counts as (lib/pipeline/approver-identity.ts), the store's count of distinct approvers, the audit entry, and the promote message
// once the last approval needed came.
// lib/flux/revision.ts, not lib/flux: the webhook's door is in the receiver, which does not load the Flux readers.
import { invalidRevisionMessage, isRevisionOf, REVISION_KIND_OF, type RevisionKind } from '../flux/revision.js';
import { pipelineKeyOf, type Pipeline } from '../pipeline/model.js';
import type { PromoteMessage } from '../queue/messages.js';
import type { Store } from '../store/port.js';
import { approverIdentity } from '../pipeline/approver-identity.js';
import type { ApproverRefusal } from './approver-policy.js';
import { admitToMarker, markerFor, rejectionOf } from './marker-admission.js';

export interface ApprovalDeps {
  store: Pick<Store, 'getApproval' | 'approve' | 'appendAudit'>;
  /** Hands the promote message to the verifier; false when nothing took it (the local mode without `serve`). */
  enqueue(message: PromoteMessage): Promise<boolean>;
  /** Who holds the webhook keys, where one person does (the local mode's owner): see ApproverContext. */
  webhookKeyHolder?: string;
}

export interface ApprovalRequest {
  pipeline: Pipeline;
  env: string;
  /** Exactly this revision; undefined: the one the environment's marker names. */
  revision?: string;
  /**
   * Who approves, recorded on the marker and as the audit entry's actor: the name of the HMAC key that signed the
   * webhook, the identity of the CLI's caller. A function is called only once the environment and the revision are
   * known, so a caller whose identity cannot be read still hears about a wrong environment first.
   */
  approver: string | (() => Promise<string>);
  /** The door, for the audit entry's message: `pipelinectl`, `the approval webhook`. */
  via: string;
  now: Date;
}

/** How many distinct approvals the revision has, and how many the policy needs. */
export interface ApprovalCount {
  have: number;
  need: number;
}

export type ApprovalResult =
  /** The pipeline has no such environment. */
  | { outcome: 'unknown-environment' }
  /** No revision was named and no marker names one. */
  | { outcome: 'nothing-waiting' }
  /** The marker waits for another revision, or there is none: nothing changed. */
  | { outcome: 'not-waiting'; revision: string }
  /**
   * The revision is not one that can wait in the environment (an empty string, `*`): nothing changed. `reason` shows
   * it escaped and cut short; `revision` is as given, not for messages.
   */
  | { outcome: 'invalid-revision'; revision: string; reason: string }
  /** The policy does not let this identity approve here: nothing changed. `reason` names the identity and the list. */
  | { outcome: 'not-allowed'; revision: string; approver: string; refusal: ApproverRefusal; reason: string }
  /** Someone rejected the revision: no approval counts for it any more. */
  | {
      outcome: 'rejected';
      revision: string;
      approver: string;
      rejectedBy?: string;
      rejectedAt?: string;
      rejectionReason?: string;
    }
  /** Recorded (with an `approved` audit entry); more distinct approvers are needed before the promotion starts. */
  | ({ outcome: 'counted'; revision: string; approver: string } & CountedAs & ApprovalCount)
  /** This identity approved the revision before and more approvers are needed: it counts once, nothing changed. */
  | ({ outcome: 'already-counted'; revision: string; approver: string } & CountedAs & ApprovalCount)
  /** Approved now (the last approval needed, with an `approved` audit entry): the promotion was handed on. */
  | ({ outcome: 'approved'; revision: string; approver: string; delivered: boolean } & CountedAs & ApprovalCount)
  /** Approved before: the promotion was handed on again. */
  | { outcome: 'already-approved'; revision: string; approver: string; delivered: boolean };

/**
 * The identity the approval counted as, where it is not `approver` itself: a session of a role whose session name
 * its caller chose counts as the role; the local mode's webhook key as its owner (lib/pipeline/approver-identity.ts).
 */
interface CountedAs {
  countedAs?: string;
}

/** Distinct approvers an environment needs: its policy's `required`, else one. */
export function requiredApprovals(pipeline: Pipeline, env: string): number {
  return pipeline.environments.find((environment) => environment.name === env)?.approval?.required ?? 1;
}

export async function approve(deps: ApprovalDeps, request: ApprovalRequest): Promise<ApprovalResult> {
  const { pipeline, env, now } = request;
  const admission = await admitToMarker(deps.store, { ...request, identity: request.approver });
  if (admission.outcome === 'unknown-environment' || admission.outcome === 'nothing-waiting') return admission;
  if (admission.outcome === 'not-allowed') {
    const { revision, identity: approver, refusal, reason } = admission;
    return { outcome: 'not-allowed', revision, approver, refusal, reason };
  }
  const { key, revision, identity: approver } = admission;
  // Before anything is written: an approval recorded for what cannot be promoted would promote nothing, or worse.
  const invalid = invalidWaitingRevision(pipeline, env, revision);
  if (invalid !== undefined) return { outcome: 'invalid-revision', revision, reason: invalid };

  const need = requiredApprovals(pipeline, env);
  const identity = approverIdentity(approver, { webhookKeyHolder: deps.webhookKeyHolder });
  const countedAs: CountedAs = identity === approver ? {} : { countedAs: identity };
  const outcome = await deps.store.approve(key, env, revision, approver, now, need, identity);
  switch (outcome) {
    case 'not-waiting':
      return { outcome, revision };
    case 'rejected':
      return { outcome, revision, approver, ...rejectionOf(await markerFor(deps.store, key, env, revision)) };
    case 'already-counted':
      return { outcome, revision, approver, ...countedAs, have: await countOf(deps, pipeline, env, revision), need };
    case 'counted': {
      const have = await countOf(deps, pipeline, env, revision);
      await audit(deps, request, revision, approver, { have, need });
      return { outcome, revision, approver, ...countedAs, have, need };
    }
    case 'approved': {
      // The last approval needed: as many as the policy asks, whatever a concurrent approval left on the marker.
      await audit(deps, request, revision, approver, { have: need, need });
      const delivered = await deps.enqueue({ type: 'promote', pipeline: key, env, revision });
      return { outcome, revision, approver, ...countedAs, delivered, have: need, need };
    }
    case 'already-approved': {
      // Handed on again: the promotion record makes a repeated promote message harmless.
      const delivered = await deps.enqueue({ type: 'promote', pipeline: key, env, revision });
      return { outcome, revision, approver, delivered };
    }
  }
}

/**
 * Why `revision` cannot wait for approval in `env`, or undefined when it can. What waits is what the pipeline's
 * source names in its first environment (an OCI tag; an OCIRepository's digest when pinned by one), and elsewhere what
 * its app reports, checked by the rule that admits revisions read from clusters (docs/flux-status.md, "Revisions").
 */
function invalidWaitingRevision(pipeline: Pipeline, env: string, revision: string): string | undefined {
  const { source } = pipeline;
  const kinds: RevisionKind[] =
    source !== undefined && pipeline.environments[0]?.name === env
      ? ['oci-tag', REVISION_KIND_OF[source.kind]]
      : [REVISION_KIND_OF[pipeline.appRef.kind]];
  if (kinds.some((kind) => isRevisionOf(kind, revision))) return undefined;
  return invalidRevisionMessage(kinds[0] ?? 'chart-version', revision);
}

async function audit(
  deps: ApprovalDeps,
  request: ApprovalRequest,
  revision: string,
  approver: string,
  { have, need }: ApprovalCount,
): Promise<void> {
  // The count only where the policy asks for more than one, so a plain approval reads as it always did.
  const count = need > 1 ? ` (${have} of ${need})` : '';
  await deps.store.appendAudit({
    at: request.now.toISOString(),
    pipeline: pipelineKeyOf(request.pipeline),
    type: 'approved',
    env: request.env,
    revision,
    message: `${revision} approved for ${request.env} with ${request.via}${count}`,
    actor: approver,
  });
}

/** Distinct approvals of `revision` so far (at least the one just counted, should the marker have moved on). */
async function countOf(deps: ApprovalDeps, pipeline: Pipeline, env: string, revision: string): Promise<number> {
  const marker = await markerFor(deps.store, pipelineKeyOf(pipeline), env, revision);
  return Math.max(1, marker?.approvals?.length ?? 1);
}
