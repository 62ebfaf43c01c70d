// The ClusterReader over the Kubernetes API (@kubernetes/client-node 1.4): reads Flux HelmReleases and
// Kustomizations from leaf clusters registered as GitopsClusters. A client is built once per cluster and reused by
// later calls of a warm function until the GitopsCluster, its kubeconfig Secret or its EKS token changes. Each HTTP
// request has a deadline. Every failure is a ClusterAccessError naming the cluster and what was being read; no
// message ever carries a token, a kubeconfig or any other Secret content.
import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import {
  ApiException,
  ApisApi,
  CustomObjectsApi,
  KubeConfig,
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { APP_KIND_GROUPS, type AppKind, type GitopsClusterDocument } from '../config/schema.js';
import { objectKeyString, type AppKey, type ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from '../secrets/port.js';
import type { EksAccess, EksConnection } from './eks.js';
import { ClusterAccessError, type ClusterErrorKind, type ClusterReader } from './port.js';

/** Where each app kind lives, and the versions we can read, best first (flux-formats §3.1, §4.1). */
export const FLUX_APP_APIS: Readonly<Record<AppKind, { group: string; plural: string; versions: readonly string[] }>> =
  {
    HelmRelease: { group: APP_KIND_GROUPS.HelmRelease, plural: 'helmreleases', versions: ['v2', 'v2beta2', 'v2beta1'] },
    Kustomization: { group: APP_KIND_GROUPS.Kustomization, plural: 'kustomizations', versions: ['v1', 'v1beta2'] },
  };

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
  /** How long the served versions found by discovery are trusted, in ms. Default 10 minutes. */
  discoveryTtlMs?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** group → served versions (undefined: discovery was forbidden, assume the newest). */
type Discovery = Map<string, readonly string[]> | undefined;

interface ClusterClient {
  /** The cluster as `namespace/name`, for messages. */
  name: string;
  /** Hash of what the client was built from (the GitopsCluster spec and the kubeconfig, or the EKS endpoint). */
  hash: string;
  /** The bearer token of an EKS client (rebuilt when EksAccess hands out a new one). */
  eksToken?: string;
  server: string;
  /** Strings that must never show up in a message (tokens, passwords). */
  redact: string[];
  customObjects: CustomObjectsApi;
  apis: ApisApi;
  discovery?: { at: number; promise: Promise<Discovery> };
}

/** After this long, a 404 makes the reader check whether the cluster's served versions changed. */
const REDISCOVER_AFTER_MS = 60_000;

export class KubernetesClusterReader implements ClusterReader {
  private readonly clients = new Map<string, ClusterClient>();
  private readonly timeoutMs: number;
  private readonly pageSize: number;
  private readonly discoveryTtlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: KubernetesClusterReaderOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.pageSize = options.pageSize ?? 500;
    this.discoveryTtlMs = options.discoveryTtlMs ?? 600_000;
    this.now = options.now ?? Date.now;
  }

  async getApp(app: AppKey): Promise<Record<string, unknown> | undefined> {
    const client = await this.client(app.cluster);
    const version = await this.version(client, app.kind);
    const object = await this.getObject(client, app, version);
    if (object !== undefined) return object;
    // A 404 may also mean the cluster stopped serving that version (Flux upgraded): if discovery is not fresh, look
    // again, and read again if the version changed.
    const current = await this.rediscover(client, app.kind);
    return current === undefined || current === version ? undefined : this.getObject(client, app, current);
  }

  async listApps(cluster: ObjectKey, kind: AppKind, namespaces: readonly string[]): Promise<Record<string, unknown>[]> {
    const client = await this.client(cluster);
    const version = await this.version(client, kind);
    try {
      return await this.listWithFallback(client, kind, version, namespaces);
    } catch (error) {
      if (!(error instanceof ClusterAccessError) || error.statusCode !== 404) throw error;
      const current = await this.rediscover(client, kind);
      if (current === undefined || current === version) throw error;
      return this.listWithFallback(client, kind, current, namespaces);
    }
  }

  // ---------------------------------------------------------------- reading

  /** Every page of a LIST (cluster-wide when namespace is undefined); an expired `continue` restarts it once. */
  private async listAll(
    client: ClusterClient,
    kind: AppKind,
    version: string,
    namespace: string | undefined,
  ): Promise<Record<string, unknown>[]> {
    const { group, plural } = FLUX_APP_APIS[kind];
    const what = `listing ${plural} in ${namespace ?? 'all namespaces'}`;
    for (let attempt = 1; ; attempt++) {
      const items: Record<string, unknown>[] = [];
      let token: string | undefined;
      try {
        do {
          const request = { group, version, plural, limit: this.pageSize, _continue: token };
          const page: unknown = await this.call(client, what, (options) =>
            namespace === undefined
              ? client.customObjects.listClusterCustomObject(request, options)
              : client.customObjects.listNamespacedCustomObject({ ...request, namespace }, options),
          );
          if (!isRecord(page) || !Array.isArray(page.items)) throw unexpected(client, what, 'the answer has no items');
          items.push(...page.items.filter(isRecord));
          const next = isRecord(page.metadata) ? page.metadata.continue : undefined;
          if (next !== undefined && next !== '' && (typeof next !== 'string' || next === token)) {
            throw unexpected(client, what, 'the answer has an invalid continue token');
          }
          token = next || undefined;
        } while (token);
        return items;
      } catch (error) {
        const expired = error instanceof ClusterAccessError && error.statusCode === 410 && token !== undefined;
        if (expired && attempt === 1) continue;
        throw error;
      }
    }
  }

  /** The object, or undefined on 404. */
  private async getObject(
    client: ClusterClient,
    app: AppKey,
    version: string,
  ): Promise<Record<string, unknown> | undefined> {
    const { group, plural } = FLUX_APP_APIS[app.kind];
    const what = `reading ${plural}/${app.name} in ${app.namespace}`;
    let object: unknown;
    try {
      object = await this.call(client, what, (options) =>
        client.customObjects.getNamespacedCustomObject(
          { group, version, namespace: app.namespace, plural, name: app.name },
          options,
        ),
      );
    } catch (error) {
      if (error instanceof ClusterAccessError && error.statusCode === 404) return undefined;
      throw error;
    }
    if (!isRecord(object)) throw unexpected(client, what, 'the answer is not an object');
    return object;
  }

  /** A cluster-wide LIST; when that is forbidden (namespaced Roles only, flux-formats §5.2), one per namespace. */
  private async listWithFallback(
    client: ClusterClient,
    kind: AppKind,
    version: string,
    namespaces: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    try {
      return await this.listAll(client, kind, version, undefined);
    } catch (error) {
      const wanted = [...new Set(namespaces)];
      if (!(error instanceof ClusterAccessError) || error.kind !== 'forbidden' || wanted.length === 0) throw error;
      const pages = await Promise.all(wanted.map((namespace) => this.listAll(client, kind, version, namespace)));
      return pages.flat();
    }
  }

  /**
   * After a 404: when discovery is older than a minute, discover again and return the version now served (which may
   * be the same); undefined when discovery is too fresh to doubt.
   */
  private async rediscover(client: ClusterClient, kind: AppKind): Promise<string | undefined> {
    const discoveredAt = client.discovery?.at;
    if (discoveredAt === undefined || this.now() - discoveredAt < REDISCOVER_AFTER_MS) return undefined;
    client.discovery = undefined;
    return this.version(client, kind);
  }

  /** The best version of `kind` the cluster serves (v2 > v2beta2 > v2beta1; v1 > v1beta2). */
  private async version(client: ClusterClient, kind: AppKind): Promise<string> {
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

  /** GET /apis once per cluster (cached for discoveryTtlMs): the served versions of every group. */
  private discover(client: ClusterClient): Promise<Discovery> {
    const cached = client.discovery;
    if (cached && this.now() - cached.at < this.discoveryTtlMs) return cached.promise;
    const entry = {
      at: this.now(),
      promise: this.call(client, 'discovering API versions', (options) => client.apis.getAPIVersions({}, options)).then(
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

  /** One request with a deadline; every failure becomes a ClusterAccessError. */
  private async call<T>(
    client: ClusterClient,
    what: string,
    send: (options: ConfigurationOptions<ObservableMiddleware>) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new ClusterAccessError('timeout', `cluster ${client.name}: no answer within ${this.timeoutMs} ms ${what}`),
        );
      }, this.timeoutMs);
    });
    try {
      // The signal reaches node-fetch through the request context: aborting it ends the connection, the request and
      // the reading of the body. The race also covers what happens before the request is sent.
      const options = { middleware: [abortMiddleware(controller.signal)], middlewareMergeStrategy: 'append' as const };
      return await Promise.race([send(options), deadline]);
    } catch (error) {
      throw this.toAccessError(client, what, error, controller.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
  }

  private toAccessError(client: ClusterClient, what: string, error: unknown, timedOut: boolean): ClusterAccessError {
    if (error instanceof ClusterAccessError) return error;
    const prefix = `cluster ${client.name}:`;
    if (timedOut || (isRecord(error) && error.name === 'AbortError')) {
      return new ClusterAccessError('timeout', `${prefix} no answer within ${this.timeoutMs} ms ${what}`, undefined, {
        cause: error,
      });
    }
    if (error instanceof ApiException) {
      const code = error.code;
      const status = `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;
      const detail = statusMessage(error.body);
      const extra = detail && detail !== STATUS_CODES[code] ? `: ${redact(detail, client.redact)}` : '';
      return new ClusterAccessError(kindOfStatus(code), `${prefix} ${status} ${what}${extra}`, code, { cause: error });
    }
    if (isRecord(error) && error.name === 'FetchError' && error.type === 'system') {
      // Connection refused or reset, DNS, TLS verification: node-fetch's `code` says which.
      const code = typeof error.code === 'string' ? error.code : 'network error';
      const message = `${prefix} cannot reach ${client.server} (${code}) ${what}`;
      return new ClusterAccessError('unreachable', message, undefined, { cause: error });
    }
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return new ClusterAccessError(
      'server-error',
      `${prefix} unexpected answer ${what}: ${redact(message ?? '', client.redact).slice(0, 300)}`,
      undefined,
      { cause: error },
    );
  }

  // ---------------------------------------------------------------- clients

  /** The client of a cluster: the cached one while nothing it was built from changed. */
  private async client(key: ObjectKey): Promise<ClusterClient> {
    const name = objectKeyString(key);
    const document = await this.options.getCluster(key);
    if (!document) throw badConfig(name, `no GitopsCluster ${name} is registered`);
    const { spec } = document;
    const cached = this.clients.get(name);

    if (spec.eks) {
      const eks = this.options.eksTokens;
      if (!eks) throw badConfig(name, 'spec.eks is set but this controller has no EKS access configured');
      let connection: EksConnection;
      try {
        connection = await eks.connection(spec.eks);
      } catch (error) {
        if (!(error instanceof ClusterAccessError)) throw error;
        throw new ClusterAccessError(error.kind, `cluster ${name}: ${error.message}`, error.statusCode, {
          cause: error,
        });
      }
      const hash = sha256(JSON.stringify(spec), connection.endpoint, connection.caData);
      if (cached?.hash === hash && cached.eksToken === connection.token) return cached;
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'eks', server: connection.endpoint, caData: connection.caData, skipTLSVerify: false }],
        users: [{ name: 'eks', token: connection.token }],
        contexts: [{ name: 'eks', cluster: 'eks', user: 'eks' }],
        currentContext: 'eks',
      });
      const client = makeClient(name, hash, kc, [connection.token]);
      client.eksToken = connection.token;
      // Only the token changed: what discovery found still holds.
      if (cached?.hash === hash) client.discovery = cached.discovery;
      this.clients.set(name, client);
      return client;
    }

    const source = await this.kubeconfigSource(key, spec);
    const hash = sha256(JSON.stringify(spec), source.text);
    if (cached?.hash === hash) return cached;
    const kc = loadKubeconfig(name, source.where, source.text);
    const user = kc.getCurrentUser();
    const client = makeClient(
      name,
      hash,
      kc,
      [user?.token, user?.password].filter((value): value is string => !!value),
    );
    this.clients.set(name, client);
    return client;
  }

  /** The kubeconfig text of a secretRef or capiClusterRef cluster. */
  private async kubeconfigSource(
    key: ObjectKey,
    spec: GitopsClusterDocument['spec'],
  ): Promise<{ text: string; where: string }> {
    const name = objectKeyString(key);
    let secretName: string;
    let keys: string[];
    let field: string;
    if (spec.secretRef) {
      secretName = spec.secretRef.name;
      keys = ['value', 'kubeconfig'];
      field = 'spec.secretRef';
    } else if (spec.capiClusterRef) {
      secretName = `${spec.capiClusterRef.name}-kubeconfig`;
      keys = ['value'];
      field = 'spec.capiClusterRef';
    } else {
      throw badConfig(name, 'the GitopsCluster sets none of secretRef, capiClusterRef and eks');
    }
    const secretKey = { namespace: key.namespace, name: secretName };
    const secret = await this.options.secrets.getSecret(secretKey);
    const where = `Secret ${objectKeyString(secretKey)} (${field})`;
    if (!secret) throw badConfig(name, `${where} does not exist`);
    const found = keys.find((candidate) => secret[candidate] !== undefined);
    const text = found === undefined ? undefined : secret[found];
    if (found === undefined || text === undefined) {
      const present = Object.keys(secret);
      throw badConfig(
        name,
        `${where} has no key ${keys.map((candidate) => `"${candidate}"`).join(' or ')} (its keys: ${present.join(', ') || 'none'})`,
      );
    }
    if (text.trim() === '') throw badConfig(name, `${where} key "${found}" is empty`);
    return { text, where: `${where} key "${found}"` };
  }
}

// ---------------------------------------------------------------- helpers

function makeClient(name: string, hash: string, kc: KubeConfig, redact: string[]): ClusterClient {
  return {
    name,
    hash,
    // Only the origin: a URL may carry user info.
    server: originOf(kc.getCurrentCluster()?.server),
    redact,
    customObjects: kc.makeApiClient(CustomObjectsApi),
    apis: kc.makeApiClient(ApisApi),
  };
}

/** kubeconfig fields that make client-node read local files or run programs: never from a Secret. */
const FORBIDDEN_USER_FIELDS = ['exec', 'auth-provider', 'token-file', 'tokenFile', 'client-certificate', 'client-key'];
const FORBIDDEN_CLUSTER_FIELDS = ['certificate-authority'];

/**
 * Parses and checks a kubeconfig from a Secret. The text is parsed here first and only the checked structure (as
 * JSON, which has no anchors or merge keys) reaches `kc.loadFromString`, because client-node reads `token-file`
 * while it parses. Messages name the Secret and the problem, never the content.
 */
export function loadKubeconfig(cluster: string, where: string, text: string): KubeConfig {
  const fail = (problem: string) => badConfig(cluster, `${where} does not hold a usable kubeconfig: ${problem}`);
  let document: unknown;
  try {
    document = parse(text, { merge: true, maxAliasCount: 100, logLevel: 'error' });
  } catch {
    // The parser's message quotes the text: leave it out.
    throw fail('it is not valid YAML');
  }
  if (!isRecord(document)) throw fail('it is not a YAML mapping');
  for (const [section, entry, forbidden] of [
    ['users', 'user', FORBIDDEN_USER_FIELDS],
    ['clusters', 'cluster', FORBIDDEN_CLUSTER_FIELDS],
  ] as const) {
    const list = document[section];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw fail(`${section} is not a list`);
    for (const [index, item] of list.entries()) {
      const body = isRecord(item) ? item[entry] : undefined;
      if (!isRecord(body)) continue;
      const bad = forbidden.find((field) => field in body);
      if (bad) {
        throw fail(
          `${section}[${index}].${entry}.${bad} is not supported (it would read a local file or run a program); embed the credentials with the *-data fields or a token`,
        );
      }
    }
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromString(JSON.stringify(document));
  } catch (error) {
    // client-node's messages name fields (e.g. "clusters[0].cluster.server is missing"), not values.
    throw fail(error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable') : 'unreadable');
  }
  if (!kc.getCurrentContext() && kc.getContexts().length === 1) {
    kc.setCurrentContext(kc.getContexts()[0]?.name ?? '');
  }
  const contextName = kc.getCurrentContext();
  if (!contextName) throw fail('it has no current-context');
  const context = kc.getContextObject(contextName);
  if (!context) throw fail(`current-context "${contextName}" is not among its contexts`);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw fail(`the cluster of context "${contextName}" is missing or has no server`);
  if (!URL.canParse(server) || !/^https?:$/.test(new URL(server).protocol)) {
    throw fail(`the server of context "${contextName}" is not an http(s) URL`);
  }
  if (!kc.getCurrentUser()) throw fail(`the user of context "${contextName}" is missing`);
  return kc;
}

function abortMiddleware(signal: AbortSignal): ObservableMiddleware {
  return {
    pre(context: RequestContext) {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post(context: ResponseContext) {
      return new Observable(Promise.resolve(context));
    },
  };
}

function kindOfStatus(code: number): ClusterErrorKind {
  if (code === 401) return 'unauthorized';
  if (code === 403) return 'forbidden';
  return 'server-error';
}

/** The `message` of a Kubernetes Status body (client-node hands it over as a string), or undefined. */
function statusMessage(body: unknown): string | undefined {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (isRecord(value) && typeof value.message === 'string' && value.message !== '') {
    return value.message.split('\n')[0]?.slice(0, 300);
  }
  return undefined;
}

function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= 4) result = result.split(secret).join('[redacted]');
  return result;
}

function badConfig(cluster: string, problem: string): ClusterAccessError {
  return new ClusterAccessError('bad-config', `cluster ${cluster}: ${problem}`);
}

function unexpected(client: ClusterClient, what: string, problem: string): ClusterAccessError {
  return new ClusterAccessError('server-error', `cluster ${client.name}: unexpected answer ${what}: ${problem}`);
}

function originOf(server: string | undefined): string {
  return server && URL.canParse(server) ? new URL(server).origin : '(no server)';
}

function sha256(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
