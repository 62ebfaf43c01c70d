// The `clear-approval` action: a request whose environment moved on waits for nothing any more. The marker is
// removed only if it still waits for that revision, so a newer request made meanwhile stays.
import type { Action } from '../../decision/index.js';
import { pipelineKeyOf, type Pipeline } from '../../pipeline/model.js';
import type { VerifierDeps } from '../deps.js';
import { auditEffect } from '../effect-audit.js';

export type ClearApprovalAction = Extract<Action, { type: 'clear-approval' }>;

export async function clearApproval(
  pipeline: Pipeline,
  action: ClearApprovalAction,
  deps: VerifierDeps,
): Promise<void> {
  if (!(await deps.store.clearApproval(pipelineKeyOf(pipeline), action.env, action.revision))) return;
  await auditEffect(deps, pipeline, {
    type: 'approval-cleared',
    env: action.env,
    revision: action.revision,
    message: `the request for ${action.revision} waits for nothing any more`,
  });
}
