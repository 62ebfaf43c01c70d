// Whether a string is an absolute http(s) URL: one rule for every place that takes a URL to call, link or deploy with.
// It must be written `http://` or `https://`: the WHATWG parser also reads `https:host` or `https:/host` as a URL with
// a host, which is a typo more often than an intent. Whether a URL may hold a user name or password is a separate
// rule (lib/util/url-user-info.ts): some callers refuse credentials with a message of their own, and a link in a page
// sends them nowhere.

export interface HttpUrlOptions {
  /** Only `https:`: where credentials travel with the request (a Git repository), plain http is refused. */
  httpsOnly?: boolean;
}

const HTTP_SPELLING = /^https?:\/\//i;
const HTTPS_SPELLING = /^https:\/\//i;

/** The URL `value` names when it is an absolute `http://` or `https://` URL (only `https://` with `httpsOnly`). */
export function httpUrl(value: string, options: HttpUrlOptions = {}): URL | undefined {
  const trimmed = value.trim();
  if (!(options.httpsOnly ? HTTPS_SPELLING : HTTP_SPELLING).test(trimmed) || !URL.canParse(trimmed)) return undefined;
  return new URL(trimmed);
}

/** Whether `value` is an absolute `http://` or `https://` URL (only `https://` with `httpsOnly`). */
export function isHttpUrl(value: string, options: HttpUrlOptions = {}): boolean {
  return httpUrl(value, options) !== undefined;
}

/** Whether a URL already parsed (a redirect's target, resolved against the request) is `http:` or `https:`. */
export function isHttpProtocol(url: URL, options: HttpUrlOptions = {}): boolean {
  return url.protocol === 'https:' || (!options.httpsOnly && url.protocol === 'http:');
}
