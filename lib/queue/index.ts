// The public API of lib/queue: the Queue and DeadLetters ports, the message schemas and wire format, the shared
// consumer, and the SQS and embedded adapters.
export type { ConsumerDeps, MessageContext, MessageHandler } from './consumer.js';
export { consoleQueueLogger, consumeBatch, DeadLetteringFailedError, receiveCountOf } from './consumer.js';
export type {
  ConsumerLoopOptions,
  DeadLetter,
  EmbeddedQueueOptions,
  EmbeddedQueueStats,
  QueueClock,
} from './embedded.js';
export { EmbeddedQueue } from './embedded.js';
export type {
  CheckAppMessage,
  CheckPipelineMessage,
  DecodeResult,
  PollMessage,
  PromoteMessage,
  QueueMessage,
  QueueMessageType,
} from './messages.js';
export {
  AppKeySchema,
  CheckAppMessageSchema,
  CheckPipelineMessageSchema,
  decodeMessage,
  encodeMessage,
  HINT_MAX_LENGTH,
  InvalidMessageError,
  MESSAGE_SCHEMA_VERSION,
  ObjectKeySchema,
  PollMessageSchema,
  PromoteMessageSchema,
  QUEUE_MESSAGE_TYPES,
  QueueMessageSchema,
  readsTargets,
} from './messages.js';
export type { DeadLetters, DeadLetterSource, OutgoingMessage, Queue, SendOptions } from './port.js';
export { checkDelaySeconds, MAX_DELAY_SECONDS } from './port.js';
export type { ChangeVisibility, Redelivery } from './redelivery.js';
export {
  backoffRedelivery,
  checkRetryDelays,
  DEFAULT_RETRY_DELAYS_SECONDS,
  MAX_VISIBILITY_TIMEOUT_SECONDS,
  retryDelaySeconds,
} from './redelivery.js';
export type { SqsQueueOptions } from './sqs.js';
export {
  DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE,
  DEAD_LETTER_REASON_ATTRIBUTE,
  DEAD_LETTER_SOURCE_MESSAGE_ID_ATTRIBUTE,
  SQS_BATCH_LIMIT,
  SqsBatchSendError,
  SqsDeadLetters,
  SqsQueue,
  toSqsRecord,
} from './sqs.js';
