// An environment's verification (docs/verification.md): the checks that must hold, once every target runs the
// candidate and is Ready, before anything is promoted from the environment. The Pipeline schema validates what is
// written (lib/config/schema.ts); the shape here is the one written, one key per kind of check, so that a check reads
// the same in a Pipeline, in `status -o json` and in the docs. Below it, what evaluating a check found: the vocabulary
// the decision reads (as it reads a target's status from lib/flux), the evaluators in lib/verification write.

/** The longest `for` a verification may ask: a week, as a soak. */
export { MAX_SOAK_MS as MAX_VERIFICATION_MS } from './environment-policies.js';

export interface Verification {
  /**
   * How long the checks must hold continuously after every target is Ready on the candidate (`10m`); absent: one
   * evaluation in which every check passes is enough. Kept as written.
   */
  for?: string;
  /** A check that cannot be evaluated (endpoint down, no data, no alarm) keeps the environment waiting, or fails it. */
  onInconclusive: 'wait' | 'fail';
  /** At least one; names unique within the environment. */
  checks: VerificationCheck[];
}

/** Every alarm named is in state OK. */
export interface CloudWatchAlarmsCheck {
  alarmNames: string[];
  /** The alarms' region; default the controller's own. */
  region?: string;
}

/** How a Prometheus query is authenticated: AWS SigV4 (Amazon Managed Service for Prometheus), or a Secret. */
export type PrometheusAuth =
  | { sigv4: { region: string } }
  /** The Secret (in the pipeline's namespace) holds `token` (a bearer token), or `username` and `password`. */
  | { secretRef: { name: string } };

/** An instant query whose single value is compared with `below` or `above` (exactly one of them). */
export interface PrometheusCheck {
  /** The Prometheus API base: `https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1234`, `https://prom…`. */
  url: string;
  query: string;
  below?: number;
  above?: number;
  auth?: PrometheusAuth;
  /** Lets `url` be plain `http://` to a loopback address (a sidecar, a port-forward); everything else is https. */
  allowInsecureLoopback?: boolean;
}

/** A GET of `url` answers `expectStatus` (default 200), with `bodyContains` in its body when given. */
export interface HttpCheck {
  url: string;
  expectStatus?: number;
  bodyContains?: string;
  /** The Secret holds `token` (sent as a bearer token), or `username` and `password` (basic authentication). */
  secretRef?: { name: string };
  /** Lets `url` be plain `http://` to a loopback address (a sidecar, a port-forward); everything else is https. */
  allowInsecureLoopback?: boolean;
}

/** On each target's cluster, the Flagger Canary (flagger.app/v1beta1) succeeded for the candidate. */
export interface FlaggerCanaryCheck {
  name: string;
  namespace: string;
}

/** One check: a name and exactly one kind. */
export type VerificationCheck = { name: string } & (
  | { cloudwatchAlarms: CloudWatchAlarmsCheck }
  | { prometheus: PrometheusCheck }
  | { http: HttpCheck }
  | { flaggerCanary: FlaggerCanaryCheck }
);

/** The kinds of check, as the key a Pipeline writes them under. */
export const CHECK_KINDS = ['cloudwatchAlarms', 'prometheus', 'http', 'flaggerCanary'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Which kind a check is. */
export function checkKind(check: VerificationCheck): CheckKind {
  if ('cloudwatchAlarms' in check) return 'cloudwatchAlarms';
  if ('prometheus' in check) return 'prometheus';
  if ('http' in check) return 'http';
  return 'flaggerCanary';
}

/**
 * A verification as a Pipeline writes it, once the schema has checked it (lib/config/schema.ts): each check holds
 * exactly one kind's key, and a Prometheus `auth` exactly one way; `onInconclusive` may be left out.
 */
export interface WrittenVerification {
  for?: string;
  onInconclusive?: 'wait' | 'fail';
  checks: WrittenCheck[];
}

export interface WrittenCheck {
  name: string;
  cloudwatchAlarms?: CloudWatchAlarmsCheck;
  prometheus?: Omit<PrometheusCheck, 'auth'> & { auth?: { sigv4?: { region: string }; secretRef?: { name: string } } };
  http?: HttpCheck;
  flaggerCanary?: FlaggerCanaryCheck;
}

/** The verification in force: `onInconclusive` defaulted to `wait`, each check as its one kind. */
export function resolveVerification(written: WrittenVerification): Verification {
  return {
    ...(written.for !== undefined ? { for: written.for } : {}),
    onInconclusive: written.onInconclusive ?? 'wait',
    checks: written.checks.map(resolveCheck),
  };
}

function resolveCheck(check: WrittenCheck): VerificationCheck {
  const { name } = check;
  if (check.cloudwatchAlarms) return { name, cloudwatchAlarms: structuredClone(check.cloudwatchAlarms) };
  if (check.prometheus) {
    const { auth, ...query } = check.prometheus;
    const resolvedAuth: PrometheusAuth | undefined = auth?.sigv4
      ? { sigv4: { region: auth.sigv4.region } }
      : auth?.secretRef
        ? { secretRef: { name: auth.secretRef.name } }
        : undefined;
    return { name, prometheus: { ...structuredClone(query), ...(resolvedAuth ? { auth: resolvedAuth } : {}) } };
  }
  if (check.http) return { name, http: structuredClone(check.http) };
  if (check.flaggerCanary) return { name, flaggerCanary: { ...check.flaggerCanary } };
  // The schema lets no such check through.
  throw new Error(`verification check ${name} names no kind of check`);
}

// ---------------------------------------------------------------- what a check found
//
// Evaluating a check never throws: whatever goes wrong on the way (an endpoint down, a refused address, a Canary
// missing) is a result, `inconclusive`, with its reason (docs/verification.md, "Check results").

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
