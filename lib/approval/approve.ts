// Approving the revision that waits in a manual environment. Two doors lead here, Weave's `/approval` webhook
// (lib/http/approval-route.ts) and `pipelinectl approve` (lib/cli/actions/approve.ts): each authenticates its caller
// and words its own answers; what an approval checks and does is decided here, once.
import { pipelineKeyOf, type Pipeline } from '../pipeline/model.js';
import type { PromoteMessage } from '../queue/messages.js';
import type { Store } from '../store/port.js';

export interface ApprovalDeps {
  store: Pick<Store, 'getApproval' | 'approve' | 'appendAudit'>;
  /** Hands the promote message to the verifier; false when nothing took it (the local mode without `serve`). */
  enqueue(message: PromoteMessage): Promise<boolean>;
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

export type ApprovalResult =
  /** The pipeline has no such environment. */
  | { outcome: 'unknown-environment' }
  /** No revision was named and no marker names one. */
  | { outcome: 'nothing-waiting' }
  /** The marker waits for another revision, or there is none: nothing changed. */
  | { outcome: 'not-waiting'; revision: string }
  /** Approved now (with an `approved` audit entry) or before; either way the promotion was handed on. */
  | { outcome: 'approved' | 'already-approved'; revision: string; approver: string; delivered: boolean };

export async function approve(deps: ApprovalDeps, request: ApprovalRequest): Promise<ApprovalResult> {
  const { pipeline, env, now } = request;
  if (!pipeline.environments.some((environment) => environment.name === env)) {
    return { outcome: 'unknown-environment' };
  }
  const key = pipelineKeyOf(pipeline);
  const revision = request.revision ?? (await deps.store.getApproval(key, env))?.revision;
  if (revision === undefined) return { outcome: 'nothing-waiting' };

  const approver = typeof request.approver === 'string' ? request.approver : await request.approver();
  const outcome = await deps.store.approve(key, env, revision, approver, now);
  if (outcome === 'not-waiting') return { outcome, revision };
  if (outcome === 'approved') {
    await deps.store.appendAudit({
      at: now.toISOString(),
      pipeline: key,
      type: 'approved',
      env,
      revision,
      message: `${revision} approved for ${env} with ${request.via}`,
      actor: approver,
    });
  }
  // Also after `already-approved`: the promotion record makes a repeated promote message harmless.
  const delivered = await deps.enqueue({ type: 'promote', pipeline: key, env, revision });
  return { outcome, revision, approver, delivered };
}
