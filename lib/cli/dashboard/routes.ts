// What each dashboard URL answers, as plain values (status, headers, HTML): the node:http plumbing, the Host check
// and the live feed are server.ts's. Every page reads through the CLI's Backend, so it shows what the CLI shows, and
// approvals and rejections go through the one approve and reject functions every door uses, with the caller's
// identity as approver (and the environment's approval policy deciding whether it may).
import * as z from 'zod';
import { approve, type ApprovalResult } from '../../approval/approve.js';
import { MAX_REJECTION_REASON_LENGTH, reject, type RejectionReasonProblem } from '../../approval/reject.js';
import { clearFreeze } from '../../freeze/clear-freeze.js';
import { REASON_MAX_LENGTH, setFreeze, untilOf, type ReasonProblem } from '../../freeze/set-freeze.js';
import { readFreezes } from '../operations/freezes.js';
import { holdingText } from '../operations/unfreeze.js';
import { readHistory } from '../operations/history.js';
import { readMetrics } from '../operations/metrics.js';
import { pipelineViews, statusJson } from '../operations/status.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { parseObjectKey } from '../flags.js';
import { listAll } from '../../util/paged.js';
import type { Logger } from '../../logging/logger.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { DEFAULT_FAILURE_WINDOW_MS } from '../../metrics/index.js';
import { AUDIT_ENTRY_TYPES } from '../../store/port.js';
import { loadPipelineView } from '../../views/pipeline-view.js';
import { APPROVE_FIELDS, confirmationPage, REJECT_FIELDS, rejectionPage } from './approve-page.js';
import { fleetPage } from './fleet-page.js';
import { FREEZE_FIELDS, freezeFormPage, freezePath, unfreezeConfirmationPage } from './freeze-page.js';
import { historyPage } from './history-page.js';
import { pathOf, type Html } from './html.js';
import { messagePage } from './layout.js';
import { DEFAULT_METRICS_WINDOW, METRICS_WINDOW_NAMES, METRICS_WINDOWS, metricsPage } from './metrics-page.js';
import { pipelinePage } from './pipeline-page.js';
import { guardRequest, type RequestGuardVerdict } from './request-guard.js';

export interface DashboardRequest {
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
  /** `http://127.0.0.1:8080`: the origin the page was loaded from, which a same-origin POST carries. */
  origin: string;
}

export interface DashboardResponse {
  status: number;
  headers?: Record<string, string>;
  body?: Html | string;
}

export interface DashboardRoutesDeps {
  backend: Backend;
  csrfToken: string;
  now: () => Date;
  logger: Pick<Logger, 'warn' | 'error'>;
}

/** Entries shown on the history page at most. */
export const HISTORY_LIMIT = 200;

/** Why the approval or rejection POST redirected with a note: a fixed set, so the page never echoes a query value. */
const NOTES = {
  'not-delivered':
    'Approved. No verifier took the promotion (pipelinectl serve is not running on this data directory): it ' +
    'promotes when serve starts.',
  counted: 'Your approval is counted. The promotion starts once the approvals the environment requires are in.',
  'already-counted': 'You approved this revision before: an approver counts once. More approvals are needed.',
  rejected: 'Rejected. The revision is not promoted into this environment.',
  'already-rejected': 'The revision was rejected before: nothing changed.',
  frozen: 'Frozen. No promotion into the environments the switch covers starts until it is lifted or ends.',
  unfrozen: 'Unfrozen. The verifier decides the pipeline again now: a promotion the switch held back starts.',
  'unfrozen-not-delivered':
    'Unfrozen. No verifier took the pipeline (pipelinectl serve is not running on this data directory): a ' +
    'promotion the switch held back starts when serve starts.',
} as const;
type Note = keyof typeof NOTES;

const PIPELINE_PATH = /^\/pipelines\/([^/]+)\/([^/]+)$/;
const APPROVE_PATH = /^\/pipelines\/([^/]+)\/([^/]+)\/environments\/([^/]+)\/approve$/;
const REJECT_PATH = /^\/pipelines\/([^/]+)\/([^/]+)\/environments\/([^/]+)\/reject$/;
const FREEZE_PATH = /^\/pipelines\/([^/]+)\/([^/]+)\/freeze$/;
const UNFREEZE_PATH = /^\/pipelines\/([^/]+)\/([^/]+)\/unfreeze$/;

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

const SWITCH_REFUSALS: Readonly<Record<Exclude<RequestGuardVerdict, 'accepted'>, string>> = {
  'cross-site': 'The request came from another site: a stop switch is set or lifted only from the dashboard itself.',
  'foreign-origin':
    'The request came from another origin: a stop switch is set or lifted only from the dashboard itself.',
  'missing-token': 'The form had no dashboard token: freeze or unfreeze from the pipeline page.',
  'wrong-token': 'The form token is not this dashboard\u2019s (was it restarted?): reload the page and try again.',
};

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

const REASON_PROBLEMS: Readonly<Record<RejectionReasonProblem, string>> = {
  empty: 'Say why the revision is rejected: the reason is required.',
  'too-long': `The reason must be at most ${MAX_REJECTION_REASON_LENGTH} characters: link a ticket for the details.`,
  'control-characters': 'The reason must be one line.',
};

const historyQuery = z.object({
  pipeline: z.string().max(300).optional(),
  env: z.string().max(253).optional(),
  type: z.enum(AUDIT_ENTRY_TYPES).optional(),
});

const metricsQuery = z.object({
  pipeline: z.string().max(300).optional(),
  window: z.enum(METRICS_WINDOW_NAMES).optional(),
});

const REFUSALS: Readonly<Record<Exclude<RequestGuardVerdict, 'accepted'>, string>> = {
  'cross-site':
    'The request came from another site: approvals and rejections are accepted only from the dashboard itself.',
  'foreign-origin':
    'The request came from another origin: approvals and rejections are accepted only from the dashboard itself.',
  'missing-token': 'The form had no dashboard token: approve or reject from the dashboard page.',
  'wrong-token': 'The form token is not this dashboard\u2019s (was it restarted?): reload the page and try again.',
};

export function createDashboardRoutes(
  deps: DashboardRoutesDeps,
): (request: DashboardRequest) => Promise<DashboardResponse> {
  const { backend } = deps;
  const page = (status: number, body: Html): DashboardResponse => ({ status, body });
  const problem = (status: number, title: string, message: string, back?: string) =>
    page(status, messagePage({ title, message, backend: backend.description, back }));

  return async (request) => {
    const path = request.url.pathname;
    const isGet = request.method === 'GET' || request.method === 'HEAD';
    try {
      if (path === '/' && isGet) {
        const views = await pipelineViews(backend, undefined, deps.now());
        const everywhere = (await readFreezes(backend, undefined, deps.now())).filter((f) => 'installation' in f.scope);
        return page(200, fleetPage(views.map(statusJson), backend.description, everywhere));
      }
      if (path === '/history' && isGet) return await history(request.url);
      if (path === '/metrics' && isGet) return await metrics(request.url);
      const pipelineMatch = PIPELINE_PATH.exec(path);
      if (pipelineMatch && isGet) {
        const key = keyOf(pipelineMatch[1], pipelineMatch[2]);
        const view = key && (await loadPipelineView(backend.store, key, deps.now()));
        if (!view) return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
        const freezes = await readFreezes(backend, key, deps.now());
        return page(200, pipelinePage(view, backend.description, deps.now(), noteOf(request.url), freezes));
      }
      const approveMatch = APPROVE_PATH.exec(path);
      if (approveMatch) {
        const key = keyOf(approveMatch[1], approveMatch[2]);
        const env = decoded(approveMatch[3]);
        if (!key || env === undefined) return problem(404, 'Not found', 'No such pipeline or environment.');
        if (isGet) return confirmRevision('approval', key, env, request.url.searchParams.get(APPROVE_FIELDS.revision));
        if (request.method === 'POST') return await approval(request, key, env);
        return { status: 405, headers: { allow: 'GET, POST' }, body: 'method not allowed' };
      }
      const rejectMatch = REJECT_PATH.exec(path);
      if (rejectMatch) {
        const key = keyOf(rejectMatch[1], rejectMatch[2]);
        const env = decoded(rejectMatch[3]);
        if (!key || env === undefined) return problem(404, 'Not found', 'No such pipeline or environment.');
        if (isGet) return confirmRevision('rejection', key, env, request.url.searchParams.get(REJECT_FIELDS.revision));
        if (request.method === 'POST') return await rejection(request, key, env);
        return { status: 405, headers: { allow: 'GET, POST' }, body: 'method not allowed' };
      }
      const switchAnswer = await stopSwitch(request, path, isGet);
      if (switchAnswer) return switchAnswer;
      return problem(404, 'Not found', 'The dashboard has no such page.');
    } catch (error) {
      if (error instanceof CliError) return problem(404, 'Not found', error.message);
      // The error itself goes to the terminal only: a page is no place for a backend's internals.
      deps.logger.error('dashboard: a request failed', {
        path,
        error: error instanceof Error ? error.message : String(error),
      });
      return problem(500, 'Could not read the backend', `Reading ${backend.description} failed: see the terminal.`);
    }
  };

  async function history(url: URL): Promise<DashboardResponse> {
    const parsed = historyQuery.safeParse(
      Object.fromEntries([...url.searchParams].filter(([, value]) => value !== '')),
    );
    if (!parsed.success)
      return problem(400, 'Bad filter', 'The type or a filter value is not one the history has.', '/history');
    let pipeline: ObjectKey | undefined;
    if (parsed.data.pipeline !== undefined) {
      try {
        pipeline = parseObjectKey(parsed.data.pipeline, 'pipeline');
      } catch {
        return problem(400, 'Bad filter', 'The pipeline filter must be NAMESPACE/NAME.', '/history');
      }
    }
    const filters = { pipeline, env: parsed.data.env, type: parsed.data.type };
    const found = await readHistory(backend, { ...filters, limit: HISTORY_LIMIT });
    const pipelines = await storedPipelineKeys();
    return page(
      200,
      historyPage({
        history: found,
        filters,
        pipelines,
        limit: HISTORY_LIMIT,
        backend: backend.description,
        now: deps.now(),
      }),
    );
  }

  async function metrics(url: URL): Promise<DashboardResponse> {
    const parsed = metricsQuery.safeParse(
      Object.fromEntries([...url.searchParams].filter(([, value]) => value !== '')),
    );
    if (!parsed.success) {
      return problem(400, 'Bad choice', `The window must be one of ${METRICS_WINDOW_NAMES.join(', ')}.`, '/metrics');
    }
    const window = parsed.data.window ?? DEFAULT_METRICS_WINDOW;
    let pipeline: ObjectKey | undefined;
    if (parsed.data.pipeline !== undefined) {
      try {
        pipeline = parseObjectKey(parsed.data.pipeline, 'pipeline');
      } catch {
        return problem(400, 'Bad choice', 'The pipeline must be NAMESPACE/NAME.', '/metrics');
      }
    }
    const report = await readMetrics(backend, {
      pipeline,
      windowMs: METRICS_WINDOWS[window],
      failureWindowMs: DEFAULT_FAILURE_WINDOW_MS,
      now: deps.now(),
    });
    // Without a choice the report has every pipeline already; with one, the form still offers them all.
    const pipelines = pipeline ? await storedPipelineKeys() : report.pipelines.map((view) => view.pipeline);
    return page(200, metricsPage({ report, pipeline, window, pipelines, backend: backend.description }));
  }

  async function storedPipelineKeys(): Promise<ObjectKey[]> {
    const stored = await listAll((cursor) => backend.store.listPipelines(cursor));
    return stored.map(({ pipeline: p }) => ({ namespace: p.namespace, name: p.name }));
  }

  /** The stop switch's form, confirmation and posts (freeze-page.ts); undefined when `path` is none of them. */
  async function stopSwitch(
    request: DashboardRequest,
    path: string,
    isGet: boolean,
  ): Promise<DashboardResponse | undefined> {
    const freezeMatch = FREEZE_PATH.exec(path);
    const match = freezeMatch ?? UNFREEZE_PATH.exec(path);
    if (!match) return undefined;
    const key = keyOf(match[1], match[2]);
    if (!key) return problem(404, 'Not found', 'No such pipeline.');
    if (!isGet && request.method !== 'POST') {
      return { status: 405, headers: { allow: 'GET, POST' }, body: 'method not allowed' };
    }
    if (freezeMatch) return isGet ? await freezeForm(key) : await freezing(request, key);
    if (isGet) {
      const env = request.url.searchParams.get(FREEZE_FIELDS.env) ?? undefined;
      const input = { pipeline: key, env, csrfToken: deps.csrfToken, backend: backend.description };
      return page(200, unfreezeConfirmationPage(input));
    }
    return await unfreezing(request, key);
  }

  async function freezeForm(key: ObjectKey): Promise<DashboardResponse> {
    const stored = await backend.store.getPipeline(key);
    if (!stored) return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
    const environments = stored.pipeline.environments.map((e) => e.name);
    return page(
      200,
      freezeFormPage({ pipeline: key, environments, csrfToken: deps.csrfToken, backend: backend.description }),
    );
  }

  /**
   * A posted form, parsed, once the request passed the CSRF token and same-origin checks (request-guard.ts); a
   * refused request gets the 403 page. Every form the dashboard acts on comes through here.
   */
  function guardedForm<T extends Record<string, unknown>>(
    request: DashboardRequest,
    schema: z.ZodType<T>,
    csrfField: string,
    refused: {
      title: string;
      log: string;
      messages: Readonly<Record<Exclude<RequestGuardVerdict, 'accepted'>, string>>;
    },
    back: string,
  ): { form: { success: true; data: T } | { success: false } } | { refusal: DashboardResponse } {
    const form = schema.safeParse(Object.fromEntries(new URLSearchParams(request.body)));
    const token = form.success ? form.data[csrfField] : undefined;
    const verdict = guardRequest(
      { headers: request.headers, token: typeof token === 'string' ? token : undefined },
      request.origin,
      deps.csrfToken,
    );
    if (verdict !== 'accepted') {
      deps.logger.warn(`dashboard: ${refused.log} refused`, { verdict });
      return { refusal: problem(403, refused.title, refused.messages[verdict], back) };
    }
    return { form: form.success ? { success: true, data: form.data } : { success: false } };
  }

  async function freezing(request: DashboardRequest, key: ObjectKey): Promise<DashboardResponse> {
    const back = pathOf('pipelines', key.namespace, key.name);
    const guarded = guardedForm(
      request,
      freezeFields,
      FREEZE_FIELDS.csrf,
      { title: 'Freeze refused', log: 'freeze', messages: SWITCH_REFUSALS },
      back,
    );
    if ('refusal' in guarded) return guarded.refusal;
    const { form } = guarded;
    const again = freezePath(key);
    if (!form.success) return problem(400, 'Bad form', 'The freeze form must say why, and briefly.', again);
    const now = deps.now();
    const untilText = form.data[FREEZE_FIELDS.until].trim();
    const until = untilText === '' ? undefined : untilOf(untilText, now);
    if (untilText !== '' && until === undefined) {
      const example = 'a duration such as 2h, 30m or 2d, or a time with its zone such as 2026-11-24T08:00:00Z';
      return problem(400, 'Bad end', `Until must be ${example}, or empty.`, again);
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
        return problem(400, 'Reason needed', FREEZE_REASON_PROBLEMS[result.problem], again);
      case 'until-passed':
        return problem(
          400,
          'Bad end',
          'Until is not in the future: give a later time, or a duration such as 2h.',
          again,
        );
      case 'invalid-windows':
        return problem(400, 'Bad form', 'The freeze form has no windows.', again);
      case 'unknown-pipeline':
        return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
      case 'invalid-environment':
      case 'unknown-environment':
        return problem(404, 'Environment not found', `Pipeline ${name} has no such environment.`, again);
      case 'frozen':
        return switchRedirect(back, 'frozen');
    }
  }

  async function unfreezing(request: DashboardRequest, key: ObjectKey): Promise<DashboardResponse> {
    const back = pathOf('pipelines', key.namespace, key.name);
    const guarded = guardedForm(
      request,
      unfreezeFields,
      FREEZE_FIELDS.csrf,
      { title: 'Unfreeze refused', log: 'unfreeze', messages: SWITCH_REFUSALS },
      back,
    );
    if ('refusal' in guarded) return guarded.refusal;
    const { form } = guarded;
    if (!form.success) return problem(400, 'Bad form', 'Unfreeze from the pipeline page.', back);
    const env = form.data[FREEZE_FIELDS.env];
    const result = await clearFreeze(
      { store: backend.store, enqueue: (message) => backend.enqueue(message) },
      { scope: { pipeline: key }, env, by: () => backend.identity(), via: 'the dashboard', now: deps.now() },
    );
    const name = objectKeyString(key);
    switch (result.outcome) {
      case 'unknown-pipeline':
        return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
      case 'unknown-environment':
        return problem(404, 'Environment not found', `Pipeline ${name} has no such environment.`, back);
      case 'not-frozen': {
        const what = `${name} has no stop switch of its own${env === undefined ? '' : ` for ${env}`}`;
        const holding = result.holding.length === 0 ? '' : `; ${holdingText(result.holding)}`;
        return problem(409, 'Not frozen', `${what}${holding}.`, back);
      }
      case 'unfrozen':
        return switchRedirect(back, result.delivered ? 'unfrozen' : 'unfrozen-not-delivered');
    }
  }

  /** The confirmation page of an approval or a rejection, which names the revision the person acts on. */
  function confirmRevision(
    what: 'approval' | 'rejection',
    key: ObjectKey,
    env: string,
    revision: string | null,
  ): DashboardResponse {
    if (revision === null || revision === '' || revision.length > 256) {
      return problem(400, 'No revision', `Open the ${what} from the pipeline page, which names the revision.`);
    }
    const render = what === 'approval' ? confirmationPage : rejectionPage;
    return page(200, render({ pipeline: key, env, revision, csrfToken: deps.csrfToken, backend: backend.description }));
  }

  async function approval(request: DashboardRequest, key: ObjectKey, env: string): Promise<DashboardResponse> {
    const back = pathOf('pipelines', key.namespace, key.name);
    const guarded = guardedForm(
      request,
      approveForm,
      APPROVE_FIELDS.csrf,
      { title: 'Approval refused', log: 'approval', messages: REFUSALS },
      back,
    );
    if ('refusal' in guarded) return guarded.refusal;
    const { form } = guarded;
    if (!form.success) return problem(400, 'Bad form', 'The approval form must name the revision.', back);
    const stored = await backend.store.getPipeline(key);
    if (!stored) return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
    const revision = form.data[APPROVE_FIELDS.revision];
    const result = await approve(
      { store: backend.store, enqueue: (message) => backend.enqueue(message) },
      {
        pipeline: stored.pipeline,
        env,
        revision,
        approver: () => backend.identity(),
        via: 'the dashboard',
        now: deps.now(),
      },
    );
    return approvalAnswer(result, key, env, revision, back);
  }

  function approvalAnswer(
    result: ApprovalResult,
    key: ObjectKey,
    env: string,
    revision: string,
    back: string,
  ): DashboardResponse {
    const name = objectKeyString(key);
    switch (result.outcome) {
      case 'unknown-environment':
        return problem(404, 'Environment not found', `Pipeline ${name} has no environment ${env}.`, back);
      case 'nothing-waiting':
      case 'not-waiting':
        return problem(409, 'Not waiting', `${revision} is not waiting for approval in ${name} ${env}.`, back);
      case 'invalid-revision':
        return problem(422, 'Not a revision', `${result.reason}: nothing was approved.`, back);
      case 'not-allowed':
        return problem(403, 'Not an approver', `${result.reason}.`, back);
      case 'rejected':
        return problem(
          409,
          'Rejected',
          `${revision} was rejected for ${name} ${env}${result.rejectedBy ? ` by ${result.rejectedBy}` : ''}: ` +
            'no approval counts for it.',
          back,
        );
      case 'counted':
      case 'already-counted':
        return redirect(back, env, result.outcome);
      case 'approved':
      case 'already-approved':
        return redirect(back, env, result.delivered ? undefined : 'not-delivered');
    }
  }

  async function rejection(request: DashboardRequest, key: ObjectKey, env: string): Promise<DashboardResponse> {
    const back = pathOf('pipelines', key.namespace, key.name);
    const guarded = guardedForm(
      request,
      rejectForm,
      REJECT_FIELDS.csrf,
      { title: 'Rejection refused', log: 'rejection', messages: REFUSALS },
      back,
    );
    if ('refusal' in guarded) return guarded.refusal;
    const { form } = guarded;
    if (!form.success) return problem(400, 'Bad form', 'The rejection form must name the revision and why.', back);
    const stored = await backend.store.getPipeline(key);
    if (!stored) return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
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
        now: deps.now(),
      },
    );
    const name = objectKeyString(key);
    switch (result.outcome) {
      case 'invalid-reason':
        return problem(400, 'Reason needed', REASON_PROBLEMS[result.problem], back);
      case 'unknown-environment':
        return problem(404, 'Environment not found', `Pipeline ${name} has no environment ${env}.`, back);
      case 'nothing-waiting':
      case 'not-waiting':
        return problem(409, 'Not waiting', `${revision} is not waiting for approval in ${name} ${env}.`, back);
      case 'not-allowed':
        return problem(403, 'Not an approver', `${result.reason} (who may approve may reject).`, back);
      case 'already-approved':
        return problem(
          409,
          'Approved already',
          `${revision} was approved for ${name} ${env} already: its promotion is under way and a rejection does ` +
            'not stop it.',
          back,
        );
      case 'rejected':
      case 'already-rejected':
        return redirect(back, env, result.outcome);
    }
  }
}

/** Back to the pipeline page at the environment, with a fixed notice if any. */
function redirect(back: string, env: string, note: Note | undefined): DashboardResponse {
  const location = `${back}${note ? `?note=${note}` : ''}#env-${encodeURIComponent(env)}`;
  return { status: 303, headers: { location } };
}

/** Back to the pipeline page at its stop switch, with a fixed notice. */
function switchRedirect(back: string, note: Note): DashboardResponse {
  return { status: 303, headers: { location: `${back}?note=${note}#stop-switch` } };
}

const FREEZE_REASON_PROBLEMS: Readonly<Record<ReasonProblem, string>> = {
  empty: 'Say why promotions are frozen: the reason is shown wherever the switch holds one back.',
  'too-long': `The reason must be at most ${REASON_MAX_LENGTH} characters: link a ticket for the details.`,
  unprintable: 'The reason must be one line of printable text.',
};

/**
 * The notice the approval redirect asked for, if it is one the dashboard knows: one of NOTES' own keys (`in` would
 * also find `constructor` and the rest of Object.prototype).
 */
function noteOf(url: URL): string | undefined {
  const note = url.searchParams.get('note');
  return note !== null && Object.hasOwn(NOTES, note) ? NOTES[note as Note] : undefined;
}

function decoded(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function keyOf(namespace: string | undefined, name: string | undefined): ObjectKey | undefined {
  const ns = decoded(namespace);
  const n = decoded(name);
  return ns && n ? { namespace: ns, name: n } : undefined;
}
