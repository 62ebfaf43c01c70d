// Evaluating a `flaggerCanary` check (docs/verification.md, "Flagger Canaries"): on the cluster of each target of the
// environment, the Flagger Canary succeeded for the candidate. Flagger runs its analysis on the leaf cluster; the
// controller reads the Canary's status there, as it reads Flux objects, and trusts nothing else. A Canary's phase
// tells what its analysis of the newest spec found; whether that spec is the candidate's is told by time: a Succeeded
// or Failed phase counts only when it was reached at or after the target reached the candidate.
import * as z from 'zod';
import { ClusterAccessError, type ClusterErrorKind, type ClusterReader } from '../clusters/port.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { CheckReason, CheckResult, CheckVerdict, FlaggerCanaryCheck } from '../pipeline/verification.js';
import { mapLimit } from '../util/map-limit.js';
import { errorMessage } from '../util/error-message.js';

/** Clusters read at once: a check over a large fleet reads a few at a time. */
const CLUSTER_CONCURRENCY = 8;
/** How much of a string from a Canary (its phase, its condition's message) a result quotes. */
const QUOTED_CHARS = 160;
/** How long a result's value may grow when many clusters decide it. */
const MAX_VALUE_CHARS = 400;

/** The phases in which Flagger is still at work on the newest spec: the verdict is not in yet. */
const UNDECIDED_PHASES = new Set([
  'Initializing',
  'Initialized',
  'Waiting',
  'Progressing',
  'WaitingPromotion',
  'Promoting',
  'Finalising',
]);
/** The phases of a Canary being deleted: Flagger will not analyse the candidate. */
const ENDED_PHASES = new Set(['Terminating', 'Terminated']);

export interface CanaryTarget {
  /** The GitopsCluster the target runs on. */
  cluster: ObjectKey;
  /** When the target reached the candidate (ISO 8601): its observed status's `changedAt`. */
  reachedCandidateAt: string;
}

export interface FlaggerCanaryContext {
  clusters: Pick<ClusterReader, 'getCanary'>;
  /** The environment's targets; a cluster with several is read once, against the latest of their times. */
  targets: readonly CanaryTarget[];
  /** When the result is stamped. Default `() => new Date()`. */
  now?: () => Date;
}

/**
 * The part of a Canary's status that is read; loose, since the Canary is whatever the cluster answers. Anything not
 * of these types makes the answer unreadable (`InvalidAnswer`) rather than being guessed at.
 */
const CanaryStatus = z.looseObject({
  phase: z.string().optional(),
  lastTransitionTime: z.string().optional(),
  canaryWeight: z.number().optional(),
  iterations: z.number().optional(),
  conditions: z
    .array(
      z.looseObject({
        type: z.string().optional(),
        status: z.string().optional(),
        reason: z.string().optional(),
        message: z.string().optional(),
      }),
    )
    .optional(),
});
const CanaryObject = z.looseObject({ status: CanaryStatus.optional() });

/** What one cluster's Canary says. */
interface ClusterFinding {
  cluster: string;
  verdict: CheckVerdict;
  reason: CheckReason;
  /** Short: `Succeeded`, `Failed: <message>`, `Progressing (weight 20)`, `not found`, `Unauthorized`. */
  value: string;
  /** One clause for a person. */
  detail: string;
}

/** The check's result now; never rejects. */
export async function evaluateFlaggerCanaryCheck(
  name: string,
  check: FlaggerCanaryCheck,
  context: FlaggerCanaryContext,
): Promise<CheckResult> {
  const now = context.now ?? (() => new Date());
  const canary = { namespace: check.namespace, name: check.name };
  const what = `Canary ${objectKeyString(canary)}`;
  const clusters = clustersOf(context.targets);
  const findings = await mapLimit(clusters, CLUSTER_CONCURRENCY, (target) =>
    clusterFinding(context.clusters, target, canary),
  );
  const result = (verdict: CheckVerdict, reason: CheckReason, value: string, message: string): CheckResult => ({
    name,
    kind: 'flaggerCanary',
    verdict,
    reason,
    value: clip(value, MAX_VALUE_CHARS),
    message,
    checkedAt: now().toISOString(),
  });
  if (findings.length === 0) {
    return result(
      'inconclusive',
      'CanaryNotFound',
      'no target',
      `${what}: the environment has no target to read it on`,
    );
  }
  for (const verdict of ['failed', 'inconclusive', 'pending'] as const) {
    const deciding = findings.filter((finding) => finding.verdict === verdict);
    const [first] = deciding;
    if (!first) continue;
    const details = deciding.map((finding) => `on ${finding.cluster}: ${finding.detail}`).join('; ');
    return result(verdict, first.reason, groupedValue(deciding), `${what} ${details}`);
  }
  const value = groupedValue(findings);
  return result('passed', 'CanarySucceeded', value, `${what} succeeded for the candidate on every target's cluster`);
}

/** One entry per cluster, with the latest time a target on it reached the candidate. */
function clustersOf(targets: readonly CanaryTarget[]): CanaryTarget[] {
  const byCluster = new Map<string, CanaryTarget>();
  for (const target of targets) {
    const id = objectKeyString(target.cluster);
    const seen = byCluster.get(id);
    if (!seen || timeOf(target.reachedCandidateAt) > timeOf(seen.reachedCandidateAt)) byCluster.set(id, target);
  }
  return [...byCluster.values()];
}

async function clusterFinding(
  reader: Pick<ClusterReader, 'getCanary'>,
  target: CanaryTarget,
  canary: ObjectKey,
): Promise<ClusterFinding> {
  const cluster = objectKeyString(target.cluster);
  const finding = (verdict: CheckVerdict, reason: CheckReason, value: string, detail: string): ClusterFinding => ({
    cluster,
    verdict,
    reason,
    value,
    detail,
  });
  let object: Record<string, unknown> | undefined;
  try {
    object = await reader.getCanary(target.cluster, canary);
  } catch (error) {
    const reason = error instanceof ClusterAccessError ? REASON_OF_ACCESS_ERROR[error.kind] : 'ServerError';
    const message = errorMessage(error);
    return finding('inconclusive', reason, reason, `cannot be read: ${clip(message, 300)}`);
  }
  if (object === undefined) {
    return finding('inconclusive', 'CanaryNotFound', 'not found', 'no such Canary (is Flagger installed there?)');
  }
  const parsed = CanaryObject.safeParse(object);
  if (!parsed.success) {
    return finding('inconclusive', 'InvalidAnswer', 'unreadable status', 'its status is not a Canary status');
  }
  const status = parsed.data.status;
  const phase = status?.phase;
  if (phase === undefined || phase === '') {
    return finding('pending', 'CanaryProgressing', 'no phase yet', 'Flagger has not reported on it yet');
  }
  const shownPhase = clip(phase, QUOTED_CHARS);
  if (UNDECIDED_PHASES.has(phase)) {
    const weight =
      phase === 'Progressing' && status?.canaryWeight !== undefined ? ` (weight ${status.canaryWeight})` : '';
    return finding(
      'pending',
      'CanaryProgressing',
      `${shownPhase}${weight}`,
      `${shownPhase}${weight}: the analysis is not over`,
    );
  }
  if (ENDED_PHASES.has(phase)) {
    return finding('inconclusive', 'CanaryNotFound', shownPhase, `${shownPhase}: the Canary is being deleted`);
  }
  if (phase !== 'Succeeded' && phase !== 'Failed') {
    return finding('inconclusive', 'InvalidAnswer', shownPhase, `phase ${shownPhase} is not one Flagger reports`);
  }
  const reachedAt = timeOf(target.reachedCandidateAt);
  const decidedAt = status?.lastTransitionTime === undefined ? Number.NaN : timeOf(status.lastTransitionTime);
  if (Number.isNaN(decidedAt)) {
    return finding('inconclusive', 'InvalidAnswer', shownPhase, `${shownPhase}, without a time it became so`);
  }
  // The Canary's times are whole seconds; the target's may have milliseconds.
  if (Number.isNaN(reachedAt) || decidedAt < Math.floor(reachedAt / 1000) * 1000) {
    const since = new Date(decidedAt).toISOString();
    return finding(
      'pending',
      'CanaryProgressing',
      `${shownPhase} before the candidate`,
      `${shownPhase} since ${since}, before the target reached the candidate at ${target.reachedCandidateAt}: ` +
        'waiting for the analysis of the candidate',
    );
  }
  if (phase === 'Succeeded') return finding('passed', 'CanarySucceeded', 'Succeeded', 'Succeeded');
  const promoted = status?.conditions?.find((condition) => condition.type === 'Promoted');
  const said = promoted?.message ? `: ${clip(promoted.message, QUOTED_CHARS)}` : '';
  return finding('failed', 'CanaryFailed', `Failed${said}`, `Failed${said}`);
}

const REASON_OF_ACCESS_ERROR: Readonly<Record<ClusterErrorKind, CheckReason>> = {
  unreachable: 'Unreachable',
  timeout: 'Timeout',
  unauthorized: 'Unauthorized',
  forbidden: 'Unauthorized',
  'server-error': 'ServerError',
  // The cluster's registration or its kubeconfig Secret: the controller cannot get there.
  'bad-config': 'Unreachable',
  'too-large': 'AnswerTooLarge',
};

/** `Failed: … on a, b; Progressing on c`: the findings grouped by what they saw, each naming its clusters. */
function groupedValue(findings: readonly ClusterFinding[]): string {
  const byValue = new Map<string, string[]>();
  for (const finding of findings) byValue.set(finding.value, [...(byValue.get(finding.value) ?? []), finding.cluster]);
  return [...byValue].map(([value, clusters]) => `${value} on ${clusters.join(', ')}`).join('; ');
}

function timeOf(text: string): number {
  return Date.parse(text);
}

/** A string from the cluster, one line and at most `max` characters. */
function clip(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
