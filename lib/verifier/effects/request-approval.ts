// The `request-approval` action: a manual environment's candidate waits for a person. The store's conditional
// write never lets an older candidate replace a newer request, and an unchanged request writes nothing.
import type { Action } from '../../decision/index.js';
import { pipelineKeyOf, type Pipeline } from '../../pipeline/model.js';
import type { VerifierDeps } from '../deps.js';
import { auditEffect } from '../effect-audit.js';

export type RequestApprovalAction = Extract<Action, { type: 'request-approval' }>;

/** Requests the approval; `explanation` (the environment's, from the decision) is what the audit entry says. */
export async function requestApproval(
  pipeline: Pipeline,
  action: RequestApprovalAction,
  explanation: string,
  deps: VerifierDeps,
): Promise<void> {
  const outcome = await deps.store.requestApproval(pipelineKeyOf(pipeline), action.env, action.revision, deps.now());
  if (outcome !== 'requested') return;
  await auditEffect(deps, pipeline, {
    type: 'approval-requested',
    env: action.env,
    revision: action.revision,
    message: explanation,
  });
}
