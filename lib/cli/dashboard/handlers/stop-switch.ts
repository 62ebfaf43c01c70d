// A pipeline's stop switch on the dashboard: the freeze form and the unfreeze confirmation (freeze-page.ts), and their
// posts, which go through the set-freeze and clear-freeze use cases `pipelinectl freeze` and `unfreeze` use.
import * as z from 'zod';
import { clearFreeze } from '../../../freeze/clear-freeze.js';
import { REASON_MAX_LENGTH, setFreeze, untilOf, type ReasonProblem } from '../../../freeze/set-freeze.js';
import { objectKeyString } from '../../../pipeline/model.js';
import { holdingText } from '../../operations/unfreeze.js';
import { FREEZE_FIELDS, freezeFormPage, freezePath, unfreezeConfirmationPage } from '../freeze-page.js';
import { pathOf } from '../html.js';
import {
  page,
  pipelineNotFound,
  pipelineOf,
  type DashboardContext,
  type DashboardRequest,
  type DashboardResponse,
  type PathParams,
} from './context.js';
import { guardedForm, redirectToStopSwitch, type RefusalMessages } from './forms.js';

// What the fields must be (a reason, an environment, an end) is the set-freeze use case's, so its answer names
// what is wrong; here only their shape and size.
const freezeFields = z.object({
  [FREEZE_FIELDS.reason]: z
    .string()
    .max(2 * REASON_MAX_LENGTH)
    .default(''),
  [FREEZE_FIELDS.env]: z.string().max(253).default(''),
  [FREEZE_FIELDS.until]: z.string().max(64).default(''),
  [FREEZE_FIELDS.csrf]: z.string().max(256).optional(),
});
const unfreezeFields = z.object({
  [FREEZE_FIELDS.env]: z.string().min(1).max(253).optional(),
  [FREEZE_FIELDS.csrf]: z.string().max(256).optional(),
});

const REFUSALS: RefusalMessages = {
  'cross-site': 'The request came from another site: a stop switch is set or lifted only from the dashboard itself.',
  'foreign-origin':
    'The request came from another origin: a stop switch is set or lifted only from the dashboard itself.',
  'missing-token': 'The form had no dashboard token: freeze or unfreeze from the pipeline page.',
  'wrong-token': 'The form token is not this dashboard\u2019s (was it restarted?): reload the page and try again.',
};

const REASON_PROBLEMS: Readonly<Record<ReasonProblem, string>> = {
  empty: 'Say why promotions are frozen: the reason is shown wherever the switch holds one back.',
  'too-long': `The reason must be at most ${REASON_MAX_LENGTH} characters: link a ticket for the details.`,
  unprintable: 'The reason must be one line of printable text.',
};

/** The answer when a path's pipeline is not valid percent-encoding. */
export function pipelinePathNotFound(context: DashboardContext): DashboardResponse {
  return context.problem(404, 'Not found', 'No such pipeline.');
}

/** GET `/pipelines/:namespace/:name/freeze`: the form that sets a stop switch. */
export async function freezeForm(
  context: DashboardContext,
  _request: DashboardRequest,
  params: PathParams,
): Promise<DashboardResponse> {
  const { backend, csrfToken } = context;
  const key = pipelineOf(params);
  const stored = await backend.store.getPipeline(key);
  if (!stored) return pipelineNotFound(context);
  const environments = stored.pipeline.environments.map((e) => e.name);
  return page(freezeFormPage({ pipeline: key, environments, csrfToken, backend: backend.description }));
}

/** GET `/pipelines/:namespace/:name/unfreeze?env=`: the page that asks to confirm lifting a stop switch. */
export function unfreezeConfirmation(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): DashboardResponse {
  const env = request.url.searchParams.get(FREEZE_FIELDS.env) ?? undefined;
  const { csrfToken, backend } = context;
  return page(unfreezeConfirmationPage({ pipeline: pipelineOf(params), env, csrfToken, backend: backend.description }));
}

/** POST `/pipelines/:namespace/:name/freeze`: sets the pipeline's stop switch, as the caller. */
export async function freezing(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): Promise<DashboardResponse> {
  const { backend } = context;
  const key = pipelineOf(params);
  const back = pathOf('pipelines', key.namespace, key.name);
  const again = freezePath(key);
  const form = guardedForm(context, request, {
    schema: freezeFields,
    csrfField: FREEZE_FIELDS.csrf,
    refused: { title: 'Freeze refused', log: 'freeze', messages: REFUSALS },
    back,
    malformed: { message: 'The freeze form must say why, and briefly.', back: again },
  });
  if ('response' in form) return form.response;
  const now = context.now();
  const untilText = form.data[FREEZE_FIELDS.until].trim();
  const until = untilText === '' ? undefined : untilOf(untilText, now);
  if (untilText !== '' && until === undefined) {
    const example = 'a duration such as 2h, 30m or 2d, or a time with its zone such as 2026-11-24T08:00:00Z';
    return context.problem(400, 'Bad end', `Until must be ${example}, or empty.`, again);
  }
  const env = form.data[FREEZE_FIELDS.env] === '' ? undefined : form.data[FREEZE_FIELDS.env];
  const result = await setFreeze(
    { store: backend.store },
    {
      scope: { pipeline: key },
      env,
      reason: form.data[FREEZE_FIELDS.reason],
      until,
      by: () => backend.identity(),
      via: 'the dashboard',
      now,
    },
  );
  const name = objectKeyString(key);
  switch (result.outcome) {
    case 'invalid-reason':
      return context.problem(400, 'Reason needed', REASON_PROBLEMS[result.problem], again);
    case 'until-passed':
      return context.problem(
        400,
        'Bad end',
        'Until is not in the future: give a later time, or a duration such as 2h.',
        again,
      );
    case 'invalid-windows':
      return context.problem(400, 'Bad form', 'The freeze form has no windows.', again);
    case 'unknown-pipeline':
      return pipelineNotFound(context);
    case 'invalid-environment':
    case 'unknown-environment':
      return context.problem(404, 'Environment not found', `Pipeline ${name} has no such environment.`, again);
    case 'frozen':
      return redirectToStopSwitch(back, 'frozen');
  }
}

/** POST `/pipelines/:namespace/:name/unfreeze`: lifts the pipeline's stop switch, as the caller. */
export async function unfreezing(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): Promise<DashboardResponse> {
  const { backend } = context;
  const key = pipelineOf(params);
  const back = pathOf('pipelines', key.namespace, key.name);
  const form = guardedForm(context, request, {
    schema: unfreezeFields,
    csrfField: FREEZE_FIELDS.csrf,
    refused: { title: 'Unfreeze refused', log: 'unfreeze', messages: REFUSALS },
    back,
    malformed: { message: 'Unfreeze from the pipeline page.' },
  });
  if ('response' in form) return form.response;
  const env = form.data[FREEZE_FIELDS.env];
  const result = await clearFreeze(
    { store: backend.store, enqueue: (message) => backend.enqueue(message) },
    { scope: { pipeline: key }, env, by: () => backend.identity(), via: 'the dashboard', now: context.now() },
  );
  const name = objectKeyString(key);
  switch (result.outcome) {
    case 'unknown-pipeline':
      return pipelineNotFound(context);
    case 'unknown-environment':
      return context.problem(404, 'Environment not found', `Pipeline ${name} has no such environment.`, back);
    case 'not-frozen': {
      const what = `${name} has no stop switch of its own${env === undefined ? '' : ` for ${env}`}`;
      const holding = result.holding.length === 0 ? '' : `; ${holdingText(result.holding)}`;
      return context.problem(409, 'Not frozen', `${what}${holding}.`, back);
    }
    case 'unfrozen':
      return redirectToStopSwitch(back, result.delivered ? 'unfrozen' : 'unfrozen-not-delivered');
  }
}
