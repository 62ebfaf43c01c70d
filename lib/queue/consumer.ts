// The one queue consumer, shared by the verifier Lambda (SQS event source, partial batch responses) and the local
// mode's embedded queue loop. It decodes each record, hands valid messages to `handle`, dead-letters undecodable
// bodies at once, and reports the records that must be retried in `batchItemFailures`.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Logger } from '../logging/logger.js';
import { decodeMessage } from './messages.js';
import type { QueueMessage } from './messages.js';
import type { DeadLetters } from './port.js';
import type { Redelivery } from './redelivery.js';

export interface MessageContext {
  messageId: string;
  /** How many times this message has been received, this time included (SQS `ApproximateReceiveCount`); ≥ 1. */
  receiveCount: number;
}

export type MessageHandler = (message: QueueMessage, context: MessageContext) => Promise<void>;

export interface ConsumerDeps {
  deadLetters: DeadLetters;
  /** Defaults to JSON lines on the console. */
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * Backoff for failed messages: a record whose handler threw is hidden for `delaySeconds(receiveCount)` before it
   * is reported. Without it (or if changing its visibility fails) the queue's fixed visibility timeout applies.
   */
  redelivery?: Redelivery;
}

/** Thrown for a record whose body could not be dead-lettered, so that it is retried and SQS redrive catches it. */
export class DeadLetteringFailedError extends Error {
  override name = 'DeadLetteringFailedError';
}

/**
 * Processes one batch, records in parallel, and returns the records to retry:
 * - a valid message goes to `handle`; if that throws, the record is listed in `batchItemFailures`, after
 *   `deps.redelivery` (if given) has hidden it for a delay that grows with its receive count;
 * - a body that does not decode is logged (reason and messageId, never the body), sent to `deps.deadLetters`, and
 *   counts as processed, so it is acknowledged and never retried; if dead-lettering fails, it is a failure instead.
 * A batch in which every record fails is returned the same way (never thrown), so the caller acknowledges nothing.
 */
export async function consumeBatch(
  event: SQSEvent,
  handle: MessageHandler,
  deps: ConsumerDeps,
): Promise<SQSBatchResponse> {
  const logger = deps.logger ?? consoleQueueLogger;
  const processRecord = async (record: SQSRecord): Promise<void> => {
    const context: MessageContext = { messageId: record.messageId, receiveCount: receiveCountOf(record) };
    const decoded = decodeMessage(record.body);
    if (!decoded.ok) {
      logger.warn('dead-lettering an undecodable message', { ...context, reason: decoded.reason });
      try {
        await deps.deadLetters.deadLetter(record.body, decoded.reason, context);
      } catch (error) {
        logger.error('dead-lettering failed; the message will be retried', { ...context, error: errorSummary(error) });
        throw new DeadLetteringFailedError(`dead-lettering message ${record.messageId} failed`, { cause: error });
      }
      return;
    }
    try {
      await handle(decoded.message, context);
    } catch (error) {
      const delaySeconds = deps.redelivery?.delaySeconds(context.receiveCount);
      logger.error('message handling failed; it will be retried', {
        ...context,
        type: decoded.message.type,
        error: errorSummary(error),
        ...(delaySeconds === undefined ? {} : { redeliveryDelaySeconds: delaySeconds }),
      });
      if (deps.redelivery && delaySeconds !== undefined) {
        await postponeRedelivery(record, context, delaySeconds, deps.redelivery, logger);
      }
      throw error;
    }
  };
  // A fresh processor per batch: a processor keeps the batch's state, and batches may run concurrently.
  const response = await processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS), {
    throwOnFullBatchFailure: false,
  });
  // Copied, because Powertools hands out a shared default object when nothing failed.
  return { batchItemFailures: response.batchItemFailures.map(({ itemIdentifier }) => ({ itemIdentifier })) };
}

/** Hides a failed record for `delaySeconds`; on failure only logs, as the fixed visibility timeout still applies. */
async function postponeRedelivery(
  record: SQSRecord,
  context: MessageContext,
  delaySeconds: number,
  redelivery: Redelivery,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  try {
    await redelivery.changeVisibility(record.receiptHandle, delaySeconds);
  } catch (error) {
    logger.warn("could not delay the message's redelivery; the queue's visibility timeout applies", {
      ...context,
      redeliveryDelaySeconds: delaySeconds,
      error: errorSummary(error),
    });
  }
}

/** `ApproximateReceiveCount`, or 1 when it is absent or not a positive integer (the record was received once). */
export function receiveCountOf(record: SQSRecord): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count >= 1 ? count : 1;
}

function errorSummary(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'NonError', message: typeof error === 'string' ? error : 'a non-Error value was thrown' };
}

/** JSON lines on the console: the default when no logger is given. */
export const consoleQueueLogger: Logger = {
  debug: (message, attributes) => console.debug(JSON.stringify({ level: 'DEBUG', message, ...attributes })),
  info: (message, attributes) => console.info(JSON.stringify({ level: 'INFO', message, ...attributes })),
  warn: (message, attributes) => console.warn(JSON.stringify({ level: 'WARN', message, ...attributes })),
  error: (message, attributes) => console.error(JSON.stringify({ level: 'ERROR', message, ...attributes })),
};
