// The Bitbucket Server credentials of the pull-request strategy, read from the Pipeline's Secret: an HTTP access
// token, or a user name and password. Apart from the client (client.ts) so that the promoter checks a Secret before it
// loads the adapter, which is loaded on the first promotion to Bitbucket Server only (deferred-host.ts).
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { PromotionError } from '../port.js';

export const TOKEN_KEY = 'token';
export const USERNAME_KEY = 'username';
export const PASSWORD_KEY = 'password';

export const NEEDED_KEYS =
  `the key "${TOKEN_KEY}" (an HTTP access token with repository write permission), ` +
  `or the keys "${USERNAME_KEY}" and "${PASSWORD_KEY}"`;

export type BitbucketServerCredentials =
  { kind: 'token'; token: string } | { kind: 'basic'; username: string; password: string };

/**
 * The credentials in a Secret's values: `token` when it is set (sent as `Bearer`), else `username` and `password`
 * (Basic, as Weave sent them). Every problem is permanent; messages name the Secret and its keys, never values.
 */
export function bitbucketServerCredentials(
  values: Readonly<Record<string, string>>,
  secret: ObjectKey,
): BitbucketServerCredentials {
  const name = `Secret ${objectKeyString(secret)}`;
  const token = values[TOKEN_KEY]?.trim();
  if (token) return { kind: 'token', token };
  const username = values[USERNAME_KEY]?.trim();
  // A password may begin or end with a space; only the line break a Secret written with `echo` carries is dropped.
  const password = values[PASSWORD_KEY]?.replace(/[\r\n]+$/, '');
  if (username && password) return { kind: 'basic', username, password };
  if (username || password) {
    const [present, missing] = username ? [USERNAME_KEY, PASSWORD_KEY] : [PASSWORD_KEY, USERNAME_KEY];
    throw new PromotionError(
      'Invalid',
      `${name} has "${present}" but lacks "${missing}" for Bitbucket Server: it needs ${NEEDED_KEYS}`,
    );
  }
  const empty = values[TOKEN_KEY] !== undefined ? ` ("${TOKEN_KEY}" is empty)` : '';
  throw new PromotionError('Invalid', `${name} has no Bitbucket Server credentials${empty}: it needs ${NEEDED_KEYS}`);
}
