// The local mode's message route: how the other `pipelinectl` commands hand a queue message to a running `serve`
// (lib/cli/backends/local.ts). It answers only loopback peers, and only bodies signed with the master key:
//
//   POST /local/v1/messages   X-Signature: sha256=<HMAC-SHA256(master key current, body)>   body = encodeMessage(m)
//
// Answers, fixed JSON as the receiver's: 202 enqueued; 400 not a valid message; 401 bad or missing signature; 403 not
// from loopback; 405 not POST. The body is never logged or echoed.
import { verifySignature } from '../signing/hmac.js';
import { jsonResponse, type HttpRequest, type HttpResponse } from '../http/types.js';
import { decodeMessage } from '../queue/messages.js';
import type { Queue } from '../queue/port.js';
import type { Logger } from '../logging/logger.js';

/** The route a running `serve` takes queue messages on (loopback only, signed with the master key). */
export const LOCAL_MESSAGES_PATH = '/local/v1/messages';

const ACCEPTED = jsonResponse(202, { status: 'accepted' });
const INVALID = jsonResponse(400, { error: 'not a valid queue message' });
const UNAUTHORIZED = jsonResponse(401, { error: 'unauthorized' });
const FORBIDDEN = jsonResponse(403, { error: 'only accepted from loopback' });
const METHOD_NOT_ALLOWED = jsonResponse(405, { error: 'method not allowed' }, { allow: 'POST' });

export interface LocalMessagesDeps {
  queue: Pick<Queue, 'send'>;
  /** The master key the CLI signs with (its current value). */
  masterKey: () => Promise<string>;
  logger: Logger;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (`::ffff:127.0.0.1`). Unknown is not loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

export async function handleLocalMessage(request: HttpRequest, deps: LocalMessagesDeps): Promise<HttpResponse> {
  const reject = (response: HttpResponse, outcome: string): HttpResponse => {
    deps.logger.warn('local message rejected', { route: 'local-messages', status: response.statusCode, outcome });
    return response;
  };
  if (!isLoopbackAddress(request.remoteAddress)) return reject(FORBIDDEN, 'not-loopback');
  if (request.method !== 'POST') return reject(METHOD_NOT_ALLOWED, 'method-not-allowed');
  if (!verifySignature(request.headers['x-signature'], request.body, await deps.masterKey(), ['sha256'])) {
    return reject(UNAUTHORIZED, 'bad-signature');
  }
  const decoded = decodeMessage(request.body.toString('utf8'));
  if (!decoded.ok) {
    deps.logger.warn('local message rejected', {
      route: 'local-messages',
      status: INVALID.statusCode,
      outcome: 'invalid-message',
      reason: decoded.reason,
    });
    return INVALID;
  }
  await deps.queue.send(decoded.message);
  deps.logger.info('local message enqueued', { route: 'local-messages', status: 202, type: decoded.message.type });
  return ACCEPTED;
}
