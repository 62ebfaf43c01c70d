// What evaluating a check needs from its caller besides the check as written: the Secrets it may name (read where the
// pipeline lives), the outbound rules' settings, and the time to stamp the result with.
import type { OutboundRequestOptions } from './outbound-request.js';
import type { CheckSecrets } from './secret-authorization.js';

export interface CheckContext {
  /** The Secrets the check's `secretRef` may name, by name. */
  secrets?: CheckSecrets;
  /** The outbound rules' settings: timeout, size cap, loopback http, resolver (tests). */
  outbound?: OutboundRequestOptions;
  /** When the result is stamped. Default `() => new Date()`. */
  now?: () => Date;
}
