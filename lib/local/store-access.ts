// Who may use the local store. dynalite takes any credentials, and its HTTP endpoint is reachable by every process
// on the machine, so the endpoint is guarded here: each start makes a random access key, the SDK client signs every
// request with it (as the SigV4 access key id), and a request whose Authorization header names any other key id is
// answered 403 before dynalite sees it. The key lives in the process that started the store and, for a running
// serve, in serve.json (0600, inside the 0700 data directory): only the user who owns the data directory reaches it.
import { randomBytes } from 'node:crypto';
import { sameSecret } from '../signing/presented-secrets.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** 32 random bytes, in hex: a new one at each start. */
export function newStoreAccessKey(): string {
  return randomBytes(32).toString('hex');
}

/** The access key id a SigV4 Authorization header names: `AWS4-HMAC-SHA256 Credential=<id>/<date>/…`. */
export function signedAccessKeyId(authorization: string | undefined): string | undefined {
  return /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];
}

/** Compared in constant time (sameSecret), so the time taken says nothing of how much of the key was right. */
export function isStoreAccessKey(given: string | undefined, accessKey: string): boolean {
  return given !== undefined && sameSecret(given, accessKey);
}

const REFUSAL = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#UnrecognizedClientException',
  message: 'The security token included in the request is invalid: this store takes only its own access key.',
});

/**
 * Puts the access key check in front of the server's request handlers (dynalite's). `onRefused` is told of each
 * refused request. A request's 'error' (its client went away mid-body) is dropped here: dynalite throws it, which
 * would end the process.
 */
export function guardStoreRequests(
  server: Server,
  accessKey: string,
  onRefused: (request: IncomingMessage) => void,
): void {
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!isStoreAccessKey(signedAccessKeyId(request.headers.authorization), accessKey)) {
      request.on('error', () => undefined);
      request.resume(); // the body is not read, only drained
      response.writeHead(403, {
        'content-type': 'application/x-amz-json-1.0',
        'content-length': Buffer.byteLength(REFUSAL),
      });
      response.end(REFUSAL);
      onRefused(request);
      return;
    }
    for (const handler of handlers) {
      const before = new Set(request.listeners('error'));
      handler.call(server, request, response);
      for (const listener of request.listeners('error')) {
        if (!before.has(listener)) request.off('error', listener as (error: Error) => void);
      }
    }
    request.on('error', () => undefined);
  });
}
