// The ClusterReader over the Kubernetes API (@kubernetes/client-node 1.4): reads Flux objects and Flagger Canaries
// from leaf clusters registered as GitopsClusters. The clients (cluster-client.ts), their kept-alive
// connections (kept-alive-connections.ts), the deadline of each request (api-call.ts), the served API versions
// (api-discovery.ts) and the classification of failures (access-errors.ts) each have their own module; this one
// pages through LISTs within the bounds of read-limits.ts, and falls back where a cluster allows less than a
// cluster-wide read, or tells less than discovery: then it tries the versions in turn.
import type { WatchedKind, GitopsClusterDocument } from '../config/schema.js';
import type { AppKey, ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from '../secrets/port.js';
import { formatBytes, isAbsentObject, tooLarge, unexpectedAnswer } from './access-errors.js';
import { callCluster, type RequestOptions } from './api-call.js';
import { ApiDiscovery, ApiNotServedError, DEFAULT_DISCOVERY_TTL_MS, notServedError } from './api-discovery.js';
import type { AnswerBudget } from './bounded-fetch.js';
import { ClusterClients, type ClusterClient } from './cluster-client.js';
import type { EksAccess } from './eks.js';
import { FLUX_APP_APIS, leafApi, type LeafKind } from './flux-app-apis.js';
import { isRecord } from '../util/is-record.js';
import { ClusterAccessError, type ClusterReader } from './port.js';
import {
  MAX_LIST_BYTES,
  MAX_LIST_ITEMS,
  MAX_LIST_PAGE_BYTES,
  MAX_LIST_PAGES,
  MAX_OBJECT_BYTES,
} from './read-limits.js';

export interface KubernetesClusterReaderOptions {
  /** The registered GitopsCluster, or undefined when there is none. */
  getCluster(key: ObjectKey): Promise<GitopsClusterDocument | undefined>;
  /** Where kubeconfig Secrets come from (values decoded). */
  secrets: SecretSource;
  /** Needed for GitopsClusters with `spec.eks`. */
  eksTokens?: EksAccess;
  /** Deadline of every request to a cluster (discovery included), in ms. Default 10 000. */
  timeoutMs?: number;
  /** `limit` of each LIST page. Default 500. */
  pageSize?: number;
  /**
   * How long the served versions found by discovery (or its being unavailable) are trusted, in ms. Default
   * DEFAULT_DISCOVERY_TTL_MS (an hour).
   */
  discoveryTtlMs?: number;
  /** Milliseconds since the epoch: discovery's age and connections' idle time. Default `Date.now`. */
  now?: () => number;
}

export class KubernetesClusterReader implements ClusterReader {
  private readonly clients: ClusterClients;
  private readonly discovery: ApiDiscovery;
  private readonly timeoutMs: number;
  private readonly pageSize: number;

  constructor(options: KubernetesClusterReaderOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.pageSize = options.pageSize ?? 500;
    this.clients = new ClusterClients(options);
    this.discovery = new ApiDiscovery({
      ttlMs: options.discoveryTtlMs ?? DEFAULT_DISCOVERY_TTL_MS,
      timeoutMs: this.timeoutMs,
      now: options.now ?? Date.now,
    });
  }

  async getApp(app: AppKey): Promise<Record<string, unknown> | undefined> {
    return this.getNamespaced(app.cluster, app.kind, app.namespace, app.name);
  }

  async getCanary(cluster: ObjectKey, canary: ObjectKey): Promise<Record<string, unknown> | undefined> {
    try {
      return await this.getNamespaced(cluster, 'Canary', canary.namespace, canary.name);
    } catch (error) {
      // A cluster without Flagger has no Canary.
      if (error instanceof ApiNotServedError) return undefined;
      throw error;
    }
  }

  /** One object of `kind`, read in the best version the cluster serves (see getApp). */
  private async getNamespaced(
    cluster: ObjectKey,
    kind: LeafKind,
    namespace: string,
    name: string,
  ): Promise<Record<string, unknown> | undefined> {
    const client = await this.clients.get(cluster);
    const object = { kind, namespace, name };
    const plan = await this.discovery.plan(client, kind);
    if (!plan.discovered) return this.getInTurn(client, object, plan.versions);
    const found = await this.getObject(client, object, plan.version);
    if (typeof found === 'object') return found;
    if (found === 'absent') return undefined;
    // The cluster may have stopped serving that version (Flux upgraded): if discovery is not fresh, look again, and
    // read again if the version changed.
    const current = await this.discovery.rediscover(client, kind);
    if (current === undefined) return undefined;
    if (!current.discovered) return this.getInTurn(client, object, current.versions);
    if (current.version === plan.version) return undefined;
    const again = await this.getObject(client, object, current.version);
    return typeof again === 'object' ? again : undefined;
  }

  async listApps(
    cluster: ObjectKey,
    kind: WatchedKind,
    namespaces: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    const client = await this.clients.get(cluster);
    const plan = await this.discovery.plan(client, kind);
    if (!plan.discovered) return this.listInTurn(client, kind, plan.versions, namespaces);
    try {
      return await this.listWithFallback(client, kind, plan.version, namespaces);
    } catch (error) {
      if (!(error instanceof ClusterAccessError) || error.statusCode !== 404) throw error;
      const current = await this.discovery.rediscover(client, kind);
      if (current === undefined) throw error;
      if (!current.discovered) return this.listInTurn(client, kind, current.versions, namespaces);
      if (current.version === plan.version) throw error;
      return this.listWithFallback(client, kind, current.version, namespaces);
    }
  }

  /**
   * Without discovery: a GET in each version until the API server answers for the object (found, or absent from a
   * version it serves) rather than "no such path". Undefined when no version has it: a 404 in every version means
   * absent, whichever 404 it was.
   */
  private async getInTurn(
    client: ClusterClient,
    object: NamespacedObject,
    versions: readonly string[],
  ): Promise<Record<string, unknown> | undefined> {
    for (const version of versions) {
      const found = await this.getObject(client, object, version);
      if (found === 'path not served') continue;
      this.discovery.remember(client, object.kind, version);
      return typeof found === 'object' ? found : undefined;
    }
    return undefined;
  }

  /** Without discovery: a LIST in each version until one is served (a LIST of a served version is never a 404). */
  private async listInTurn(
    client: ClusterClient,
    kind: WatchedKind,
    versions: readonly string[],
    namespaces: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    for (const version of versions) {
      try {
        const items = await this.listWithFallback(client, kind, version, namespaces);
        this.discovery.remember(client, kind, version);
        return items;
      } catch (error) {
        if (!(error instanceof ClusterAccessError) || error.statusCode !== 404) throw error;
      }
    }
    throw notServedError(client, kind, '404 for each; discovery was not available');
  }

  /**
   * Every page of a LIST (cluster-wide when namespace is undefined); an expired `continue` restarts it once. What it
   * reads counts against `budget`, the bounds of the whole (cluster, kind) read (read-limits.ts).
   */
  private async listAll(
    client: ClusterClient,
    kind: WatchedKind,
    version: string,
    namespace: string | undefined,
    budget: ListBudget,
  ): Promise<Record<string, unknown>[]> {
    const { group, plural } = FLUX_APP_APIS[kind];
    const what = `listing ${plural} in ${namespace ?? 'all namespaces'}`;
    for (let attempt = 1; ; attempt++) {
      const items: Record<string, unknown>[] = [];
      let token: string | undefined;
      let pages = 0;
      let bytes = 0;
      try {
        do {
          if (++pages > MAX_LIST_PAGES) throw tooLarge(client.name, what, `more than ${MAX_LIST_PAGES} pages`);
          if (budget.bytes <= 0) throw tooLarge(client.name, what, `more than ${formatBytes(MAX_LIST_BYTES)} in all`);
          const request = { group, version, plural, limit: this.pageSize, _continue: token };
          const pageBytes = Math.min(MAX_LIST_PAGE_BYTES, budget.bytes);
          const answer: AnswerBudget = { maxBytes: pageBytes };
          const page: unknown = await this.call(
            client,
            what,
            (options) =>
              namespace === undefined
                ? client.customObjects.listClusterCustomObject(request, options)
                : client.customObjects.listNamespacedCustomObject({ ...request, namespace }, options),
            answer,
          ).catch((error: unknown) => {
            // Over what is left of the read's bytes rather than over a page's: say so.
            const overRead = error instanceof ClusterAccessError && error.kind === 'too-large';
            if (!overRead || pageBytes === MAX_LIST_PAGE_BYTES) throw error;
            throw tooLarge(client.name, what, `more than ${formatBytes(MAX_LIST_BYTES)} in all`, { cause: error });
          });
          if (!isRecord(page) || !Array.isArray(page.items)) {
            throw unexpectedAnswer(client.name, what, 'the answer has no items');
          }
          const pageItems = page.items.filter(isRecord);
          if (pageItems.length > budget.items) {
            throw tooLarge(client.name, what, `more than ${MAX_LIST_ITEMS} objects`);
          }
          budget.items -= pageItems.length;
          budget.bytes -= answer.bytes ?? 0;
          bytes += answer.bytes ?? 0;
          items.push(...pageItems);
          const next = isRecord(page.metadata) ? page.metadata.continue : undefined;
          if (next !== undefined && next !== '' && (typeof next !== 'string' || next === token)) {
            throw unexpectedAnswer(client.name, what, 'the answer has an invalid continue token');
          }
          token = next || undefined;
        } while (token);
        return items;
      } catch (error) {
        // What this attempt read is dropped: its share of the budget is free again.
        budget.items += items.length;
        budget.bytes += bytes;
        const expired = error instanceof ClusterAccessError && error.statusCode === 410 && token !== undefined;
        if (expired && attempt === 1) continue;
        throw error;
      }
    }
  }

  /** The object; on a 404, whether the object is absent from a served version or the path is not served at all. */
  private async getObject(
    client: ClusterClient,
    { kind, namespace, name }: NamespacedObject,
    version: string,
  ): Promise<Record<string, unknown> | 'absent' | 'path not served'> {
    const { group, plural } = leafApi(kind);
    const what = `reading ${plural}/${name} in ${namespace}`;
    let object: unknown;
    try {
      object = await this.call(
        client,
        what,
        (options) =>
          client.customObjects.getNamespacedCustomObject({ group, version, namespace, plural, name }, options),
        { maxBytes: MAX_OBJECT_BYTES },
      );
    } catch (error) {
      if (!(error instanceof ClusterAccessError) || error.statusCode !== 404) throw error;
      return isAbsentObject(error, group, plural) ? 'absent' : 'path not served';
    }
    if (!isRecord(object)) throw unexpectedAnswer(client.name, what, 'the answer is not an object');
    return object;
  }

  /**
   * A cluster-wide LIST; when that is forbidden (a cluster that grants Roles in some namespaces only, no ClusterRole),
   * one LIST per namespace.
   */
  private async listWithFallback(
    client: ClusterClient,
    kind: WatchedKind,
    version: string,
    namespaces: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    const budget: ListBudget = { items: MAX_LIST_ITEMS, bytes: MAX_LIST_BYTES };
    try {
      return await this.listAll(client, kind, version, undefined, budget);
    } catch (error) {
      const wanted = [...new Set(namespaces)];
      if (!(error instanceof ClusterAccessError) || error.kind !== 'forbidden' || wanted.length === 0) throw error;
      const pages = await Promise.all(
        wanted.map((namespace) => this.listAll(client, kind, version, namespace, budget)),
      );
      return pages.flat();
    }
  }

  private call<T>(
    client: ClusterClient,
    what: string,
    send: (options: RequestOptions) => Promise<T>,
    answer: AnswerBudget,
  ): Promise<T> {
    return callCluster(client, what, this.timeoutMs, send, answer);
  }
}

/** One object the reader GETs. */
interface NamespacedObject {
  kind: LeafKind;
  namespace: string;
  name: string;
}

/** What is left of the bounds of one (cluster, kind) read, shared by its LISTs (one per namespace, or one). */
interface ListBudget {
  items: number;
  bytes: number;
}
