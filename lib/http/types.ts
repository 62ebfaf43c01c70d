// Transport-neutral HTTP types: the receiver's routes see only these, and thin adapters translate a Lambda
// function URL event (function-url.ts) or a node:http request (node-server.ts) into them and back.

/** A request as the routes see it. */
export interface HttpRequest {
  /** Upper case, e.g. `POST`. */
  method: string;
  /** The path as sent, still percent-encoded, without the query string. */
  path: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body bytes: signatures are computed over exactly these. Empty when `oversizedBodyBytes` is set. */
  body: Buffer;
  /** The body's length, when the adapter left it unread because it is over the cap (the receiver answers 413). */
  oversizedBodyBytes?: number;
  /** The peer's IP address, when the transport knows it (node:http; the local mode's loopback-only routes). */
  remoteAddress?: string;
}

export interface HttpResponse {
  statusCode: number;
  headers?: Record<string, string>;
  /** Always a short, fixed JSON text; never anything taken from the request. */
  body?: string;
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;

/**
 * The largest request body accepted: 3 MiB, what notification-controller itself accepts and forwards. Most events
 * are a few KiB, but a Kustomization's change-set message grows with the objects applied (564 KB has been seen).
 */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

export const JSON_CONTENT_TYPE = 'application/json';

/** A fixed JSON answer. `body` must be built from constants only, never from the request. */
export function jsonResponse(
  statusCode: number,
  body: Readonly<Record<string, string>>,
  headers?: Record<string, string>,
): HttpResponse {
  return jsonText(statusCode, JSON.stringify(body), headers);
}

/** A JSON answer from its text, which the caller built (the inputs route: the stored input), never stored by caches. */
export function jsonText(statusCode: number, body: string, headers?: Record<string, string>): HttpResponse {
  return { statusCode, headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store', ...headers }, body };
}
