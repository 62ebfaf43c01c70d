export {
  encodeEvent,
  PIPELINE_API_VERSION,
  PROMOTE_REASON,
  promotionEvent,
  promotionId,
  REPORTING_CONTROLLER,
  type PromotionEvent,
  type PromotionEventOptions,
} from './event.js';
export { EventBridgeSink, type EventBridgeSinkOptions } from './eventbridge.js';
export { NotificationControllerSink, type NotificationControllerSinkOptions } from './notification-controller.js';
export { NotificationPromoter, type NotificationPromoterOptions } from './promoter.js';
export type { NotificationSink } from './sink.js';
export { DEFAULT_WEBHOOK_TIMEOUT_MS, parseRetryAfter, WebhookSink, type WebhookSinkOptions } from './webhook.js';
