// Checking an AWS Signature Version 4 as an AWS service does, for the fakes of AWS services: the Authorization header
// `AWS4-HMAC-SHA256` scoped to the service and a region it serves, from a known access key, an X-Amz-Date within five
// minutes of the server's clock, `host` among the signed headers, the payload hash matching the body, and the
// signature recomputed from what was received. A refusal carries the error type and message AWS answers with.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/** AWS credentials a fake knows. */
export interface FakeAwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** How far X-Amz-Date may be from the server's clock, as AWS allows. */
export const SIGV4_CLOCK_SKEW_MS = 5 * 60_000;

export interface Sigv4Expectations {
  /** The signing name of the service (`aps`, `monitoring`). */
  service: string;
  /** The regions the service answers for. */
  regions: readonly string[];
  credentials: readonly FakeAwsCredentials[];
  /** The server's clock (ms since the epoch). */
  now: () => number;
}

export interface ReceivedRequest {
  method: string;
  pathname: string;
  /** The query string, without `?`. */
  search: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Why AWS would refuse this request's signature, or the region it was signed for. */
export type Sigv4Verdict =
  { refused: { type: string; message: string }; region?: undefined } | { refused?: undefined; region: string };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=(?<key>[^/,\s]+)\/(?<day>\d{8})\/(?<region>[^/,\s]+)\/(?<service>[^/,\s]+)\/aws4_request,\s*SignedHeaders=(?<signed>[a-z0-9;-]+),\s*Signature=(?<signature>[0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export async function verifySigv4(expected: Sigv4Expectations, request: ReceivedRequest): Promise<Sigv4Verdict> {
  const refuse = (type: string, message: string): Sigv4Verdict => ({ refused: { type, message } });
  const { headers } = request;
  const authorization = headers.authorization;
  if (authorization === undefined) return refuse('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const parsed = AUTHORIZATION.exec(authorization)?.groups;
  const amzDate = headers['x-amz-date'];
  if (!parsed || typeof amzDate !== 'string') {
    return refuse(
      'IncompleteSignatureException',
      "Authorization header requires 'Credential', 'Signature', 'SignedHeaders' and an X-Amz-Date header.",
    );
  }
  const { key = '', day = '', region = '', service = '', signed = '', signature = '' } = parsed;
  if (service !== expected.service) {
    return refuse(
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${expected.service}'.`,
    );
  }
  if (!expected.regions.includes(region)) {
    return refuse('InvalidSignatureException', `Credential should be scoped to a valid region, not '${region}'.`);
  }
  const known = expected.credentials.find((credentials) => credentials.accessKeyId === key);
  if (!known) {
    return refuse('UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  const date = AMZ_DATE.exec(amzDate);
  const signedAt = date ? Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!) : NaN;
  if (Number.isNaN(signedAt) || !amzDate.startsWith(day) || Math.abs(expected.now() - signedAt) > SIGV4_CLOCK_SKEW_MS) {
    return refuse(
      'InvalidSignatureException',
      `Signature expired: ${amzDate} is now earlier or later than the allowed window of five minutes.`,
    );
  }
  const signedNames = signed.split(';');
  if (!signedNames.includes('host')) return refuse('IncompleteSignatureException', "'Host' must be a signed header.");
  const payloadHash = headers['x-amz-content-sha256'];
  if (typeof payloadHash === 'string' && payloadHash !== createHash('sha256').update(request.body).digest('hex')) {
    return refuse(
      'InvalidSignatureException',
      'The provided x-amz-content-sha256 header does not match what was computed.',
    );
  }
  const signer = new SignatureV4({
    service,
    region,
    credentials: { ...known, sessionToken: stringHeader(headers['x-amz-security-token']) },
    sha256: Hash.bind(null, 'sha256'),
  });
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(request.search)) {
    const previous = query[name];
    query[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const received: Record<string, string> = {};
  for (const name of signedNames) received[name] = stringHeader(headers[name]) ?? '';
  const recomputed = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: 'http:',
      hostname: received.host ?? '',
      path: request.pathname,
      query,
      headers: received,
      body: request.body,
    }),
    { signingDate: new Date(signedAt) },
  );
  const ours = /Signature=([0-9a-f]{64})/.exec(String(recomputed.headers.authorization ?? ''))?.[1];
  if (ours !== signature) {
    return refuse(
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return { region };
}

function stringHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
