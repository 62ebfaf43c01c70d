// The receiver Lambda behind a function URL (auth NONE: Flux cannot sign SigV4; the HMAC is checked in lib/http).
import '../../lib/runtime/stack-traces.js'; // first: readable stack traces from here on
import { receiverHandler } from '../../lib/runtime/receiver.js';

export const handler = receiverHandler();
