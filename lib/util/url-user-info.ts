// A URL with user information (`https://user:password@host/…`) carries a credential wherever the URL goes: the stored
// configuration, `status`, pull request bodies, logs. Such URLs are refused where they are configured; credentials
// belong in Secrets.

/** Whether `value` is a URL with a user name or a password in it. */
export function holdsUserInfo(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

/** What a configuration problem says of such a URL (never the URL itself). */
export const USER_INFO_PROBLEM = 'must not hold a user name or password (user:password@ before the host)';
