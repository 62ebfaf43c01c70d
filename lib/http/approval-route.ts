// POST /approval/{ns}/{name}/{env}/{revision}: Weave's approval webhook, one of the two doors to the approve use
// case (lib/approval/approve.ts; the other is `pipelinectl approve`). Weave signs the empty string whatever the
// body; the approval is recorded under the name of the key that signed it.
import { approve } from '../approval/approve.js';
import type { ObjectKey } from '../pipeline/model.js';
import { authorizePipeline } from './pipeline-authorization.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { ACCEPTED, NOT_WAITING, UNKNOWN_ENVIRONMENT } from './responses.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** How the audit entry of an approval names this door. */
export const APPROVAL_WEBHOOK = 'the approval webhook';

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
    case 'nothing-waiting':
    case 'not-waiting':
      return NOT_WAITING;
    case 'approved':
    case 'already-approved':
      return ACCEPTED;
  }
}
