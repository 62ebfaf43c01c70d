// Evaluating an environment's checks (docs/verification.md, "How a verification runs"): one dispatcher over the four
// kinds, so that the verifier and anything else evaluating checks give each kind the same context. The checks of one
// environment are evaluated at once, a few at a time, and nothing here throws: an evaluator that did would otherwise
// lose every other check's result, so whatever it threw becomes that check's `inconclusive` result.
import type { AwsCredentialsProvider } from '../clusters/eks.js';
import type { ClusterReader } from '../clusters/port.js';
import { redact } from '../logging/redaction.js';
import { printable } from '../logging/printable.js';
import type { PipelineEnvironment } from '../pipeline/model.js';
import {
  checkKind,
  type CheckResult,
  type CloudWatchAlarmsCheck,
  type VerificationCheck,
} from '../pipeline/verification.js';
import { mapLimit } from '../util/map-limit.js';
import type { CheckContext } from './check-context.js';
import { evaluateFlaggerCanaryCheck, type CanaryTarget } from './flagger-canary-check.js';
import { evaluateHttpCheck } from './http-check.js';
import type { OutboundRequestOptions } from './outbound-request.js';
import { evaluatePrometheusCheck } from './prometheus-check.js';
import type { CheckSecrets } from './secret-authorization.js';
import type { SecretSource } from '../secrets/port.js';
import { errorMessage } from '../util/error-message.js';

/** Checks of one environment evaluated at once: each may wait its whole time limit on a slow endpoint. */
export const CHECK_CONCURRENCY = 4;
/** How much of an unexpected error's text a result quotes. */
const QUOTED_ERROR_CHARS = 200;

/** Evaluates a `cloudwatchAlarms` check; given by the composition root, which holds the CloudWatch client. */
export type CloudWatchAlarmsEvaluator = (
  name: string,
  check: CloudWatchAlarmsCheck,
  context: CheckContext,
) => Promise<CheckResult>;

export interface CheckEvaluationDeps {
  /** Where the Flagger Canaries are read: the verifier's cluster reader. */
  clusters: Pick<ClusterReader, 'getCanary'>;
  /** The environment's targets with the time each reached the candidate (its status's `changedAt`). */
  targets: readonly CanaryTarget[];
  /** The Secrets the checks name, read in the pipeline's namespace. */
  secrets?: CheckSecrets;
  /**
   * The outbound rules' settings shared by every check (timeouts, a CA, a resolver). Loopback http is never taken
   * from here: a check allows it for itself only (`allowInsecureLoopback`).
   */
  outbound?: Omit<OutboundRequestOptions, 'allowLoopbackHttp'>;
  /** SigV4's credentials for `prometheus` checks with `auth.sigv4`; default the AWS SDK's provider chain. */
  awsCredentials?: AwsCredentialsProvider;
  /** Absent: a `cloudwatchAlarms` check is inconclusive (this deployment cannot read alarms). */
  cloudwatchAlarms?: CloudWatchAlarmsEvaluator;
  /** When results are stamped. Default `() => new Date()`. */
  now?: () => Date;
}

/** Every check of `env`, in its order, evaluated now for `revision`. Never rejects. */
export async function evaluateChecks(
  env: PipelineEnvironment,
  revision: string,
  deps: CheckEvaluationDeps,
): Promise<CheckResult[]> {
  const checks = env.verification?.checks ?? [];
  return mapLimit(checks, CHECK_CONCURRENCY, (check) => evaluateOneCheck(check, revision, deps));
}

/** One check evaluated now for `revision` (`pipelinectl check` asks one at a time). Never rejects. */
export async function evaluateOneCheck(
  check: VerificationCheck,
  revision: string,
  deps: CheckEvaluationDeps,
): Promise<CheckResult> {
  try {
    return await evaluateCheck(check, deps);
  } catch (error) {
    return unexpected(check, revision, error, deps);
  }
}

function evaluateCheck(check: VerificationCheck, deps: CheckEvaluationDeps): Promise<CheckResult> {
  const now = deps.now ?? (() => new Date());
  const context = (allowInsecureLoopback: boolean | undefined): CheckContext => ({
    ...(deps.secrets ? { secrets: deps.secrets } : {}),
    outbound: { ...deps.outbound, allowLoopbackHttp: allowInsecureLoopback === true },
    now,
  });
  if ('http' in check) return evaluateHttpCheck(check.name, check.http, context(check.http.allowInsecureLoopback));
  if ('prometheus' in check) {
    return evaluatePrometheusCheck(check.name, check.prometheus, {
      ...context(check.prometheus.allowInsecureLoopback),
      ...(deps.awsCredentials ? { awsCredentials: deps.awsCredentials } : {}),
    });
  }
  if ('flaggerCanary' in check) {
    return evaluateFlaggerCanaryCheck(check.name, check.flaggerCanary, {
      clusters: deps.clusters,
      targets: deps.targets,
      now,
    });
  }
  if (deps.cloudwatchAlarms) return deps.cloudwatchAlarms(check.name, check.cloudwatchAlarms, context(false));
  return Promise.resolve({
    name: check.name,
    kind: 'cloudwatchAlarms',
    verdict: 'inconclusive',
    reason: 'InvalidAnswer',
    value: '',
    message: 'CloudWatch alarms are not wired into this deployment: the alarms cannot be read',
    checkedAt: now().toISOString(),
  });
}

/** The result of a check whose evaluator threw: inconclusive, quoting the start of the error, redacted. */
function unexpected(
  check: VerificationCheck,
  revision: string,
  error: unknown,
  deps: CheckEvaluationDeps,
): CheckResult {
  const text = printable(redact(errorMessage(error))).replace(/\s+/g, ' ');
  const clipped = text.length <= QUOTED_ERROR_CHARS ? text : `${text.slice(0, QUOTED_ERROR_CHARS - 1)}…`;
  return {
    name: check.name,
    kind: checkKind(check),
    verdict: 'inconclusive',
    reason: 'InvalidAnswer',
    value: '',
    message: `evaluating the check for ${revision} failed unexpectedly: ${clipped}`,
    checkedAt: (deps.now ?? (() => new Date()))().toISOString(),
  };
}

/**
 * The Secrets the checks name (`secretRef`), read in the pipeline's namespace: only those. A missing one is absent
 * (the check says `SecretMissing`); a failure to read one throws (the caller retries, or reports it).
 */
export async function readCheckSecrets(
  namespace: string,
  checks: readonly VerificationCheck[],
  source: Pick<SecretSource, 'getSecret'> | undefined,
): Promise<CheckSecrets> {
  const names = [...new Set(checks.flatMap(secretNameOf))];
  if (!source || names.length === 0) return {};
  const entries = await Promise.all(
    names.map(async (name) => [name, await source.getSecret({ namespace, name })] as const),
  );
  return Object.fromEntries(entries);
}

function secretNameOf(check: VerificationCheck): string[] {
  if ('http' in check && check.http.secretRef) return [check.http.secretRef.name];
  if ('prometheus' in check && check.prometheus.auth && 'secretRef' in check.prometheus.auth) {
    return [check.prometheus.auth.secretRef.name];
  }
  return [];
}
