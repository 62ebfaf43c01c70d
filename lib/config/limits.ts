// The bounds on configuration input, so that no file can make `apply` or `serve` use unbounded memory or time, and
// nothing is accepted that the store could not hold (docs/configuration.md, "Validation"; docs/cli.md, `apply`).

/** A configuration file (or standard input) holds at most this many bytes; checked before it is read. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** YAML documents in one file (empty ones count: each is parsed). */
export const MAX_DOCUMENTS_PER_FILE = 10_000;

/** The `yaml` library's `maxAliasCount`: how many copies aliases may make of what they refer to, per document. */
export const MAX_ALIAS_COUNT = 100;

/**
 * What the documents of one file may hold with their aliases expanded (counted as JSON text: the form they are
 * stored in). Four times the file limit: room for a configuration that reuses blocks through anchors.
 */
export const MAX_EXPANDED_BYTES_PER_FILE = 4 * MAX_FILE_BYTES;

/**
 * A Secret's decoded values, as the JSON object they are stored as. AWS Secrets Manager holds at most 64 KiB per
 * secret; the local mode keeps the same limit, so a configuration applies on both or on neither.
 */
export const MAX_SECRET_BYTES = 64 * 1024;

/** Keys of one Secret (a token, a GitHub App's three, a kubeconfig, an HMAC key: a handful is what is used). */
export const MAX_SECRET_KEYS = 100;
