// The event a notification promotion sends: Weave's notification strategy (docs/weave-compatibility.md) in the shape
// of Flux's `event.v1beta1.Event` (docs/flux-status.md, "The event"), so anything that takes a Flux generic /
// generic-hmac webhook takes it too. Weave emitted it through the Flux event recorder; we build it ourselves, with the
// same fields, in the same order, encoded the way Go's encoding/json would.
import { createHash } from 'node:crypto';
import type { PromotionRequest } from '../port.js';

export const PIPELINE_API_VERSION = 'pipelines.weave.works/v1alpha1';
export const REPORTING_CONTROLLER = 'pipeline-controller';
export const PROMOTE_REASON = 'Promote';

export interface PromotionEvent {
  /** The Pipeline, as `corev1.ObjectReference` keys in Go's order (no uid or resourceVersion: we read no object). */
  involvedObject: { kind: 'Pipeline'; namespace: string; name: string; apiVersion: string };
  severity: 'info';
  /** RFC 3339, UTC, whole seconds, like `metav1.Time`. */
  timestamp: string;
  /** `Promote pipeline {ns}/{name} to {env} with version {version}`, as Weave wrote it. */
  message: string;
  reason: 'Promote';
  /** Keys sorted, as Go marshals a map. */
  metadata: { environment: string; promotionId: string; version: string };
  reportingController: 'pipeline-controller';
  /** Omitted when not configured (`omitempty` in Flux). */
  reportingInstance?: string;
}

export interface PromotionEventOptions {
  /** `reportingInstance`: which deployment sent it (Flux puts the controller's pod name here). */
  instance?: string;
}

/**
 * The stable id of a promotion: the first 32 hex characters of SHA-256 over `{ns}/{name}/{env}/{revision}` (UTF-8).
 * Every attempt of a promotion carries the same id, so a receiver can drop the duplicates that at-least-once
 * delivery produces. None of namespace, name and environment may contain `/`, so the joined string is unambiguous.
 */
export function promotionId(request: Pick<PromotionRequest, 'pipeline' | 'env' | 'revision'>): string {
  const { pipeline, env, revision } = request;
  return createHash('sha256')
    .update(`${pipeline.namespace}/${pipeline.name}/${env.name}/${revision}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}

/** The event for a promotion, timestamped `now`. Only the timestamp differs between two attempts. */
export function promotionEvent(
  request: PromotionRequest,
  now: Date,
  options: PromotionEventOptions = {},
): PromotionEvent {
  const { pipeline, env, revision } = request;
  const event: PromotionEvent = {
    involvedObject: {
      kind: 'Pipeline',
      namespace: pipeline.namespace,
      name: pipeline.name,
      apiVersion: PIPELINE_API_VERSION,
    },
    severity: 'info',
    timestamp: rfc3339Seconds(now),
    message: `Promote pipeline ${pipeline.namespace}/${pipeline.name} to ${env.name} with version ${revision}`,
    reason: PROMOTE_REASON,
    metadata: { environment: env.name, promotionId: promotionId(request), version: revision },
    reportingController: REPORTING_CONTROLLER,
  };
  if (options.instance) event.reportingInstance = options.instance;
  return event;
}

/**
 * The compact JSON body, byte for byte what Go's `json.Marshal` gives for the same event: keys in insertion order
 * (which is Flux's struct order for events built here), and `<`, `>`, `&`, U+2028 and U+2029 escaped.
 * Sign these exact bytes; a receiver must verify over the raw body, never over a re-serialisation.
 */
export function encodeEvent(event: object): string {
  return JSON.stringify(event).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function rfc3339Seconds(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('the promotion event needs a valid date');
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
