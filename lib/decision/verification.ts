// An environment's verification (docs/verification.md): once every target runs the candidate and is Ready, its
// checks must hold, continuously for `for`, before the environment counts as passed and anything is promoted from it.
// The checks are evaluated by the verifier (the `verify` action); what they found is kept per (environment, revision)
// in a VerificationRecord, folded here (recordEvaluation) so that the rule of what holds, what fails and when it is
// over lives in one place, and read back by the decision (verificationStep).
import { sameRevision } from '../flux/revision.js';
import type { PipelineEnvironment } from '../pipeline/model.js';
import { MAX_VERIFICATION_MS, type CheckResult, type Verification } from '../pipeline/verification.js';
import { durationMs } from '../util/duration.js';
import { isoSeconds } from './soak.js';
import type { EnvironmentReason, EnvironmentState, VerificationRecord } from './types.js';

export type { VerificationRecord } from './types.js';

/**
 * How often the checks are evaluated again while they have to hold: often enough that a failure within `for` is
 * seen, rarely enough that a thousand environments verifying at once cost little.
 */
export const RECHECK_MS = 60_000;

/** How long the checks must hold: `for`, or 0 when absent (one evaluation passing them all is enough). */
export function verificationForMs(verification: Verification): number {
  if (verification.for === undefined) return 0;
  // The schema admits only what durationMs reads; a stored value it cannot read must not shorten the wait.
  return durationMs(verification.for) ?? MAX_VERIFICATION_MS;
}

/**
 * The record after one evaluation of every check at `now`: a failure (or, under `onInconclusive: fail`, a check
 * that could not be evaluated) decides it failed; every check passing for the whole `for` decides it passed; else it
 * keeps waiting. A decided record is final: it is returned as it was.
 */
export function recordEvaluation(
  verification: Verification,
  previous: VerificationRecord | undefined,
  env: string,
  revision: string,
  results: readonly CheckResult[],
  now: Date,
): VerificationRecord {
  const same = previous && previous.env === env && sameRevision(previous.revision, revision) ? previous : undefined;
  if (same?.outcome !== undefined) return same;
  const at = now.toISOString();
  const allPassed = results.length > 0 && results.every((result) => result.verdict === 'passed');
  const holdingSince = allPassed ? (same?.holdingSince ?? at) : undefined;
  const record: VerificationRecord = {
    env,
    revision,
    startedAt: same?.startedAt ?? at,
    checkedAt: at,
    ...(holdingSince === undefined ? {} : { holdingSince }),
    results: [...results],
  };
  if (results.some((result) => failsEnvironment(verification, result))) {
    return { ...record, outcome: 'failed', decidedAt: at };
  }
  if (holdingSince !== undefined && now.getTime() - Date.parse(holdingSince) >= verificationForMs(verification)) {
    return { ...record, outcome: 'passed', decidedAt: at };
  }
  return record;
}

/** Whether one result fails the environment: a failed check, or one not evaluated under `onInconclusive: fail`. */
function failsEnvironment(verification: Verification, result: CheckResult): boolean {
  return result.verdict === 'failed' || (result.verdict === 'inconclusive' && verification.onInconclusive === 'fail');
}

/** Where the verification of an environment whose targets all run the candidate stands. */
export type VerificationStep =
  /** Every check held for the whole `for`: the environment passed. */
  | { passed: true; message: string }
  | {
      passed: false;
      state: Extract<EnvironmentState, 'verifying' | 'failed'>;
      reason: EnvironmentReason;
      message: string;
      /** The checks are evaluated now (the `verify` action). */
      due: boolean;
      /** ISO 8601: when the checks, holding now, will have held for the whole `for`. */
      verificationEndsAt?: string;
    };

/**
 * The verification step of `env` for `candidate`, from its record (any revision's; only the candidate's counts).
 * Undefined when the environment has no verification.
 */
export function verificationStep(
  env: PipelineEnvironment,
  candidate: string,
  record: VerificationRecord | undefined,
  now: Date,
): VerificationStep | undefined {
  const verification = env.verification;
  if (!verification) return undefined;
  const count = `${verification.checks.length} check${verification.checks.length === 1 ? '' : 's'}`;
  const current = record && sameRevision(record.revision, candidate) ? record : undefined;
  if (!current) {
    const message = `every target runs ${candidate} and is Ready; verifying it (${count})`;
    return { passed: false, state: 'verifying', reason: 'VerificationDue', message, due: true };
  }
  if (current.outcome === 'passed') {
    const held = verification.for === undefined ? '' : ` for ${verification.for}`;
    return {
      passed: true,
      message: `verified: ${count} held${held} (since ${current.holdingSince ?? current.startedAt})`,
    };
  }
  if (current.outcome === 'failed') {
    const failing = current.results.find((result) => failsEnvironment(verification, result));
    const reason: EnvironmentReason = failing?.verdict === 'failed' ? 'VerificationFailed' : 'VerificationInconclusive';
    const what = failing ? `check ${failing.name}: ${failing.message}` : 'a check failed';
    return {
      passed: false,
      state: 'failed',
      reason,
      message: `verification of ${candidate} failed: ${what}`,
      due: false,
    };
  }
  const due = !(now.getTime() - Date.parse(current.checkedAt) < RECHECK_MS);
  if (current.holdingSince !== undefined) {
    const endsAt = Date.parse(current.holdingSince) + verificationForMs(verification);
    const message = `${count} hold since ${current.holdingSince}; verified once they have held for ${verification.for ?? '0s'}`;
    return {
      passed: false,
      state: 'verifying',
      reason: 'VerificationHolding',
      message,
      // The end of `for` is confirmed by one more evaluation, as soon as it comes.
      due: due || now.getTime() >= endsAt,
      verificationEndsAt: isoSeconds(endsAt),
    };
  }
  const inconclusive = current.results.find((result) => result.verdict === 'inconclusive');
  if (inconclusive) {
    const message = `check ${inconclusive.name} could not be evaluated: ${inconclusive.message}; waiting`;
    return { passed: false, state: 'verifying', reason: 'VerificationInconclusive', message, due };
  }
  const pending = current.results.find((result) => result.verdict === 'pending');
  const what = pending ? `check ${pending.name}: ${pending.message}` : 'the checks have not all passed yet';
  return { passed: false, state: 'verifying', reason: 'VerificationPending', message: `waiting: ${what}`, due };
}
