// A fake Kubernetes API server for the objects the controller reads (Flux's HelmReleases, Kustomizations,
// ImagePolicies and OCIRepositories, Flagger's Canaries), for tests and the local demo. It speaks
// real HTTPS (a committed test CA, see certs/README.md), checks bearer tokens and a small RBAC model, and serves the
// REST paths, list semantics and discovery documents of a real kube-apiserver (docs/flux-status.md, "Reading app
// objects from a leaf cluster"), its objects with the `managedFields` a real one records, so the cluster readers run
// the real @kubernetes/client-node against it and pay for what it would send. Faults
// (status codes, hangs, dropped connections, latency, an unreachable cluster, LISTs that never end) can be injected
// while it runs. Large answers are streamed chunked, without a Content-Length, as the API server's encoder sends them.
import { listenOnLoopback } from './listen.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { stringify } from 'yaml';

// ---------------------------------------------------------------- resource types and served versions

export const HELM_GROUP = 'helm.toolkit.fluxcd.io';
export const KUSTOMIZE_GROUP = 'kustomize.toolkit.fluxcd.io';
export const IMAGE_GROUP = 'image.toolkit.fluxcd.io';
export const SOURCE_GROUP = 'source.toolkit.fluxcd.io';
/** Flagger's API group: Canaries, read by the `flaggerCanary` verification check. */
export const FLAGGER_GROUP = 'flagger.app';
/**
 * The CRD of OCIRepositories (`<plural>.<group>`): it serves fewer versions than its group, whose GitRepositories
 * (not served by the fake) are v1 since Flux 2.0 while OCIRepositories are v1 only since Flux 2.6.
 */
export const OCI_REPOSITORY_CRD = 'ocirepositories.source.toolkit.fluxcd.io';

interface ResourceType {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
}

const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    group: HELM_GROUP,
    kind: 'HelmRelease',
    listKind: 'HelmReleaseList',
    plural: 'helmreleases',
    singular: 'helmrelease',
    shortNames: ['hr'],
  },
  {
    group: KUSTOMIZE_GROUP,
    kind: 'Kustomization',
    listKind: 'KustomizationList',
    plural: 'kustomizations',
    singular: 'kustomization',
    shortNames: ['ks'],
  },
  {
    group: IMAGE_GROUP,
    kind: 'ImagePolicy',
    listKind: 'ImagePolicyList',
    plural: 'imagepolicies',
    singular: 'imagepolicy',
    shortNames: ['imgpol', 'imagepol'],
  },
  {
    group: SOURCE_GROUP,
    kind: 'OCIRepository',
    listKind: 'OCIRepositoryList',
    plural: 'ocirepositories',
    singular: 'ocirepository',
    shortNames: ['ocirepo'],
  },
  {
    group: FLAGGER_GROUP,
    kind: 'Canary',
    listKind: 'CanaryList',
    plural: 'canaries',
    singular: 'canary',
    shortNames: [],
  },
];

/** The kinds the fake serves. */
export type FakeKind = 'HelmRelease' | 'Kustomization' | 'ImagePolicy' | 'OCIRepository' | 'Canary';

/**
 * Versions served per API group, preferred (storage) version first; and per CRD (`<plural>.<group>`, the CRD's name)
 * where a CRD serves fewer versions than its group (the others are served by CRDs the fake does not have). A CRD
 * without an entry is served in every version of its group.
 */
export type ServedVersions = Readonly<Record<string, readonly string[]>>;

/** What each Flux release serves (docs/flux-status.md, "Flux releases 2.0 to 2.9"). */
export const FLUX_SERVED_VERSIONS = {
  /** Flux 2.2: HelmRelease v2 does not exist yet. */
  '2.2': {
    [HELM_GROUP]: ['v2beta2', 'v2beta1'],
    [KUSTOMIZE_GROUP]: ['v1', 'v1beta2', 'v1beta1'],
    [IMAGE_GROUP]: ['v1beta2', 'v1beta1'],
    [SOURCE_GROUP]: ['v1', 'v1beta2', 'v1beta1'],
    [OCI_REPOSITORY_CRD]: ['v1beta2'],
  },
  /** Flux 2.4–2.5: every app version; OCIRepository v1beta2 only, though its group serves v1. */
  '2.4': {
    [HELM_GROUP]: ['v2', 'v2beta2', 'v2beta1'],
    [KUSTOMIZE_GROUP]: ['v1', 'v1beta2', 'v1beta1'],
    [IMAGE_GROUP]: ['v1beta2', 'v1beta1'],
    [SOURCE_GROUP]: ['v1', 'v1beta2', 'v1beta1'],
    [OCI_REPOSITORY_CRD]: ['v1beta2'],
  },
  /** Flux 2.6: everything, OCIRepository v1 included. The default. */
  '2.6': {
    [HELM_GROUP]: ['v2', 'v2beta2', 'v2beta1'],
    [KUSTOMIZE_GROUP]: ['v1', 'v1beta2', 'v1beta1'],
    [IMAGE_GROUP]: ['v1beta2', 'v1beta1'],
    [SOURCE_GROUP]: ['v1', 'v1beta2', 'v1beta1'],
    [OCI_REPOSITORY_CRD]: ['v1', 'v1beta2'],
  },
  /** Flux 2.7: the v1beta1 APIs are gone; ImagePolicy v1 is new. */
  '2.7': {
    [HELM_GROUP]: ['v2', 'v2beta2'],
    [KUSTOMIZE_GROUP]: ['v1', 'v1beta2'],
    [IMAGE_GROUP]: ['v1', 'v1beta2'],
    [SOURCE_GROUP]: ['v1', 'v1beta2'],
  },
  /** Flux 2.8: HelmRelease v2beta2, Kustomization v1beta2 and the source v1beta2 APIs are gone. */
  '2.8': { [HELM_GROUP]: ['v2'], [KUSTOMIZE_GROUP]: ['v1'], [IMAGE_GROUP]: ['v1', 'v1beta2'], [SOURCE_GROUP]: ['v1'] },
  /** Flux 2.9: as 2.8 for what is read here (it removed notification.toolkit.fluxcd.io/v1beta2). */
  '2.9': { [HELM_GROUP]: ['v2'], [KUSTOMIZE_GROUP]: ['v1'], [IMAGE_GROUP]: ['v1', 'v1beta2'], [SOURCE_GROUP]: ['v1'] },
} as const satisfies Record<string, ServedVersions>;

/**
 * What Flagger serves: `flagger.app/v1beta1` (Flagger 1.x). Served besides whichever Flux release a fake serves, as a
 * fleet installs Flagger on its own; `setServedVersions(FLAGGER_GROUP, [])` is a cluster without it.
 */
export const FLAGGER_SERVED_VERSIONS = { [FLAGGER_GROUP]: ['v1beta1'] } as const satisfies ServedVersions;

// ---------------------------------------------------------------- public types

/** Who a bearer token is, and what it may read (a leaf cluster's read-only RBAC, reduced to namespaces). */
export interface FakeKubeUser {
  /** The user name in Forbidden messages. */
  name: string;
  /** Namespaces in which the user may get and list; undefined: all. */
  namespaces?: readonly string[];
  /** Whether a cluster-wide LIST is allowed. Default: true when `namespaces` is undefined, else false. */
  listClusterWide?: boolean;
  /**
   * Whether the user may read discovery (`/api`, `/apis`, `/apis/<group>[/<version>]`, `/version`). Default true: the
   * `system:discovery` ClusterRole grants it to every authenticated user, unless a cluster removed that binding.
   */
  discovery?: boolean;
}

export type FakeRequestType = 'get' | 'list' | 'discovery' | 'other';

export interface FakeRequest {
  method: string;
  /** The decoded path, without the query. */
  path: string;
  query: Record<string, string>;
  type: FakeRequestType;
  /** The authenticated user, when there was one. */
  user?: string;
  /** The status answered; undefined while pending, for a hang, or a closed connection. */
  status?: number;
}

export interface FaultMatch {
  /** How many matching requests get the fault. Default 1. */
  times?: number;
  /** Only requests whose path contains this string (or, for a RegExp, whose `path?query` matches). */
  path?: string | RegExp;
}

export type Fault =
  | { type: 'status'; status: number; message?: string }
  /** Never answer; the connection stays open until the client gives up or the server stops. */
  | { type: 'hang' }
  /** Destroy the connection without an answer. */
  | { type: 'close' }
  /** Send the status line, the headers and half of the real body, then nothing more (a stalled body). */
  | { type: 'stall' };

export interface FakeKubeApiOptions {
  /** The bearer token of the default, unrestricted user. Default: random. */
  token?: string;
  /** The default token's user. Default `{ name: 'test-user' }` (may read everything). */
  user?: FakeKubeUser;
  /** More tokens and their users. */
  users?: Readonly<Record<string, FakeKubeUser>>;
  /** Consulted for tokens that are not in the table (e.g. accept any `k8s-aws-v1.` EKS token). */
  authenticate?: (token: string) => FakeKubeUser | undefined;
  /**
   * Served versions per group (and CRD). Default Flux 2.6 (`FLUX_SERVED_VERSIONS['2.6']`). Flagger's group is served
   * too (`FLAGGER_SERVED_VERSIONS`) unless these name it.
   */
  servedVersions?: ServedVersions;
  /** Delay before each answer, in ms: fixed, or computed per request. Default 0. */
  latencyMs?: number | ((request: FakeRequest) => number);
  /** Objects to start with. */
  objects?: readonly object[];
}

/**
 * A LIST that never ends, as from an API server that misbehaves (or is in hostile hands): every page is full and
 * hands out a new `continue` token, with objects made up on the fly.
 */
export interface EndlessLists {
  /** Objects per page. Default: the request's `limit` (500 without one). */
  itemsPerPage?: number;
}

export interface KubeconfigOptions {
  /** Default: the server's current default token. */
  token?: string;
  /** The name of the cluster, user and context entries. Default `fake`. */
  name?: string;
}

/** A stored object: any JSON object with metadata. */
export type KubeObject = Record<string, unknown> & { metadata: Record<string, unknown> };

type PendingFault = Fault & { remaining: number; path?: string | RegExp };

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
  epoch: number;
}

const certDirectory = new URL('./certs/', import.meta.url);

/** How long the server keeps an idle connection open, as kube-apiserver does. */
const KEEP_ALIVE_TIMEOUT_MS = 90_000;

/** Answers over this many bytes are sent chunked, without a Content-Length, in pieces of this size. */
const STREAMED_ANSWER_BYTES = 64 * 1024;

/** The test CA that signed the fake's certificate (PEM). */
export const FAKE_CA_PEM = readFileSync(new URL('ca.crt', certDirectory), 'utf8');

// ---------------------------------------------------------------- the server

/**
 * The groups an EKS cluster (Kubernetes 1.31, the VPC CNI and metrics-server installed) serves besides Flux's, as
 * `GET /apis` lists them first: a client that discovers reads their list too. Their resources are not served here.
 */
const BUILT_IN_GROUPS: Readonly<Record<string, readonly string[]>> = {
  'apiregistration.k8s.io': ['v1'],
  apps: ['v1'],
  'events.k8s.io': ['v1'],
  'authentication.k8s.io': ['v1'],
  'authorization.k8s.io': ['v1'],
  autoscaling: ['v2', 'v1'],
  batch: ['v1'],
  'certificates.k8s.io': ['v1'],
  'networking.k8s.io': ['v1'],
  policy: ['v1'],
  'rbac.authorization.k8s.io': ['v1'],
  'storage.k8s.io': ['v1'],
  'admissionregistration.k8s.io': ['v1'],
  'apiextensions.k8s.io': ['v1'],
  'scheduling.k8s.io': ['v1'],
  'coordination.k8s.io': ['v1'],
  'node.k8s.io': ['v1'],
  'discovery.k8s.io': ['v1'],
  'flowcontrol.apiserver.k8s.io': ['v1', 'v1beta3'],
  'crd.k8s.amazonaws.com': ['v1alpha1'],
  'networking.k8s.aws': ['v1alpha1'],
  'vpcresources.k8s.aws': ['v1beta1', 'v1alpha1'],
  'metrics.k8s.io': ['v1beta1'],
};

export class FakeKubeApi {
  /** The CA to trust (PEM) and the same as kubeconfig `certificate-authority-data` (base64 of the PEM). */
  readonly caPem = FAKE_CA_PEM;
  readonly caData = Buffer.from(FAKE_CA_PEM).toString('base64');
  /** Every request received, oldest first (cleared by `resetRequests`). */
  readonly requests: FakeRequest[] = [];
  latencyMs: number | ((request: FakeRequest) => number);

  private currentToken: string;
  private readonly users = new Map<string, FakeKubeUser>();
  private readonly authenticate?: (token: string) => FakeKubeUser | undefined;
  private servedVersions: Record<string, readonly string[]>;
  private readonly objects = new Map<string, KubeObject>();
  private resourceVersion = 1000;
  private continueEpoch = 0;
  private faults: PendingFault[] = [];
  private isOffline = false;
  private server?: Server;
  private port?: number;
  private readonly sockets = new Set<Socket>();
  private tlsConnectionCount = 0;
  private readonly pending = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private endless?: EndlessLists;
  private endlessCount = 0;

  constructor(options: FakeKubeApiOptions = {}) {
    this.currentToken = options.token ?? `test-token-${randomBytes(12).toString('hex')}`;
    this.users.set(this.currentToken, options.user ?? { name: 'test-user' });
    for (const [token, user] of Object.entries(options.users ?? {})) this.users.set(token, user);
    this.authenticate = options.authenticate;
    this.servedVersions = { ...FLAGGER_SERVED_VERSIONS, ...(options.servedVersions ?? FLUX_SERVED_VERSIONS['2.6']) };
    this.latencyMs = options.latencyMs ?? 0;
    for (const object of options.objects ?? []) this.put(object);
  }

  /** Creates and starts a server. */
  static async start(options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
    return new FakeKubeApi(options).start();
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer(
      {
        key: readFileSync(new URL('server.key', certDirectory)),
        cert: readFileSync(new URL('server.crt', certDirectory)),
      },
      (request, response) => {
        this.handle(request, response).catch((error: unknown) => {
          // A bug in the fake (or a throwing latency function) answers 500 rather than crashing the test process.
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify(statusBody(500, `fake API server: ${String(error)}`)));
        });
      },
    );
    server.on('connection', (socket: Socket) => {
      if (this.isOffline) {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', () => {
      this.tlsConnectionCount += 1;
    });
    // A client that gives up mid-handshake is not an error of the fake.
    server.on('tlsClientError', () => undefined);
    // kube-apiserver closes a connection idle for 90 s (its secure serving's IdleTimeout); node's default is 5 s.
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    this.port = await listenOnLoopback(server);
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.dropEverything();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** `https://127.0.0.1:<port>`. */
  get url(): string {
    if (this.port === undefined) throw new Error('FakeKubeApi is not started');
    return `https://127.0.0.1:${this.port}`;
  }

  /** The default user's bearer token. */
  get token(): string {
    return this.currentToken;
  }

  /** Replaces the default user's token (the old one stops working) and returns the new one. */
  rotateToken(token = `test-token-${randomBytes(12).toString('hex')}`): string {
    const user = this.users.get(this.currentToken) ?? { name: 'test-user' };
    this.users.delete(this.currentToken);
    this.users.set(token, user);
    this.currentToken = token;
    return token;
  }

  /** Adds or replaces a token's user (RBAC). */
  setUser(token: string, user: FakeKubeUser): void {
    this.users.set(token, user);
  }

  removeUser(token: string): void {
    this.users.delete(token);
  }

  /**
   * Changes the versions served for a group (an empty list stops serving the group), or for one CRD of it
   * (`<plural>.<group>`, e.g. `OCI_REPOSITORY_CRD`).
   */
  setServedVersions(groupOrCrd: string, versions: readonly string[]): void {
    this.servedVersions[groupOrCrd] = [...versions];
  }

  // ---------------------------------------------------------------- objects

  /** Creates or replaces an object (stored once, whatever its apiVersion), with a new resourceVersion. */
  put(object: object): KubeObject {
    const copy = structuredClone(object) as KubeObject;
    const type = typeOfObject(copy);
    if (!copy.metadata || typeof copy.metadata !== 'object') throw new Error('object has no metadata');
    const name = copy.metadata.name;
    if (typeof name !== 'string' || name === '') throw new Error('object has no metadata.name');
    const namespace = typeof copy.metadata.namespace === 'string' ? copy.metadata.namespace : 'default';
    const key = objectKey(type, namespace, name);
    const previous = this.objects.get(key);
    copy.metadata = {
      uid: previous?.metadata.uid ?? randomUUID(),
      creationTimestamp: previous?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      generation: 1,
      ...copy.metadata,
      namespace,
      resourceVersion: String(++this.resourceVersion),
    };
    copy.metadata.managedFields ??= managedFieldsOf(copy, type);
    this.objects.set(key, copy);
    return structuredClone(copy);
  }

  /** Deletes an object; false when there was none. */
  delete(kind: FakeKind, namespace: string, name: string): boolean {
    return this.objects.delete(objectKey(typeOfKind(kind), namespace, name));
  }

  /** A copy of a stored object, or undefined. */
  object(kind: FakeKind, namespace: string, name: string): KubeObject | undefined {
    const stored = this.objects.get(objectKey(typeOfKind(kind), namespace, name));
    return stored && structuredClone(stored);
  }

  /** Changes a stored object in place (bumps its resourceVersion). Throws when there is no such object. */
  update(kind: FakeKind, namespace: string, name: string, change: (object: KubeObject) => void): KubeObject {
    const stored = this.objects.get(objectKey(typeOfKind(kind), namespace, name));
    if (!stored) throw new Error(`no ${kind} ${namespace}/${name}`);
    change(stored);
    stored.metadata.resourceVersion = String(++this.resourceVersion);
    return structuredClone(stored);
  }

  /** Merges `patch` into the object's status (top-level fields replaced), like a controller's status patch. */
  patchStatus(kind: FakeKind, namespace: string, name: string, patch: Record<string, unknown>): KubeObject {
    return this.update(kind, namespace, name, (object) => {
      const status = object.status && typeof object.status === 'object' ? object.status : {};
      object.status = { ...status, ...structuredClone(patch) };
    });
  }

  /** Removes every object. */
  clear(): void {
    this.objects.clear();
  }

  // ---------------------------------------------------------------- request log

  /** How many requests of a type (all requests when no type) were received. */
  count(type?: FakeRequestType): number {
    return type ? this.requests.filter((request) => request.type === type).length : this.requests.length;
  }

  /**
   * TLS connections accepted (handshake completed) since the start or `resetRequests`: a client that keeps its
   * connections alive sends many requests over one.
   */
  get tlsConnections(): number {
    return this.tlsConnectionCount;
  }

  /** Connections open now, as the server sees them. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Clears the request log and the count of TLS connections. */
  resetRequests(): void {
    this.requests.length = 0;
    this.tlsConnectionCount = 0;
  }

  // ---------------------------------------------------------------- faults

  /** The next matching requests get `fault` instead of their answer. Faults queue in the order added. */
  injectFault(fault: Fault, match: FaultMatch = {}): void {
    this.faults.push({ ...fault, remaining: match.times ?? 1, path: match.path });
  }

  /** The next matching requests are answered with a Kubernetes Status of this code (500, 401, 403, 429, …). */
  failNext(status: number, match: FaultMatch & { message?: string } = {}): void {
    this.injectFault({ type: 'status', status, message: match.message }, match);
  }

  /** The next matching requests get no answer at all. */
  hangNext(match: FaultMatch = {}): void {
    this.injectFault({ type: 'hang' }, match);
  }

  /** The next matching requests have their connection destroyed. */
  closeNext(match: FaultMatch = {}): void {
    this.injectFault({ type: 'close' }, match);
  }

  /** The next matching requests get headers and half a body, then nothing. */
  stallNext(match: FaultMatch = {}): void {
    this.injectFault({ type: 'stall' }, match);
  }

  /** Drops faults not yet used. */
  clearFaults(): void {
    this.faults = [];
  }

  /** Every `continue` token handed out so far becomes too old: using one answers 410 Expired. */
  expireContinueTokens(): void {
    this.continueEpoch++;
  }

  /** Every LIST from now on is endless (see EndlessLists); `false` ends that. */
  endlessLists(options: EndlessLists | false = {}): void {
    this.endless = options === false ? undefined : { ...options };
  }

  /** An unreachable cluster: open connections are destroyed, new ones are dropped right away. */
  offline(): void {
    this.isOffline = true;
    this.dropEverything();
  }

  online(): void {
    this.isOffline = false;
  }

  // ---------------------------------------------------------------- kubeconfig

  /** A kubeconfig for this server (CA data embedded, bearer token), as a Secret's `value` would hold it. */
  kubeconfig(options: KubeconfigOptions = {}): string {
    const name = options.name ?? 'fake';
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server: this.url, 'certificate-authority-data': this.caData } }],
      users: [{ name, user: { token: options.token ?? this.currentToken } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      'current-context': name,
    });
  }

  // ---------------------------------------------------------------- handling

  private dropEverything(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const response of this.pending) response.destroy();
    this.pending.clear();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'https://fake');
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      path = url.pathname;
    }
    const query = Object.fromEntries(url.searchParams);
    const logged: FakeRequest = { method: request.method ?? 'GET', path, query, type: requestType(path) };
    this.requests.push(logged);
    this.pending.add(response);
    response.on('close', () => this.pending.delete(response));

    const latency = typeof this.latencyMs === 'function' ? this.latencyMs(logged) : this.latencyMs;
    if (latency > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, latency);
        this.timers.add(timer);
      });
      if (response.destroyed) return;
    }

    const fault = this.takeFault(path, url.search);
    if (fault?.type === 'hang') return;
    if (fault?.type === 'close') {
      request.socket.destroy();
      return;
    }
    if (fault?.type === 'status') {
      this.send(response, logged, fault.status, statusBody(fault.status, fault.message));
      return;
    }

    const user = this.authenticateRequest(request);
    if (!user) {
      this.send(response, logged, 401, statusBody(401));
      return;
    }
    logged.user = user.name;
    if (logged.method !== 'GET') {
      this.send(response, logged, 405, statusBody(405, `the fake API server is read-only: ${logged.method}`));
      return;
    }
    const [code, body] = this.route(path, url.searchParams, user);
    this.send(response, logged, code, body, fault?.type === 'stall');
  }

  private takeFault(path: string, search: string): PendingFault | undefined {
    const index = this.faults.findIndex((fault) =>
      fault.path === undefined
        ? true
        : typeof fault.path === 'string'
          ? path.includes(fault.path)
          : fault.path.test(path + search),
    );
    const fault = this.faults[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private authenticateRequest(request: IncomingMessage): FakeKubeUser | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const token = match?.[1];
    if (!token) return undefined;
    return this.users.get(token) ?? this.authenticate?.(token);
  }

  /** Sends `body` as JSON, or a `PlainText` as is (the API server's not-found handler answers in plain text). */
  private send(response: ServerResponse, logged: FakeRequest, status: number, body: unknown, stall = false): void {
    if (response.destroyed || response.writableEnded) return;
    logged.status = status;
    const plain = body instanceof PlainText;
    const bytes = Buffer.from(plain ? body.text : JSON.stringify(body));
    // As the API server's encoder streams a large answer: chunked, with no Content-Length to tell its size up front.
    const streamed = bytes.length > STREAMED_ANSWER_BYTES;
    response.writeHead(status, {
      'content-type': plain ? 'text/plain; charset=utf-8' : 'application/json',
      ...(streamed ? {} : { 'content-length': bytes.length }),
      'audit-id': randomUUID(),
      'cache-control': 'no-cache, private',
    });
    if (stall) response.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    else if (!streamed) response.end(bytes);
    else {
      for (let offset = 0; offset < bytes.length; offset += STREAMED_ANSWER_BYTES) {
        response.write(bytes.subarray(offset, offset + STREAMED_ANSWER_BYTES));
      }
      response.end();
    }
  }

  private route(path: string, params: URLSearchParams, user: FakeKubeUser): [number, unknown] {
    const parts = path.split('/').filter(Boolean);
    if (requestType(path) === 'discovery' && user.discovery === false) {
      return forbidden(`forbidden: User "${user.name}" cannot get path "${path}"`, {});
    }
    if (path === '/version') {
      return [200, { major: '1', minor: '31', gitVersion: 'v1.31.0-fake', platform: 'linux/amd64' }];
    }
    if (path === '/api') {
      return [200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] }];
    }
    if (parts[0] !== 'apis') return notFoundPath();
    if (parts.length === 1) {
      return [200, { kind: 'APIGroupList', apiVersion: 'v1', groups: this.apiGroups() }];
    }
    const group = parts[1] ?? '';
    const served = this.groupVersions(group);
    if (parts.length === 2) {
      const apiGroup = this.apiGroups().find((candidate) => candidate.name === group);
      return apiGroup ? [200, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup }] : notFoundPath();
    }
    const version = parts[2] ?? '';
    if (parts.length === 3) {
      if (!served.includes(version)) return notFoundPath();
      return [200, this.resourceList(group, version)];
    }
    // /apis/g/v/plural | /apis/g/v/namespaces/ns/plural | /apis/g/v/namespaces/ns/plural/name[/status]
    let namespace: string | undefined;
    let rest = parts.slice(3);
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const type = RESOURCE_TYPES.find((candidate) => candidate.group === group && candidate.plural === rest[0]);
    if (!type || rest.length > 3 || (rest.length === 3 && rest[2] !== 'status')) return notFoundPath();
    if (rest.length === 1 && namespace === undefined && parts.length === 4) {
      return this.list(type, version, undefined, params, user);
    }
    if (rest.length === 1 && namespace !== undefined) return this.list(type, version, namespace, params, user);
    if (rest.length >= 2 && namespace !== undefined) return this.get(type, version, namespace, rest[1] ?? '', user);
    return notFoundPath();
  }

  private apiGroups(): Array<{
    name: string;
    versions: Array<{ groupVersion: string; version: string }>;
    preferredVersion: { groupVersion: string; version: string };
  }> {
    const groups = [];
    for (const name of [...Object.keys(BUILT_IN_GROUPS), ...Object.keys(this.servedVersions)]) {
      const versions = this.groupVersions(name);
      const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
      const preferred = list[0];
      if (preferred) groups.push({ name, versions: list, preferredVersion: preferred });
    }
    return groups;
  }

  /** The versions a group serves (none for a CRD's entry, which only narrows its group's). */
  private groupVersions(group: string): readonly string[] {
    return isCrdName(group) ? [] : (this.servedVersions[group] ?? BUILT_IN_GROUPS[group] ?? []);
  }

  /** Whether `type` is served in `version`: its group serves it, and so does its CRD when that serves fewer. */
  private serves(type: ResourceType, version: string): boolean {
    const crd = this.servedVersions[crdName(type)];
    return this.groupVersions(type.group).includes(version) && (crd === undefined || crd.includes(version));
  }

  private resourceList(group: string, version: string): unknown {
    const resources = RESOURCE_TYPES.filter((type) => type.group === group && this.serves(type, version)).flatMap(
      (type) => [
        {
          name: type.plural,
          singularName: type.singular,
          namespaced: true,
          kind: type.kind,
          verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
          shortNames: type.shortNames,
          categories: ['all'],
        },
        { name: `${type.plural}/status`, singularName: '', namespaced: true, kind: type.kind, verbs: ['get', 'patch'] },
      ],
    );
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources };
  }

  private get(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    user: FakeKubeUser,
  ): [number, unknown] {
    const resource = `${type.plural}.${type.group}`;
    if (user.namespaces && !user.namespaces.includes(namespace)) {
      return forbidden(
        `${resource} "${name}" is forbidden: User "${user.name}" cannot get resource "${type.plural}" in API group "${type.group}" in the namespace "${namespace}"`,
        { name, group: type.group, kind: type.plural },
      );
    }
    if (!this.serves(type, version)) return notFoundPath();
    const stored = this.objects.get(objectKey(type, namespace, name));
    if (!stored) {
      return [404, statusBody(404, `${resource} "${name}" not found`, { name, group: type.group, kind: type.plural })];
    }
    return [200, this.asVersion(stored, type, version)];
  }

  private list(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    params: URLSearchParams,
    user: FakeKubeUser,
  ): [number, unknown] {
    const resource = `${type.plural}.${type.group}`;
    const clusterWide = user.listClusterWide ?? user.namespaces === undefined;
    if (namespace === undefined ? !clusterWide : user.namespaces && !user.namespaces.includes(namespace)) {
      const scope = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
      return forbidden(
        `${resource} is forbidden: User "${user.name}" cannot list resource "${type.plural}" in API group "${type.group}" ${scope}`,
        { group: type.group, kind: type.plural },
      );
    }
    if (!this.serves(type, version)) return notFoundPath();
    if (this.endless) return this.endlessPage(type, version, namespace, params, this.endless);

    let labelFilter: (labels: Record<string, unknown>) => boolean;
    let fieldFilter: (object: KubeObject) => boolean;
    try {
      labelFilter = parseLabelSelector(params.get('labelSelector') ?? '');
      fieldFilter = parseFieldSelector(params.get('fieldSelector') ?? '');
    } catch (error) {
      return [400, statusBody(400, (error as Error).message)];
    }

    let start = '';
    let listRv = this.resourceVersion;
    const continueParam = params.get('continue');
    if (continueParam) {
      let token: ContinueToken;
      try {
        token = JSON.parse(Buffer.from(continueParam, 'base64url').toString('utf8')) as ContinueToken;
        if (typeof token.start !== 'string' || typeof token.rv !== 'number') throw new Error('bad token');
      } catch {
        return [400, statusBody(400, 'continue key is not valid: incorrect encoded start resourceVersion')];
      }
      if (token.epoch !== this.continueEpoch) {
        return [
          410,
          statusBody(
            410,
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          ),
        ];
      }
      start = token.start;
      listRv = token.rv;
    }

    const prefix = `${type.plural}.${type.group}/`;
    const matching = [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, object]) => ({ position: key.slice(prefix.length), object }))
      .filter(({ object }) => namespace === undefined || object.metadata.namespace === namespace)
      .filter(({ position }) => position > start)
      .filter(({ object }) => labelFilter(labelsOf(object)) && fieldFilter(object))
      .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));

    const limit = Number.parseInt(params.get('limit') ?? '0', 10);
    const page = limit > 0 ? matching.slice(0, limit) : matching;
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    const last = page.at(-1);
    if (limit > 0 && matching.length > page.length && last) {
      const token: ContinueToken = { v: 'meta.k8s.io/v1', rv: listRv, start: last.position, epoch: this.continueEpoch };
      metadata.continue = Buffer.from(JSON.stringify(token)).toString('base64url');
      if (!params.get('labelSelector') && !params.get('fieldSelector')) {
        metadata.remainingItemCount = matching.length - page.length;
      }
    }
    return [
      200,
      {
        apiVersion: `${type.group}/${version}`,
        kind: type.listKind,
        metadata,
        items: page.map(({ object }) => this.asVersion(object, type, version)),
      },
    ];
  }

  /** A full page of made-up objects (see EndlessLists), with a new `continue` token. */
  private endlessPage(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    params: URLSearchParams,
    endless: EndlessLists,
  ): [number, unknown] {
    const limit = Number.parseInt(params.get('limit') ?? '0', 10);
    const count = endless.itemsPerPage ?? (limit > 0 ? limit : 500);
    const items = Array.from({ length: count }, () => {
      const name = `endless-${++this.endlessCount}`;
      return endlessObject(type, version, namespace ?? 'endless', name, ++this.resourceVersion);
    });
    const token: ContinueToken = {
      v: 'meta.k8s.io/v1',
      rv: this.resourceVersion,
      start: `endless/${this.endlessCount}`,
      epoch: this.continueEpoch,
    };
    const metadata = {
      resourceVersion: String(this.resourceVersion),
      continue: Buffer.from(JSON.stringify(token)).toString('base64url'),
      remainingItemCount: 1_000_000,
    };
    return [200, { apiVersion: `${type.group}/${version}`, kind: type.listKind, metadata, items }];
  }

  /** The stored object as served in `version`: no conversion, only the apiVersion changes, as with Flux's CRDs. */
  private asVersion(object: KubeObject, type: ResourceType, version: string): KubeObject {
    const copy = structuredClone(object);
    copy.apiVersion = `${type.group}/${version}`;
    copy.kind = type.kind;
    return copy;
  }
}

// ---------------------------------------------------------------- helpers

/** A made-up object of an endless LIST: a Ready one, about as large as a real one with its status (~1.5 KiB). */
function endlessObject(
  type: ResourceType,
  version: string,
  namespace: string,
  name: string,
  resourceVersion: number,
): KubeObject {
  const time = '2026-01-01T00:00:00Z';
  return {
    apiVersion: `${type.group}/${version}`,
    kind: type.kind,
    metadata: {
      name,
      namespace,
      uid: randomUUID(),
      resourceVersion: String(resourceVersion),
      generation: 1,
      creationTimestamp: time,
      labels: { 'app.kubernetes.io/name': name, 'kustomize.toolkit.fluxcd.io/name': 'apps' },
      finalizers: ['finalizers.fluxcd.io'],
    },
    spec: {
      interval: '10m',
      chart: { spec: { chart: name, version: '1.0.0', sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
      values: { replicaCount: 2, image: { repository: `registry.example/${name}`, tag: '1.0.0' } },
    },
    status: {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'InstallSucceeded',
          message: `Helm install succeeded for release ${namespace}/${name}.v1 with chart ${name}@1.0.0`,
          lastTransitionTime: time,
          observedGeneration: 1,
        },
      ],
      history: [
        {
          name,
          namespace,
          version: 1,
          status: 'deployed',
          chartName: name,
          chartVersion: '1.0.0',
          appVersion: '1.0.0',
          digest: `sha256:${randomBytes(32).toString('hex')}`,
          firstDeployed: time,
          lastDeployed: time,
        },
      ],
      lastAttemptedRevision: '1.0.0',
    },
  };
}

/** The controller that writes each group's status, as its `managedFields` name it. */
const STATUS_MANAGERS: Readonly<Record<string, string>> = {
  [HELM_GROUP]: 'helm-controller',
  [KUSTOMIZE_GROUP]: 'kustomize-controller',
  [IMAGE_GROUP]: 'image-reflector-controller',
  [SOURCE_GROUP]: 'source-controller',
  [FLAGGER_GROUP]: 'flagger',
};

/**
 * What a real API server records of who wrote an object (`metadata.managedFields`, since Kubernetes 1.18) and
 * returns with it in every GET and LIST: the fields kustomize-controller applied (labels and spec) and the status
 * the group's controller wrote. Made from the object's own fields, so that its size follows the object's, as a real
 * one's does, and a reader pays for it as it would against a cluster.
 */
function managedFieldsOf(object: KubeObject, type: ResourceType): object[] {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : `${type.group}/v1`;
  const time = object.metadata.creationTimestamp;
  const entry = (manager: string, operation: string, fieldsV1: object) => ({
    manager,
    operation,
    apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1,
  });
  const applied = entry('kustomize-controller', 'Apply', {
    'f:metadata': { 'f:labels': fieldSet(object.metadata.labels) },
    'f:spec': fieldSet(object.spec),
  });
  if (object.status === undefined) return [applied];
  const manager = STATUS_MANAGERS[type.group] ?? 'controller';
  return [applied, { ...entry(manager, 'Update', { 'f:status': fieldSet(object.status) }), subresource: 'status' }];
}

/** A FieldsV1 set of `value`'s fields: each map's keys, nested; a list or a scalar is one field. */
function fieldSet(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return {
    '.': {},
    ...Object.fromEntries(Object.entries(value).map(([key, field]) => [`f:${key}`, fieldSet(field)])),
  };
}

function typeOfKind(kind: string): ResourceType {
  const type = RESOURCE_TYPES.find((candidate) => candidate.kind === kind);
  if (!type) throw new Error(`the fake API server does not serve kind ${kind}`);
  return type;
}

function typeOfObject(object: Record<string, unknown>): ResourceType {
  const type = typeOfKind(String(object.kind));
  const group = typeof object.apiVersion === 'string' ? object.apiVersion.split('/')[0] : undefined;
  if (group !== type.group) throw new Error(`a ${type.kind} must have apiVersion ${type.group}/<version>`);
  return type;
}

/** `<plural>.<group>`: the name of the type's CustomResourceDefinition. */
function crdName(type: ResourceType): string {
  return `${type.plural}.${type.group}`;
}

function isCrdName(name: string): boolean {
  return RESOURCE_TYPES.some((type) => crdName(type) === name);
}

function objectKey(type: ResourceType, namespace: string, name: string): string {
  // The position after the prefix sorts like etcd keys: by namespace, then name.
  return `${type.plural}.${type.group}/${namespace}/${name}`;
}

function labelsOf(object: KubeObject): Record<string, unknown> {
  const labels = object.metadata.labels;
  return labels && typeof labels === 'object' ? (labels as Record<string, unknown>) : {};
}

function requestType(path: string): FakeRequestType {
  const parts = path.split('/').filter(Boolean);
  if (path === '/version' || path === '/api' || (parts[0] === 'apis' && parts.length <= 3)) return 'discovery';
  if (parts[0] !== 'apis') return 'other';
  const rest = parts.slice(3);
  if (rest.length === 1 || (rest[0] === 'namespaces' && rest.length === 3)) return 'list';
  if (rest[0] === 'namespaces' && rest.length >= 4) return 'get';
  return 'other';
}

const STATUS_REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const DEFAULT_MESSAGES: Record<number, string> = {
  401: 'Unauthorized',
  403: 'forbidden: injected fault',
  429: 'Too many requests, please try again later.',
  500: 'Internal error occurred: injected fault',
  503: 'the server is currently unable to handle the request',
  504: 'Timeout: request did not complete within the allowed duration',
};

/** A `Status` (metav1) failure body, field order as the apiserver writes it. */
export function statusBody(code: number, message?: string, details?: Record<string, unknown>): Record<string, unknown> {
  const reason = STATUS_REASONS[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest');
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: message ?? DEFAULT_MESSAGES[code] ?? STATUS_CODES[code] ?? 'error',
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

function forbidden(message: string, details: Record<string, unknown>): [number, unknown] {
  return [403, statusBody(403, message, details)];
}

/** A body sent as plain text rather than JSON. */
class PlainText {
  constructor(readonly text: string) {}
}

/**
 * A path the API server does not serve, such as a version a CRD does not serve: it falls through to the API server's
 * not-found handler, which answers Go's `http.NotFound` (plain text, no Status), unlike an absent object of a served
 * version (a Status with reason NotFound and the object in its details).
 */
function notFoundPath(): [number, unknown] {
  return [404, new PlainText('404 page not found\n')];
}

/** Equality- and set-based label selectors: `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x,y)`. */
export function parseLabelSelector(selector: string): (labels: Record<string, unknown>) => boolean {
  const requirements: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      requirements.push(current);
      current = '';
    } else current += char;
  }
  requirements.push(current);
  const key = String.raw`([A-Za-z0-9][-A-Za-z0-9_./]*)`;
  const tests = requirements
    .map((requirement) => requirement.trim())
    .filter((requirement) => requirement !== '')
    .map((requirement): ((labels: Record<string, unknown>) => boolean) => {
      let match = new RegExp(`^${key}\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`).exec(requirement);
      if (match) {
        const [, name = '', operator, value] = match;
        return operator === '!=' ? (labels) => labels[name] !== value : (labels) => labels[name] === value;
      }
      match = new RegExp(`^${key}\\s+(in|notin)\\s+\\(([^)]*)\\)$`).exec(requirement);
      if (match) {
        const [, name = '', operator, list = ''] = match;
        const values = list.split(',').map((value) => value.trim());
        return operator === 'in'
          ? (labels) => values.includes(String(labels[name]))
          : (labels) => !(name in labels) || !values.includes(String(labels[name]));
      }
      match = new RegExp(`^(!?)${key}$`).exec(requirement);
      if (match) {
        const [, not, name = ''] = match;
        return not ? (labels) => !(name in labels) : (labels) => name in labels;
      }
      throw new Error(`unable to parse requirement: ${requirement}`);
    });
  return (labels) => tests.every((test) => test(labels));
}

function parseFieldSelector(selector: string): (object: KubeObject) => boolean {
  const tests = selector
    .split(',')
    .map((requirement) => requirement.trim())
    .filter((requirement) => requirement !== '')
    .map((requirement): ((object: KubeObject) => boolean) => {
      const match = /^(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(.*)$/.exec(requirement);
      if (!match) throw new Error(`field label not supported: ${requirement.split(/[!=]/)[0] ?? requirement}`);
      const [, field = '', operator, value] = match;
      const read = (object: KubeObject) => object.metadata[field.slice('metadata.'.length)];
      return operator === '!=' ? (object) => read(object) !== value : (object) => read(object) === value;
    });
  return (object) => tests.every((test) => test(object));
}
