// Kubernetes conditions as Flux writes them, and the readiness rules HelmRelease and Kustomization share
// (docs/flux-status.md, "Conditions: the rules both kinds share"). The helpers follow fluxcd/pkg
// runtime/conditions, so a missing condition is Unknown, as it is for the controllers themselves. Also the two
// small object helpers both readers need (`typeMeta`, `describeIssue`), kept here so neither reader imports the other.
import * as z from 'zod/mini';
import type { TargetReason } from './target-status.js';

// Lives in its own module so that the receiver's event parsing can use it without building these Flux object schemas.
export { describeIssue } from '../util/zod-issue.js';

/** A `metav1.Condition` as Flux writes it. Every Flux condition carries `observedGeneration`. */
export interface Condition {
  type: string;
  /** `True`, `False` or `Unknown`; kept a string so an odd value reads as "not True" instead of unreadable. */
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** Loose, so a field added by a newer Kubernetes or Flux does not make an object unreadable. */
export const ConditionSchema: z.ZodMiniType<Condition> = z.looseObject({
  type: z.string().check(z.minLength(1)),
  status: z.string(),
  reason: z.optional(z.string()),
  message: z.optional(z.string()),
  observedGeneration: z.optional(z.int()),
  lastTransitionTime: z.optional(z.string()),
});

export const ConditionListSchema = z.array(ConditionSchema);

export type Conditions = readonly Condition[] | undefined;

export function findCondition(conditions: Conditions, type: string): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

export function isTrue(conditions: Conditions, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function isFalse(conditions: Conditions, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/** True when the condition is Unknown or absent, as in fluxcd/pkg. */
export function isUnknown(conditions: Conditions, type: string): boolean {
  const status = findCondition(conditions, type)?.status;
  return status === undefined || status === 'Unknown';
}

const MAX_MESSAGE = 200;

/** The first line of a controller message, at most ~200 characters: Helm errors append pages of logs. */
export function firstLine(message: string): string {
  const line = (message.split('\n', 1)[0] ?? '').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

/** `Ready is False (UpgradeFailed): Helm upgrade failed …` */
export function describeCondition(condition: Condition): string {
  const reason = condition.reason ? ` (${condition.reason})` : '';
  const message = condition.message ? firstLine(condition.message) : '';
  return `${condition.type} is ${condition.status}${reason}${message ? `: ${message}` : ''}`;
}

export interface ReadinessInput {
  generation: number;
  observedGeneration: number | undefined;
  conditions: readonly Condition[];
  /** Ready reasons that mean the last action succeeded. */
  successReasons: readonly string[];
}

/** The first thing wrong with the shared rules: a machine reason and a line for a person. */
export interface ReadinessProblem {
  reason: TargetReason;
  message: string;
}

export interface Readiness {
  /** The first thing wrong; undefined when Ready is True for the current spec and nothing runs. */
  problem?: ReadinessProblem;
  /** The controller is done with the current spec (before the kind's own checks, which may still unsettle it). */
  settled: boolean;
}

/**
 * The rules both kinds share: generation observed, Ready current and successful, no Reconciling, no Stalled.
 * A condition without `observedGeneration` counts as current: older controllers did not always set it, and
 * `status.observedGeneration` still guards the spec.
 */
export function assessReadiness({
  generation,
  observedGeneration,
  conditions,
  successReasons,
}: ReadinessInput): Readiness {
  const current = (condition: Condition) =>
    condition.observedGeneration === undefined || condition.observedGeneration === generation;
  const ready = findCondition(conditions, 'Ready');
  const stalled = findCondition(conditions, 'Stalled');
  const reconciling = isTrue(conditions, 'Reconciling');
  const generationObserved = observedGeneration === generation;
  // Stalled is terminal: the controller gave up on this spec and waits for a new one. A Stalled left over from
  // an older generation says nothing about the current spec.
  const stalledNow = stalled?.status === 'True' && current(stalled);
  // Waiting for a dependency or a source artifact is not a verdict: the controllers requeue it (every 30 s by
  // default) without a Reconciling condition, and it resolves by itself once the dependency or source is ready.
  const waiting = ready?.status === 'False' && RETRIED_READY_REASONS.includes(ready.reason ?? '');
  const settled =
    stalledNow ||
    (generationObserved &&
      ready !== undefined &&
      (ready.status === 'True' || ready.status === 'False') &&
      current(ready) &&
      !reconciling &&
      !waiting);

  const problem = firstProblem();
  return problem === undefined ? { settled } : { problem, settled };

  // The order is the rule: what a person most needs to know about the current spec comes first.
  function firstProblem(): ReadinessProblem | undefined {
    if (stalled?.status === 'True') return { reason: 'Stalled', message: describeCondition(stalled) };
    // A failure for the current spec says more to a person than the generation bookkeeping around it.
    if (ready?.status === 'False' && current(ready)) {
      return { reason: failureReason(ready), message: describeCondition(ready) };
    }
    if (!generationObserved) {
      const message = `generation ${generation} not yet observed (observedGeneration ${observedGeneration ?? 'none'})`;
      return { reason: 'GenerationNotObserved', message };
    }
    if (reconciling) {
      const message = `Reconciling: ${findCondition(conditions, 'Reconciling')?.reason ?? 'no reason'}`;
      return { reason: 'Reconciling', message };
    }
    if (!ready) return { reason: 'ReadyMissing', message: 'no Ready condition yet' };
    if (!current(ready)) {
      return {
        reason: 'ReadyOutdated',
        message: `Ready is for generation ${ready.observedGeneration}, not ${generation}`,
      };
    }
    if (ready.status !== 'True') return { reason: 'ReadyUnknown', message: describeCondition(ready) };
    if (!successReasons.includes(ready.reason ?? '')) {
      return {
        reason: remediationReason(ready.reason) ?? 'UnexpectedReadyReason',
        message: `Ready is True but reason ${ready.reason ?? '(none)'} is not a success reason`,
      };
    }
    return undefined;
  }
}

/**
 * Ready False reasons the controllers retry on their own: a `dependsOn` object not ready yet, a source artifact not
 * available yet (kustomize-controller's "Source artifact not found, retrying in 30s", helm-controller's chart not
 * ready), and a health check cut short because a newer revision arrived (Flux 2.8's `HealthCheckCanceled`, with
 * `CancelHealthCheckOnNewRevision`): the controller goes on with that revision, so nothing failed.
 */
const RETRIED_READY_REASONS: readonly string[] = [
  'DependencyNotReady',
  'ArtifactFailed',
  'SourceNotReady',
  'HealthCheckCanceled',
];

/** Ready False for the current spec: a dependency or source still coming up, a remediation, failed tests, a failure. */
function failureReason(ready: Condition): TargetReason {
  if (ready.reason === 'DependencyNotReady') return 'DependencyNotReady';
  if (ready.reason === 'ArtifactFailed' || ready.reason === 'SourceNotReady') return 'SourceNotReady';
  if (ready.reason === 'HealthCheckCanceled') return 'HealthCheckCanceled';
  if (ready.reason === 'TestFailed') return 'TestsFailed';
  return remediationReason(ready.reason) ?? 'ReconciliationFailed';
}

/** helm-controller's remediation outcomes: the release is not what was asked for, whatever Ready says. */
function remediationReason(reason: string | undefined): TargetReason | undefined {
  if (reason === 'RollbackSucceeded') return 'RolledBack';
  if (reason === 'UninstallSucceeded') return 'Uninstalled';
  return undefined;
}

/** `kind` and `apiVersion` of an object read from a cluster, clipped for messages; undefined when absent. */
export function typeMeta(object: unknown): { kind?: string; apiVersion?: string; ref: string } {
  const record = typeof object === 'object' && object !== null ? (object as Record<string, unknown>) : {};
  const metadata = typeof record['metadata'] === 'object' && record['metadata'] !== null ? record['metadata'] : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? clip(value) : undefined);
  const { namespace, name } = metadata as Record<string, unknown>;
  const result: { kind?: string; apiVersion?: string; ref: string } = {
    ref: `${text(namespace) ?? '(no namespace)'}/${text(name) ?? '(no name)'}`,
  };
  const kind = text(record['kind']);
  const apiVersion = text(record['apiVersion']);
  if (kind !== undefined) result.kind = kind;
  if (apiVersion !== undefined) result.apiVersion = apiVersion;
  return result;
}

function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
