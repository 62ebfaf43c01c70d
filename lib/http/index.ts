// The public API of lib/http: the receiver's routes, their HMAC scheme, and the function URL and node:http adapters.
export type { HttpHandler, HttpRequest, HttpResponse } from './types.js';
export { DEFAULT_MAX_BODY_BYTES } from './types.js';
export type { HmacAlgorithm } from '../signing/hmac.js';
export {
  deriveClusterKey,
  EVENT_SIGNATURE_ALGORITHMS,
  HMAC_ALGORITHMS,
  signatureHeader,
  verifySignature,
  verifySignatureWithAny,
  WEAVE_SIGNATURE_ALGORITHMS,
} from '../signing/hmac.js';
export type { ReceiverDeps } from './receiver-deps.js';
export { EVENT_REJECTIONS, type EventOutcome, type EventRejection } from './event-outcome.js';
export { handleRequest } from './receiver.js';
export { HMAC_KEY_SECRET_KEY } from './pipeline-authorization.js';
export { WEBHOOK_SECRET_KEY } from './config-source-route.js';
export { matchRoute } from './routes.js';
export { fromFunctionUrlEvent, toFunctionUrlResult } from './function-url.js';
export type { HttpServerOptions, RunningHttpServer } from './node-server.js';
export { startHttpServer } from './node-server.js';
