// What a careless server (or a proxy in front of a Git host) repeats in an error body: the credential it was sent. The
// fake Git hosts answer with it when told to (their `echo-credentials` fault), so that a test can search every
// output for the credential.
import type { IncomingHttpHeaders } from 'node:http';

/** The headers that carry a Git host's credential: Authorization (any scheme) and GitLab's PRIVATE-TOKEN. */
const CREDENTIAL_HEADERS = ['authorization', 'private-token'] as const;

/** Each credential the request carried, without its scheme (`token …`, `Bearer …`, `Basic …`), as one message. */
export function echoedCredentials(headers: IncomingHttpHeaders): string {
  const credentials = CREDENTIAL_HEADERS.flatMap((name) => {
    const value = headers[name];
    return typeof value === 'string' ? [value.replace(/^(?:token|bearer|basic)\s+/i, '')] : [];
  });
  return `the credentials ${credentials.join(', ') || '(none)'} are not valid here`;
}

/** The fault a fake answers with: an `echo-credentials` fault becomes the status it names, with the echo as message. */
export function echoingFault<Fault extends { type: string }>(
  fault: Fault,
  headers: IncomingHttpHeaders,
): Exclude<Fault, { type: 'echo-credentials' }> | { type: 'status'; status: number; message: string } {
  if (fault.type !== 'echo-credentials') return fault as Exclude<Fault, { type: 'echo-credentials' }>;
  const { status } = fault as Fault & { status: number };
  return { type: 'status', status, message: echoedCredentials(headers) };
}
