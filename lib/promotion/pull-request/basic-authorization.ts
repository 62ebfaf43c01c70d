// The HTTP Basic credential of the Git hosts that take one (Azure DevOps' personal access token, Bitbucket Server's
// user name and password). The encoded pair is a credential of its own: it is registered for redaction, since a host's
// error that repeats the Authorization header repeats it and not the Secret's values.
import { registerSecretValues } from '../../logging/redaction.js';

/** `Basic <base64 of user:password>`, its encoded part registered for redaction. */
export function basicAuthorization(user: string, password: string): string {
  const encoded = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  registerSecretValues([encoded]);
  return `Basic ${encoded}`;
}
