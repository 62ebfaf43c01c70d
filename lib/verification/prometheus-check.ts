// Evaluating a `prometheus` check (docs/verification.md, "Checks"): an instant query (`GET {url}/api/v1/query`, a
// POST form when the query is long) whose single value is compared with `below` (holds when value < below) or `above`
// (holds when value > above). Prometheus is not the service: whatever keeps the query from giving one number is
// `inconclusive`, never `failed` (no series: NoData; several, a NaN, a range: NotOneValue; a query Prometheus refuses,
// 400 bad_data or 422: QueryRejected; 401 and 403: Unauthorized; 5xx and 429: ServerError). Authentication is a
// Secret's bearer token or basic credentials, or SigV4 (service `aps`) for Amazon Managed Service for Prometheus,
// signed with the controller's own AWS credentials on every hop to the workspace's origin.
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import * as z from 'zod';
import type { AwsCredentials, AwsCredentialsProvider } from '../clusters/eks.js';
import { redact } from '../logging/redaction.js';
import { printable } from '../logging/printable.js';
import type { CheckReason, CheckResult, CheckVerdict, PrometheusCheck } from '../pipeline/verification.js';
import type { CheckContext } from './check-context.js';
import { describeUrl, sendOutboundRequest, type HopRequest, type OutboundRequest } from './outbound-request.js';
import { secretAuthorization } from './secret-authorization.js';

export interface PrometheusCheckContext extends CheckContext {
  /** The credentials SigV4 signs with. Default: the AWS SDK's default provider chain (the function's role). */
  awsCredentials?: AwsCredentialsProvider;
}

/** The service name SigV4 signs Amazon Managed Service for Prometheus requests for. */
export const AMP_SIGNING_SERVICE = 'aps';

/** How much of Prometheus's own error text a message quotes. */
const QUOTED_ERROR = 200;

const sample = z.tuple([z.number(), z.string()]);
const successAnswer = z.object({
  status: z.literal('success'),
  data: z.discriminatedUnion('resultType', [
    z.object({ resultType: z.literal('vector'), result: z.array(z.object({ value: sample })) }),
    z.object({ resultType: z.literal('scalar'), result: sample }),
    z.object({ resultType: z.literal('matrix'), result: z.array(z.unknown()) }),
    z.object({ resultType: z.literal('string'), result: z.unknown() }),
  ]),
});
const errorAnswer = z.object({ status: z.literal('error'), errorType: z.string(), error: z.string() });

/**
 * A query URL longer than this is sent as a POST form instead (Prometheus and AMP take both): servers and proxies
 * refuse long request lines.
 */
export const MAX_QUERY_URL_LENGTH = 4096;

/** The instant-query endpoint of a Prometheus API base (with or without a trailing slash). */
export function instantQueryEndpoint(base: string): string {
  const url = new URL(base.trim());
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v1/query`;
  url.search = '';
  return url.href;
}

/** The instant query as a request: a GET, or a POST form when the URL would be too long. */
export function instantQueryRequest(
  base: string,
  query: string,
): Pick<OutboundRequest, 'method' | 'url' | 'headers' | 'body'> {
  const endpoint = instantQueryEndpoint(base);
  // RFC 3986 encoding (a space is %20, a plus %2B): what a SigV4 canonical query string is built from.
  const form = `query=${rfc3986(query)}`;
  const url = `${endpoint}?${form}`;
  if (url.length <= MAX_QUERY_URL_LENGTH) return { method: 'GET', url, headers: { accept: 'application/json' } };
  return {
    method: 'POST',
    url: endpoint,
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  };
}

/** The check's result now; never rejects. */
export async function evaluatePrometheusCheck(
  name: string,
  check: PrometheusCheck,
  context: PrometheusCheckContext = {},
): Promise<CheckResult> {
  const now = context.now ?? (() => new Date());
  const checkedAt = now().toISOString();
  const target = describeUrl(check.url);
  const result = (verdict: CheckVerdict, reason: CheckReason, value: string, message: string): CheckResult => ({
    name,
    kind: 'prometheus',
    verdict,
    reason,
    value,
    message,
    checkedAt,
  });
  const inconclusive = (reason: CheckReason, value: string, problem: string): CheckResult =>
    result('inconclusive', reason, value, `the query to ${target}: ${problem}`);

  if (!URL.canParse(check.url.trim())) return inconclusive('AddressRefused', '', 'the URL is not a URL');
  let credentials: ((hop: HopRequest) => Promise<Readonly<Record<string, string>>>) | undefined;
  const auth = check.auth;
  if (auth && 'secretRef' in auth) {
    const secret = secretAuthorization(auth.secretRef.name, context.secrets);
    if ('problem' in secret) return inconclusive('SecretMissing', '', secret.problem);
    const authorization = secret.authorization;
    credentials = () => Promise.resolve({ authorization });
  } else if (auth && 'sigv4' in auth) {
    let aws: AwsCredentials;
    try {
      aws = await (context.awsCredentials ?? defaultAwsCredentials)();
    } catch (error) {
      return inconclusive('Unauthorized', '', `AWS credentials could not be loaded (${errorName(error)})`);
    }
    const signer = new SignatureV4({
      service: AMP_SIGNING_SERVICE,
      region: auth.sigv4.region,
      credentials: aws,
      sha256: Hash.bind(null, 'sha256'),
    });
    credentials = (hop) => sigv4Headers(signer, hop, now());
  }

  const answer = await sendOutboundRequest(
    { ...instantQueryRequest(check.url, check.query), credentials },
    context.outbound,
  );
  if (!answer.ok) return inconclusive(answer.reason, '', answer.problem);
  const status = answer.status;
  if (status === 401 || status === 403) {
    return inconclusive('Unauthorized', `HTTP ${status}`, `answered ${status}: the credentials were refused`);
  }
  if (status >= 500 || status === 429) {
    return inconclusive('ServerError', `HTTP ${status}`, `answered ${status}${prometheusError(answer.body)}`);
  }
  if (status === 400 || status === 422) {
    return inconclusive(
      'QueryRejected',
      `HTTP ${status}`,
      `Prometheus refused the query${prometheusError(answer.body)}`,
    );
  }
  if (status !== 200) return inconclusive('InvalidAnswer', `HTTP ${status}`, `answered ${status}`);

  const parsed = successAnswer.safeParse(parseJson(answer.body));
  if (!parsed.success) return inconclusive('InvalidAnswer', 'HTTP 200', 'the answer is not a Prometheus query result');
  const data = parsed.data.data;
  let written: string;
  if (data.resultType === 'scalar') {
    written = data.result[1];
  } else if (data.resultType === 'vector') {
    if (data.result.length === 0) return inconclusive('NoData', 'no data', 'the query returned no series');
    const [only] = data.result;
    if (data.result.length > 1 || !only) {
      return inconclusive(
        'NotOneValue',
        `${data.result.length} series`,
        `the query returned ${data.result.length} series, one expected`,
      );
    }
    written = only.value[1];
  } else {
    return inconclusive('NotOneValue', data.resultType, `the query returned a ${data.resultType}, one value expected`);
  }
  const value = Number(written);
  if (written.trim() === '' || Number.isNaN(value)) {
    return inconclusive(
      'NotOneValue',
      printable(written.slice(0, 40)),
      'the query returned a value that is not a number',
    );
  }

  const required = [
    ...(check.below === undefined ? [] : [{ holds: value < check.below, text: `below ${check.below}` }]),
    ...(check.above === undefined ? [] : [{ holds: value > check.above, text: `above ${check.above}` }]),
  ];
  const seen = `${written}${required.length === 0 ? '' : ` (${required.map(({ text }) => text).join(', ')} required)`}`;
  if (required.every(({ holds }) => holds)) {
    return result('passed', 'WithinThreshold', seen, `the query to ${target} returned ${seen}`);
  }
  return result('failed', 'ThresholdCrossed', seen, `the query to ${target} returned ${seen}`);
}

/** The SigV4 headers of one hop (authorization, x-amz-date, the session token), for the hop's host, path and query. */
async function sigv4Headers(signer: SignatureV4, hop: HopRequest, signingDate: Date): Promise<Record<string, string>> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of hop.url.searchParams) {
    const previous = query[key];
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const signed = await signer.sign(
    new HttpRequest({
      method: hop.method,
      protocol: hop.url.protocol,
      hostname: hop.url.hostname,
      port: hop.url.port === '' ? undefined : Number(hop.url.port),
      path: hop.url.pathname,
      query,
      headers: { ...hop.headers, host: hop.url.host },
      body: hop.method === 'POST' ? hop.body : undefined,
    }),
    { signingDate },
  );
  return Object.fromEntries(Object.entries(signed.headers).filter(([header]) => header.toLowerCase() !== 'host'));
}

let defaultChain: AwsCredentialsProvider | undefined;

/** The AWS SDK's default credential provider chain, as lib/clusters/eks.ts uses it; loaded on first use. */
async function defaultAwsCredentials(): Promise<AwsCredentials> {
  if (!defaultChain) {
    const { STSClient } = await import('@aws-sdk/client-sts');
    defaultChain = new STSClient({}).config.credentials;
  }
  return defaultChain();
}

/** `: <errorType>: <error>` from a Prometheus error answer, redacted and cut; empty when the body is not one. */
function prometheusError(body: string): string {
  const parsed = errorAnswer.safeParse(parseJson(body));
  if (!parsed.success) return '';
  const text = printable(redact(parsed.data.error));
  return `: ${printable(parsed.data.errorType)}: ${text.length > QUOTED_ERROR ? `${text.slice(0, QUOTED_ERROR)}…` : text}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function errorName(error: unknown): string {
  const details = error as { name?: unknown };
  return typeof details.name === 'string' ? details.name : 'error';
}
