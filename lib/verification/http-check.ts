// Evaluating an `http` check (docs/verification.md, "Checks"): a GET of the URL answers the expected status (default
// 200) and, when asked, a body holding the expected text. The URL is the service itself, so a wrong status is the
// service failing (5xx included): `failed`. What says nothing about the service is `inconclusive`: the way to it
// (unreachable, timeout, refused address, answer too large), our credentials refused (401, 403, 407 when not
// expected: `Unauthorized`) and throttling (429: `ServerError`). A 3xx expected is the answer itself: redirects are
// then not followed.
import type { CheckReason, CheckResult, CheckVerdict, HttpCheck } from '../pipeline/verification.js';
import type { CheckContext } from './check-context.js';
import { describeUrl, sendOutboundRequest } from './outbound-request.js';
import { secretAuthorization } from './secret-authorization.js';

export const DEFAULT_EXPECTED_STATUS = 200;

const CREDENTIALS_REFUSED = new Set([401, 403, 407]);
const THROTTLED = 429;
/** How much of `bodyContains` a message quotes. */
const QUOTED_TEXT = 80;

/** The check's result now; never rejects. */
export async function evaluateHttpCheck(
  name: string,
  check: HttpCheck,
  context: CheckContext = {},
): Promise<CheckResult> {
  const checkedAt = (context.now ?? (() => new Date()))().toISOString();
  const target = describeUrl(check.url);
  const result = (verdict: CheckVerdict, reason: CheckReason, value: string, message: string): CheckResult => ({
    name,
    kind: 'http',
    verdict,
    reason,
    value,
    message,
    checkedAt,
  });
  const expected = check.expectStatus ?? DEFAULT_EXPECTED_STATUS;

  let authorization: string | undefined;
  if (check.secretRef) {
    const secret = secretAuthorization(check.secretRef.name, context.secrets);
    if ('problem' in secret) return result('inconclusive', 'SecretMissing', '', `GET ${target}: ${secret.problem}`);
    authorization = secret.authorization;
  }

  const answer = await sendOutboundRequest(
    {
      method: 'GET',
      url: check.url,
      credentials: authorization === undefined ? undefined : () => ({ authorization }),
    },
    {
      ...context.outbound,
      followRedirects: expected >= 300 && expected < 400 ? false : context.outbound?.followRedirects,
    },
  );
  if (!answer.ok) return result('inconclusive', answer.reason, '', `GET ${target}: ${answer.problem}`);

  const value = `HTTP ${answer.status}`;
  if (answer.status !== expected) {
    if (CREDENTIALS_REFUSED.has(answer.status)) {
      return result(
        'inconclusive',
        'Unauthorized',
        value,
        `GET ${target} answered ${answer.status}: the credentials were refused`,
      );
    }
    if (answer.status === THROTTLED) {
      return result('inconclusive', 'ServerError', value, `GET ${target} answered 429: throttled`);
    }
    return result('failed', 'UnexpectedStatus', value, `GET ${target} answered ${answer.status}, ${expected} expected`);
  }
  if (check.bodyContains !== undefined && !answer.body.includes(check.bodyContains)) {
    return result(
      'failed',
      'BodyMismatch',
      value,
      `GET ${target} answered ${answer.status} without ${JSON.stringify(quoted(check.bodyContains))} in its body`,
    );
  }
  return result(
    'passed',
    'AsExpected',
    value,
    `GET ${target} answered ${answer.status}${check.bodyContains === undefined ? '' : ` with the expected text`}`,
  );
}

function quoted(text: string): string {
  return text.length > QUOTED_TEXT ? `${text.slice(0, QUOTED_TEXT)}…` : text;
}
