// What a HelmRelease read from a leaf cluster says about its deployment (docs/flux-status.md, "HelmRelease").
//
// An object this module does not understand (another kind, an apiVersion it does not know, a malformed status)
// gives an Unreadable status, not an exception: it comes from a remote cluster, so it is a fact about that target
// to report next to the others, not a bug that should abort checking the whole pipeline.
import * as z from 'zod/mini';
import { fluxObjectSchema, readFluxObject, revisionField } from './flux-object.js';
import type { Condition } from './conditions.js';
import { assessReadiness, describeCondition, findCondition } from './conditions.js';
import type { Problem, TargetStatus } from './target-status.js';
import { readObjectStatus } from './target-status.js';

const GROUP = 'helm.toolkit.fluxcd.io';
/** v2beta2 has the same status as v2 (history, no maintained lastAppliedRevision); v2beta1 is the old shape. */
const VERSIONS = ['v2', 'v2beta2', 'v2beta1'] as const;
const SUCCESS_REASONS = ['InstallSucceeded', 'UpgradeSucceeded', 'TestSucceeded'];
const V2BETA1_SUCCESS_REASONS = ['ReconciliationSucceeded', ...SUCCESS_REASONS];

/** The revision fields Flux leaves empty before there is one. */
const chartVersionOrNone = revisionField('chart-version', { emptyForNone: true });

// Only the fields read here are declared; everything else is tolerated.
const Snapshot = z.looseObject({
  version: z.int(),
  status: z.string(),
  chartName: z.optional(z.string()),
  chartVersion: revisionField('chart-version'),
  configDigest: z.optional(z.string()),
});
type Snapshot = z.infer<typeof Snapshot>;

const HelmRelease = fluxObjectSchema({
  spec: {
    test: z.optional(z.looseObject({ enable: z.optional(z.boolean()), ignoreFailures: z.optional(z.boolean()) })),
  },
  status: {
    history: z.optional(z.array(Snapshot)),
    lastAttemptedRevision: z.optional(chartVersionOrNone),
    lastAttemptedConfigDigest: z.optional(z.string()),
    lastAppliedRevision: z.optional(chartVersionOrNone),
  },
});
type HelmRelease = z.infer<typeof HelmRelease>;
type Status = NonNullable<HelmRelease['status']>;

/** Read a `helm.toolkit.fluxcd.io` v2, v2beta2 or v2beta1 HelmRelease; anything else is unreadable. */
export function readHelmReleaseStatus(object: unknown): TargetStatus {
  return readFluxObject(
    {
      kind: 'HelmRelease',
      named: 'a HelmRelease',
      group: GROUP,
      versions: VERSIONS,
      schema: HelmRelease,
      read: readRelease,
    },
    object,
  );
}

function readRelease(hr: HelmRelease, version: (typeof VERSIONS)[number], ref: string): TargetStatus {
  const conditions = hr.status?.conditions ?? [];
  if (!hr.status || conditions.length === 0) {
    // A v2beta1 status keeps lastAppliedRevision on its own, so it still tells what runs.
    const applied = version === 'v2beta1' ? hr.status?.lastAppliedRevision : undefined;
    const status: TargetStatus = {
      phase: 'Progressing',
      reason: 'NoStatus',
      message: `HelmRelease ${ref} has no status yet`,
    };
    return applied ? { ...status, revision: applied } : status;
  }
  return version === 'v2beta1' ? readV2beta1(hr, hr.status, conditions) : readV2(hr, hr.status, conditions);
}

function readV2(hr: HelmRelease, status: Status, conditions: readonly Condition[]): TargetStatus {
  // `lastAppliedRevision` is deliberately not read: helm-controller ≥ v1 (Flux 2.3) stopped maintaining it, so on
  // a v2beta2 read it is stale. The history is the truth; it is newest first, but the release number decides.
  const latest = (status.history ?? []).reduce<Snapshot | undefined>(
    (max, entry) => (max === undefined || entry.version > max.version ? entry : max),
    undefined,
  );
  const revision = latest?.status === 'deployed' ? latest.chartVersion : undefined;
  const readiness = assessReadiness({
    generation: hr.metadata.generation,
    observedGeneration: status.observedGeneration,
    conditions,
    successReasons: SUCCESS_REASONS,
  });
  const release = readiness.problem === undefined ? releaseProblem(hr, status, conditions, latest) : undefined;
  return readObjectStatus({
    revision,
    attempted: status.lastAttemptedRevision,
    problem: readiness.problem ?? release,
    // Ready is True yet something is still moving: the controller has started on what comes next.
    settled: readiness.settled && !release?.inFlight,
    ready: { reason: 'Deployed', message: `deployed ${revision} (${findCondition(conditions, 'Ready')?.reason})` },
  });
}

interface ReleaseProblem extends Problem {
  /** The controller is mid-way: what it reports is about to change. */
  inFlight: boolean;
}

/** The v2 checks beyond Ready, in the order a person would want them named. */
function releaseProblem(
  hr: HelmRelease,
  status: Status,
  conditions: readonly Condition[],
  latest: Snapshot | undefined,
): ReleaseProblem | undefined {
  if (!latest) return { reason: 'NoRelease', message: 'no Helm release in history', inFlight: false };
  if (latest.status !== 'deployed') {
    // pending-install/upgrade/rollback and uninstalling are Helm actions still running.
    const inFlight = latest.status.startsWith('pending-') || latest.status === 'uninstalling';
    return {
      reason: inFlight ? 'ReleasePending' : 'ReleaseFailed',
      message: `latest release v${latest.version} (${latest.chartVersion}) is ${latest.status}`,
      inFlight,
    };
  }
  const attempted = status.lastAttemptedRevision;
  if (attempted !== latest.chartVersion) {
    return {
      reason: 'AttemptPending',
      message: `last attempted ${attempted ?? '(none)'} but ${latest.chartVersion} is deployed`,
      inFlight: true,
    };
  }
  const attemptedConfig = status.lastAttemptedConfigDigest;
  if (attemptedConfig && latest.configDigest && attemptedConfig !== latest.configDigest) {
    return {
      reason: 'ConfigPending',
      message: `last attempted config ${shortDigest(attemptedConfig)} but ${shortDigest(latest.configDigest)} is deployed`,
      inFlight: true,
    };
  }
  const test = hr.spec?.test;
  if (test?.enable === true && test.ignoreFailures !== true) {
    const testSuccess = findCondition(conditions, 'TestSuccess');
    if (testSuccess?.status !== 'True') {
      // Missing or Unknown (AwaitingTests): the tests have yet to run. False: they ran and failed.
      const inFlight = testSuccess?.status !== 'False';
      return {
        reason: inFlight ? 'TestsPending' : 'TestsFailed',
        message: `tests are enabled but ${testSuccess ? describeCondition(testSuccess) : 'TestSuccess is missing'}`,
        inFlight,
      };
    }
  }
  return undefined;
}

function readV2beta1(hr: HelmRelease, status: Status, conditions: readonly Condition[]): TargetStatus {
  const applied = status.lastAppliedRevision || undefined;
  const readiness = assessReadiness({
    generation: hr.metadata.generation,
    observedGeneration: status.observedGeneration,
    conditions,
    successReasons: V2BETA1_SUCCESS_REASONS,
  });
  let problem: Problem | undefined = readiness.problem;
  let inFlight = false;
  if (problem === undefined && applied === undefined) {
    problem = { reason: 'NoRevision', message: 'no applied revision yet' };
  } else if (problem === undefined && status.lastAttemptedRevision !== applied) {
    const message = `last attempted ${status.lastAttemptedRevision ?? '(none)'} but ${applied} is deployed`;
    problem = { reason: 'AttemptPending', message };
    inFlight = true;
  }
  return readObjectStatus({
    revision: applied,
    attempted: status.lastAttemptedRevision,
    problem,
    settled: readiness.settled && !inFlight,
    ready: { reason: 'Deployed', message: `deployed ${applied} (${findCondition(conditions, 'Ready')?.reason})` },
  });
}

/** `sha256:e15c415d6276…`: enough to tell two digests apart in a message. */
function shortDigest(digest: string): string {
  const colon = digest.indexOf(':');
  return digest.length > colon + 13 ? `${digest.slice(0, colon + 13)}…` : digest;
}
