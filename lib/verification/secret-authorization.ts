// The credential a check's `secretRef` names, as one Authorization header: the Secret's `token` as a bearer token, or
// its `username` and `password` as basic authentication (`token` wins when it has both). The http and prometheus
// checks read it the same way. The Secrets come from the caller, read where the pipeline lives; a problem names the
// Secret and the keys it lacks, never a value.

/** The Secrets a check may name, by name: each Secret's keys and values. */
export type CheckSecrets = Readonly<Record<string, Readonly<Record<string, string>> | undefined>>;

export type SecretAuthorization = { authorization: string } | { problem: string };

/** The Authorization header value the Secret `name` makes, or why it makes none. */
export function secretAuthorization(name: string, secrets: CheckSecrets | undefined): SecretAuthorization {
  const values = secrets?.[name];
  if (!values) return { problem: `Secret ${name} not found` };
  const token = values.token;
  if (token !== undefined && token !== '') return { authorization: `Bearer ${token}` };
  const { username, password } = values;
  if (username !== undefined && username !== '' && password !== undefined) {
    return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
  }
  return { problem: `Secret ${name} has neither a token nor a username and password` };
}
