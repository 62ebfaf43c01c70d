// The rows of an environment's verification checks (docs/verification.md): each check is evaluated once, as the
// verifier will evaluate it, so that what would keep a promotion waiting is seen before the first one. A check that
// answers is `ok` whatever its verdict (a `failed` one is a `warning`: it would fail the environment if it still did
// then); one that cannot be evaluated (no such alarm, no data, the URL does not answer, no Canary) `failed`.
import type { Pipeline, PipelineEnvironment } from '../pipeline/model.js';
import { checkKind, type CheckResult } from '../pipeline/verification.js';
import type { CheckRow } from './check-row.js';
import type { CheckPorts } from './ports.js';
import { errorMessage } from '../util/error-message.js';

export async function verificationRows(
  place: { pipeline: string; environment: string },
  pipeline: Pipeline,
  env: PipelineEnvironment,
  evaluate: CheckPorts['evaluateCheck'],
): Promise<CheckRow[]> {
  const checks = env.verification?.checks ?? [];
  return Promise.all(
    checks.map(async (check): Promise<CheckRow> => {
      const row = (outcome: CheckRow['outcome'], reason: CheckRow['reason'], message: string, found?: CheckResult) => ({
        ...place,
        kind: 'verification-check' as const,
        outcome,
        reason,
        message,
        ...(found
          ? {
              check: {
                name: found.name,
                kind: found.kind,
                verdict: found.verdict,
                reason: found.reason,
                value: found.value,
              },
            }
          : {}),
      });
      const what = `check ${check.name} (${checkKind(check)})`;
      if (!evaluate) return row('warning', 'check-not-wired', `${what}: this deployment cannot evaluate it from here`);
      let found: CheckResult;
      try {
        found = await evaluate(pipeline, env, check);
      } catch (error) {
        // A Secret that could not be read, say: the row fails, the other rows stand.
        const why = errorMessage(error);
        return row('failed', 'check-not-evaluable', `${what} cannot be evaluated: ${why}`);
      }
      switch (found.verdict) {
        case 'passed':
        case 'pending':
          return row('ok', 'check-evaluates', `${what} evaluates: ${found.verdict}, ${found.value}`, found);
        case 'failed':
          return row('warning', 'check-fails-now', `${what} evaluates, and fails now: ${found.message}`, found);
        case 'inconclusive':
          return row(
            'failed',
            'check-not-evaluable',
            `${what} cannot be evaluated (${found.reason}): ${found.message}`,
            found,
          );
      }
    }),
  );
}
