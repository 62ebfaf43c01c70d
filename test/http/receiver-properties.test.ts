// Property-based abuse of the receiver (lib/http): thousands of generated requests, hostile and honest, through
// the handler itself, the Lambda function URL adapter and the node:http server. What holds for every one of them:
//
//   1. No 5xx while the dependencies are healthy: every answer is 200, 202 or a 4xx with one of the fixed bodies
//      and headers, and (in process) every request is one log line, none of them an error.
//   2. Nothing is enqueued without a correct signature: whenever a request enqueued something, it carried an HMAC of
//      exactly its raw body (the empty string for approvals) under the key of the cluster named in its path, or the
//      `hmac-key` of the Pipeline named in its path. The oracle is computed here, with node:crypto, from the path
//      and the bytes as the client sent them; and what is enqueued is about what the path names, nothing else.
//      An approval that enqueued its promotion wrote one `approved` audit entry under the name of the pipeline's
//      key; nothing else writes an audit entry.
//   3. No secret reaches a response, a log line or an audit entry: master keys, derived cluster keys, webhook hmac-keys, a GitHub
//      token and a kubeconfig planted in the secret source (raw, hex and base64), the signatures requests carry,
//      credentials in their headers and secret-looking parts of their bodies.
//   4. And, so that the suite can fail in the other direction: every correctly signed, well-formed Flux event
//      about an indexed app is answered 202 and enqueues exactly one check of that app, whatever headers, query,
//      casing or encoding it comes with.
//   5. No control character from the input reaches a log line raw: C0, DEL, C1 and the Unicode bidi controls in
//      paths, events and headers appear in the receiver's log attributes as `\u{…}` escapes (lib/logging/printable.ts),
//      whichever logger writes them. And a Weave webhook call without a well-formed X-Signature reads nothing.
//
// The world (clusters, pipelines, secrets) is fixed; fast-check picks the seeds and prints seed and path of a
// failure (replay it with `{ seed, path, endOnFailure: true }` in that fc.assert). The store is an in-memory fake of
// the methods the receiver uses, so thousands of runs take seconds; the queue encodes every message as the real
// adapters do, so a message that could not be sent would show as a 500. About two requests in five are honest
// (arbitraries.ts), and each property checks afterwards that enough requests were accepted, enqueued or carried
// secrets for it to mean something.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import type { GitopsClusterDocument, PipelineDocument } from '../../lib/config/schema.js';
import { fromFunctionUrlEvent, toFunctionUrlResult } from '../../lib/http/function-url.js';
import { startHttpServer } from '../../lib/http/node-server.js';
import type { RunningHttpServer } from '../../lib/http/node-server.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import type { HttpRequest } from '../../lib/http/types.js';
import { WebhookKeyCache } from '../../lib/http/webhook-key-cache.js';
import { appKeyOf, resolvePipeline } from '../../lib/pipeline/model.js';
import type { AppKey, ObjectKey } from '../../lib/pipeline/model.js';
import { decodeMessage, encodeMessage } from '../../lib/queue/messages.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import type { OutgoingMessage, Queue } from '../../lib/queue/port.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import type { ApprovalMarker } from '../../lib/decision/types.js';
import type { ApproveOutcome, AuditEntry, IndexedTarget, StoredCluster, StoredPipeline } from '../../lib/store/port.js';
import { EVENT_A_HELM_UPGRADE } from '../fixtures/flux-events.js';
import { corruptBase64, MAX_BODY_BYTES, requestPlans, signedEventPlans } from './arbitraries.js';
import type { RequestPlan, SignatureMutation, Transport, WorldNames } from './arbitraries.js';
import { functionUrlRequestContext } from '../fixtures/function-url.js';

// ---------------------------------------------------------------- the world

const NOW = new Date('2025-10-01T12:00:00Z');

/** Planted secrets: each is distinctive enough that finding it anywhere is a leak, not a coincidence. */
const MASTER_KEYS = {
  current: 'master-current-Q7rX2vLk9PzN4wT8yB3m',
  previous: 'master-previous-H5sJ1cVd6GfK0uE2aZ9p',
};
const PODINFO_HMAC_KEY = 'podinfo-hmac-key-T3nW8qLx5RbY1mZc7vKd';
const CHECKOUT_HMAC_KEY = 'checkout-hmac-key-P9dF2gHs4JkL6zXc8VbN';
const GITHUB_TOKEN = 'ghp_Zx81Kq4RmB7vN2cL5tY9wP3sD6fH0jG1aE8u';
const KUBE_TOKEN = 'eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5vdEFSZWFsS2V5In0.kube-token-W4rT7yU1iO3pA6sD9fG2';
const KUBE_CLIENT_KEY = Buffer.from('-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEINotARealKeyM2xQ8\n').toString('base64');
const KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{name: fleet-eu, cluster: {server: "https://fleet-eu.example:6443"}}]',
  `users: [{name: ci, user: {token: "${KUBE_TOKEN}", client-key-data: "${KUBE_CLIENT_KEY}"}}]`,
].join('\n');
/** What a Secrets Manager denial might say; only its name may be logged. */
const DENIAL_DETAIL = `denied while reading token=${GITHUB_TOKEN}`;

const FLEET_EU: ObjectKey = { namespace: 'flux-system', name: 'fleet-eu' };
const FLEET_US: ObjectKey = { namespace: 'flux-system', name: 'fleet-us' };
const EDGE_1: ObjectKey = { namespace: 'tenants', name: 'edge-1' };
const GHOST: ObjectKey = { namespace: 'flux-system', name: 'ghost' };
const REGISTERED_CLUSTERS = [FLEET_EU, FLEET_US, EDGE_1];

function clusterDocument(key: ObjectKey): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name: key.name, namespace: key.namespace },
    spec: { secretRef: { name: `${key.name}-kubeconfig` } },
  };
}

interface PipelineSpec {
  key: ObjectKey;
  kind: 'HelmRelease' | 'Kustomization';
  app: string;
  secretRef?: string;
  envs: { name: string; cluster: ObjectKey; namespace: string }[];
}

const PIPELINES: PipelineSpec[] = [
  {
    key: { namespace: 'flux-system', name: 'podinfo' },
    kind: 'HelmRelease',
    app: 'podinfo',
    secretRef: 'podinfo-webhook',
    envs: [
      { name: 'dev', cluster: FLEET_EU, namespace: 'apps' },
      { name: 'staging', cluster: FLEET_EU, namespace: 'staging' },
      { name: 'prod', cluster: FLEET_US, namespace: 'prod' },
    ],
  },
  {
    key: { namespace: 'flux-system', name: 'platform' },
    kind: 'Kustomization',
    app: 'apps',
    envs: [
      { name: 'dev', cluster: EDGE_1, namespace: 'flux-system' },
      { name: 'prod', cluster: FLEET_US, namespace: 'flux-system' },
    ],
  },
  {
    key: { namespace: 'team-a', name: 'checkout' },
    kind: 'HelmRelease',
    app: 'checkout',
    secretRef: 'github-credentials',
    envs: [{ name: 'dev', cluster: FLEET_EU, namespace: 'checkout' }],
  },
  {
    key: { namespace: 'flux-system', name: 'kube-ref' },
    kind: 'HelmRelease',
    app: 'kube-ref',
    secretRef: 'fleet-eu-kubeconfig',
    envs: [{ name: 'dev', cluster: FLEET_EU, namespace: 'kube' }],
  },
  {
    key: { namespace: 'flux-system', name: 'denied' },
    kind: 'HelmRelease',
    app: 'denied',
    secretRef: 'untagged-webhook',
    envs: [{ name: 'dev', cluster: FLEET_US, namespace: 'denied' }],
  },
];

/** The pipelines the index lists an app in, as the receiver tells the verifier (in PIPELINES order). */
function indexedPipelines(app: AppKey): ObjectKey[] {
  return PIPELINES.filter(
    (spec) =>
      spec.kind === app.kind &&
      spec.app === app.name &&
      spec.envs.some(
        (env) =>
          env.namespace === app.namespace &&
          env.cluster.namespace === app.cluster.namespace &&
          env.cluster.name === app.cluster.name,
      ),
  ).map((spec) => spec.key);
}

/** The webhook keys the oracle knows, by pipeline: only these two pipelines can be triggered or approved. */
const PIPELINE_HMAC_KEYS = new Map([
  ['flux-system/podinfo', PODINFO_HMAC_KEY],
  ['team-a/checkout', CHECKOUT_HMAC_KEY],
]);

/** `pipeline/env` → the revision an approval waits for there. */
const WAITING = new Map([
  ['flux-system/podinfo/prod', '6.9.2'],
  ['flux-system/podinfo/staging', 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1'],
  ['team-a/checkout/dev', '1.4.0+build.7'],
]);

function pipelineDocument(spec: PipelineSpec): PipelineDocument {
  const apiVersion = spec.kind === 'HelmRelease' ? 'helm.toolkit.fluxcd.io/v2' : 'kustomize.toolkit.fluxcd.io/v1';
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: spec.key.name, namespace: spec.key.namespace },
    spec: {
      appRef: { apiVersion, kind: spec.kind, name: spec.app },
      environments: spec.envs.map((env) => ({
        name: env.name,
        targets: [
          {
            namespace: env.namespace,
            clusterRef: { kind: 'GitopsCluster' as const, name: env.cluster.name, namespace: env.cluster.namespace },
          },
        ],
      })),
      promotion: {
        strategy: { notification: {}, ...(spec.secretRef && { secretRef: { name: spec.secretRef } }) },
      },
    },
  };
}

const keyString = (key: ObjectKey) => `${key.namespace}/${key.name}`;
const appString = (app: AppKey) => `${keyString(app.cluster)}/${app.kind}/${app.namespace}/${app.name}`;

type ReceiverStore = ReceiverDeps['store'];

/**
 * The store methods the receiver uses, in memory; it counts lookups so "verify first" can be checked, and keeps the
 * audit entries written.
 */
class FleetStore implements ReceiverStore {
  lookups = 0;
  readonly audit: AuditEntry[] = [];
  readonly #clusters = new Map<string, StoredCluster>();
  readonly #pipelines = new Map<string, StoredPipeline>();
  readonly #index = new Map<string, IndexedTarget[]>();

  constructor() {
    for (const key of REGISTERED_CLUSTERS) {
      this.#clusters.set(keyString(key), {
        document: clusterDocument(key),
        generation: 1,
        appliedAt: NOW.toISOString(),
      });
    }
    for (const spec of PIPELINES) {
      const document = pipelineDocument(spec);
      const pipeline = resolvePipeline(document);
      this.#pipelines.set(keyString(spec.key), { document, pipeline, generation: 1, appliedAt: NOW.toISOString() });
      for (const environment of pipeline.environments) {
        environment.targets.forEach((target, targetIndex) => {
          const app = appString(appKeyOf(pipeline, target));
          const entries = this.#index.get(app) ?? [];
          entries.push({ pipeline: spec.key, env: environment.name, targetIndex });
          this.#index.set(app, entries);
        });
      }
    }
  }

  indexedApps(): AppKey[] {
    return [...this.#pipelines.values()].flatMap(({ pipeline }) =>
      pipeline.environments.flatMap((environment) => environment.targets.map((target) => appKeyOf(pipeline, target))),
    );
  }

  getCluster(key: ObjectKey): Promise<StoredCluster | undefined> {
    this.lookups++;
    return Promise.resolve(this.#clusters.get(keyString(key)));
  }

  findTargets(app: AppKey): Promise<IndexedTarget[]> {
    this.lookups++;
    return Promise.resolve(this.#index.get(appString(app)) ?? []);
  }

  getPipeline(key: ObjectKey): Promise<StoredPipeline | undefined> {
    this.lookups++;
    return Promise.resolve(this.#pipelines.get(keyString(key)));
  }

  getApproval(pipeline: ObjectKey, env: string): Promise<ApprovalMarker | undefined> {
    this.lookups++;
    const revision = WAITING.get(`${keyString(pipeline)}/${env}`);
    return Promise.resolve(revision === undefined ? undefined : { env, revision, requestedAt: NOW.toISOString() });
  }

  appendAudit(entry: AuditEntry): Promise<void> {
    this.audit.push(entry);
    return Promise.resolve();
  }

  /** Stateless, so runs do not depend on each other: the waiting revision is approved every time. */
  approve(pipeline: ObjectKey, env: string, revision: string): Promise<ApproveOutcome> {
    this.lookups++;
    return Promise.resolve(WAITING.get(`${keyString(pipeline)}/${env}`) === revision ? 'approved' : 'not-waiting');
  }

  /** The fleet defines no ConfigSource (test/http/config-source-route.test.ts covers that route). */
  getConfigSource(): Promise<undefined> {
    this.lookups++;
    return Promise.resolve(undefined);
  }

  /** The fleet serves no input (test/http/inputs-route.test.ts covers that route). */
  getServedInput(): Promise<undefined> {
    this.lookups++;
    return Promise.resolve(undefined);
  }
}

/** Records what is sent, after encoding it as the SQS and embedded queues do (so an unsendable message throws). */
class RecordingQueue implements Queue {
  readonly sent: QueueMessage[] = [];

  send(message: QueueMessage): Promise<void> {
    const decoded = decodeMessage(encodeMessage(message));
    if (!decoded.ok) return Promise.reject(new Error(`undecodable message: ${decoded.reason}`));
    this.sent.push(decoded.message);
    return Promise.resolve();
  }

  async sendBatch(messages: readonly OutgoingMessage[]): Promise<void> {
    for (const { message } of messages) await this.send(message);
  }
}

/**
 * Like Secrets Manager when the receiver may not read a Secret: an AccessDenied whose text says too much. Counts
 * reads by Secret name, so a property can show that the Secrets holding a token or a kubeconfig were read.
 */
class DenyingSecretSource extends StaticSecretSource {
  readonly reads = new Map<string, number>();

  override getSecret(key: ObjectKey) {
    this.reads.set(key.name, (this.reads.get(key.name) ?? 0) + 1);
    if (key.name === 'untagged-webhook') {
      const denied = new Error(DENIAL_DETAIL);
      denied.name = 'AccessDeniedException';
      return Promise.reject(denied);
    }
    return super.getSecret(key);
  }
}

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  attributes: Record<string, unknown>;
}

const store = new FleetStore();
const queue = new RecordingQueue();
const secrets = new DenyingSecretSource([
  { key: { namespace: 'flux-system', name: 'podinfo-webhook' }, values: { 'hmac-key': PODINFO_HMAC_KEY } },
  {
    key: { namespace: 'team-a', name: 'github-credentials' },
    values: { username: 'git', password: GITHUB_TOKEN, 'hmac-key': CHECKOUT_HMAC_KEY },
  },
  { key: { namespace: 'flux-system', name: 'fleet-eu-kubeconfig' }, values: { value: KUBECONFIG } },
  { key: { namespace: 'flux-system', name: 'master-key' }, values: MASTER_KEYS },
]);
const logs: LogLine[] = [];
const deps: ReceiverDeps = {
  store,
  queue,
  secrets,
  masterKeys: () => Promise.resolve(MASTER_KEYS),
  logger: {
    info: (message, attributes = {}) => logs.push({ level: 'info', message, attributes }),
    warn: (message, attributes = {}) => logs.push({ level: 'warn', message, attributes }),
    error: (message, attributes = {}) => logs.push({ level: 'error', message, attributes }),
  },
  now: () => NOW,
};

const WORLD: WorldNames = {
  registeredClusters: REGISTERED_CLUSTERS,
  unregisteredClusters: [GHOST, { namespace: 'tenants', name: 'fleet-eu' }],
  pipelines: PIPELINES.map((spec) => ({ key: spec.key, envs: spec.envs.map((env) => env.name) })),
  waitingApprovals: [...WAITING].map(([where, revision]) => {
    const [namespace = '', name = '', env = ''] = where.split('/');
    return { pipeline: { namespace, name }, env, revision };
  }),
  indexedApps: store.indexedApps(),
};

// ---------------------------------------------------------------- the oracle (independent of lib/http)

/** HMAC-SHA256(master key, "cluster:ns/name") as lowercase hex: the README's derivation, written out again. */
function clusterKeyOf(masterKey: string, cluster: ObjectKey): string {
  return createHmac('sha256', masterKey).update(`cluster:${cluster.namespace}/${cluster.name}`).digest('hex');
}

type OracleRoute =
  | { route: 'events'; cluster: ObjectKey }
  | { route: 'promotion'; pipeline: ObjectKey; env: string }
  | { route: 'approval'; pipeline: ObjectKey; env: string; revision: string }
  | { route: 'healthz' };

/**
 * What a path names, by the README's table: each segment percent-decoded on its own, none empty; one trailing
 * slash is ignored.
 */
function oracleRoute(path: string): OracleRoute | undefined {
  if (!path.startsWith('/')) return undefined;
  const segments = (path !== '/' && path.endsWith('/') ? path.slice(1, -1) : path.slice(1)).split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    try {
      decoded.push(decodeURIComponent(segment));
    } catch {
      return undefined;
    }
  }
  const [first, ...rest] = segments;
  const params = (from: number, count: number) =>
    decoded.length === from + count && decoded.slice(from).every((value) => value !== '')
      ? decoded.slice(from)
      : undefined;
  if (first === 'healthz' && segments.length === 1) return { route: 'healthz' };
  if (first === 'v1' && rest[0] === 'events') {
    const [namespace, name] = params(2, 2) ?? [];
    return namespace && name ? { route: 'events', cluster: { namespace, name } } : undefined;
  }
  if (first === 'promotion') {
    const [namespace, name, env] = params(1, 3) ?? [];
    return namespace && name && env ? { route: 'promotion', pipeline: { namespace, name }, env } : undefined;
  }
  if (first === 'approval') {
    const [namespace, name, env, revision] = params(1, 4) ?? [];
    return namespace && name && env && revision
      ? { route: 'approval', pipeline: { namespace, name }, env, revision }
      : undefined;
  }
  return undefined;
}

const WEAVE_ALGORITHMS = ['sha224', 'sha256', 'sha384', 'sha512'];

/**
 * Did the request carry a correct signature for what its path names? Some X-Signature header (whatever its
 * casing) is `<algorithm>=<hex>`, give or take surrounding whitespace and hex case, and the hex is the HMAC of
 * the body as sent (the empty string for approvals) under a key the named cluster or pipeline signs with.
 */
function carriesCorrectSignature(request: RequestCase): boolean {
  const target = oracleRoute(request.path);
  let keys: string[] = [];
  let algorithms: string[] = [];
  let signed = request.body;
  if (target?.route === 'events') {
    keys = [clusterKeyOf(MASTER_KEYS.current, target.cluster), clusterKeyOf(MASTER_KEYS.previous, target.cluster)];
    algorithms = ['sha256'];
  } else if (target?.route === 'promotion' || target?.route === 'approval') {
    const key = PIPELINE_HMAC_KEYS.get(keyString(target.pipeline));
    keys = key === undefined ? [] : [key];
    algorithms = WEAVE_ALGORITHMS;
    if (target.route === 'approval') signed = Buffer.alloc(0);
  }
  return request.headers
    .filter(([name]) => name.toLowerCase() === 'x-signature')
    .some(([, value]) => {
      const match = /^\s*([a-z0-9]+)=([0-9a-f]+)\s*$/i.exec(value);
      if (!match?.[1] || !match[2]) return false;
      const algorithm = match[1].toLowerCase();
      const hex = match[2].toLowerCase();
      if (!algorithms.includes(algorithm)) return false;
      return keys.some((key) => createHmac(algorithm, key).update(signed).digest('hex') === hex);
    });
}

/** Whether `message` is about what `target` names (a signature for one cluster must not move another). */
function isAbout(message: QueueMessage, target: OracleRoute | undefined): boolean {
  switch (message.type) {
    case 'check-app':
      return target?.route === 'events' && keyString(message.app.cluster) === keyString(target.cluster);
    case 'check-pipeline':
      return (
        target?.route === 'promotion' &&
        keyString(message.pipeline) === keyString(target.pipeline) &&
        message.env === target.env
      );
    case 'promote':
      return (
        target?.route === 'approval' &&
        keyString(message.pipeline) === keyString(target.pipeline) &&
        message.env === target.env &&
        message.revision === target.revision
      );
    default:
      return false;
  }
}

// ---------------------------------------------------------------- from plans to requests

/** A request ready to send: the plan with its signature computed and its headers complete. */
interface RequestCase {
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  body: Buffer;
  plan: RequestPlan;
  /** Values that must not come back in an answer or a log line. */
  forbidden: string[];
}

/** How each mutation spells `<prefix>=<hex>`; only the first three leave a correct signature. */
const MUTATIONS: Record<SignatureMutation, (value: string, prefix: string, hex: string) => string> = {
  none: (value) => value,
  'uppercase-hex': (_value, prefix, hex) => `${prefix}=${hex.toUpperCase()}`,
  whitespace: (value) => ` ${value}\t`,
  truncate: (value) => value.slice(0, -1),
  extend: (value) => `${value}0`,
  'flip-nibble': (_value, prefix, hex) => `${prefix}=${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`,
  'uppercase-prefix': (_value, prefix, hex) => `${prefix.toUpperCase()}=${hex}`,
  'no-prefix': (_value, _prefix, hex) => hex,
  'duplicate-header': (value) => value,
  'listed-twice': (value) => `${value}, ${value}`,
};

/** The key a plan asks for, resolved against what the path names (a stray path gets the plan's random key). */
function signingKey(plan: Extract<RequestPlan['signature'], { kind: 'hmac' }>, target: OracleRoute | undefined) {
  const events = target?.route === 'events' ? target : undefined;
  const weave = target?.route === 'promotion' || target?.route === 'approval' ? target : undefined;
  const weaveKey = weave && PIPELINE_HMAC_KEYS.get(keyString(weave.pipeline));
  switch (plan.key) {
    case 'route':
      return events ? clusterKeyOf(MASTER_KEYS.current, events.cluster) : (weaveKey ?? plan.randomKey);
    case 'route-previous':
      return events ? clusterKeyOf(MASTER_KEYS.previous, events.cluster) : (weaveKey ?? plan.randomKey);
    case 'other-route':
      if (events)
        return clusterKeyOf(
          MASTER_KEYS.current,
          keyString(events.cluster) === 'flux-system/fleet-eu' ? FLEET_US : FLEET_EU,
        );
      return weaveKey === PODINFO_HMAC_KEY ? CHECKOUT_HMAC_KEY : PODINFO_HMAC_KEY;
    case 'master':
      return MASTER_KEYS.current;
    case 'random':
      return plan.randomKey;
  }
}

function materialize(plan: RequestPlan): RequestCase {
  const target = oracleRoute(plan.path);
  const headers: [string, string][] = [...plan.headers];
  const forbidden = [...plan.planted];
  const signature = plan.signature;
  if (signature.kind === 'garbage') headers.push([plan.signatureHeaderName, signature.value]);
  if (signature.kind === 'hmac') {
    const algorithm =
      signature.algorithm !== 'natural'
        ? signature.algorithm
        : target?.route === 'promotion' || target?.route === 'approval'
          ? signature.weaveAlgorithm
          : 'sha256';
    const routeBytes = target?.route === 'approval' ? Buffer.alloc(0) : plan.body;
    const signed = {
      route: routeBytes,
      body: plan.body,
      empty: Buffer.alloc(0),
      'body-with-newline': Buffer.concat([plan.body, Buffer.from('\n')]),
    }[signature.over];
    const hex = createHmac(algorithm, signingKey(signature, target)).update(signed).digest('hex');
    const value = MUTATIONS[signature.mutation](`${algorithm}=${hex}`, algorithm, hex);
    headers.push([plan.signatureHeaderName, value]);
    if (signature.mutation === 'duplicate-header') headers.push(['X-SIGNATURE', `sha256=${'0'.repeat(64)}`]);
    // A signature, even a wrong one, is a keyed digest: it is never logged or answered.
    forbidden.push(hex);
  }
  if (plan.contentLength === 'exact') headers.push(['Content-Length', String(plan.body.length)]);
  if (plan.contentLength === 'lie') headers.push(['Content-Length', plan.contentLengthLie]);
  return { method: plan.method, path: plan.path, query: plan.query, headers, body: plan.body, plan, forbidden };
}

// ---------------------------------------------------------------- transports

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** As the adapters hand it over: lower-case names, repeated headers joined with `, `. */
function toHttpRequest(request: RequestCase): HttpRequest {
  const headers = new Map<string, string>();
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    const existing = headers.get(lower);
    headers.set(lower, existing === undefined ? value : `${existing}, ${value}`);
  }
  return { method: request.method, path: request.path, headers: Object.fromEntries(headers), body: request.body };
}

/** A payload-2.0 event as a function URL builds it (it joins repeated headers with commas). */
function toFunctionUrlEvent(request: RequestCase): APIGatewayProxyEventV2 {
  const headers = new Map<string, string>();
  for (const [name, value] of request.headers) {
    const existing = headers.get(name);
    headers.set(name, existing === undefined ? value : `${existing},${value}`);
  }
  const { encoding, base64Corruption } = request.plan;
  const body =
    encoding === 'text'
      ? request.body.toString('utf8')
      : encoding === 'base64'
        ? request.body.toString('base64')
        : corruptBase64(request.body.toString('base64'), base64Corruption);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString: request.query,
    headers: Object.fromEntries(headers),
    requestContext: functionUrlRequestContext(request.method, request.path),
    isBase64Encoded: encoding !== 'text',
  };
  // A function URL leaves `body` out when the request had none.
  if (request.body.length > 0 || encoding !== 'text') event.body = body;
  return event;
}

async function sendDirect(request: RequestCase): Promise<Answer> {
  const response = await handleRequest(toHttpRequest(request), deps);
  return { status: response.statusCode, headers: response.headers ?? {}, text: response.body ?? '' };
}

async function sendThroughFunctionUrl(request: RequestCase): Promise<Answer> {
  const result = toFunctionUrlResult(await handleRequest(fromFunctionUrlEvent(toFunctionUrlEvent(request)), deps));
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
  return { status: result.statusCode ?? 0, headers, text: result.body ?? '' };
}

let server: RunningHttpServer;

/** Repeated headers (in any casing) as one name with several values: node:http sends one line per value. */
function groupedHeaders(headers: [string, string][]): Record<string, string[]> {
  const grouped = new Map<string, [string, string[]]>();
  for (const [name, value] of headers) {
    const entry = grouped.get(name.toLowerCase()) ?? [name, []];
    entry[1].push(value);
    grouped.set(name.toLowerCase(), entry);
  }
  return Object.fromEntries(grouped.values());
}

/** Over a fresh connection, headers in the given order and first casing, the body in one piece. */
function sendOverHttp(request: RequestCase): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const query = request.query === '' ? '' : `?${request.query}`;
    const outgoing = httpRequest(
      `${server.url}/`,
      {
        method: request.method,
        path: `${request.path === '' ? '/' : request.path}${query}`,
        headers: groupedHeaders(request.headers),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: response.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

const SEND: Record<Transport, (request: RequestCase) => Promise<Answer>> = {
  direct: sendDirect,
  'function-url': sendThroughFunctionUrl,
  http: sendOverHttp,
};

// ---------------------------------------------------------------- one request, observed

interface Observed {
  request: RequestCase;
  transport: Transport;
  answer: Answer;
  enqueued: QueueMessage[];
  logged: LogLine[];
  audited: AuditEntry[];
  lookups: number;
  secretReads: number;
}

const totalSecretReads = () => [...secrets.reads.values()].reduce((sum, reads) => sum + reads, 0);

async function observe(transport: Transport, plan: RequestPlan): Promise<Observed> {
  const request = materialize(plan);
  const [sentBefore, logsBefore, auditBefore, lookupsBefore, secretReadsBefore] = [
    queue.sent.length,
    logs.length,
    store.audit.length,
    store.lookups,
    totalSecretReads(),
  ];
  const answer = await SEND[transport](request);
  return {
    request,
    transport,
    answer,
    enqueued: queue.sent.slice(sentBefore),
    logged: logs.slice(logsBefore),
    audited: store.audit.slice(auditBefore),
    lookups: store.lookups - lookupsBefore,
    secretReads: totalSecretReads() - secretReadsBefore,
  };
}

const FIXED_BODIES = new Map<number, string[]>([
  [200, ['{"status":"ok"}']],
  [202, ['{"status":"accepted"}']],
  [401, ['{"error":"unauthorized"}']],
  [404, ['{"error":"not found"}']],
  [405, ['{"error":"method not allowed"}']],
  [413, ['{"error":"request body too large"}']],
  [
    422,
    [
      '{"error":"unknown environment"}',
      '{"error":"cannot promote beyond the last environment"}',
      '{"error":"the event is not about the pipeline\'s app in that environment"}',
      '{"error":"no approval is waiting for that revision"}',
    ],
  ],
]);
const BAD_REQUEST = /^\{"error":"(malformed JSON|empty body|not a Flux event: [A-Za-z .]+)"\}$/;
const RECEIVER_HEADERS = new Set(['content-type', 'cache-control', 'allow']);
/** What node:http adds around the receiver's answer. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Property 1, for one request. */
function assertNoServerError({ answer, transport, logged, request }: Observed): void {
  assert.ok(answer.status < 500, `answered ${answer.status}`);
  if (transport === 'http' && (request.method === 'HEAD' || !answer.headers['content-type'])) {
    // A HEAD answer has no body; node:http's own 4xx (a request it cannot parse) has no JSON.
    return;
  }
  const fixed = FIXED_BODIES.get(answer.status);
  if (answer.status === 400) assert.match(answer.text, BAD_REQUEST);
  else assert.ok(fixed?.includes(answer.text), `${answer.status} ${answer.text}`);
  for (const name of Object.keys(answer.headers)) {
    assert.ok(RECEIVER_HEADERS.has(name) || (transport === 'http' && TRANSPORT_HEADERS.has(name)), name);
  }
  if (transport !== 'http') {
    assert.equal(logged.length, 1, 'one log line per request');
    assert.notEqual(logged[0]?.level, 'error');
  }
}

const DIGEST_HEX_LENGTH = new Map([
  ['sha224', 56],
  ['sha256', 64],
  ['sha384', 96],
  ['sha512', 128],
]);

/**
 * Could the request's X-Signature be a Weave signature at all: exactly one such header (repeated ones arrive
 * joined), `<algorithm>=<hex>` with an algorithm Weave accepts and a digest of its length, whatever the key.
 */
function carriesWellFormedWeaveSignature(request: RequestCase): boolean {
  const values = request.headers.filter(([name]) => name.toLowerCase() === 'x-signature').map(([, value]) => value);
  const [value] = values;
  if (values.length !== 1 || value === undefined) return false;
  const [algorithm, hex] = value.trim().split('=');
  const length = DIGEST_HEX_LENGTH.get(algorithm ?? '');
  return length !== undefined && hex !== undefined && hex.length === length && /^[0-9a-f]+$/i.test(hex);
}

/** Property 2, for one request. */
function assertEnqueuedOnlyWhenSigned({ request, enqueued, audited, lookups, secretReads }: Observed): void {
  assertAuditedOnlyApprovals(enqueued, audited);
  if (enqueued.length === 0) {
    const target = oracleRoute(request.path);
    // The signature is checked before anything is looked up for an event.
    if (target?.route === 'events' && !carriesCorrectSignature(request)) assert.equal(lookups, 0, 'looked up');
    // A Weave call whose header cannot be a signature reads neither the pipeline nor a Secret.
    if ((target?.route === 'promotion' || target?.route === 'approval') && !carriesWellFormedWeaveSignature(request)) {
      assert.deepEqual({ lookups, secretReads }, { lookups: 0, secretReads: 0 }, 'read for a malformed signature');
    }
    return;
  }
  assert.ok(carriesCorrectSignature(request), 'enqueued without a correct signature');
  assert.equal(enqueued.length, 1, 'one request, one message');
  const target = oracleRoute(request.path);
  for (const message of enqueued) assert.ok(isAbout(message, target), `${message.type} is not about the path`);
}

/**
 * Every form a planted secret could leak in: as is, escaped inside a JSON string (how a log line would carry a
 * kubeconfig), and its hex and base64 (standard and URL-safe).
 */
function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    bytes.toString('hex'),
    bytes.toString('base64'),
    bytes.toString('base64url'),
  ];
  // A hex secret (a derived key, a digest) may also travel as the bytes it spells.
  if (/^[0-9a-f]+$/i.test(secret) && secret.length % 2 === 0) {
    const raw = Buffer.from(secret, 'hex');
    forms.push(raw.toString('base64'), raw.toString('base64url'));
  }
  // Base64 forms lose their padding at the edges of a larger text; and short fragments match by chance.
  return forms.map((form) => form.replace(/=+$/, '')).filter((form) => form.length >= 16);
}

const WORLD_SECRETS = [
  MASTER_KEYS.current,
  MASTER_KEYS.previous,
  PODINFO_HMAC_KEY,
  CHECKOUT_HMAC_KEY,
  GITHUB_TOKEN,
  KUBE_TOKEN,
  KUBE_CLIENT_KEY,
  KUBECONFIG,
  DENIAL_DETAIL,
  ...[...REGISTERED_CLUSTERS, GHOST].flatMap((cluster) => [
    clusterKeyOf(MASTER_KEYS.current, cluster),
    clusterKeyOf(MASTER_KEYS.previous, cluster),
  ]),
].flatMap(leakForms);

/** Property 3, for one request. */
/** An approval is recorded with who approved: the name of the key that signed it (never the key itself). */
function assertAuditedOnlyApprovals(enqueued: readonly QueueMessage[], audited: readonly AuditEntry[]): void {
  const approved = enqueued.filter((message) => message.type === 'promote');
  assert.deepEqual(
    audited.map(({ type, pipeline, env, revision, actor }) => ({ type, pipeline, env, revision, actor })),
    approved.map(({ pipeline, env, revision }) => ({
      type: 'approved',
      pipeline,
      env,
      revision,
      actor: `hmac-key of Secret ${pipeline.namespace}/${webhookSecretOf(pipeline)}`,
    })),
  );
}

function webhookSecretOf(pipeline: ObjectKey): string | undefined {
  return PIPELINES.find((spec) => keyString(spec.key) === keyString(pipeline))?.secretRef;
}

function assertNoSecretOut({ request, answer, logged, audited }: Observed): void {
  const said = [
    answer.text,
    ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
    JSON.stringify(logged),
    JSON.stringify(audited),
  ];
  const lowerSaid = said.map((text) => text.toLowerCase());
  for (const secret of [...WORLD_SECRETS, ...request.forbidden.flatMap(leakForms)]) {
    const hex = /^[0-9a-f]+$/i.test(secret);
    const found = hex
      ? lowerSaid.some((text) => text.includes(secret.toLowerCase()))
      : said.some((text) => text.includes(secret));
    assert.ok(!found, `leaked ${secret.slice(0, 12)}…`);
  }
}

/** What must never be in a log line raw: C0, DEL, C1, bidi controls, line separators, lone surrogates. */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\p{Cs}/u;

/** Every string a log line holds, names included. */
function loggedStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(loggedStrings);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, item]) => [name, ...loggedStrings(item)]);
  }
  return [];
}

/** Property 5, for one request: no log line holds a control character raw. */
function assertPrintableLog({ logged }: Observed): void {
  for (const line of logged) {
    for (const text of [line.message, ...loggedStrings(line.attributes)]) {
      const found = UNPRINTABLE.exec(text);
      assert.equal(found, null, `U+${found?.[0].codePointAt(0)?.toString(16)} raw in ${JSON.stringify(text)}`);
    }
  }
}

/** Whether what the request names or carries holds a control character: the input property 5 is about. */
function carriesControlCharacters(request: RequestCase): boolean {
  let path = request.path;
  try {
    path = decodeURIComponent(request.path);
  } catch {
    // Undecodable as a whole: its segments are tried one by one by the router, the raw text is enough here.
  }
  return (
    UNPRINTABLE.test(path.replace(/[\t\n\r]/g, '')) ||
    UNPRINTABLE.test(request.body.toString('utf8').replace(/[\t\n\r]/g, ''))
  );
}

/** Counts of what the generated requests did, to show the properties were not vacuously true. */
class Tally {
  readonly statuses = new Map<number, number>();
  runs = 0;
  enqueued = 0;
  correctlySigned = 0;

  add(observed: Observed): void {
    this.runs++;
    this.statuses.set(observed.answer.status, (this.statuses.get(observed.answer.status) ?? 0) + 1);
    if (observed.enqueued.length > 0) this.enqueued++;
    if (carriesCorrectSignature(observed.request)) this.correctlySigned++;
  }

  share(count: number): number {
    return count / Math.max(1, this.runs);
  }
}

// ---------------------------------------------------------------- the properties

describe('receiver properties (fast-check)', () => {
  const inProcess = fc.constantFrom<Transport>('direct', 'function-url');
  const plansFor = (transport: Transport) => requestPlans(WORLD, transport).map((plan) => ({ transport, plan }));
  const inProcessPlans = inProcess.chain(plansFor);

  before(async () => {
    server = await startHttpServer((incoming) => handleRequest(incoming, deps));
  });

  after(() => server?.close());

  it('sanity: the fixed world is what the generators aim at', async () => {
    assert.equal(WORLD.indexedApps.length, 8);
    for (const app of WORLD.indexedApps) assert.ok((await store.findTargets(app)).length > 0);
    assert.equal(MAX_BODY_BYTES, 3 * 1024 * 1024);
  });

  it('1. never answers 5xx, and only with the fixed answers and one log line (handler and function URL)', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(inProcessPlans, async ({ transport, plan }) => {
        const observed = await observe(transport, plan);
        tally.add(observed);
        assertNoServerError(observed);
      }),
      { numRuns: 1000 },
    );
    // Every answer the README lists came up, so no branch was left untried.
    for (const status of [200, 202, 400, 401, 404, 405, 413, 422]) {
      assert.ok((tally.statuses.get(status) ?? 0) > 0, `never answered ${status}`);
    }
  });

  it('2. enqueues only for a request carrying a correct HMAC of its raw body under the named key', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(inProcessPlans, async ({ transport, plan }) => {
        const observed = await observe(transport, plan);
        tally.add(observed);
        assertEnqueuedOnlyWhenSigned(observed);
      }),
      { numRuns: 1000 },
    );
    assert.ok(tally.share(tally.enqueued) >= 0.15, `only ${tally.enqueued} of ${tally.runs} runs enqueued`);
    assert.ok(tally.share(tally.correctlySigned) >= 0.25, `only ${tally.correctlySigned} correctly signed`);
    assert.ok(tally.share(tally.runs - tally.correctlySigned) >= 0.2, 'too few unsigned or badly signed requests');
  });

  it('3. never puts a planted secret, a signature or a credential in a response or a log line', async () => {
    // Forgets the webhook keys read so far: the Secrets below are read afresh while this property runs.
    deps.webhookKeys = new WebhookKeyCache();
    const readsBefore = new Map(secrets.reads);
    let carryingCredentials = 0;
    await fc.assert(
      fc.asyncProperty(inProcessPlans, async ({ transport, plan }) => {
        const observed = await observe(transport, plan);
        if (plan.planted.length > 1) carryingCredentials++;
        assertNoSecretOut(observed);
      }),
      { numRuns: 600 },
    );
    // Not vacuous: the Secrets holding the GitHub token, the kubeconfig and the over-talkative denial were read
    // (and the request answered), and many requests carried credentials of their own.
    for (const name of ['github-credentials', 'fleet-eu-kubeconfig', 'untagged-webhook']) {
      assert.ok((secrets.reads.get(name) ?? 0) > (readsBefore.get(name) ?? 0), `${name} was never read`);
    }
    assert.ok(carryingCredentials >= 100, `only ${carryingCredentials} requests carried credentials`);
  });

  it('5. never writes a control character from the input raw in a log line (handler and function URL)', async () => {
    let hostile = 0;
    let escaped = 0;
    await fc.assert(
      fc.asyncProperty(inProcessPlans, async ({ transport, plan }) => {
        const observed = await observe(transport, plan);
        assertPrintableLog(observed);
        if (carriesControlCharacters(observed.request)) hostile++;
        if (
          observed.logged.some((line) => loggedStrings(line.attributes).some((text) => /\\u\{[0-9a-f]+\}/.test(text)))
        ) {
          escaped++;
        }
      }),
      { numRuns: 1000 },
    );
    // Not vacuous: many requests carried control characters, and many log lines show them escaped.
    assert.ok(hostile >= 100, `only ${hostile} requests carried control characters`);
    assert.ok(escaped >= 25, `only ${escaped} log lines showed an escaped control character`);
  });

  it('1-3 and 5 hold over real HTTP through the node:http server', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(plansFor('http'), async ({ plan }) => {
        const observed = await observe('http', plan);
        tally.add(observed);
        assertNoServerError(observed);
        assertEnqueuedOnlyWhenSigned(observed);
        assertNoSecretOut(observed);
        assertPrintableLog(observed);
      }),
      { numRuns: 60 },
    );
    assert.ok(tally.enqueued > 0, 'nothing was enqueued over HTTP');
  });

  describe('4. a correctly signed Flux event about an indexed app', () => {
    async function assertAcceptedOnce(transport: Transport, app: AppKey, plan: RequestPlan, hint: object) {
      const observed = await observe(transport, plan);
      assert.equal(observed.answer.status, 202, observed.answer.text);
      assert.equal(observed.answer.text, '{"status":"accepted"}');
      const pipelines = indexedPipelines(app);
      assert.deepEqual(observed.enqueued, [{ type: 'check-app', app, cause: 'event', attempt: 0, hint, pipelines }]);
      assertNoSecretOut(observed);
    }

    /** The hints the receiver passes on, as the queue carries them (cut to 1024 characters). */
    function hintOf(event: { revision?: string; reason: string }) {
      const clip = (text: string) => (text.length > 1024 ? text.slice(0, 1024) : text);
      return {
        ...(event.revision && { revision: clip(event.revision) }),
        ...(event.reason && { reason: clip(event.reason) }),
      };
    }

    it('is answered 202 and enqueues exactly one check of that app (handler and function URL)', async () => {
      const plans = inProcess.chain((transport) =>
        signedEventPlans(WORLD, transport).map((signed) => ({ transport, ...signed })),
      );
      await fc.assert(
        fc.asyncProperty(plans, ({ transport, app, request, event }) =>
          assertAcceptedOnce(transport, app, request, hintOf(event)),
        ),
        { numRuns: 500 },
      );
    });

    it('is answered 202 and enqueues exactly one check of that app over real HTTP', async () => {
      await fc.assert(
        fc.asyncProperty(signedEventPlans(WORLD, 'http'), ({ app, request, event }) =>
          assertAcceptedOnce('http', app, request, hintOf(event)),
        ),
        { numRuns: 40 },
      );
    });
  });

  describe('pinned abuse cases (ones the generators reach only by chance)', () => {
    const PODINFO_DEV: AppKey = { cluster: FLEET_EU, kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' };

    /** An honest event request to fleet-eu, changed by `overrides`. */
    function eventPlan(overrides: Partial<RequestPlan>): RequestPlan {
      return {
        method: 'POST',
        path: '/v1/events/flux-system/fleet-eu',
        query: '',
        headers: [],
        signatureHeaderName: 'X-Signature',
        signature: {
          kind: 'hmac',
          key: 'route',
          algorithm: 'natural',
          weaveAlgorithm: 'sha256',
          over: 'route',
          mutation: 'none',
          randomKey: '',
        },
        contentLength: 'none',
        contentLengthLie: '',
        body: Buffer.alloc(0),
        encoding: 'base64',
        base64Corruption: 0,
        planted: [],
        ...overrides,
      };
    }

    it('an event smuggling fields through a __proto__ member is one check with only its own hints', async () => {
      const body = JSON.stringify({
        involvedObject: { kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' },
        severity: 'info',
        timestamp: '2025-10-01T12:00:05Z',
        message: 'Helm upgrade succeeded',
        reason: 'UpgradeSucceeded',
        reportingController: 'helm-controller',
      }).replace(/}$/, ',"__proto__":{"metadata":{"revision":{"not":"a string"}},"reportingInstance":5}}');
      for (const transport of ['direct', 'function-url'] as const) {
        const observed = await observe(transport, eventPlan({ body: Buffer.from(body) }));
        assert.equal(observed.answer.status, 202, transport);
        assert.deepEqual(observed.enqueued, [
          {
            type: 'check-app',
            app: PODINFO_DEV,
            cause: 'event',
            attempt: 0,
            hint: { reason: 'UpgradeSucceeded' },
            pipelines: [{ namespace: 'flux-system', name: 'podinfo' }],
          },
        ]);
      }
    });

    it('headers named like Object.prototype members neither break the adapters nor stand in for X-Signature', async () => {
      const body = Buffer.from(EVENT_A_HELM_UPGRADE);
      const signature = `sha256=${createHmac('sha256', clusterKeyOf(MASTER_KEYS.current, FLEET_EU)).update(body).digest('hex')}`;
      const prototypeNames: [string, string][] = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'].map(
        (name) => [name, signature],
      );
      for (const transport of ['direct', 'function-url'] as const) {
        const signed = await observe(transport, eventPlan({ body, headers: prototypeNames }));
        assert.equal(signed.answer.status, 202, transport);
        const unsigned = await observe(
          transport,
          eventPlan({ body, headers: prototypeNames, signature: { kind: 'none' } }),
        );
        assert.equal(unsigned.answer.status, 401, transport);
        assert.deepEqual(unsigned.enqueued, []);
      }
    });
  });
});
