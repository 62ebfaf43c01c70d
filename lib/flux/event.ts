// A Flux notification-controller event as a `generic` / `generic-hmac` Provider POSTs it
// (docs/flux-status.md, "Flux events").
//
// The payload is only a hint that something changed: nothing in it decides anything. Events are best-effort,
// can be lost, duplicated or arrive before the status they announce is written (a HelmRelease success event is
// sent before its status patch), so every decision rests on the object read back from the cluster.
import { parseJsonObject } from '../util/json.js';
// zod/mini, not zod's classic API: this module is on the receiver's path, and the classic API would add about 65 KiB to
// the receiver's bundle and to what each of its cold starts compiles. One classic import anywhere in the
// receiver's import graph brings all of it back (test/infra/zod-mini.test.ts).
import * as z from 'zod/mini';
import { WATCHED_KIND_GROUPS, type AppKind, type WatchedKind } from '../pipeline/model.js';
import { describeIssue } from '../util/zod-issue.js';

export type FluxAppKind = AppKind;

export interface FluxEvent {
  involvedObject: {
    kind: string;
    namespace: string;
    name: string;
    apiVersion?: string;
    uid?: string;
    resourceVersion?: string;
    fieldPath?: string;
  };
  /** `info` or `error` today; kept open for forward compatibility. */
  severity: string;
  /** RFC 3339, as sent. */
  timestamp: string;
  message: string;
  reason: string;
  /** Metadata with the `<group>/` prefixes stripped, as notification-controller forwards it; empty when absent. */
  metadata: Record<string, string>;
  reportingController: string;
  reportingInstance?: string;
  /**
   * `metadata.revision`: the chart version (HelmRelease), source revision (Kustomization) or artifact revision
   * (OCIRepository) the event is about.
   */
  revisionHint?: string;
}

export type ParseFluxEventResult = { ok: true; event: FluxEvent } | { ok: false; reason: string };

const nonEmpty = z.string().check(z.minLength(1));

// `eventv1.Event` has no omitempty on these fields, so a body without one is not from Flux. Unknown fields are
// tolerated: a newer notification-controller may add some.
const EventSchema = z.looseObject({
  involvedObject: z.looseObject({
    kind: nonEmpty,
    namespace: nonEmpty,
    name: nonEmpty,
    apiVersion: z.optional(z.string()),
    uid: z.optional(z.string()),
    resourceVersion: z.optional(z.string()),
    fieldPath: z.optional(z.string()),
  }),
  severity: z.string(),
  timestamp: z.string(),
  message: z.string(),
  reason: z.string(),
  metadata: z.optional(z.record(z.string(), z.string())),
  reportingController: z.string(),
  reportingInstance: z.optional(z.string()),
});

// Controllers prefix metadata keys with their API group and notification-controller strips them before forwarding;
// the Flux docs show the prefixed form, so a hand-made or replayed body may still carry it.
const METADATA_PREFIXES = [...new Set([...Object.values(WATCHED_KIND_GROUPS), 'event.toolkit.fluxcd.io'])].map(
  (group) => `${group}/`,
);

/** Parse a webhook body. Reasons are short and never repeat the body, which is untrusted input. */
export function parseFluxEvent(body: string): ParseFluxEventResult {
  const object = parseJsonObject(body);
  if (!object.ok) {
    return {
      ok: false,
      reason: object.reason === 'not an object' ? 'not a Flux event: expected a JSON object' : object.reason,
    };
  }
  const json = object.value;
  const parsed = EventSchema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason: `not a Flux event: ${describeIssue(parsed.error, json, { dynamicKeysAt: ['metadata'] })}`,
    };
  }
  const { involvedObject, metadata: raw = {}, reportingInstance, ...rest } = parsed.data;
  const metadata = normaliseMetadata(raw);
  const event: FluxEvent = {
    involvedObject: pick(involvedObject, [
      'kind',
      'namespace',
      'name',
      'apiVersion',
      'uid',
      'resourceVersion',
      'fieldPath',
    ]),
    severity: rest.severity,
    timestamp: rest.timestamp,
    message: rest.message,
    reason: rest.reason,
    metadata,
    reportingController: rest.reportingController,
  };
  if (reportingInstance !== undefined) event.reportingInstance = reportingInstance;
  const revision = metadata['revision'];
  if (revision) event.revisionHint = revision;
  return { ok: true, event };
}

/** Prefixed keys are stripped; when both forms are present the stripped one wins, since that is what NC sent. */
function normaliseMetadata(raw: Record<string, string>): Record<string, string> {
  const stripped = new Map<string, string>();
  const prefixed = new Map<string, string>();
  for (const [key, value] of Object.entries(raw)) {
    const prefix = METADATA_PREFIXES.find((p) => key.startsWith(p) && key.length > p.length);
    if (prefix === undefined) stripped.set(key, value);
    else if (!prefixed.has(key.slice(prefix.length))) prefixed.set(key.slice(prefix.length), value);
  }
  for (const [key, value] of prefixed) if (!stripped.has(key)) stripped.set(key, value);
  // fromEntries defines own properties, so a `__proto__` key stays a plain key.
  return Object.fromEntries(stripped);
}

function pick<T extends object, K extends keyof T>(object: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (object[key] !== undefined) out[key] = object[key];
  return out;
}

/**
 * The kind of object the controller reads that an event is about (an app, or a pipeline's source), or undefined for
 * anything else (other sources, image automation…). When the event names an apiVersion its group must be the kind's
 * Flux group, so a same-named kind from another project is not mistaken.
 */
export function watchedKindOfEvent(event: FluxEvent): WatchedKind | undefined {
  const { kind, apiVersion } = event.involvedObject;
  if (!isWatchedKind(kind)) return undefined;
  if (!apiVersion) return kind;
  const slash = apiVersion.indexOf('/');
  // A core-group apiVersion (`v1`) has no slash and so no Flux group.
  return slash > 0 && apiVersion.slice(0, slash) === WATCHED_KIND_GROUPS[kind] ? kind : undefined;
}

function isWatchedKind(kind: string): kind is WatchedKind {
  // Own keys only: an event naming `toString` or `__proto__` is about nothing we read.
  return Object.hasOwn(WATCHED_KIND_GROUPS, kind);
}
