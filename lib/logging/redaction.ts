// The one redaction step for text from outside the process: a Git host's error body, a cluster's message, an AWS or
// Slack answer may repeat the credential it was sent (a 401 that echoes the Authorization header). Before such text is
// stored, logged, shown or sent, every secret value the process holds and every token-shaped string is replaced by
// `[REDACTED]`. Secret values are registered where Secrets are read (the SecretSources, the configuration's Secrets),
// so that this module, which has no dependencies, can be used by every error, logger and sink.

export const REDACTED = '[REDACTED]';

/**
 * Shorter values are not registered: a Secret's `username: admin` or `region: eu-west-1` would otherwise redact
 * ordinary words everywhere. A credential that short is not worth hiding anyway.
 */
export const MIN_REGISTERED_SECRET_LENGTH = 8;

/**
 * Token shapes, by issuer. GitHub: classic (`ghp_`), OAuth (`gho_`), user-to-server (`ghu_`), server-to-server
 * (`ghs_`), refresh (`ghr_`), fine-grained (`github_pat_`). GitLab personal, project and group tokens (`glpat-`, the
 * newer routable ones with dot-separated parts), deploy, trigger, runner and OAuth secrets. Slack bot, user, app,
 * refresh and legacy tokens (`xox?-`) and incoming-webhook paths. JWTs (a base64url JSON header, `eyJ`, then two more
 * segments): GitHub App tokens, service-account tokens. EKS tokens (`k8s-aws-v1.` and a presigned URL in base64url).
 */
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{16,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{16,}/g,
  /\bgl(?:pat|dt|ptt|rt|oas)-[A-Za-z0-9_-]{16,}(?:\.[A-Za-z0-9_-]+)*/g,
  /\bxox[abprs]-[A-Za-z0-9-]{8,}/g,
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+/g,
  /\bk8s-aws-v1\.[A-Za-z0-9_-]{16,}/g,
];

/** The secret part of a Slack incoming-webhook or workflow URL (the host and kind stay readable). */
const SLACK_HOOK = /(\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]+/g;

/**
 * An authorization value: after a scheme (`Basic dXNl…`, `Bearer …`, GitHub's `token …`), or after a header or field
 * name (`Authorization: …`, `PRIVATE-TOKEN: …`). Only values that look like a credential are replaced, so that prose
 * such as "Bearer authentication" stays as written.
 */
const SCHEME_VALUE = /\b(Basic|Bearer|[Tt]oken)(\s+)([A-Za-z0-9._~+/-]+=*)/g;
const HEADER_VALUE =
  /\b(authorization|proxy-authorization|private-token|x-api-key)(["']?\s*[:=]\s*["']?)(?:(Basic|Bearer|token)\s+)?([A-Za-z0-9._~+/-]+=*)/gi;

/** After the word `token`, which prose uses more often than `Bearer`, only a value this long counts. */
const MIN_TOKEN_LENGTH = 16;

const registered = new Set<string>();
/**
 * The registered values by their first MIN_REGISTERED_SECRET_LENGTH characters, so that `redact` tries at each
 * position of a text the few values that could start there instead of searching the text for every value: a verifier
 * that has read the kubeconfigs of 2,000 clusters holds some 18,000 forms of their credentials, and redacts every
 * status message it records. Not by fewer characters: kubeconfigs all begin `apiVersion: v1`, so their forms would
 * share one bucket, searched at every `ap` of a message (with 1,000 clusters' kubeconfigs registered, a status message
 * took about 110 µs to redact by two characters, 3 µs by eight).
 */
const byPrefix = new Map<string, string[]>();
/** Which two-character pairs (`pairOf`) begin a registered value: a position whose pair begins none is passed at once. */
let firstPairs: Uint8Array | undefined;

/** The bucket of the two UTF-16 code units of `text` at `at`: exact for ASCII, shared otherwise. */
const pairOf = (text: string, at: number): number => ((text.charCodeAt(at) << 8) ^ text.charCodeAt(at + 1)) & 0xffff;

/**
 * Remembers secret values for `redact`: each value as read, trimmed, with escaped line breaks made real (as keys pasted
 * into a variable are read), and as it appears inside a JSON string or a URL, for a body that quotes it so.
 */
export function registerSecretValues(values: Iterable<string>): void {
  for (const value of values) {
    for (const form of forms(value)) {
      if (form.length < MIN_REGISTERED_SECRET_LENGTH || registered.has(form)) continue;
      registered.add(form);
      (firstPairs ??= new Uint8Array(0x1_0000))[pairOf(form, 0)] = 1;
      const prefix = form.slice(0, MIN_REGISTERED_SECRET_LENGTH);
      const bucket = byPrefix.get(prefix);
      if (bucket) bucket.push(form);
      else byPrefix.set(prefix, [form]);
    }
  }
}

function forms(value: string): Set<string> {
  const result = new Set<string>();
  for (const base of [value, value.trim(), value.trim().replace(/\\n/g, '\n')]) {
    result.add(base);
    result.add(JSON.stringify(base).slice(1, -1));
    result.add(encodeURIComponent(base));
  }
  return result;
}

/** Forgets every registered value (tests that register their own). */
export function clearRegisteredSecretValues(): void {
  registered.clear();
  byPrefix.clear();
  firstPairs = undefined;
}

/** The registered values `text` holds, longest first, so that a value containing another is replaced whole. */
function registeredValuesIn(text: string): readonly string[] {
  const pairs = firstPairs;
  if (!pairs) return [];
  let found: string[] | undefined;
  for (let at = 0, last = text.length - MIN_REGISTERED_SECRET_LENGTH; at <= last; at++) {
    if (pairs[pairOf(text, at)] === 0) continue;
    const candidates = byPrefix.get(text.slice(at, at + MIN_REGISTERED_SECRET_LENGTH));
    if (candidates === undefined) continue;
    for (const value of candidates) if (text.startsWith(value, at)) (found ??= []).push(value);
  }
  return found ? [...new Set(found)].sort((a, b) => b.length - a.length) : [];
}

/** `text` with every registered secret value and every token-shaped string replaced by `[REDACTED]`. */
export function redact(text: string): string {
  let result = text;
  for (const value of registeredValuesIn(text)) {
    // A longer value replaced first may have taken this one with it.
    if (result.includes(value)) result = result.split(value).join(REDACTED);
  }
  for (const shape of TOKEN_SHAPES) result = result.replace(shape, REDACTED);
  result = result.replace(SLACK_HOOK, (_match, prefix: string) => `${prefix}${REDACTED}`);
  result = result.replace(HEADER_VALUE, (match, name: string, separator: string, scheme: string | undefined, value) =>
    looksLikeCredential(value as string) || scheme !== undefined
      ? `${name}${separator}${scheme ? `${scheme} ` : ''}${REDACTED}`
      : match,
  );
  result = result.replace(SCHEME_VALUE, (match, scheme: string, space: string, value: string) =>
    looksLikeCredential(value) && ((scheme !== 'token' && scheme !== 'Token') || value.length >= MIN_TOKEN_LENGTH)
      ? `${scheme}${space}${REDACTED}`
      : match,
  );
  return result;
}

/**
 * A copy of `value` with every string in it (object keys excepted) through `redact`. For documents built from outside
 * text before they are stored or sent as JSON: redacting the serialized text would miss a value JSON escapes.
 */
export function redactDeep<T>(value: T): T {
  return redactValue(value, new WeakMap()) as T;
}

function redactValue(value: unknown, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(redactValue(item, seen));
    return copy;
  }
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [name, item] of Object.entries(value)) copy[name] = redactValue(item, seen);
  return copy;
}

/**
 * Whether a word after `Basic`/`Bearer`/`token` is a credential rather than prose: long enough, and holding what words
 * do not (a digit, `+/=._~-`, or a capital letter after the first character).
 */
function looksLikeCredential(value: string): boolean {
  if (value.length < MIN_REGISTERED_SECRET_LENGTH) return false;
  return /[0-9+/=._~-]/.test(value) || /[A-Z]/.test(value.slice(1));
}
