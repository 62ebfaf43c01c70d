// Which API version of a Flux app kind a cluster serves. Discovery (GET /apis) runs once per cluster and is trusted
// for `ttlMs`; a 404 after a minute makes the reader look again, since Flux may have been upgraded meanwhile.
import type { AppKind } from '../config/schema.js';
import { callCluster } from './api-call.js';
import type { ClusterClient, Discovery } from './cluster-client.js';
import { FLUX_APP_APIS } from './flux-app-apis.js';
import { ClusterAccessError } from './port.js';

/** After this long, a 404 makes the reader check whether the cluster's served versions changed. */
const REDISCOVER_AFTER_MS = 60_000;

export interface ApiDiscoveryOptions {
  /** How long the served versions found by discovery are trusted, in ms. */
  ttlMs: number;
  /** Deadline of the discovery request, in ms. */
  timeoutMs: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

export class ApiDiscovery {
  constructor(private readonly options: ApiDiscoveryOptions) {}

  /** The best version of `kind` the cluster serves (v2 > v2beta2 > v2beta1; v1 > v1beta2). */
  async version(client: ClusterClient, kind: AppKind): Promise<string> {
    const { group, versions } = FLUX_APP_APIS[kind];
    const discovery = await this.discover(client);
    const preferred = versions[0] ?? 'v1';
    if (!discovery) return preferred;
    const served = discovery.get(group) ?? [];
    const version = versions.find((candidate) => served.includes(candidate));
    if (version) return version;
    // Perhaps Flux is being installed or upgraded: look again next time.
    client.discovery = undefined;
    throw new ClusterAccessError(
      'server-error',
      `cluster ${client.name}: does not serve ${group} in ${versions.join(', ')} (served: ${served.join(', ') || 'none'}); is Flux installed?`,
    );
  }

  /**
   * After a 404: when discovery is older than a minute, discover again and return the version now served (which may
   * be the same); undefined when discovery is too fresh to doubt.
   */
  async rediscover(client: ClusterClient, kind: AppKind): Promise<string | undefined> {
    const discoveredAt = client.discovery?.at;
    if (discoveredAt === undefined || this.options.now() - discoveredAt < REDISCOVER_AFTER_MS) return undefined;
    client.discovery = undefined;
    return this.version(client, kind);
  }

  /** GET /apis once per cluster (cached for ttlMs): the served versions of every group. */
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
          // Discovery is open to every authenticated user; if it is not, read the newest versions.
          if (error instanceof ClusterAccessError && error.kind === 'forbidden') return undefined;
          if (client.discovery === entry) client.discovery = undefined;
          throw error;
        },
      ),
    };
    client.discovery = entry;
    return entry.promise;
  }
}
