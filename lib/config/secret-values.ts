// A Secret's values as they are stored (data decoded from base64, stringData over it, as in Kubernetes), and the
// bounds on them: what AWS Secrets Manager can hold, kept by the local mode too, so that a configuration that passes
// validation (and `apply --dry-run`) stores on either backend.
import { registerSecretValues } from '../logging/redaction.js';
import { MAX_SECRET_BYTES, MAX_SECRET_KEYS } from './limits.js';
import type { ConfigProblem } from './problems.js';
import type { SecretDocument } from './schema.js';

/** Makes a problem at a field of the document being checked. */
export type ProblemAt = (path: readonly PropertyKey[], message: string) => ConfigProblem;

/** Decoded values by key, registered for redaction. Never log or print these. */
export function secretValues(secret: SecretDocument): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {}))
    values[key] = Buffer.from(value, 'base64').toString('utf8');
  // stringData wins over data, as in Kubernetes.
  for (const [key, value] of Object.entries(secret.stringData ?? {})) values[key] = value;
  registerSecretValues(Object.values(values));
  return values;
}

/** The values as stored: the JSON object Secrets Manager and the local secrets.json hold, in bytes. */
export function storedSecretBytes(values: Readonly<Record<string, string>>): number {
  return Buffer.byteLength(JSON.stringify(values), 'utf8');
}

/** Problems with a valid Secret's size and number of keys; they name the field, never a value. */
export function secretValueProblems(secret: SecretDocument, problemAt: ProblemAt): ConfigProblem[] {
  const values = secretValues(secret);
  // Point at the field that holds most of it.
  const field = fieldBytes(secret.stringData) >= fieldBytes(secret.data) ? 'stringData' : 'data';
  const problems: ConfigProblem[] = [];
  const keys = Object.keys(values).length;
  if (keys > MAX_SECRET_KEYS) {
    problems.push(problemAt([field], `${keys} keys; a Secret may hold at most ${MAX_SECRET_KEYS}`));
  }
  const bytes = storedSecretBytes(values);
  if (bytes > MAX_SECRET_BYTES) {
    const message =
      `the values take ${kibibytes(bytes)} as stored; a Secret may hold at most ${MAX_SECRET_BYTES / 1024} KiB ` +
      '(the limit of AWS Secrets Manager, kept by the local mode too)';
    problems.push(problemAt([field], message));
  }
  return problems;
}

function fieldBytes(field: Readonly<Record<string, string>> | undefined): number {
  return field ? storedSecretBytes(field) : -1;
}

function kibibytes(bytes: number): string {
  const value = bytes / 1024;
  return `${value.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} KiB`;
}
