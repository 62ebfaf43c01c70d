// The pages that only read: the fleet, one pipeline, the history and the metrics. Each reads through the CLI's
// Backend, so it shows what the CLI shows; a query value is parsed before use and never echoed.
import * as z from 'zod';
import { readFreezes } from '../../operations/freezes.js';
import { owningSource } from '../../../apply/stored-objects.js';
import { HISTORY_ENTRY_TYPES, readHistoryWithConfigSources } from '../../operations/history.js';
import { readMetrics } from '../../operations/metrics.js';
import { readStatus } from '../../operations/status.js';
import { parseObjectKey } from '../../flags.js';
import { DEFAULT_FAILURE_WINDOW_MS } from '../../../metrics/index.js';
import type { ObjectKey } from '../../../pipeline/model.js';
import { listAll } from '../../../util/paged.js';
import { loadPipelineView } from '../../../views/pipeline-view.js';
import { fleetPage } from '../fleet-page.js';
import { historyPage } from '../history-page.js';
import { DEFAULT_METRICS_WINDOW, METRICS_WINDOW_NAMES, METRICS_WINDOWS, metricsPage } from '../metrics-page.js';
import { pipelinePage } from '../pipeline-page.js';
import {
  page,
  pipelineNotFound,
  pipelineOf,
  type DashboardContext,
  type DashboardRequest,
  type DashboardResponse,
  type PathParams,
} from './context.js';
import { noteOf } from './forms.js';

/** Entries shown on the history page at most. */
export const HISTORY_LIMIT = 200;

const historyQuery = z.object({
  pipeline: z.string().max(300).optional(),
  env: z.string().max(253).optional(),
  type: z.enum(HISTORY_ENTRY_TYPES).optional(),
});

const metricsQuery = z.object({
  pipeline: z.string().max(300).optional(),
  window: z.enum(METRICS_WINDOW_NAMES).optional(),
});

/** `/`: every pipeline and ConfigSource, as `status` shows them, and the stop switches that cover the installation. */
export async function overview(context: DashboardContext): Promise<DashboardResponse> {
  const { backend } = context;
  const now = context.now();
  const { json } = await readStatus(backend, undefined, now);
  const everywhere = (await readFreezes(backend, undefined, now)).filter((f) => 'installation' in f.scope);
  const simulated = (await backend.simulated?.()) === true;
  return page(fleetPage(json.pipelines, backend.description, now, everywhere, json.configSources, simulated));
}

/** `/pipelines/:namespace/:name`: one pipeline, with the notice a form's redirect asked for. */
export async function pipeline(
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
): Promise<DashboardResponse> {
  const { backend } = context;
  const key = pipelineOf(params);
  const view = await loadPipelineView(backend.store, key, context.now());
  if (!view) return pipelineNotFound(context);
  const freezes = await readFreezes(backend, key, context.now());
  const owner = view.stored.owner;
  const appliedFrom = (await owningSource(backend.store, owner)) ? owner : undefined;
  return page(pipelinePage(view, backend.description, context.now(), noteOf(request.url), freezes, appliedFrom));
}

/**
 * `/history`: the audit trail, newest first, filtered by pipeline, environment and type; with no pipeline, environment
 * or type chosen (or type `config-applied`), the commits the ConfigSources applied too, as `pipelinectl history`.
 */
export async function history(context: DashboardContext, request: DashboardRequest): Promise<DashboardResponse> {
  const parsed = historyQuery.safeParse(queryOf(request.url));
  if (!parsed.success) {
    return context.problem(400, 'Bad filter', 'The type or a filter value is not one the history has.', '/history');
  }
  let pipeline: ObjectKey | undefined;
  if (parsed.data.pipeline !== undefined) {
    try {
      pipeline = parseObjectKey(parsed.data.pipeline, 'pipeline');
    } catch {
      return context.problem(400, 'Bad filter', 'The pipeline filter must be NAMESPACE/NAME.', '/history');
    }
  }
  const filters = { pipeline, env: parsed.data.env, type: parsed.data.type };
  if (pipeline && filters.type === 'config-applied') {
    const message = "config-applied entries are the ConfigSources' applied commits: choose every pipeline to see them.";
    return context.problem(400, 'Bad filter', message, '/history');
  }
  const found = await readHistoryWithConfigSources(context.backend, { ...filters, limit: HISTORY_LIMIT });
  const pipelines = await storedPipelineKeys(context);
  return page(
    historyPage({
      history: found,
      filters,
      pipelines,
      limit: HISTORY_LIMIT,
      backend: context.backend.description,
      now: context.now(),
    }),
  );
}

/** `/metrics`: the DORA metrics over a window, of one pipeline or all. */
export async function metrics(context: DashboardContext, request: DashboardRequest): Promise<DashboardResponse> {
  const parsed = metricsQuery.safeParse(queryOf(request.url));
  if (!parsed.success) {
    const message = `The window must be one of ${METRICS_WINDOW_NAMES.join(', ')}.`;
    return context.problem(400, 'Bad choice', message, '/metrics');
  }
  const window = parsed.data.window ?? DEFAULT_METRICS_WINDOW;
  let pipeline: ObjectKey | undefined;
  if (parsed.data.pipeline !== undefined) {
    try {
      pipeline = parseObjectKey(parsed.data.pipeline, 'pipeline');
    } catch {
      return context.problem(400, 'Bad choice', 'The pipeline must be NAMESPACE/NAME.', '/metrics');
    }
  }
  const report = await readMetrics(context.backend, {
    pipeline,
    windowMs: METRICS_WINDOWS[window],
    failureWindowMs: DEFAULT_FAILURE_WINDOW_MS,
    now: context.now(),
  });
  // Without a choice the report has every pipeline already; with one, the form still offers them all.
  const pipelines = pipeline ? await storedPipelineKeys(context) : report.pipelines.map((view) => view.pipeline);
  return page(metricsPage({ report, pipeline, window, pipelines, backend: context.backend.description }));
}

/** The query's parameters, an empty one as none. */
function queryOf(url: URL): Record<string, string> {
  return Object.fromEntries([...url.searchParams].filter(([, value]) => value !== ''));
}

async function storedPipelineKeys(context: DashboardContext): Promise<ObjectKey[]> {
  const stored = await listAll((cursor) => context.backend.store.listPipelines(cursor));
  return stored.map(({ pipeline: p }) => ({ namespace: p.namespace, name: p.name }));
}
