// What evaluating one verification check found (docs/verification.md, "Check results"): a verdict the decision
// reads, a named reason, and the value seen, for people and for the evidence of the next pull request. Evaluating a
// check never throws: whatever goes wrong on the way (an endpoint down, a refused address, a Canary missing) is a
// result, `inconclusive`, with its reason.
import type { CheckKind } from '../pipeline/verification.js';

export type CheckVerdict =
  /** The check holds now. */
  | 'passed'
  /** The check does not hold: the environment fails for the revision. */
  | 'failed'
  /** Not decided yet, by design (a Canary still analysing): never passes, never fails the environment. */
  | 'pending'
  /** The check could not be evaluated: never passes; fails the environment under `onInconclusive: fail`. */
  | 'inconclusive';

export type CheckReason =
  // cloudwatchAlarms
  /** Every alarm named is OK. */
  | 'AlarmsOK'
  /** An alarm is in state ALARM. */
  | 'InAlarm'
  /** An alarm is in state INSUFFICIENT_DATA. */
  | 'InsufficientData'
  /** An alarm named does not exist (in that region, for these credentials). */
  | 'AlarmNotFound'
  // prometheus
  /** The query's value is on the right side of its threshold. */
  | 'WithinThreshold'
  /** The query's value crossed its threshold. */
  | 'ThresholdCrossed'
  /** The query returned no series. */
  | 'NoData'
  /** The query returned more than one series, or a value that is not a number. */
  | 'NotOneValue'
  /** Prometheus refused the query (a syntax error, an unknown function). */
  | 'QueryRejected'
  // http
  /** The status (and body) were as expected. */
  | 'AsExpected'
  /** Another status than expected. */
  | 'UnexpectedStatus'
  /** The expected status, without the expected text in the body. */
  | 'BodyMismatch'
  // flaggerCanary
  /** Every target's Canary succeeded since the target reached the candidate. */
  | 'CanarySucceeded'
  /** A target's Canary failed since the target reached the candidate. */
  | 'CanaryFailed'
  /** A target's Canary is still analysing (or has not started on the candidate yet). */
  | 'CanaryProgressing'
  /** A target's cluster has no such Canary. */
  | 'CanaryNotFound'
  // any kind: the way to the service
  /** Connection refused, DNS, TLS. */
  | 'Unreachable'
  /** No answer in time. */
  | 'Timeout'
  /** The credentials were refused (401, 403, AccessDenied). */
  | 'Unauthorized'
  /** The service answered 5xx or throttled. */
  | 'ServerError'
  /** The answer was larger than the controller reads. */
  | 'AnswerTooLarge'
  /** The URL, or where it resolved or redirected to, is an address the controller never calls (docs/verification.md). */
  | 'AddressRefused'
  /** A Secret the check names is missing or lacks the keys it needs. */
  | 'SecretMissing'
  /** The answer could not be read. */
  | 'InvalidAnswer';

export interface CheckResult {
  /** The check's name, as the Pipeline writes it. */
  name: string;
  kind: CheckKind;
  verdict: CheckVerdict;
  reason: CheckReason;
  /**
   * What it saw, short, for people and the pull request's evidence: `podinfo-5xx ALARM`, `0.023`, `HTTP 503`,
   * `Failed`; never a credential.
   */
  value: string;
  /** One line for a person: what was checked and what it found. */
  message: string;
  /** ISO 8601: when it was evaluated. */
  checkedAt: string;
}
