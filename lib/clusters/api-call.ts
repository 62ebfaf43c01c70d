// One request to a cluster's API server with a deadline and a bound on the bytes of its answer: whatever happens, it
// ends within `timeoutMs` having read at most `answer.maxBytes`, and every failure is a ClusterAccessError.
import {
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { timeoutError, toClusterAccessError, type FailedRequest } from './access-errors.js';
import { limitAnswer, type AnswerBudget } from './bounded-fetch.js';
import type { ClusterClient } from './cluster-client.js';

/** The per-request options client-node's API methods take. */
export type RequestOptions = ConfigurationOptions<ObservableMiddleware>;

/**
 * Sends one request through `send` (which passes the options on to a client-node API method). `answer` bounds the
 * bytes of the answer (default MAX_OTHER_ANSWER_BYTES), and tells how many it had.
 */
export async function callCluster<T>(
  client: ClusterClient,
  what: string,
  timeoutMs: number,
  send: (options: RequestOptions) => Promise<T>,
  answer?: AnswerBudget,
): Promise<T> {
  const request: FailedRequest = {
    cluster: client.name,
    server: client.server,
    redact: client.redact,
    what,
    timeoutMs,
  };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(timeoutError(request));
    }, timeoutMs);
  });
  try {
    // The signal reaches node-fetch through the request context: aborting it ends the connection, the request and
    // the reading of the body. The race also covers what happens before the request is sent.
    const options = {
      middleware: [requestMiddleware(controller.signal, answer)],
      middlewareMergeStrategy: 'append' as const,
    };
    return await Promise.race([send(options), deadline]);
  } catch (error) {
    throw toClusterAccessError(request, error, controller.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
}

function requestMiddleware(signal: AbortSignal, answer: AnswerBudget | undefined): ObservableMiddleware {
  return {
    pre(context: RequestContext) {
      context.setSignal(signal);
      if (answer) limitAnswer(context, answer);
      return new Observable(Promise.resolve(context));
    },
    post(context: ResponseContext) {
      return new Observable(Promise.resolve(context));
    },
  };
}
