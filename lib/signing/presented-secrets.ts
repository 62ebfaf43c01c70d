// What a request presents as a secret, and how it is compared with the one expected: the one home for both, used by
// the receiver's routes (a ConfigSource's push webhook, the inputs route), the dashboard and the local store.
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether two secrets are equal, in a time that depends on neither: their SHA-256 digests (of one length whatever
 * was sent) are compared with timingSafeEqual, so not even the secret's length is told to a caller.
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The password of `Basic base64(user:password)` (scheme in any case), when it is one and not empty. */
export function basicPassword(header: string | undefined): string | undefined {
  const match = /^basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const credentials = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = credentials.indexOf(':');
  if (colon < 0) return undefined;
  const password = credentials.slice(colon + 1);
  return password === '' ? undefined : password;
}
