// The `verify` action (docs/verification.md, "How a verification runs"): every target of the environment runs the
// candidate and is Ready, and its checks are due. They are evaluated from here, with the Secrets they name read where
// the pipeline lives, and what they found is folded into the environment's record (recordEvaluation, the one home of
// what holds, fails and is over), written conditionally on the version it was folded over: two verifiers evaluating
// at once never lose one another's evaluation, the second folds again over the first's. The writer that decided the
// record appends its audit entry (and so tells the listeners: notifications, metrics) and sends the re-decision that
// acts on it at once (the promotion from the environment); while it is undecided, the same writer sends the delayed
// re-decision that evaluates the checks again, so that `for` is measured by the verifier's own re-checks rather than
// by the poll.
import type { Action } from '../../decision/index.js';
import { RECHECK_MS, recordEvaluation, verificationStep } from '../../decision/verification.js';
import type { VerificationRecord } from '../../decision/types.js';
import {
  appKeyOf,
  appKeyString,
  objectKeyString,
  pipelineKeyOf,
  type Pipeline,
  type PipelineEnvironment,
} from '../../pipeline/model.js';
import { MAX_DELAY_SECONDS } from '../../queue/port.js';
import type { ObservedTargetStatus } from '../../store/port.js';
import type { CanaryTarget } from '../../verification/flagger-canary-check.js';
import type { VerifierDeps } from '../deps.js';
import { auditEffect } from '../effect-audit.js';

export type VerifyAction = Extract<Action, { type: 'verify' }>;

/** Writes tried when other verifiers keep writing the same record first; the next re-decision evaluates again. */
export const VERIFICATION_WRITE_ATTEMPTS = 3;
/** Seconds added to a re-check's delay, so that it arrives once the checks are due, not just before. */
const SLACK_SECONDS = 1;

/** What a verify effect did. */
export type VerifyRun =
  /** The record written, decided or not. */
  | { written: true; record: VerificationRecord }
  /** Nothing written: the record was already decided, the environment has no checks, or every write lost a race. */
  | { written: false };

export async function verify(
  pipeline: Pipeline,
  action: VerifyAction,
  statuses: ReadonlyMap<string, ObservedTargetStatus>,
  deps: VerifierDeps,
): Promise<VerifyRun> {
  const env = pipeline.environments.find((candidate) => candidate.name === action.env);
  const verification = env?.verification;
  if (!env || !verification) return { written: false };
  const key = pipelineKeyOf(pipeline);
  const { secrets, ...access } = deps.verification ?? {};
  // The checks' evaluators (HTTP, Prometheus with its request signing, Flagger canaries) are loaded by the first
  // verification a container runs, not at its cold start: a fleet whose environments have no checks never loads them.
  const { evaluateChecks, readCheckSecrets } = await import('../../verification/evaluate-check.js');
  const results = await evaluateChecks(env, action.revision, {
    ...access,
    clusters: deps.clusters,
    targets: canaryTargets(pipeline, env, statuses, deps.now()),
    secrets: await readCheckSecrets(pipeline.namespace, verification.checks, secrets),
    now: deps.now,
  });
  const attributes = { pipeline: objectKeyString(key), env: env.name, revision: action.revision };

  for (let attempt = 1; attempt <= VERIFICATION_WRITE_ATTEMPTS; attempt++) {
    const stored = (await deps.store.listVerifications(key)).find((record) => record.env === env.name);
    const record = recordEvaluation(verification, stored, env.name, action.revision, results, deps.now());
    // A decided record is final: another evaluation decided it, and its writer told everyone.
    if (record === stored) return { written: false };
    if (await deps.store.putVerification(key, record, stored?.version ?? 0)) {
      deps.logger.info('verification evaluated', {
        ...attributes,
        outcome: record.outcome ?? 'undecided',
        verdicts: record.results.map((result) => `${result.name} ${result.verdict}`),
      });
      await afterWrite(pipeline, env, record, deps);
      return { written: true, record };
    }
  }
  deps.logger.warn('verification not recorded: other evaluations kept writing first', attributes);
  return { written: false };
}

/** Tells of a decided record, or sends the re-decision that evaluates the checks again. */
async function afterWrite(
  pipeline: Pipeline,
  env: PipelineEnvironment,
  record: VerificationRecord,
  deps: VerifierDeps,
): Promise<void> {
  const now = deps.now();
  const step = verificationStep(env, record.revision, record, now);
  if (!step) return;
  // `retry`: a re-decision from the stored records, as the soak's re-checks are.
  const redecision = {
    type: 'check-pipeline',
    pipeline: pipelineKeyOf(pipeline),
    cause: 'retry',
    readTargets: false,
  } as const;
  if (record.outcome !== undefined) {
    await auditEffect(deps, pipeline, {
      type: record.outcome === 'passed' ? 'verification-passed' : 'verification-failed',
      env: env.name,
      revision: record.revision,
      message: step.message,
    });
    // This evaluation decided before the record was: what follows from it (a promotion, a rollback) is decided now.
    await deps.queue.send(redecision);
    return;
  }
  // Due again after RECHECK_MS, or when `for` ends if sooner: the evaluation then may pass the environment.
  const endsAt = step.passed ? undefined : step.verificationEndsAt;
  const untilEndMs = endsAt === undefined ? RECHECK_MS : Math.max(0, Date.parse(endsAt) - now.getTime());
  const delayMs = Math.min(RECHECK_MS, Number.isNaN(untilEndMs) ? RECHECK_MS : untilEndMs);
  const delaySeconds = Math.min(Math.ceil(delayMs / 1000) + SLACK_SECONDS, MAX_DELAY_SECONDS);
  await deps.queue.send(redecision, { delaySeconds });
}

/** Each target's cluster with the time it reached the candidate: its recorded status's `changedAt`. */
function canaryTargets(
  pipeline: Pipeline,
  env: PipelineEnvironment,
  statuses: ReadonlyMap<string, ObservedTargetStatus>,
  now: Date,
): CanaryTarget[] {
  return env.targets.map((target) => ({
    cluster: target.cluster,
    // The decision asks for a verification only once every target's status is recorded on the candidate; were one
    // missing, now is the latest it can have reached it, so no earlier revision's Canary verdict counts.
    reachedCandidateAt: statuses.get(appKeyString(appKeyOf(pipeline, target)))?.changedAt ?? now.toISOString(),
  }));
}
