// The Lambda function URL adapter (payload format 2.0): an APIGatewayProxyEventV2 becomes an HttpRequest, an
// HttpResponse becomes the structured result the function URL sends back.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DEFAULT_MAX_BODY_BYTES, JSON_CONTENT_TYPE } from './types.js';
import type { HttpRequest, HttpResponse } from './types.js';

/**
 * The request as sent: `rawPath` (no query string), the headers with lower-case names, and the body bytes
 * (base64-decoded when the function URL encoded them, as it does for non-text content types).
 *
 * AWS may hand over `rawPath` already percent-decoded (API Gateway's payload 2.0 does). The routes decode each
 * segment once more, which changes nothing unless a segment contains `%`: Kubernetes names, environment names and
 * Flux revisions (`6.9.2+build`, `main@sha1:…`) do not. A revision with a `/` cannot be approved that way (as in
 * Weave); through the node:http server `%2F` works.
 */
export function fromFunctionUrlEvent(
  event: APIGatewayProxyEventV2,
  maxBodyBytes: number = DEFAULT_MAX_BODY_BYTES,
): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const existing = headers[lower];
    headers[lower] = existing === undefined ? value : `${existing}, ${value}`;
  }
  const request: HttpRequest = {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath || '/',
    headers,
    body: Buffer.alloc(0),
  };
  // `body` is absent when the request had none (typed string | undefined; null is tolerated too).
  if (typeof event.body !== 'string') return request;
  const encoding = event.isBase64Encoded ? 'base64' : 'utf8';
  // Measured before decoding, so an oversized body costs no copy of it.
  const length = Buffer.byteLength(event.body, encoding);
  if (length > maxBodyBytes) return { ...request, oversizedBodyBytes: length };
  return { ...request, body: Buffer.from(event.body, encoding) };
}

export function toFunctionUrlResult(response: HttpResponse): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: response.statusCode,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...response.headers },
    body: response.body ?? '',
    isBase64Encoded: false,
  };
}
