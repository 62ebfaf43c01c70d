// Which API version of a Flux app kind a cluster serves. Discovery (GET /apis) runs once per cluster and is trusted
// for `ttlMs` (an hour by default); a 404 after a minute makes the reader look again, since Flux may have been
// upgraded meanwhile. When discovery is forbidden or fails on the server's side, its answer is "unknown" for `ttlMs`
// too: the reader then tries the versions in turn, and the version a read finds is remembered per cluster and kind
// (docs/flux-status.md, "Reading app objects from a leaf cluster").
import { callCluster } from './api-call.js';
import type { ClusterClient, Discovery } from './cluster-client.js';
import { leafApi, type LeafKind } from './flux-app-apis.js';
import { ClusterAccessError } from './port.js';

/** After this long, a 404 makes the reader check whether the cluster's served versions changed. */
const REDISCOVER_AFTER_MS = 60_000;

/**
 * How long discovery is trusted by default: an hour. A version that stops being served is noticed at once (the 404
 * above), so the TTL only bounds how long a newly served better version goes unused after a Flux upgrade (the older
 * one still answers, with the same stored object). The scheduled poll reads each cluster every 5 minutes: with a TTL
 * of 10 minutes every other poll asked for `/apis` (an EKS cluster lists some 30 groups there), about a tenth of a
 * poll LIST's CPU (docs/benchmarks.md).
 */
export const DEFAULT_DISCOVERY_TTL_MS = 60 * 60_000;

export interface ApiDiscoveryOptions {
  /** How long the served versions found by discovery (or its being unavailable) are trusted, in ms. */
  ttlMs: number;
  /** Deadline of the discovery request, in ms. */
  timeoutMs: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/** The version(s) to read a kind in. */
export type VersionPlan =
  /** Discovery says the cluster serves this one (the best it serves). */
  | { discovered: true; version: string }
  /** Discovery could not tell: try these in turn, the one found last time first, then best first. */
  | { discovered: false; versions: readonly string[] };

export class ApiDiscovery {
  constructor(private readonly options: ApiDiscoveryOptions) {}

  /** How to read `kind` on this cluster: the best version it serves (v2 > v2beta2 > v2beta1; v1 > v1beta2). */
  async plan(client: ClusterClient, kind: LeafKind): Promise<VersionPlan> {
    const { group, versions, joinedLater } = leafApi(kind);
    const discovery = await this.discover(client);
    if (!discovery) return { discovered: false, versions: this.inTurn(client, kind, versions) };
    const served = discovery.get(group) ?? [];
    const candidates = versions.filter((candidate) => served.includes(candidate));
    // Discovery names the group's versions; for a kind that joined a version later, it narrows the ones to try.
    if (joinedLater && candidates.length > 1)
      return { discovered: false, versions: this.inTurn(client, kind, candidates) };
    const [version] = candidates;
    if (version) return { discovered: true, version };
    // Perhaps Flux is being installed or upgraded: look again next time.
    client.discovery = undefined;
    throw notServedError(client, kind, `served: ${served.join(', ') || 'none'}`);
  }

  /** The versions to try in turn: the one a read found last time first. */
  private inTurn(client: ClusterClient, kind: LeafKind, versions: readonly string[]): readonly string[] {
    const found = client.foundVersions?.get(kind);
    if (found === undefined || !versions.includes(found)) return versions;
    return [found, ...versions.filter((version) => version !== found)];
  }

  /** Remembers the version a read found served while discovery could not tell, so later reads start there. */
  remember(client: ClusterClient, kind: LeafKind, version: string): void {
    (client.foundVersions ??= new Map()).set(kind, version);
  }

  /**
   * After a 404: when discovery is older than a minute, discover again and return the plan now (which may be the
   * same); undefined when discovery is too fresh to doubt.
   */
  async rediscover(client: ClusterClient, kind: LeafKind): Promise<VersionPlan | undefined> {
    const discoveredAt = client.discovery?.at;
    if (discoveredAt === undefined || this.options.now() - discoveredAt < REDISCOVER_AFTER_MS) return undefined;
    client.discovery = undefined;
    return this.plan(client, kind);
  }

  /**
   * GET /apis once per cluster (cached for ttlMs): the served versions of every group. Concurrent readers of a cluster
   * share its client (cluster-client.ts), so they share the request in flight; a failure reaches the readers waiting
   * on it and is then dropped, so the next read asks again.
   */
  private discover(client: ClusterClient): Promise<Discovery> {
    const { now, ttlMs, timeoutMs } = this.options;
    const cached = client.discovery;
    if (cached && now() - cached.at < ttlMs) return cached.promise;
    const entry = {
      at: now(),
      promise: callCluster(client, 'discovering API versions', timeoutMs, (options) =>
        client.apis.getAPIVersions({}, options),
      ).then(
        (list): Discovery =>
          new Map(
            (list.groups ?? []).map((group) => [group.name, (group.versions ?? []).map((version) => version.version)]),
          ),
        (error: unknown): Discovery => {
          if (isDiscoveryUnavailable(error)) return undefined;
          if (client.discovery === entry) client.discovery = undefined;
          throw error;
        },
      ),
    };
    client.discovery = entry;
    return entry.promise;
  }
}

/** A cluster serves none of the versions of a kind the reader understands: the API is not installed (yet). */
export class ApiNotServedError extends ClusterAccessError {}

/** The error of a cluster that serves none of the versions of `kind` the reader understands. */
export function notServedError(client: ClusterClient, kind: LeafKind, detail: string): ApiNotServedError {
  const { group, versions, installedBy } = leafApi(kind);
  return new ApiNotServedError(
    'server-error',
    `cluster ${client.name}: does not serve ${group} in ${versions.join(', ')} (${detail}); is ${installedBy} installed?`,
  );
}

/**
 * Discovery is open to every authenticated user (the `system:discovery` binding), but a cluster may remove that
 * binding (403), and an API server (or a proxy in front of it) may fail GET /apis (5xx) while the Flux APIs still
 * answer. Either way the objects may still be readable. Other failures (401, timeouts, an unreachable server, a 404 from
 * something that is not a Kubernetes API server) would fail the reads as well, so they are reported as they are.
 */
function isDiscoveryUnavailable(error: unknown): boolean {
  if (!(error instanceof ClusterAccessError)) return false;
  return error.kind === 'forbidden' || (error.statusCode !== undefined && error.statusCode >= 500);
}
