// The receiver Lambda behind a function URL (auth NONE: Flux cannot sign SigV4; the HMAC is checked in lib/http).
import { receiverHandler } from '../../lib/runtime/receiver.js';

export const handler = receiverHandler();
