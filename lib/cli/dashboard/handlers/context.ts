// What every dashboard handler works with: the request as plain values, the answer as plain values (status, headers,
// HTML), and one context per dashboard start (the backend every page reads, the form token, the clock, the logger,
// and the page every problem is answered with).
import type { Backend } from '../../backend.js';
import type { Logger } from '../../../logging/logger.js';
import type { ObjectKey } from '../../../pipeline/model.js';
import type { Html } from '../html.js';
import { messagePage } from '../layout.js';

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

export interface DashboardContextDeps {
  backend: Backend;
  /** The token the forms of this start embed and every post must send back (request-guard.ts). */
  csrfToken: string;
  now: () => Date;
  logger: Pick<Logger, 'warn' | 'error'>;
}

export interface DashboardContext extends Readonly<DashboardContextDeps> {
  /** A message page naming the backend, with a link `back` if given: every 4xx and 5xx page is one. */
  problem(status: number, title: string, message: string, back?: string): DashboardResponse;
}

export function dashboardContext(deps: DashboardContextDeps): DashboardContext {
  return {
    ...deps,
    problem: (status, title, message, back) => ({
      status,
      body: messagePage({ title, message, backend: deps.backend.description, back }),
    }),
  };
}

/** The answer when the backend has no such pipeline. */
export function pipelineNotFound(context: DashboardContext): DashboardResponse {
  return context.problem(404, 'Pipeline not found', `No such pipeline in ${context.backend.description}.`);
}

/** A page shown as asked for. */
export function page(body: Html): DashboardResponse {
  return { status: 200, body };
}

/**
 * A route's path parameters by the names its pattern gives them (`:namespace` → `namespace`), percent-decoded and
 * never empty.
 */
export type PathParams = ReadonlyMap<string, string>;

/** The pipeline a `/pipelines/:namespace/:name/…` path names. */
export function pipelineOf(params: PathParams): ObjectKey {
  return { namespace: param(params, 'namespace'), name: param(params, 'name') };
}

/** The environment a `…/environments/:env/…` path names. */
export function environmentOf(params: PathParams): string {
  return param(params, 'env');
}

function param(params: PathParams, name: string): string {
  const value = params.get(name);
  // The route table pairs each handler with its pattern: a missing parameter is a handler on the wrong route.
  if (value === undefined) throw new Error(`the route's path has no :${name}`);
  return value;
}
