// The GitLab credentials of the pull-request strategy, read from the Pipeline's Secret: an access token. Apart from
// the client (client.ts) so that the promoter checks a Secret before it loads gitbeaker, which is loaded on the first
// promotion to GitLab only (deferred-host.ts).
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { PromotionError } from '../port.js';

export const TOKEN_KEY = 'token';
export const PASSWORD_KEY = 'password';
export const USERNAME_KEY = 'username';

/**
 * GitLab's REST API takes an access token, never a password (Basic authentication is for git over HTTP only). A
 * Secret written for git (`username` + `password`, as Flux's GitRepository takes) holds an access token as its
 * password, since that is how git authenticates to GitLab with one: that password is used as the token.
 */
export const NEEDED_KEYS =
  `the key "${TOKEN_KEY}" (a GitLab personal, project or group access token with the api scope), ` +
  `or "${PASSWORD_KEY}" holding such a token`;

/** The access token in a Secret's values: `token`, else `password`. Messages name the Secret and keys, never values. */
export function gitLabToken(values: Readonly<Record<string, string>>, key: ObjectKey): string {
  const token = values[TOKEN_KEY]?.trim() || values[PASSWORD_KEY]?.trim();
  if (token) return token;
  const empty = [TOKEN_KEY, PASSWORD_KEY].filter((name) => values[name] !== undefined).map((name) => `"${name}"`);
  const why =
    empty.length > 0
      ? ` (${empty.join(' and ')} ${empty.length > 1 ? 'are' : 'is'} empty)`
      : values[USERNAME_KEY] !== undefined
        ? ` ("${USERNAME_KEY}" alone is not enough: GitLab's API takes no password, only an access token)`
        : '';
  throw new PromotionError(
    'Invalid',
    `Secret ${objectKeyString(key)} has no GitLab credentials${why}: it needs ${NEEDED_KEYS}`,
  );
}
