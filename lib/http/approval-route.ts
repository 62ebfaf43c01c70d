// POST /approval/{ns}/{name}/{env}/{revision}: Weave's approval webhook, one of the doors to the approve use case
// (lib/approval/approve.ts; the others are `pipelinectl approve` and the dashboard). Weave signs the empty string whatever the
// body; the approval is recorded under the name of the key that signed it, and counts only if the environment's
// approval policy lists that key (docs/approval-policies.md); in the local mode it counts as the owner's, who holds
// the key.
import { approve } from '../approval/approve.js';
import type { ObjectKey } from '../pipeline/model.js';
import { authorizePipeline } from './pipeline-authorization.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { ACCEPTED, NOT_WAITING, UNKNOWN_ENVIRONMENT } from './responses.js';
import { jsonResponse, type HttpRequest, type HttpResponse } from './types.js';

/** How the audit entry of an approval names this door. */
export const APPROVAL_WEBHOOK = 'the approval webhook';

/** Someone rejected the revision (`pipelinectl reject`): it is not promoted into the environment, approved or not. */
export const REJECTED = jsonResponse(409, { error: 'the revision was rejected for that environment' });

/**
 * The environment's approval policy does not list the key that signed. The body names the key (its Secret, which the
 * Pipeline itself names) and the list to add it to; nothing from the request.
 */
function notAnApprover(reason: string): HttpResponse {
  return jsonResponse(403, { error: 'not an approver of that environment', reason });
}

/** Recorded, or recorded before; the promotion waits for more distinct approvers (`pipelinectl approve`). */
function approvalsShort(status: 'counted' | 'already-counted', have: number, need: number): HttpResponse {
  return jsonResponse(202, {
    status,
    approvals: String(have),
    required: String(need),
    message: `${need - have} more approval${need - have === 1 ? '' : 's'} needed before the promotion starts`,
  });
}

export async function receiveApproval(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  key: ObjectKey,
  env: string,
  revision: string,
): Promise<HttpResponse> {
  log.env = clip(env);
  log.revision = clip(revision);
  const authorization = await authorizePipeline(request, deps, log, key, Buffer.alloc(0));
  if (!authorization.ok) return authorization.response;
  const result = await approve(
    {
      store: deps.store,
      enqueue: async (message) => {
        await deps.queue.send(message);
        return true;
      },
      ...(deps.webhookKeyHolder !== undefined && { webhookKeyHolder: deps.webhookKeyHolder }),
    },
    {
      pipeline: authorization.pipeline,
      env,
      revision,
      approver: authorization.identity,
      via: APPROVAL_WEBHOOK,
      now: deps.now?.() ?? new Date(),
    },
  );
  log.outcome = result.outcome;
  switch (result.outcome) {
    case 'unknown-environment':
      return UNKNOWN_ENVIRONMENT;
    // What is not a revision of the pipeline's kind never waits; the log keeps the outcome apart.
    case 'invalid-revision':
    case 'nothing-waiting':
    case 'not-waiting':
      return NOT_WAITING;
    case 'not-allowed':
      log.reason = result.refusal;
      return notAnApprover(result.reason);
    case 'rejected':
      return REJECTED;
    case 'counted':
    case 'already-counted':
      return approvalsShort(result.outcome, result.have, result.need);
    case 'approved':
    case 'already-approved':
      return ACCEPTED;
  }
}
