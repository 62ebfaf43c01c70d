// Exponential backoff for failed messages. A queue brings an undeleted message back after its fixed visibility
// timeout; a cluster that is down for a minute would be hammered at that rate, and one that is down longer would
// reach the DLQ within minutes. So before a failed record is reported, the consumer hides it for a delay that grows
// with its receive count (ChangeMessageVisibility with the record's receipt handle), the standard SQS pattern.

/** SQS's longest visibility timeout (12 h); the embedded queue keeps the same one. */
export const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

/**
 * The delay after the nth failed receive is entry n-1; later failures reuse the last entry. With the DLQ's
 * `maxReceiveCount` of 5 (infra/pipeline-controller.ts) the message is received at 0, 30 s, 1.5 min, 3.5 min and
 * 7.5 min, and dead-lettered on the receive after the fifth delay: 30 + 60 + 120 + 240 + 480 = 930 s, about 15.5 min
 * after the first failure (plus handling time), long enough for a leaf cluster's API server to restart or a node to
 * be replaced, short enough that an operator sees the dead letter the same quarter of an hour.
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [30, 60, 120, 240, 480];

/** How the consumer puts a failed message back: hidden for a delay that depends on how often it was received. */
export interface Redelivery {
  /** Seconds to hide a message that failed on its `receiveCount`th receive (≥ 1). */
  delaySeconds(receiveCount: number): number;
  /** Hides a received message for `seconds` from now (SQS ChangeMessageVisibility). */
  changeVisibility(receiptHandle: string, seconds: number): Promise<void>;
}

/** The queue operation a backoff needs: SqsQueue and EmbeddedQueue both have it. */
export type ChangeVisibility = (receiptHandle: string, seconds: number) => Promise<void>;

/** A Redelivery with the delays of `retryDelaysSeconds` (default DEFAULT_RETRY_DELAYS_SECONDS). */
export function backoffRedelivery(
  changeVisibility: ChangeVisibility,
  retryDelaysSeconds: readonly number[] = DEFAULT_RETRY_DELAYS_SECONDS,
): Redelivery {
  checkRetryDelays(retryDelaysSeconds);
  const delays = [...retryDelaysSeconds];
  return {
    delaySeconds: (receiveCount) => retryDelaySeconds(delays, receiveCount),
    changeVisibility,
  };
}

/** Entry `receiveCount - 1` of `delays`, the last one past its end, the first one for a count below 1. */
export function retryDelaySeconds(delays: readonly number[], receiveCount: number): number {
  const index = Math.min(Math.max(Math.floor(receiveCount) - 1, 0), delays.length - 1);
  return delays[index] ?? 0;
}

/** Throws a RangeError unless `delays` is non-empty and every entry is from 0 to 12 h. */
export function checkRetryDelays(delays: readonly number[]): void {
  if (delays.length === 0) throw new RangeError('retryDelaysSeconds must have at least one entry');
  for (const delay of delays) {
    if (!(delay >= 0 && delay <= MAX_VISIBILITY_TIMEOUT_SECONDS)) {
      throw new RangeError(`each retry delay must be from 0 to ${MAX_VISIBILITY_TIMEOUT_SECONDS} seconds`);
    }
  }
}
