// Sending a request to a cluster's API server with a bound on the bytes of its answer. client-node's own HTTP library
// (IsomorphicFetchHttpLibrary) reads a body whole, however long it is, which lets one API server fill the memory of
// the process that reads it. This is the same library, on the same node-fetch (with the same headers, agent,
// redirects and decompression), with node-fetch's `size`: the answer is counted as it streams in, decompressed, and
// once it is over its bound the request is aborted, which closes the connection; the rest is never read.
import type { RequestContext } from '@kubernetes/client-node';
import { ResponseContext } from '@kubernetes/client-node';
import fetch, { type RequestInit, type Response } from 'node-fetch';
import { isRecord } from '../util/is-record.js';
import { MAX_OTHER_ANSWER_BYTES } from './read-limits.js';

/** How many bytes the answer to a request may have, and how many it had once read. */
export interface AnswerBudget {
  readonly maxBytes: number;
  /** The bytes of the body, set once it has been read whole. */
  bytes?: number;
}

/** The answer was over its budget; the request was aborted. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`the answer is over ${maxBytes} bytes`);
  }
}

const budgets = new WeakMap<RequestContext, AnswerBudget>();

/** Sets the budget of a request's answer; a request without one may have MAX_OTHER_ANSWER_BYTES. */
export function limitAnswer(request: RequestContext, budget: AnswerBudget): void {
  budgets.set(request, budget);
}

/** What client-node's IsomorphicFetchHttpLibrary sends, with the answer bounded by the request's budget. */
export async function sendBounded(request: RequestContext): Promise<ResponseContext> {
  const budget = budgets.get(request) ?? { maxBytes: MAX_OTHER_ANSWER_BYTES };
  const { maxBytes } = budget;
  // node-fetch takes a `size` of 0 for "no bound".
  if (!(maxBytes > 0)) throw new AnswerTooLargeError(maxBytes);
  const overBudget = new AbortController();
  const caller = request.getSignal();
  const signal = caller ? AbortSignal.any([caller, overBudget.signal]) : overBudget.signal;
  const response = await fetch(request.getUrl(), {
    method: request.getHttpMethod().toString(),
    body: request.getBody() as RequestInit['body'],
    headers: request.getHeaders(),
    signal,
    agent: request.getAgent(),
    size: maxBytes,
  });
  const tooLarge = (): AnswerTooLargeError => {
    overBudget.abort();
    return new AnswerTooLargeError(maxBytes);
  };
  // The declared length of an uncompressed body tells before anything is read.
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const encoding = response.headers.get('content-encoding') ?? 'identity';
  if (encoding === 'identity' && declared > maxBytes) throw tooLarge();

  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  let read: Promise<Buffer> | undefined;
  const binary = (): Promise<Buffer> => (read ??= readBody(response, budget, tooLarge));
  return new ResponseContext(response.status, headers, {
    binary,
    text: async () => (await binary()).toString('utf8'),
  });
}

async function readBody(response: Response, budget: AnswerBudget, tooLarge: () => Error): Promise<Buffer> {
  try {
    const body = await response.buffer();
    budget.bytes = body.length;
    return body;
  } catch (error) {
    if (isRecord(error) && error.name === 'FetchError' && error.type === 'max-size') throw tooLarge();
    throw error;
  }
}
