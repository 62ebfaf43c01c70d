// What each dashboard URL answers, as plain values (status, headers, HTML): the node:http plumbing, the Host check
// and the live feed are server.ts's. Every page reads through the CLI's Backend, so it shows what the CLI shows, and
// the approval goes through the one approval function every door uses, with the caller's identity as approver.
import { z } from 'zod';
import { approve } from '../../approval/approve.js';
import { readHistory } from '../actions/history.js';
import { readMetrics } from '../actions/metrics.js';
import { pipelineViews, statusJson } from '../actions/status.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { parseObjectKey } from '../flags.js';
import { listAll } from '../output.js';
import type { Logger } from '../../logging/logger.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { DEFAULT_FAILURE_WINDOW_MS } from '../../metrics/index.js';
import { AUDIT_ENTRY_TYPES } from '../../store/port.js';
import { loadPipelineView } from '../../views/pipeline-view.js';
import { APPROVE_FIELDS, confirmationPage } from './approve-page.js';
import { fleetPage } from './fleet-page.js';
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

/** Why the approval POST redirected with a note: a fixed set, so the page never echoes a query value. */
const NOTES = {
  'not-delivered':
    'Approved. No verifier took the promotion (pipelinectl serve is not running on this data directory): it ' +
    'promotes when serve starts.',
} as const;
type Note = keyof typeof NOTES;

const PIPELINE_PATH = /^\/pipelines\/([^/]+)\/([^/]+)$/;
const APPROVE_PATH = /^\/pipelines\/([^/]+)\/([^/]+)\/environments\/([^/]+)\/approve$/;

const approveForm = z.object({
  [APPROVE_FIELDS.revision]: z.string().min(1).max(256),
  [APPROVE_FIELDS.csrf]: z.string().max(256).optional(),
});
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
  'cross-site': 'The request came from another site: approvals are accepted only from the dashboard itself.',
  'foreign-origin': 'The request came from another origin: approvals are accepted only from the dashboard itself.',
  'missing-token': 'The form had no dashboard token: approve from the dashboard page.',
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
        return page(200, fleetPage(views.map(statusJson), backend.description));
      }
      if (path === '/history' && isGet) return await history(request.url);
      if (path === '/metrics' && isGet) return await metrics(request.url);
      const pipelineMatch = PIPELINE_PATH.exec(path);
      if (pipelineMatch && isGet) {
        const key = keyOf(pipelineMatch[1], pipelineMatch[2]);
        const view = key && (await loadPipelineView(backend.store, key, deps.now()));
        if (!view) return problem(404, 'Pipeline not found', `No such pipeline in ${backend.description}.`);
        return page(200, pipelinePage(view, backend.description, deps.now(), noteOf(request.url)));
      }
      const approveMatch = APPROVE_PATH.exec(path);
      if (approveMatch) {
        const key = keyOf(approveMatch[1], approveMatch[2]);
        const env = decoded(approveMatch[3]);
        if (!key || env === undefined) return problem(404, 'Not found', 'No such pipeline or environment.');
        if (isGet) return confirm(key, env, request.url.searchParams.get(APPROVE_FIELDS.revision));
        if (request.method === 'POST') return await approval(request, key, env);
        return { status: 405, headers: { allow: 'GET, POST' }, body: 'method not allowed' };
      }
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

  function confirm(key: ObjectKey, env: string, revision: string | null): DashboardResponse {
    if (revision === null || revision === '' || revision.length > 256) {
      return problem(400, 'No revision', 'Open the approval from the pipeline page, which names the revision.');
    }
    return page(
      200,
      confirmationPage({ pipeline: key, env, revision, csrfToken: deps.csrfToken, backend: backend.description }),
    );
  }

  async function approval(request: DashboardRequest, key: ObjectKey, env: string): Promise<DashboardResponse> {
    const back = pathOf('pipelines', key.namespace, key.name);
    const form = approveForm.safeParse(Object.fromEntries(new URLSearchParams(request.body)));
    const token = form.success ? form.data[APPROVE_FIELDS.csrf] : undefined;
    const verdict = guardRequest({ headers: request.headers, token }, request.origin, deps.csrfToken);
    if (verdict !== 'accepted') {
      deps.logger.warn('dashboard: approval refused', { verdict });
      return problem(403, 'Approval refused', REFUSALS[verdict], back);
    }
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
    const name = objectKeyString(key);
    switch (result.outcome) {
      case 'unknown-environment':
        return problem(404, 'Environment not found', `Pipeline ${name} has no environment ${env}.`, back);
      case 'nothing-waiting':
      case 'not-waiting':
        return problem(409, 'Not waiting', `${revision} is not waiting for approval in ${name} ${env}.`, back);
      case 'approved':
      case 'already-approved': {
        const note: Note | undefined = result.delivered ? undefined : 'not-delivered';
        const location = `${back}${note ? `?note=${note}` : ''}#env-${encodeURIComponent(env)}`;
        return { status: 303, headers: { location } };
      }
    }
  }
}

/** The notice the approval redirect asked for, if it is one the dashboard knows. */
function noteOf(url: URL): string | undefined {
  const note = url.searchParams.get('note');
  return note !== null && note in NOTES ? NOTES[note as Note] : undefined;
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
