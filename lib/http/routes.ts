// The receiver's route table, and how a path finds its route:
//   POST /v1/events/{clusterNs}/{clusterName}            Flux generic-hmac events from a leaf cluster
//   POST /promotion/{ns}/{name}/{env}                    Weave-compatible promotion webhook (triggers a check)
//   POST /approval/{ns}/{name}/{env}/{revision}          Weave-compatible approval (HMAC over the empty body)
//   POST /v1/config-sources/{ns}/{name}                  a Git host's push webhook for a ConfigSource
//   GET  /v1/inputs/{ns}/{name}/{env}                    Flux Operator's ExternalService input provider
//   GET  /healthz
// Each is also served with one trailing slash, as Weave's router does: a Provider address typed with one must work.

export type RouteName = 'events' | 'promotion' | 'approval' | 'config-sources' | 'inputs' | 'healthz';

export interface RouteSpec {
  name: RouteName;
  /** Literal segments after the leading `/`. */
  prefix: readonly string[];
  /** How many parameter segments follow the prefix, exactly. */
  params: number;
  method: 'GET' | 'POST';
}

const ROUTES: readonly RouteSpec[] = [
  { name: 'events', prefix: ['v1', 'events'], params: 2, method: 'POST' },
  { name: 'promotion', prefix: ['promotion'], params: 3, method: 'POST' },
  { name: 'approval', prefix: ['approval'], params: 4, method: 'POST' },
  { name: 'config-sources', prefix: ['v1', 'config-sources'], params: 2, method: 'POST' },
  { name: 'inputs', prefix: ['v1', 'inputs'], params: 3, method: 'GET' },
  { name: 'healthz', prefix: ['healthz'], params: 0, method: 'GET' },
];

export interface RouteMatch {
  route: RouteSpec;
  /** Percent-decoded, each non-empty. */
  params: string[];
}

/**
 * The route of a path, with its parameters decoded segment by segment (so `%2F` inside a revision is a `/` of the
 * revision, not a separator). One trailing slash is ignored; extra, missing or empty segments and malformed
 * percent-encoding match nothing.
 */
export function matchRoute(path: string): RouteMatch | undefined {
  if (!path.startsWith('/')) return undefined;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = trimmed.slice(1).split('/');
  for (const route of ROUTES) {
    if (segments.length !== route.prefix.length + route.params) continue;
    if (!route.prefix.every((literal, index) => segments[index] === literal)) continue;
    const params: string[] = [];
    for (const raw of segments.slice(route.prefix.length)) {
      const decoded = decodeSegment(raw);
      if (decoded === undefined) return undefined;
      params.push(decoded);
    }
    return { route, params };
  }
  return undefined;
}

function decodeSegment(raw: string): string | undefined {
  try {
    const decoded = decodeURIComponent(raw);
    return decoded === '' ? undefined : decoded;
  } catch {
    return undefined;
  }
}
