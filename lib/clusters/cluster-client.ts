// One Kubernetes API client per registered cluster, built from its GitopsCluster (a kubeconfig Secret, a Cluster API
// kubeconfig, or an EKS endpoint and IAM token) and reused by later calls of a warm function until the GitopsCluster,
// its kubeconfig Secret or its EKS token changes. Concurrent callers get the same client, so they share its
// connections (kept-alive-connections.ts) and its discovery (api-discovery.ts).
import { createHash } from 'node:crypto';
import {
  ApisApi,
  createConfiguration,
  CustomObjectsApi,
  KubeConfig,
  ServerConfiguration,
} from '@kubernetes/client-node';
import type { GitopsClusterDocument } from '../config/schema.js';
import type { LeafKind } from './flux-app-apis.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from '../secrets/port.js';
import { badConfig } from './access-errors.js';
import type { EksAccess, EksConnection } from './eks.js';
import { KeptAliveConnections } from './kept-alive-connections.js';
import { kubeconfigFromSecret, loadKubeconfig } from './kubeconfig.js';
import { ClusterAccessError } from './port.js';

/** group → served versions (undefined: discovery was forbidden or failed, so reads try the versions in turn). */
export type Discovery = Map<string, readonly string[]> | undefined;

export interface ClusterClient {
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
  /** The kept-alive connections both API classes send through; closed when the client is replaced. */
  connections: KeptAliveConnections;
  /** What the last discovery found (or is finding), and when it started; see api-discovery.ts. */
  discovery?: { at: number; promise: Promise<Discovery> };
  /** Without discovery: the version of each kind a read last found served (see api-discovery.ts). */
  foundVersions?: Map<LeafKind, string>;
}

export interface ClusterClientsOptions {
  /** The registered GitopsCluster, or undefined when there is none. */
  getCluster(key: ObjectKey): Promise<GitopsClusterDocument | undefined>;
  /** Where kubeconfig Secrets come from (values decoded). */
  secrets: SecretSource;
  /** Needed for GitopsClusters with `spec.eks`. */
  eksTokens?: EksAccess;
  /** Milliseconds since the epoch (wall clock): how long a connection has been idle. Default `Date.now`. */
  now?: () => number;
}

export class ClusterClients {
  private readonly clients = new Map<string, ClusterClient>();

  constructor(private readonly options: ClusterClientsOptions) {}

  /** The client of a cluster: the cached one while nothing it was built from changed. */
  async get(key: ObjectKey): Promise<ClusterClient> {
    const name = objectKeyString(key);
    const document = await this.options.getCluster(key);
    if (!document) throw badConfig(name, `no GitopsCluster ${name} is registered`);
    const { spec } = document;
    // The cached client is looked up after the last await: a concurrent call may have built it meanwhile.
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
      const cached = this.clients.get(name);
      if (cached?.hash === hash && cached.eksToken === connection.token) return cached;
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'eks', server: connection.endpoint, caData: connection.caData, skipTLSVerify: false }],
        users: [{ name: 'eks', token: connection.token }],
        contexts: [{ name: 'eks', cluster: 'eks', user: 'eks' }],
        currentContext: 'eks',
      });
      const client = this.makeClient(name, hash, kc, [connection.token]);
      client.eksToken = connection.token;
      // Only the token changed: what discovery or a read found still holds.
      if (cached?.hash === hash) {
        client.discovery = cached.discovery;
        client.foundVersions = cached.foundVersions;
      }
      this.replace(cached, client);
      return client;
    }

    const source = await kubeconfigFromSecret(this.options.secrets, key, spec);
    const hash = sha256(JSON.stringify(spec), source.text);
    const cached = this.clients.get(name);
    if (cached?.hash === hash) return cached;
    const kc = loadKubeconfig(name, source.where, source.text);
    const user = kc.getCurrentUser();
    const client = this.makeClient(
      name,
      hash,
      kc,
      [user?.token, user?.password].filter((value): value is string => !!value),
    );
    this.replace(cached, client);
    return client;
  }

  /** Caches `client`; the connections of the client it replaces close once their requests are done. */
  private replace(previous: ClusterClient | undefined, client: ClusterClient): void {
    previous?.connections.close();
    this.clients.set(client.name, client);
  }

  /** What `kc.makeApiClient` builds, with the client's kept-alive connections as its authentication. */
  private makeClient(name: string, hash: string, kc: KubeConfig, redact: string[]): ClusterClient {
    const server = kc.getCurrentCluster()?.server;
    if (!server) throw badConfig(name, 'the kubeconfig has no server');
    const connections = new KeptAliveConnections(kc, this.options.now);
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: connections },
      httpApi: connections.httpApi,
    });
    return {
      name,
      hash,
      // Only the origin: a URL may carry user info.
      server: originOf(server),
      redact,
      customObjects: new CustomObjectsApi(configuration),
      apis: new ApisApi(configuration),
      connections,
    };
  }
}

function originOf(server: string | undefined): string {
  return server && URL.canParse(server) ? new URL(server).origin : '(no server)';
}

function sha256(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}
