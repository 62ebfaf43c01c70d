// The one way a verification check calls out (docs/verification.md, "Safety"). The URL comes from a Pipeline, so the
// request is held to the outbound rules at every step: the URL as written, every address its name resolves to (the
// connection then goes to those checked addresses only, never to a second resolution), and every redirect's target,
// followed by hand. The answer is read up to a size and a deadline. Nothing here throws: the outcome is the answer,
// or a failure with the CheckReason a check reports, and a problem in words that never holds a credential (a URL is
// described by its origin and path, without its query or user information).
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { CheckReason } from '../pipeline/verification.js';
import {
  hostOf,
  isLoopbackHost,
  outboundUrlProblem,
  refusedAddressProblem,
  type OutboundOptions,
} from '../util/outbound-address.js';

/** An address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all of its addresses (the system's resolver unless a test gives its own). */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface OutboundRequestOptions extends OutboundOptions {
  /** The whole exchange, redirects included, in ms. Default 10 000. */
  timeoutMs?: number;
  /** The largest answer body read, in bytes. Default 1 MiB. */
  maxBytes?: number;
  /** Redirects followed at most. Default 3. */
  maxRedirects?: number;
  /** Whether a 3xx with a Location is followed (default) or is the answer. */
  followRedirects?: boolean;
  /** Default: the system resolver (`dns.lookup`, every address). */
  resolve?: HostResolver;
  /** CA certificates (PEM) trusted instead of the system's: a private CA, the tests' own. */
  ca?: string;
}

/** What a request hop carries, for a credential that depends on it (a SigV4 signature covers host, path and query). */
export interface HopRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** The headers sent besides the credential's, names in lower case. */
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  /** Headers sent on every hop; no credential here (see `credentials`). */
  headers?: Readonly<Record<string, string>>;
  /** A POST's body (a form, for Prometheus). */
  body?: string;
  /**
   * The credential headers of a hop (`authorization`, SigV4's `x-amz-*`). Called for every hop to the origin of the
   * URL as written, and never for another origin: a redirect elsewhere is followed without them.
   */
  credentials?: (hop: HopRequest) => Promise<Readonly<Record<string, string>>> | Readonly<Record<string, string>>;
}

/** The reasons the way to a service can fail, as a check reports them. */
export type OutboundFailureReason = Extract<
  CheckReason,
  'AddressRefused' | 'Unreachable' | 'Timeout' | 'AnswerTooLarge' | 'InvalidAnswer' | 'Unauthorized'
>;

export type OutboundOutcome =
  | {
      ok: true;
      status: number;
      headers: IncomingHttpHeaders;
      /** The body as UTF-8 text. */
      body: string;
      /** Where the answer came from, as a person reads it: origin and path (no query, no user information). */
      answeredBy: string;
    }
  | { ok: false; reason: OutboundFailureReason; problem: string };

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 10_000;
export const DEFAULT_OUTBOUND_MAX_BYTES = 1024 * 1024;
export const DEFAULT_OUTBOUND_MAX_REDIRECTS = 3;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

type Failure = Extract<OutboundOutcome, { ok: false }>;

/** Sends the request under the outbound rules; resolves to the answer or to a named failure, never rejects. */
export async function sendOutboundRequest(
  request: OutboundRequest,
  options: OutboundRequestOptions = {},
): Promise<OutboundOutcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const timedOut: Promise<Failure> = new Promise((resolve) =>
    deadline.signal.addEventListener('abort', () =>
      resolve(failure('Timeout', `no answer from ${describeUrl(request.url)} within ${timeoutMs} ms`)),
    ),
  );
  try {
    return await Promise.race([follow(request, options, deadline.signal), timedOut]);
  } catch (error) {
    // Not expected (every step returns its failure); still, nothing here throws.
    return failure('Unreachable', `${describeUrl(request.url)}: ${errorName(error)}`);
  } finally {
    clearTimeout(timer);
    deadline.abort();
  }
}

/** How a URL is named in a problem or a message: origin and path, never the query or user information. */
export function describeUrl(url: string | URL): string {
  const text = typeof url === 'string' ? url.trim() : url.href;
  if (!URL.canParse(text)) return 'the URL';
  const parsed = new URL(text);
  return `${parsed.origin}${parsed.pathname}`;
}

async function follow(
  request: OutboundRequest,
  options: OutboundRequestOptions,
  signal: AbortSignal,
): Promise<OutboundOutcome> {
  const written = outboundUrlProblem(request.url, options);
  if (written) return failure('AddressRefused', `${describeUrl(request.url)} ${written}`);
  const origin = new URL(request.url.trim()).origin;
  const maxRedirects = options.maxRedirects ?? DEFAULT_OUTBOUND_MAX_REDIRECTS;
  let url = new URL(request.url.trim());
  let method = request.method;
  let body = request.body ?? '';
  for (let hop = 0; ; hop += 1) {
    const addresses = await checkedAddresses(url, options);
    if (!Array.isArray(addresses)) return addresses;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      // A POST redirected to a GET leaves its body, and with it the body's type, behind.
      if (method === 'POST' || name.toLowerCase() !== 'content-type') headers[name.toLowerCase()] = value;
    }
    if (method === 'POST') headers['content-length'] = String(Buffer.byteLength(body));
    if (request.credentials && url.origin === origin) {
      let credentials: Readonly<Record<string, string>>;
      try {
        credentials = await request.credentials({ method, url, headers: { ...headers }, body });
      } catch (error) {
        return failure(
          'Unauthorized',
          `the credentials for ${describeUrl(url)} could not be made: ${errorName(error)}`,
        );
      }
      for (const [name, value] of Object.entries(credentials)) headers[name.toLowerCase()] = value;
    }
    const answer = await exchange({ method, url, headers, body, addresses, options, signal });
    if (!answer.ok) return answer;
    const location = answer.headers.location;
    if (options.followRedirects === false || !REDIRECTS.has(answer.status) || location === undefined) return answer;
    if (hop >= maxRedirects) {
      return failure('InvalidAnswer', `${describeUrl(request.url)} redirected more than ${maxRedirects} times`);
    }
    const target = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
    if (!target) return failure('InvalidAnswer', `${describeUrl(url)} redirected to an address that is not a URL`);
    const problem =
      url.protocol === 'https:' && target.protocol !== 'https:'
        ? 'must be https:// (a redirect from https:// never goes to plain http://)'
        : outboundUrlProblem(target.href, options);
    if (problem) {
      return failure('AddressRefused', `${describeUrl(url)} redirected to ${describeUrl(target)}, which ${problem}`);
    }
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = 'GET';
      body = '';
    }
    url = target;
  }
}

/** Every address the URL's host stands for, each allowed; or the failure naming the first refused. */
async function checkedAddresses(url: URL, options: OutboundRequestOptions): Promise<ResolvedAddress[] | Failure> {
  const host = hostOf(url);
  const family = isIP(host);
  let addresses: readonly ResolvedAddress[];
  if (family === 4 || family === 6) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch (error) {
      return failure('Unreachable', `${host} could not be resolved: ${errorName(error)}`);
    }
    if (addresses.length === 0) return failure('Unreachable', `${host} resolves to no address`);
  }
  for (const { address } of addresses) {
    const refused = refusedAddressProblem(address);
    if (refused) return failure('AddressRefused', `${host} resolves to ${address}: ${refused}`);
    if (url.protocol === 'http:' && !isLoopbackHost(address)) {
      return failure('AddressRefused', `${host} resolves to ${address}: plain http:// only to a loopback address`);
    }
  }
  return [...addresses];
}

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** A `lookup` for node:net that answers only with the addresses already checked: no second resolution. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
    const usable = addresses.filter((address) => wanted === undefined || address.family === wanted);
    const [first] = usable;
    if (!first) {
      callback(Object.assign(new Error('no address of the family asked for'), { code: 'ENOTFOUND' }), '', 4);
    } else if (lookupOptions.all) {
      (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

interface Exchange {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body: string;
  addresses: readonly ResolvedAddress[];
  options: OutboundRequestOptions;
  signal: AbortSignal;
}

/** One request and its answer, read up to the size cap. */
function exchange({ method, url, headers, body, addresses, options, signal }: Exchange): Promise<OutboundOutcome> {
  const maxBytes = options.maxBytes ?? DEFAULT_OUTBOUND_MAX_BYTES;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: OutboundOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const outgoing = send(
      {
        method,
        protocol: url.protocol,
        hostname: hostOf(url),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers,
        lookup: pinnedLookup(addresses),
        agent: false,
        signal,
        ...(url.protocol === 'https:' && options.ca !== undefined ? { ca: options.ca } : {}),
      },
      (incoming: IncomingMessage) => {
        const status = incoming.statusCode ?? 0;
        const declared = Number(incoming.headers['content-length']);
        const tooLarge = (): void => {
          settle(failure('AnswerTooLarge', `${describeUrl(url)} answered more than ${maxBytes} bytes`));
          incoming.destroy();
          outgoing.destroy();
        };
        if (Number.isFinite(declared) && declared > maxBytes) {
          tooLarge();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) tooLarge();
          else chunks.push(chunk);
        });
        incoming.on('end', () =>
          settle({
            ok: true,
            status,
            headers: incoming.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            answeredBy: describeUrl(url),
          }),
        );
        incoming.on('error', (error) => settle(failure('Unreachable', `${describeUrl(url)}: ${errorName(error)}`)));
      },
    );
    outgoing.on('error', (error) => settle(failure('Unreachable', `${describeUrl(url)}: ${errorName(error)}`)));
    outgoing.end(method === 'POST' ? body : undefined);
  });
}

function failure(reason: OutboundFailureReason, problem: string): Failure {
  return { ok: false, reason, problem };
}

/** An error named by its code (ECONNREFUSED, CERT_HAS_EXPIRED…), never by its message, which may quote input. */
function errorName(error: unknown): string {
  const details = error as { code?: unknown; name?: unknown };
  if (typeof details.code === 'string') return details.code;
  if (typeof details.name === 'string') return details.name;
  return 'error';
}
