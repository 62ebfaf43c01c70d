// A fake Prometheus HTTP API on 127.0.0.1, for tests, benchmarks and the demo: `/api/v1/query` (GET, or POST with a
// form) answers each query as scripted (one value, a scalar, no data, several series, Prometheus's own error answer,
// any status, late or never); an unscripted query finds no series, as a query on a metric nobody exports does. The
// answers have Prometheus's shape (`{status, data: {resultType, result}}`, `{status: "error", errorType, error}`).
//
// In AMP mode it stands in for Amazon Managed Service for Prometheus: the API lives under
// `/workspaces/<id>/api/v1/query` and every request must carry a SigV4 signature as AMP checks it (Authorization
// `AWS4-HMAC-SHA256` scoped to the region and service `aps`, from a known access key, an X-Amz-Date within five
// minutes, the signature recomputed from what was received, the payload hash matching the body); otherwise 403 with
// AMP's JSON error body and `x-amzn-ErrorType`. With `requireAuthorization` it stands behind a proxy that wants one
// exact Authorization header (a bearer token, basic credentials) and answers 401 otherwise.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { LoopbackServer, withBody } from './listen.js';
import { SIGV4_CLOCK_SKEW_MS, verifySigv4, type FakeAwsCredentials } from './sigv4-verifier.js';

export type { FakeAwsCredentials } from './sigv4-verifier.js';

/** How one query answers. */
export type PrometheusScript =
  /** One series with this value (a number, or as Prometheus writes it: `NaN`, `+Inf`). */
  | { value: number | string }
  /** A scalar. */
  | { scalar: number | string }
  /** An empty vector. */
  | { noData: true }
  /** One series per value. */
  | { series: (number | string)[] }
  /** Prometheus's error answer: `bad_data` (400), `execution` (422), `timeout` (503)… */
  | { error: { status: number; errorType: string; error: string } }
  /** Any status and body. */
  | { status: number; body?: string };

export interface FakePrometheusRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The query asked, from the URL or the form. */
  query?: string;
  /** The status answered; undefined while an answer is pending. */
  status?: number;
}

export interface FakePrometheusOptions {
  /** Stand in for Amazon Managed Service for Prometheus in this region, for these credentials. */
  amp?: { region: string; credentials?: FakeAwsCredentials[]; workspaceId?: string };
  /** The one Authorization header accepted (`Bearer …`, `Basic …`); others get 401. */
  requireAuthorization?: string;
  /** The fake AMP's clock (ms since the epoch), against which X-Amz-Date is checked. Default `Date.now`. */
  now?: () => number;
}

/** The test credentials the fake AMP knows unless told otherwise. Not secret, not for any real use. */
export const FAKE_AMP_CREDENTIALS: FakeAwsCredentials = {
  accessKeyId: 'AKIAFAKEPROMETHEUS01',
  secretAccessKey: 'fake-amp-secret-access-key-for-tests-only',
};

/** How far X-Amz-Date may be from the server's clock, as AWS allows. */
export const AMP_CLOCK_SKEW_MS = SIGV4_CLOCK_SKEW_MS;

const QUERY_PATH = /^(?<prefix>.*)\/api\/v1\/query$/;

export class FakePrometheus {
  /** Every request received, oldest first. */
  readonly requests: FakePrometheusRequest[] = [];
  private readonly scripts = new Map<string, PrometheusScript>();
  private readonly delays = new Map<string, number | 'never'>();
  private server?: LoopbackServer;

  private constructor(private readonly options: FakePrometheusOptions) {}

  static async start(options: FakePrometheusOptions = {}): Promise<FakePrometheus> {
    const fake = new FakePrometheus(options);
    fake.server = await LoopbackServer.start(
      createServer(
        withBody((request, body, response) =>
          fake.handle(request.method ?? '', request.url ?? '/', request.headers, [body], response),
        ),
      ),
    );
    return fake;
  }

  /** The API base a check names: `http://127.0.0.1:<port>`, or the workspace's URL in AMP mode. */
  get url(): string {
    if (this.server === undefined) throw new Error('FakePrometheus is not started');
    const origin = `http://127.0.0.1:${this.server.port}`;
    return this.options.amp ? `${origin}/workspaces/${this.workspaceId}` : origin;
  }

  /** How `query` answers from now on, after `delayMs` (or never, until the server stops) when given. */
  script(query: string, script: PrometheusScript, delayMs?: number | 'never'): this {
    this.scripts.set(query, script);
    if (delayMs === undefined) this.delays.delete(query);
    else this.delays.set(query, delayMs);
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }

  private get workspaceId(): string {
    return this.options.amp?.workspaceId ?? 'ws-00000000-fake-prometheus';
  }

  private async handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    response: ServerResponse,
  ): Promise<void> {
    const body = Buffer.concat(chunks);
    const [pathname = '', search = ''] = path.split(/\?(.*)/s);
    const params = new URLSearchParams(search);
    if (method === 'POST' && String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      for (const [key, value] of new URLSearchParams(body.toString('utf8'))) params.append(key, value);
    }
    const logged: FakePrometheusRequest = { method, path, headers, query: params.get('query') ?? undefined };
    this.requests.push(logged);
    const send = (status: number, answer: string, extra: Record<string, string> = {}): void => {
      logged.status = status;
      response.writeHead(status, { 'content-type': 'application/json', ...extra });
      response.end(answer);
    };

    const route = QUERY_PATH.exec(pathname);
    const expectedPrefix = this.options.amp ? `/workspaces/${this.workspaceId}` : '';
    if (!route || route.groups?.prefix !== expectedPrefix) {
      send(404, this.options.amp ? JSON.stringify({ message: 'Not Found' }) : '404 page not found');
      return;
    }
    if (method !== 'GET' && method !== 'POST') {
      send(405, JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'method not allowed' }));
      return;
    }
    if (this.options.amp) {
      const refused = await this.ampRefusal(method, pathname, search, headers, body);
      if (refused) {
        send(403, JSON.stringify({ message: refused.message }), { 'x-amzn-errortype': refused.type });
        return;
      }
    }
    if (
      this.options.requireAuthorization !== undefined &&
      headers.authorization !== this.options.requireAuthorization
    ) {
      logged.status = 401;
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
      response.end('Unauthorized\n');
      return;
    }
    const query = params.get('query');
    if (query === null || query === '') {
      send(
        400,
        JSON.stringify({
          status: 'error',
          errorType: 'bad_data',
          error: 'invalid parameter "query": unknown position',
        }),
      );
      return;
    }
    const delay = this.delays.get(query);
    const answer = (): void => {
      const { status, body: text } = answerOf(this.scripts.get(query) ?? { noData: true });
      send(status, text);
    };
    if (delay === 'never') return;
    if (delay === undefined) {
      answer();
      return;
    }
    this.server?.later(delay, answer);
  }

  /** Why AMP would refuse this request's signature (its error type and message), or undefined. */
  private async ampRefusal(
    method: string,
    pathname: string,
    search: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<{ type: string; message: string } | undefined> {
    const amp = this.options.amp;
    if (!amp) return undefined;
    const verdict = await verifySigv4(
      {
        service: 'aps',
        regions: [amp.region],
        credentials: amp.credentials ?? [FAKE_AMP_CREDENTIALS],
        now: this.options.now ?? Date.now,
      },
      { method, pathname, search, headers, body },
    );
    return verdict.refused;
  }
}

/** The status and JSON body Prometheus answers for a script. */
function answerOf(script: PrometheusScript): { status: number; body: string } {
  const at = Date.now() / 1000;
  const written = (value: number | string): string => (typeof value === 'number' ? prometheusNumber(value) : value);
  const vector = (values: (number | string)[]) =>
    JSON.stringify({
      status: 'success',
      data: {
        resultType: 'vector',
        result: values.map((value, index) => ({ metric: { instance: `pod-${index}` }, value: [at, written(value)] })),
      },
    });
  if ('value' in script) return { status: 200, body: vector([script.value]) };
  if ('series' in script) return { status: 200, body: vector(script.series) };
  if ('noData' in script) return { status: 200, body: vector([]) };
  if ('scalar' in script) {
    return {
      status: 200,
      body: JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [at, written(script.scalar)] } }),
    };
  }
  if ('error' in script) {
    const { status, errorType, error } = script.error;
    return { status, body: JSON.stringify({ status: 'error', errorType, error }) };
  }
  return { status: script.status, body: script.body ?? '' };
}

/** A number as Prometheus writes a sample (Go's strconv.FormatFloat 'f' -1, and NaN, +Inf, -Inf). */
function prometheusNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
