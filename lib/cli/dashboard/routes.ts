// What each dashboard URL answers: a table of paths, each with its handler per method (handlers/: the pages that
// read, the approval and rejection forms, the stop switch's forms), all answering with plain values (status, headers,
// HTML) and sharing one context (handlers/context.ts). The node:http plumbing, the Host check, the owner's token
// (owner-access.ts), the assets and the live feed are server.ts's: they are answered before a body is read.
import { CliError } from '../errors.js';
import {
  approval,
  approvalConfirmation,
  environmentPathNotFound,
  rejection,
  rejectionConfirmation,
} from './handlers/approval.js';
import {
  dashboardContext,
  pipelineNotFound,
  type DashboardContext,
  type DashboardContextDeps,
  type DashboardRequest,
  type DashboardResponse,
  type PathParams,
} from './handlers/context.js';
import { history, metrics, overview, pipeline } from './handlers/pages.js';
import {
  freezeForm,
  freezing,
  pipelinePathNotFound,
  unfreezeConfirmation,
  unfreezing,
} from './handlers/stop-switch.js';
import { errorMessage } from '../../util/error-message.js';

type Handler = (
  context: DashboardContext,
  request: DashboardRequest,
  params: PathParams,
) => DashboardResponse | Promise<DashboardResponse>;

interface Route {
  /** `/pipelines/:namespace/:name`: a `:` segment is a parameter, one non-empty path segment, percent-decoded. */
  path: string;
  /** A page; GET answers HEAD too. */
  GET: Handler;
  /**
   * A form's post. A path with one answers other methods 405; a path without one answers them 404, as it answers
   * any path it has no page for.
   */
  POST?: Handler;
  /** The answer when a parameter is not valid percent-encoding; by default, no such page. */
  unreadable?: (context: DashboardContext) => DashboardResponse;
}

const ROUTES: readonly Route[] = [
  { path: '/', GET: overview },
  { path: '/history', GET: history },
  { path: '/metrics', GET: metrics },
  { path: '/pipelines/:namespace/:name', GET: pipeline, unreadable: pipelineNotFound },
  {
    path: '/pipelines/:namespace/:name/environments/:env/approve',
    GET: approvalConfirmation,
    POST: approval,
    unreadable: environmentPathNotFound,
  },
  {
    path: '/pipelines/:namespace/:name/environments/:env/reject',
    GET: rejectionConfirmation,
    POST: rejection,
    unreadable: environmentPathNotFound,
  },
  { path: '/pipelines/:namespace/:name/freeze', GET: freezeForm, POST: freezing, unreadable: pipelinePathNotFound },
  {
    path: '/pipelines/:namespace/:name/unfreeze',
    GET: unfreezeConfirmation,
    POST: unfreezing,
    unreadable: pipelinePathNotFound,
  },
];

const METHOD_NOT_ALLOWED: DashboardResponse = {
  status: 405,
  headers: { allow: 'GET, POST' },
  body: 'method not allowed',
};

export function createDashboardRoutes(
  deps: DashboardContextDeps,
): (request: DashboardRequest) => Promise<DashboardResponse> {
  const context = dashboardContext(deps);
  return async (request) => {
    try {
      return await answer(context, request);
    } catch (error) {
      if (error instanceof CliError) return context.problem(404, 'Not found', error.message);
      // The error itself goes to the terminal only: a page is no place for a backend's internals.
      deps.logger.error('dashboard: a request failed', {
        path: request.url.pathname,
        error: errorMessage(error),
      });
      const message = `Reading ${deps.backend.description} failed: see the terminal.`;
      return context.problem(500, 'Could not read the backend', message);
    }
  };
}

async function answer(context: DashboardContext, request: DashboardRequest): Promise<DashboardResponse> {
  const noSuchPage = () => context.problem(404, 'Not found', 'The dashboard has no such page.');
  const segments = request.url.pathname.split('/');
  for (const route of ROUTES) {
    const values = matchPath(route.path, segments);
    if (values === undefined) continue;
    const handler = handlerFor(route, request.method);
    if (handler === undefined && route.POST === undefined) return noSuchPage();
    const params = decoded(values);
    if (params === undefined) return (route.unreadable ?? noSuchPage)(context);
    if (handler === undefined) return METHOD_NOT_ALLOWED;
    return await handler(context, request, params);
  }
  return noSuchPage();
}

function handlerFor(route: Route, method: string): Handler | undefined {
  if (method === 'GET' || method === 'HEAD') return route.GET;
  return method === 'POST' ? route.POST : undefined;
}

/** The raw values of the pattern's parameters when the path's segments match it, by the parameters' names. */
function matchPath(pattern: string, segments: readonly string[]): Map<string, string> | undefined {
  const expected = pattern.split('/');
  if (expected.length !== segments.length) return undefined;
  const values = new Map<string, string>();
  for (const [index, want] of expected.entries()) {
    const segment = segments[index] ?? '';
    if (!want.startsWith(':')) {
      if (segment !== want) return undefined;
    } else if (segment === '') {
      return undefined;
    } else {
      values.set(want.slice(1), segment);
    }
  }
  return values;
}

/** Every value percent-decoded, or undefined when one is not valid percent-encoding. */
function decoded(values: ReadonlyMap<string, string>): PathParams | undefined {
  const params = new Map<string, string>();
  for (const [name, value] of values) {
    try {
      params.set(name, decodeURIComponent(value));
    } catch {
      return undefined;
    }
  }
  return params;
}
