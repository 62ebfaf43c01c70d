// The approval and rejection forms: a confirmation page naming the revision, and the post, which goes through the one
// approve and reject functions every door uses, with the caller's identity as approver (and the environment's
// approval policy deciding whether it may).
import * as z from 'zod';
import { approve, type ApprovalResult } from '../../../approval/approve.js';
import { MAX_REJECTION_REASON_LENGTH, reject, type RejectionReasonProblem } from '../../../approval/reject.js';
import { objectKeyString, type ObjectKey } from '../../../pipeline/model.js';
import { APPROVE_FIELDS, confirmationPage, REJECT_FIELDS, rejectionPage } from '../approve-page.js';
import { pathOf } from '../html.js';
import {
  environmentOf,
  page,
  pipelineNotFound,
  pipelineOf,
  type DashboardContext,
  type DashboardRequest,
  type DashboardResponse,
  type PathParams,
} from './context.js';
import { guardedForm, redirectToEnvironment, type RefusalMessages } from './forms.js';

const approveForm = z.object({
  [APPROVE_FIELDS.revision]: z.string().min(1).max(256),
  [APPROVE_FIELDS.csrf]: z.string().max(256).optional(),
});
// The reason's rules (there, one line, not too long) are the reject use case's, so its answer names what is wrong;
// the body itself is capped by the server.
const rejectForm = z.object({
  [REJECT_FIELDS.revision]: z.string().min(1).max(256),
  [REJECT_FIELDS.reason]: z.string().default(''),
  [REJECT_FIELDS.csrf]: z.string().max(256).optional(),
});

const REFUSALS: RefusalMessages = {
  'cross-site':
    'The request came from another site: approvals and rejections are accepted only from the dashboard itself.',
  'foreign-origin':
    'The request came from another origin: approvals and rejections are accepted only from the dashboard itself.',
  'missing-token': 'The form had no dashboard token: approve or reject from the dashboard page.',
  'wrong-token': 'The form token is not this dashboard\u2019s (was it restarted?): reload the page and try again.',
};

const REASON_PROBLEMS: Readonly<Record<RejectionReasonProblem, string>> = {
  empty: 'Say why the revision is rejected: the reason is required.',
  'too-long': `The reason must be at most ${MAX_REJECTION_REASON_LENGTH} characters: link a ticket for the details.`,
  'control-characters': 'The reason must be one line.',
};

/** The answer when a path's pipeline or environment is not valid percent-encoding. */
export function environmentPathNotFound(context: DashboardContext): DashboardResponse {
  return context.problem(404, 'Not found', 'No such pipeline or environment.');
}

/** GET `…/environments/:env/approve?revision=`: the page that asks to confirm the approval. */
export function approvalConfirmation(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): DashboardResponse {
  const revision = request.url.searchParams.get(APPROVE_FIELDS.revision);
  return confirmRevision(context, 'approval', pipelineOf(params), environmentOf(params), revision);
}

/** GET `…/environments/:env/reject?revision=`: the page that asks why, and to confirm the rejection. */
export function rejectionConfirmation(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): DashboardResponse {
  const revision = request.url.searchParams.get(REJECT_FIELDS.revision);
  return confirmRevision(context, 'rejection', pipelineOf(params), environmentOf(params), revision);
}

/** POST `…/environments/:env/approve`: approves the revision, as the caller. */
export async function approval(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): Promise<DashboardResponse> {
  const { backend } = context;
  const key = pipelineOf(params);
  const env = environmentOf(params);
  const back = pathOf('pipelines', key.namespace, key.name);
  const form = guardedForm(context, request, {
    schema: approveForm,
    csrfField: APPROVE_FIELDS.csrf,
    refused: { title: 'Approval refused', log: 'approval', messages: REFUSALS },
    back,
    malformed: { message: 'The approval form must name the revision.' },
  });
  if ('response' in form) return form.response;
  const stored = await backend.store.getPipeline(key);
  if (!stored) return pipelineNotFound(context);
  const revision = form.data[APPROVE_FIELDS.revision];
  const result = await approve(
    { store: backend.store, enqueue: (message) => backend.enqueue(message) },
    {
      pipeline: stored.pipeline,
      env,
      revision,
      approver: () => backend.identity(),
      via: 'the dashboard',
      now: context.now(),
    },
  );
  return approvalAnswer(context, result, key, env, revision, back);
}

/** POST `…/environments/:env/reject`: rejects the revision, as the caller, saying why. */
export async function rejection(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): Promise<DashboardResponse> {
  const { backend } = context;
  const key = pipelineOf(params);
  const env = environmentOf(params);
  const back = pathOf('pipelines', key.namespace, key.name);
  const form = guardedForm(context, request, {
    schema: rejectForm,
    csrfField: REJECT_FIELDS.csrf,
    refused: { title: 'Rejection refused', log: 'rejection', messages: REFUSALS },
    back,
    malformed: { message: 'The rejection form must name the revision and why.' },
  });
  if ('response' in form) return form.response;
  const stored = await backend.store.getPipeline(key);
  if (!stored) return pipelineNotFound(context);
  const revision = form.data[REJECT_FIELDS.revision];
  const result = await reject(
    { store: backend.store },
    {
      pipeline: stored.pipeline,
      env,
      revision,
      rejecter: () => backend.identity(),
      reason: form.data[REJECT_FIELDS.reason],
      via: 'the dashboard',
      now: context.now(),
    },
  );
  const name = objectKeyString(key);
  switch (result.outcome) {
    case 'invalid-reason':
      return context.problem(400, 'Reason needed', REASON_PROBLEMS[result.problem], back);
    case 'unknown-environment':
      return context.problem(404, 'Environment not found', `Pipeline ${name} has no environment ${env}.`, back);
    case 'nothing-waiting':
    case 'not-waiting':
      return context.problem(409, 'Not waiting', `${revision} is not waiting for approval in ${name} ${env}.`, back);
    case 'not-allowed':
      return context.problem(403, 'Not an approver', `${result.reason} (who may approve may reject).`, back);
    case 'already-approved':
      return context.problem(
        409,
        'Approved already',
        `${revision} was approved for ${name} ${env} already: its promotion is under way and a rejection does ` +
          'not stop it.',
        back,
      );
    case 'rejected':
    case 'already-rejected':
      return redirectToEnvironment(back, env, result.outcome);
  }
}

/** The confirmation page of an approval or a rejection, which names the revision the person acts on. */
function confirmRevision(
  context: DashboardContext,
  what: 'approval' | 'rejection',
  key: ObjectKey,
  env: string,
  revision: string | null,
): DashboardResponse {
  if (revision === null || revision === '' || revision.length > 256) {
    return context.problem(400, 'No revision', `Open the ${what} from the pipeline page, which names the revision.`);
  }
  const render = what === 'approval' ? confirmationPage : rejectionPage;
  const { csrfToken, backend } = context;
  return page(render({ pipeline: key, env, revision, csrfToken, backend: backend.description }));
}

function approvalAnswer(
  context: DashboardContext,
  result: ApprovalResult,
  key: ObjectKey,
  env: string,
  revision: string,
  back: string,
): DashboardResponse {
  const name = objectKeyString(key);
  switch (result.outcome) {
    case 'unknown-environment':
      return context.problem(404, 'Environment not found', `Pipeline ${name} has no environment ${env}.`, back);
    case 'nothing-waiting':
    case 'not-waiting':
      return context.problem(409, 'Not waiting', `${revision} is not waiting for approval in ${name} ${env}.`, back);
    case 'invalid-revision':
      return context.problem(422, 'Not a revision', `${result.reason}: nothing was approved.`, back);
    case 'not-allowed':
      return context.problem(403, 'Not an approver', `${result.reason}.`, back);
    case 'rejected':
      return context.problem(
        409,
        'Rejected',
        `${revision} was rejected for ${name} ${env}${result.rejectedBy ? ` by ${result.rejectedBy}` : ''}: ` +
          'no approval counts for it.',
        back,
      );
    case 'counted':
    case 'already-counted':
      return redirectToEnvironment(back, env, result.outcome);
    case 'approved':
    case 'already-approved':
      return redirectToEnvironment(back, env, result.delivered ? undefined : 'not-delivered');
  }
}
