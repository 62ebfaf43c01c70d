// fast-check generators of hostile and honest requests for the receiver's property tests
// (receiver-properties.test.ts). They produce *plans*: plain data naming what to send and how to sign it. The test
// file turns a plan into bytes, because only it holds the keys; so nothing secret is known here.
//
// The generators are aimed: most requests hit a real route with names of a real cluster or pipeline (plainly or
// oddly percent-encoded), and about two in five are honest (the route's method, key, bytes and an event about an
// app on the named cluster), so that the paths past verification (parsed, looked up, enqueued) are exercised about
// as often as the rejections. The rest choose every part independently from hostile and plausible values.
import fc from 'fast-check';
import type { AppKey, ObjectKey } from '../../lib/pipeline/model.js';

/** The receiver's documented cap (docs/how-it-works.md, "HTTP endpoints"); restated so a changed default is noticed. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** What the generators may aim at: the names in the test's store, none of its secrets. */
export interface WorldNames {
  registeredClusters: readonly ObjectKey[];
  unregisteredClusters: readonly ObjectKey[];
  pipelines: readonly { key: ObjectKey; envs: readonly string[] }[];
  /** Approvals the test's store has waiting. */
  waitingApprovals: readonly { pipeline: ObjectKey; env: string; revision: string }[];
  /** App objects some pipeline targets: an event about one of them is enqueued. */
  indexedApps: readonly AppKey[];
}

export type Transport = 'direct' | 'function-url' | 'http';

/** Which key a signature is made with; `route` is the key the route is meant to be signed with. */
export type KeyChoice = 'route' | 'route-previous' | 'other-route' | 'master' | 'random';
/** Which bytes are signed; `route` is what the route signs (the body, or the empty string for approvals). */
export type SignedBytes = 'route' | 'body' | 'empty' | 'body-with-newline';
export type SignatureAlgorithm = 'natural' | 'md5' | 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';
/** Changes made to a computed `alg=hex` value; only `none`, `uppercase-hex` and `whitespace` leave it correct. */
export type SignatureMutation =
  | 'none'
  | 'uppercase-hex'
  | 'whitespace'
  | 'truncate'
  | 'extend'
  | 'flip-nibble'
  | 'uppercase-prefix'
  | 'no-prefix'
  | 'duplicate-header'
  | 'listed-twice';

export type SignaturePlan =
  | { kind: 'none' }
  | {
      kind: 'hmac';
      key: KeyChoice;
      algorithm: SignatureAlgorithm;
      /** The algorithm `natural` means on the Weave routes, which accept four. */
      weaveAlgorithm: 'sha224' | 'sha256' | 'sha384' | 'sha512';
      over: SignedBytes;
      mutation: SignatureMutation;
      randomKey: string;
    }
  | { kind: 'garbage'; value: string };

/** How the body travels in a function URL payload. */
export type BodyEncoding = 'base64' | 'text' | 'invalid-base64';

export interface RequestPlan {
  method: string;
  /** As sent: still percent-encoded, no query. */
  path: string;
  /** Without the `?`; may be empty. */
  query: string;
  /** Extra headers in order, names in any casing, duplicates allowed. */
  headers: [string, string][];
  /** The name the signature header is sent under (any casing of X-Signature). */
  signatureHeaderName: string;
  signature: SignaturePlan;
  contentLength: 'none' | 'exact' | 'lie';
  /** The lie told in Content-Length when `contentLength` is `lie`. */
  contentLengthLie: string;
  body: Buffer;
  encoding: BodyEncoding;
  /** Which way `invalid-base64` breaks the encoding (see corruptBase64). */
  base64Corruption: number;
  /** Secret-looking values the request carries (in its body or credentials headers): never to be echoed. */
  planted: string[];
}

// ---------------------------------------------------------------- small pieces

const HEX_DIGITS = [...'0123456789abcdef'];
const ALPHANUMERIC = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
/** What RFC 9110 allows in a header name. */
const TOKEN_CHARACTERS = [...ALPHANUMERIC, ..."!#$%&'*+.^_`|~-"];

export function hexString(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...HEX_DIGITS), ...constraints });
}

/** A recognisable, unguessable token: long enough that finding it anywhere cannot be a coincidence. */
export function secretToken(prefix: string): fc.Arbitrary<string> {
  return fc
    .string({ unit: fc.constantFrom(...ALPHANUMERIC), minLength: 24, maxLength: 40 })
    .map((tail) => `${prefix}${tail}`);
}

/** Percent-encodes every character of `text`, with upper- or lower-case hex: decodes to the same string. */
export function percentEncodeAll(text: string, lowerCase = false): string {
  const encoded = [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  return lowerCase ? encoded : encoded.toUpperCase();
}

/** A name as a path segment: mostly plain, sometimes percent-encoded in a way that decodes to the same name. */
function encodedSegment(name: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(encodeURIComponent(name)) },
    { weight: 1, arbitrary: fc.constant(percentEncodeAll(name)) },
    { weight: 1, arbitrary: fc.constant(percentEncodeAll(name, true)) },
  );
}

/**
 * What an attacker puts in a log line to act on an operator's terminal: ESC sequences (clear the screen, set the
 * title), BEL, DEL, an 8-bit CSI (C1), bidi overrides and isolates that make a line read differently, a forged line.
 */
export const terminalEscape: fc.Arbitrary<string> = fc.constantFrom(
  '\u001b[2J',
  '\u001b]0;owned\u0007',
  '\u0007',
  '\u007f',
  '\u009b31m',
  '\u202egnp.exe',
  '\u2066x\u2069',
  '\u200f',
  '\r\n12:00:00 WARN forged line',
);

/** Text with a terminal escape somewhere in it. */
const textWithEscape: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 8 }), terminalEscape, fc.string({ maxLength: 8 }))
  .map(([before, escape, after]) => `${before}${escape}${after}`);

/** Path segments that are wrong in every way a router can trip on. */
const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%1B[2J', '%07', '%C2%9B', '%E2%80%AE', 'x%E2%81%A6y', 'a%7Fb', '%0D%0AWARN%20forged'),
  textWithEscape.map(encodeURIComponent),
  fc.constantFrom(
    '',
    '.',
    '..',
    '%',
    '%2',
    '%G1',
    '%E0%A4%A',
    '%ED%A0%80',
    '%C0%AF',
    '%FF',
    '%00',
    '%2F',
    '%2e%2e',
    '..%2F..%2Fetc%2Fpasswd',
    '%252F',
    'Flux-System',
    'a_b',
    '-a',
    'a-',
    '__proto__',
    'constructor',
    'toString',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent),
  fc.integer({ min: 250, max: 260 }).map((length) => 'a'.repeat(length)),
  fc.integer({ min: 1_000, max: 20_000 }).map((length) => 'ab%2F'.repeat(length / 4)),
);

function segmentOf(names: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names).chain(encodedSegment) },
    { weight: 2, arbitrary: hostileSegment },
  );
}

// ---------------------------------------------------------------- paths and methods

interface AimedPath {
  path: string;
  /** The method the route takes. */
  method: 'GET' | 'POST';
  /** The cluster an events path names, when it names a real one: the body is aimed at its apps. */
  cluster?: ObjectKey;
}

function eventsPath(world: WorldNames): fc.Arbitrary<AimedPath> {
  const clusters = [...world.registeredClusters, ...world.unregisteredClusters];
  const aimed = fc
    .oneof(
      { weight: 6, arbitrary: fc.constantFrom(...world.registeredClusters) },
      { weight: 1, arbitrary: fc.constantFrom(...clusters) },
    )
    .chain((cluster) =>
      fc
        .tuple(encodedSegment(cluster.namespace), encodedSegment(cluster.name))
        .map(([namespace, name]): AimedPath => ({ path: `/v1/events/${namespace}/${name}`, method: 'POST', cluster })),
    );
  const hostile = fc
    .tuple(segmentOf(clusters.map((cluster) => cluster.namespace)), segmentOf(clusters.map((cluster) => cluster.name)))
    .map(([namespace, name]): AimedPath => ({ path: `/v1/events/${namespace}/${name}`, method: 'POST' }));
  return fc.oneof({ weight: 5, arbitrary: aimed }, { weight: 1, arbitrary: hostile });
}

function weavePath(world: WorldNames, route: 'promotion' | 'approval'): fc.Arbitrary<AimedPath> {
  const envs = [...new Set(world.pipelines.flatMap((pipeline) => pipeline.envs))];
  const aimed = fc
    .constantFrom(...world.pipelines)
    .chain((pipeline) =>
      fc.tuple(
        encodedSegment(pipeline.key.namespace),
        encodedSegment(pipeline.key.name),
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...pipeline.envs).chain(encodedSegment) },
          { weight: 1, arbitrary: fc.constantFrom('qa', 'Dev', 'prod ').map(encodeURIComponent) },
        ),
      ),
    );
  const hostile = fc.tuple(
    segmentOf(world.pipelines.map((pipeline) => pipeline.key.namespace)),
    segmentOf(world.pipelines.map((pipeline) => pipeline.key.name)),
    segmentOf(envs),
  );
  const parameters = fc.oneof({ weight: 5, arbitrary: aimed }, { weight: 1, arbitrary: hostile });
  if (route === 'promotion') {
    return parameters.map(([ns, name, env]) => ({ path: `/promotion/${ns}/${name}/${env}`, method: 'POST' }));
  }
  const revisions = world.waitingApprovals.map((approval) => approval.revision);
  const revision = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...revisions).chain(encodedSegment) },
    { weight: 1, arbitrary: fc.constantFrom(...revisions) },
    { weight: 1, arbitrary: fc.constantFrom('6.9.1', '0.0.0', 'main@sha1:0000').map(encodeURIComponent) },
    { weight: 1, arbitrary: hostileSegment },
  );
  // Exactly what waits somewhere, so that a correctly signed approval has something to approve.
  const waiting = fc
    .constantFrom(...world.waitingApprovals)
    .chain(({ pipeline, env, revision: waitingRevision }) =>
      fc.tuple(
        encodedSegment(pipeline.namespace),
        encodedSegment(pipeline.name),
        encodedSegment(env),
        encodedSegment(waitingRevision),
      ),
    );
  return fc
    .oneof(
      { weight: 3, arbitrary: waiting },
      {
        weight: 2,
        arbitrary: fc.tuple(parameters, revision).map(([[ns, name, env], rev]) => [ns, name, env, rev] as const),
      },
    )
    .map(([ns, name, env, rev]) => ({ path: `/approval/${ns}/${name}/${env}/${rev}`, method: 'POST' }));
}

/** Paths that match no route, or almost match one. */
const strayPath: fc.Arbitrary<AimedPath> = fc
  .oneof(
    fc.constantFrom(
      '',
      '/',
      '//',
      '/healthz//',
      '/healthz/..',
      '/HEALTHZ',
      '/v1/events',
      '/v1/events/',
      '/v1/events/flux-system',
      '/v1/events/flux-system/fleet-eu//',
      '/v1/events//fleet-eu',
      '/v1/events/flux-system/fleet-eu/extra',
      '/v1/events/flux-system/../fleet-eu',
      '/V1/events/flux-system/fleet-eu',
      '/v1/%65vents/flux-system/fleet-eu',
      '/v1/events/flux-system/fleet-eu%2Fextra',
      'v1/events/flux-system/fleet-eu',
      '/promotion/flux-system/podinfo',
      '/approval/flux-system/podinfo/prod',
      '/approval/flux-system/podinfo/prod/6.9.2//',
      '/./healthz',
      '/%2e%2e/healthz',
    ),
    fc.webPath(),
    fc.array(hostileSegment, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`),
    fc.string({ unit: 'grapheme', maxLength: 40 }).map((text) => `/${text}`),
    fc.integer({ min: 10_000, max: 100_000 }).map((length) => `/${'x'.repeat(length)}`),
  )
  .map((path) => ({ path, method: 'POST' as const }));

function aimedPath(world: WorldNames): fc.Arbitrary<AimedPath> {
  return fc.oneof(
    { weight: 6, arbitrary: eventsPath(world) },
    { weight: 3, arbitrary: weavePath(world, 'promotion') },
    { weight: 3, arbitrary: weavePath(world, 'approval') },
    { weight: 1, arbitrary: fc.constant({ path: '/healthz', method: 'GET' as const }) },
    { weight: 2, arbitrary: strayPath },
  );
}

/** The method the route takes most of the time, otherwise any other, well-formed or not. */
function methodFor(natural: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(natural) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'post', 'Post'),
        fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 1, maxLength: 10 }),
        fc.string({ maxLength: 10 }),
      ),
    },
  );
}

// Methods node:http's parser does not know are answered 400 by node:http itself, which then resets the connection
// under a client still writing its body: those are tried in process.
const httpMethod = (natural: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(natural) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PURGE', 'SEARCH'),
    },
  );

// ---------------------------------------------------------------- bodies

/** Keys a generated event never sets by accident: the schema's own. */
const EVENT_KEYS = new Set([
  'involvedObject',
  'severity',
  'timestamp',
  'message',
  'reason',
  'metadata',
  'reportingController',
  'reportingInstance',
]);

const jsonKey = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'prototype', 'valueOf') },
);

const FLUX_GROUPS: Record<string, string> = {
  HelmRelease: 'helm.toolkit.fluxcd.io',
  Kustomization: 'kustomize.toolkit.fluxcd.io',
};

/** A Flux event about `object`, and the hint the receiver should pass on. */
export interface GeneratedEvent {
  text: string;
  revision?: string;
  reason: string;
}

/**
 * A well-formed Flux event (docs/flux-status.md, "The event") about `object`, varied in everything the receiver must not care
 * about: optional fields, free text in any script, extra fields and metadata, key order and formatting.
 * `secret` is hidden in parts of it that are never logged (message, uid, extra fields, non-revision metadata).
 */
export function fluxEvent(
  object: { kind: string; namespace: string; name: string },
  secret: string,
): fc.Arbitrary<GeneratedEvent> {
  const group = FLUX_GROUPS[object.kind];
  const freeText = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    textWithEscape,
  );
  return fc
    .record({
      apiVersion: fc.option(fc.constantFrom('v2', 'v2beta2', 'v2beta1', 'v1', 'v1beta2'), { nil: undefined }),
      uid: fc.option(fc.uuid(), { nil: undefined }),
      resourceVersion: fc.option(fc.nat().map(String), { nil: undefined }),
      severity: fc.oneof(fc.constantFrom('info', 'error', 'trace', ''), freeText),
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
        fc.constant('2025-10-01T12:00:05Z'),
        freeText,
      ),
      message: freeText,
      reason: fc.oneof(
        fc.constantFrom('UpgradeSucceeded', 'InstallSucceeded', 'ReconciliationSucceeded', 'UpgradeFailed', ''),
        freeText,
      ),
      revision: fc.option(
        fc.oneof(
          fc.constantFrom('6.9.2', '6.6.1+0cc9a8446c95', 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1'),
          freeText,
          fc.integer({ min: 1_000, max: 3_000 }).map((length) => 'r'.repeat(length)),
        ),
        { nil: undefined },
      ),
      metadata: fc.dictionary(
        jsonKey.filter((key) => key !== 'revision' && !key.includes('.fluxcd.io/')),
        freeText,
        { maxKeys: 4 },
      ),
      reportingController: fc.constantFrom('helm-controller', 'kustomize-controller', ''),
      reportingInstance: fc.option(freeText, { nil: undefined }),
      extra: fc.dictionary(
        jsonKey.filter((key) => !EVENT_KEYS.has(key)),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 3 },
      ),
      secretAt: fc.constantFrom('message', 'uid', 'extra', 'metadata-value', 'metadata-key', 'nowhere'),
      indent: fc.constantFrom(undefined, 2, '\t'),
      padding: fc.constantFrom('', ' ', '\n', '\r\n\t '),
      shuffled: fc.boolean(),
    })
    .map((fields) => {
      const involvedObject: Record<string, string> = {
        kind: object.kind,
        namespace: object.namespace,
        name: object.name,
      };
      if (fields.secretAt === 'uid') involvedObject.uid = secret;
      else if (fields.uid !== undefined) involvedObject.uid = fields.uid;
      if (fields.apiVersion !== undefined && group !== undefined) {
        involvedObject.apiVersion = `${group}/${fields.apiVersion}`;
      }
      if (fields.resourceVersion !== undefined) involvedObject.resourceVersion = fields.resourceVersion;
      const metadata = Object.fromEntries(Object.entries(fields.metadata));
      if (fields.revision !== undefined) metadata.revision = fields.revision;
      if (fields.secretAt === 'metadata-value') metadata['token'] = secret;
      if (fields.secretAt === 'metadata-key') metadata[secret] = 'x';
      const entries: [string, unknown][] = [
        ['involvedObject', involvedObject],
        ['severity', fields.severity],
        ['timestamp', fields.timestamp],
        ['message', fields.secretAt === 'message' ? `${fields.message} password=${secret}` : fields.message],
        ['reason', fields.reason],
        ['metadata', metadata],
        ['reportingController', fields.reportingController],
      ];
      if (fields.reportingInstance !== undefined) entries.push(['reportingInstance', fields.reportingInstance]);
      entries.push(...Object.entries(fields.extra));
      if (fields.secretAt === 'extra') entries.push(['credentials', { token: secret }]);
      if (fields.shuffled) entries.reverse();
      // fromEntries defines own properties, so a `__proto__` key is serialized like any other.
      const text = `${fields.padding}${JSON.stringify(Object.fromEntries(entries), null, fields.indent)}${fields.padding}`;
      const event: GeneratedEvent = { text, reason: fields.reason };
      if (fields.revision) event.revision = fields.revision;
      return event;
    });
}

/** An app object no pipeline targets, or an object that is not an app at all. */
function unindexedObject(world: WorldNames): fc.Arbitrary<{ kind: string; namespace: string; name: string }> {
  const names = world.indexedApps.flatMap((app) => [app.namespace, app.name]);
  const name = fc.oneof(fc.constantFrom(...names, 'other', 'flux-system'), fc.string({ minLength: 1, maxLength: 20 }));
  return fc.record({
    kind: fc.constantFrom('HelmRelease', 'Kustomization', 'GitRepository', 'HelmChart', 'helmrelease', 'Alert'),
    namespace: name,
    name,
  });
}

/** A valid event padded (in its message) to exactly `size` bytes, or random bytes of that size when too small. */
function sizedBody(size: number, secret: string, chunk: Buffer): Buffer {
  const frame = (message: string) =>
    JSON.stringify({
      involvedObject: { kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' },
      severity: 'info',
      timestamp: '2025-10-01T12:00:05Z',
      message,
      reason: 'UpgradeSucceeded',
      metadata: { revision: '6.9.2' },
      reportingController: 'helm-controller',
    });
  const base = Buffer.byteLength(frame(secret));
  if (size < base) return Buffer.alloc(size, chunk);
  return Buffer.from(frame(`${secret}${'x'.repeat(size - base)}`), 'utf8');
}

/** What an honest sender posts: an event about an app on the cluster it names, when it names one. */
function honestBody(world: WorldNames, secret: string, cluster: ObjectKey | undefined): fc.Arbitrary<Buffer> {
  const onCluster = world.indexedApps.filter(
    (app) => app.cluster.namespace === cluster?.namespace && app.cluster.name === cluster.name,
  );
  if (onCluster.length === 0) return body(world, secret, cluster);
  return fc
    .constantFrom(...onCluster)
    .chain((app) => fluxEvent(app, secret))
    .map((event) => Buffer.from(event.text, 'utf8'));
}

/** Sizes where an off-by-one in the cap would show. */
const sizeAroundCap = fc.oneof(
  fc.constantFrom(MAX_BODY_BYTES - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1, MAX_BODY_BYTES + 4096, 2 * MAX_BODY_BYTES),
  fc.integer({ min: MAX_BODY_BYTES - 64, max: MAX_BODY_BYTES + 64 }),
);

function body(world: WorldNames, secret: string, cluster: ObjectKey | undefined): fc.Arbitrary<Buffer> {
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  const onCluster = world.indexedApps.filter(
    (app) => app.cluster.namespace === cluster?.namespace && app.cluster.name === cluster.name,
  );
  const chunk = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes));
  return fc.oneof(
    {
      weight: 6,
      arbitrary: (onCluster.length > 0
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...onCluster) },
            { weight: 1, arbitrary: fc.constantFrom(...world.indexedApps) },
          )
        : fc.constantFrom(...world.indexedApps)
      )
        .chain((app) => fluxEvent(app, secret))
        .map((event) => utf8(event.text)),
    },
    {
      weight: 2,
      arbitrary: unindexedObject(world)
        .chain((object) => fluxEvent(object, secret))
        .map((event) => utf8(event.text)),
    },
    // A Flux event with one field broken, or cut short.
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...world.indexedApps).chain((app) => fluxEvent(app, secret)),
          fc.nat(),
        )
        .map(([event, cut]) => utf8(event.text.slice(0, cut % Math.max(1, event.text.length)))),
    },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }).map(utf8) },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(jsonKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
        .map((object) => utf8(JSON.stringify({ ...object, [secret]: secret }))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.uint8Array({ maxLength: 1024 }), fc.uint8Array({ maxLength: 64 }))
        .map(([before, after]) => Buffer.concat([before, utf8(secret), after])),
    },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(sizeAroundCap, chunk, fc.boolean())
        .map(([size, bytes, asEvent]) => (asEvent ? sizedBody(size, secret, bytes) : Buffer.alloc(size, bytes))),
    },
  );
}

// ---------------------------------------------------------------- headers and signatures

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'APPLICATION/JSON',
  'text/plain; charset=iso-8859-1',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/json; charset=utf-16',
  '',
];

const headerName = fc.oneof(
  fc.constantFrom(
    'Content-Type',
    'content-type',
    'X-Forwarded-For',
    'Gotk-Component',
    'User-Agent',
    'Accept-Encoding',
    'X-Amzn-Trace-Id',
    'X-Hub-Signature',
    'X-Signature-256',
    'Signature',
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
  ),
  fc.string({ unit: fc.constantFrom(...TOKEN_CHARACTERS), minLength: 1, maxLength: 24 }),
);

/** Header names that change how HTTP frames or routes a request: not sent as random extras over real HTTP. */
export const FRAMING_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
]);

/** Credentials a client might send along; each is a planted secret. */
const credentials = fc.oneof(
  secretToken('ghp_').map((token): [string, string, string] => ['Authorization', `Bearer ${token}`, token]),
  secretToken('eyJhbGciOiJIUzI1NiJ9.').map((token): [string, string, string] => [
    'authorization',
    `Bearer ${token}`,
    token,
  ]),
  secretToken('sess_').map((token): [string, string, string] => ['Cookie', `session=${token}; theme=dark`, token]),
  secretToken('AKIA').map((token): [string, string, string] => ['X-Api-Key', token, token]),
  secretToken('pw').map((token): [string, string, string] => [
    'Proxy-Authorization',
    `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`,
    `admin:${token}`,
  ]),
);

const garbageSignature = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        'sha256=',
        'sha512=',
        'sha1=',
        'sha224=',
        'sha384=',
        'md5=',
        'SHA256=',
        '',
        'sha256:',
        'sha256 =',
      ),
      fc.oneof(
        hexString({ maxLength: 130 }),
        fc.constantFrom(56, 64, 96, 128).chain((length) => hexString({ minLength: length, maxLength: length })),
        hexString({ minLength: 64, maxLength: 64 }).map((hex) => hex.toUpperCase()),
        fc.string({ maxLength: 70 }),
      ),
    )
    .map(([prefix, value]) => `${prefix}${value}`),
  fc.constantFrom('', ' ', 'sha256', 'sha256=', '=', 'null', 'undefined', 'sha256=' + '0'.repeat(64)),
  fc.string({ maxLength: 200 }),
);

const signaturePlan: fc.Arbitrary<SignaturePlan> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('hmac' as const),
      key: fc.oneof(
        { weight: 8, arbitrary: fc.constant<KeyChoice>('route') },
        { weight: 3, arbitrary: fc.constant<KeyChoice>('route-previous') },
        { weight: 3, arbitrary: fc.constantFrom<KeyChoice>('other-route', 'master', 'random') },
      ),
      algorithm: fc.oneof(
        { weight: 8, arbitrary: fc.constant<SignatureAlgorithm>('natural') },
        {
          weight: 2,
          arbitrary: fc.constantFrom<SignatureAlgorithm>('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'),
        },
      ),
      weaveAlgorithm: fc.constantFrom('sha224' as const, 'sha256' as const, 'sha384' as const, 'sha512' as const),
      over: fc.oneof(
        { weight: 8, arbitrary: fc.constant<SignedBytes>('route') },
        { weight: 2, arbitrary: fc.constantFrom<SignedBytes>('body', 'empty', 'body-with-newline') },
      ),
      mutation: fc.oneof(
        { weight: 10, arbitrary: fc.constant<SignatureMutation>('none') },
        {
          weight: 5,
          arbitrary: fc.constantFrom<SignatureMutation>(
            'uppercase-hex',
            'whitespace',
            'truncate',
            'extend',
            'flip-nibble',
            'uppercase-prefix',
            'no-prefix',
            'duplicate-header',
            'listed-twice',
          ),
        },
      ),
      randomKey: fc.string({ maxLength: 40 }),
    }),
  },
  { weight: 2, arbitrary: garbageSignature.map((value) => ({ kind: 'garbage' as const, value })) },
);

/** What an honest sender signs with: the route's key, over the route's bytes, in any accepted spelling. */
const honestSignature: fc.Arbitrary<SignaturePlan> = fc.record({
  kind: fc.constant('hmac' as const),
  key: fc.constantFrom<KeyChoice>('route', 'route', 'route-previous'),
  algorithm: fc.constant<SignatureAlgorithm>('natural'),
  weaveAlgorithm: fc.constantFrom('sha224' as const, 'sha256' as const, 'sha384' as const, 'sha512' as const),
  over: fc.constant<SignedBytes>('route'),
  mutation: fc.constantFrom<SignatureMutation>('none', 'none', 'none', 'uppercase-hex', 'whitespace'),
  randomKey: fc.constant(''),
});

/** Percent-encodes what a real HTTP request line cannot carry raw (anything outside RFC 3986's pchar and `/`). */
export function httpSafePath(path: string): string {
  const safe = /[A-Za-z0-9\-._~!$&'()*+,;=:@/%]/;
  let out = '';
  for (const character of path) {
    // A lone surrogate has no UTF-8 form; the replacement character stands in for it, as a browser would send.
    out += safe.test(character)
      ? character
      : encodeURIComponent(/^[\uD800-\uDFFF]$/.test(character) ? '\uFFFD' : character);
  }
  // node:http answers 431 to a request line over 16 KiB and closes the connection under a client still writing
  // its body; very long paths are tried in process instead.
  return out.length > 8_000 ? out.slice(0, 8_000) : out;
}

/** Visible ASCII, space and tab only: what node:http lets a client put in a header value. */
export function httpSafeHeaderValue(value: string): string {
  return value.replace(/[^\t\x20-\x7e]/g, '?');
}

// ---------------------------------------------------------------- whole requests

/** Requests of every kind, honest and hostile, for a transport. */
export function requestPlans(world: WorldNames, transport: Transport): fc.Arbitrary<RequestPlan> {
  return fc
    .record({
      // An honest request is what a Flux cluster or a Weave client sends (to a path that may still be wrong):
      // without them the chance of getting method, key, bytes and body all right at random is too small.
      honest: fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 3, arbitrary: fc.constant(false) }),
      aimed: aimedPath(world),
      bodySecret: secretToken('sk_live_'),
      query: fc.oneof(
        { weight: 4, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.webQueryParameters() },
        { weight: 1, arbitrary: fc.constantFrom('x=1', 'token=abc&token=def', '?', '%', 'a=%ZZ') },
      ),
      extraHeaders: fc.array(fc.tuple(headerName, fc.string({ maxLength: 40 })), { maxLength: 6 }),
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }),
      credentials: fc.option(credentials, { nil: undefined }),
      signatureHeaderName: fc.oneof(
        { weight: 4, arbitrary: fc.constant('x-signature') },
        { weight: 1, arbitrary: fc.mixedCase(fc.constant('x-signature')) },
      ),
      signature: signaturePlan,
      contentLength: fc.constantFrom<RequestPlan['contentLength']>('none', 'exact', 'exact', 'lie'),
      contentLengthLie: fc.oneof(
        fc.constantFrom('0', '1', '600000', '524289', '524288', '-1', '1e6', ' 10 ', 'abc', '99999999999999999999'),
        fc.nat().map(String),
      ),
      encoding: fc.constantFrom<BodyEncoding>('base64', 'base64', 'text', 'invalid-base64'),
      base64Corruption: fc.nat({ max: 4 }),
    })
    .chain((parts) =>
      fc
        .tuple(
          parts.honest
            ? fc.constant(parts.aimed.method)
            : transport === 'http'
              ? httpMethod(parts.aimed.method)
              : methodFor(parts.aimed.method),
          parts.honest
            ? honestBody(world, parts.bodySecret, parts.aimed.cluster)
            : body(world, parts.bodySecret, parts.aimed.cluster),
          parts.honest ? honestSignature : fc.constant(parts.signature),
        )
        .map(([method, requestBody, signature]): RequestPlan => {
          const headers: [string, string][] = parts.extraHeaders.filter(
            ([name]) => transport !== 'http' || !FRAMING_HEADERS.has(name.toLowerCase()),
          );
          const planted = [parts.bodySecret];
          if (parts.contentType !== undefined) headers.push(['Content-Type', parts.contentType]);
          if (parts.credentials !== undefined) {
            const [name, value, secret] = parts.credentials;
            headers.push([name, value]);
            planted.push(secret);
          }
          return {
            method,
            path: transport === 'http' ? httpSafePath(parts.aimed.path) : parts.aimed.path,
            query: transport === 'http' ? httpSafePath(parts.query) : parts.query,
            headers: transport === 'http' ? headers.map(([n, v]) => [n, httpSafeHeaderValue(v)]) : headers,
            signatureHeaderName: parts.signatureHeaderName,
            signature,
            contentLength:
              transport === 'http' || (parts.honest && parts.contentLength === 'lie') ? 'none' : parts.contentLength,
            contentLengthLie: parts.contentLengthLie,
            body: requestBody,
            encoding: parts.encoding,
            base64Corruption: parts.base64Corruption,
            planted,
          };
        }),
    );
}

/** Ways to make base64 that is not quite base64: what a function URL should never send, but might. */
export function corruptBase64(base64: string, seed: number): string {
  switch (seed % 5) {
    case 0:
      return `${base64}!!`;
    case 1:
      return base64.replace(/=+$/, '');
    case 2:
      return base64.replace(/\+/g, '-').replace(/\//g, '_');
    case 3:
      return base64.slice(0, Math.max(0, base64.length - 3));
    default:
      return `${base64.slice(0, 8)} \n${base64.slice(8)}`;
  }
}

// ---------------------------------------------------------------- the honest sender

/** A Flux event as notification-controller would send it, with whatever a proxy or a client library adds. */
export interface SignedEventPlan {
  request: RequestPlan;
  app: AppKey;
  event: GeneratedEvent;
}

/** `body` followed by spaces up to `size` bytes (JSON allows them), or as it is. */
function padded(body: Buffer, size: number | undefined): Buffer {
  if (size === undefined || size <= body.length) return body;
  return Buffer.concat([body, Buffer.alloc(size - body.length, ' ')]);
}

/**
 * A correctly signed, well-formed Flux event about an indexed app, with the current or the previous key, varied in
 * everything that must not matter: header casing and order, extra headers, a query string, how the path is
 * percent-encoded, hex case and surrounding whitespace of the signature, how the body is carried.
 */
export function signedEventPlans(world: WorldNames, transport: Transport): fc.Arbitrary<SignedEventPlan> {
  const extraHeader = fc
    .tuple(headerName, fc.string({ maxLength: 40 }))
    .filter(([name]) => !['x-signature', 'content-length'].includes(name.toLowerCase()))
    .filter(([name]) => transport !== 'http' || !FRAMING_HEADERS.has(name.toLowerCase()));
  return fc
    .record({
      app: fc.constantFrom(...world.indexedApps),
      bodySecret: secretToken('sk_live_'),
      key: fc.constantFrom<KeyChoice>('route', 'route-previous'),
      mutation: fc.constantFrom<SignatureMutation>('none', 'none', 'uppercase-hex', 'whitespace'),
      signatureHeaderName: fc.mixedCase(fc.constant('x-signature')),
      extraHeaders: fc.array(extraHeader, { maxLength: 6 }),
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }),
      credentials: fc.option(credentials, { nil: undefined }),
      query: fc.oneof(fc.constant(''), fc.webQueryParameters()),
      contentLength: fc.constantFrom<RequestPlan['contentLength']>('none', 'exact'),
      encoding: fc.constantFrom<BodyEncoding>('base64', 'text'),
      // Now and then padded with JSON whitespace to just under or exactly the cap, which is still accepted.
      padTo: fc.oneof(
        { weight: 9, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.integer({ min: MAX_BODY_BYTES - 64, max: MAX_BODY_BYTES }) },
      ),
    })
    .chain((parts) =>
      fc
        .tuple(
          fluxEvent(parts.app, parts.bodySecret),
          encodedSegment(parts.app.cluster.namespace),
          encodedSegment(parts.app.cluster.name),
        )
        .map(([event, namespace, name]): SignedEventPlan => {
          const headers = [...parts.extraHeaders];
          const planted = [parts.bodySecret];
          if (parts.contentType !== undefined) headers.push(['Content-Type', parts.contentType]);
          if (parts.credentials !== undefined) {
            headers.push([parts.credentials[0], parts.credentials[1]]);
            planted.push(parts.credentials[2]);
          }
          const request: RequestPlan = {
            method: 'POST',
            path: `/v1/events/${namespace}/${name}`,
            query: transport === 'http' ? httpSafePath(parts.query) : parts.query,
            headers: transport === 'http' ? headers.map(([n, v]) => [n, httpSafeHeaderValue(v)]) : headers,
            signatureHeaderName: parts.signatureHeaderName,
            signature: {
              kind: 'hmac',
              key: parts.key,
              algorithm: 'natural',
              weaveAlgorithm: 'sha256',
              over: 'route',
              mutation: parts.mutation,
              randomKey: '',
            },
            contentLength: transport === 'http' ? 'none' : parts.contentLength,
            contentLengthLie: '',
            body: padded(Buffer.from(event.text, 'utf8'), parts.padTo),
            encoding: parts.encoding,
            base64Corruption: 0,
            planted,
          };
          return { request, app: parts.app, event };
        }),
    );
}
