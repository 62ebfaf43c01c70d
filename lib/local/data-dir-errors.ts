// Why a data directory is not used, as the user reads it: what is wrong, naming the file, and what to do about it.
// Every refusal ends with the same two ways out: restore a backup, or move the directory away and start afresh.
import { join } from 'node:path';
import { errorMessage } from '../util/error-message.js';

/** The data directory cannot be used as it is; the message names the file and what to do. */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

function recovery(dataDir: string): string {
  return (
    `To recover: restore a backup (pipelinectl restore --data-dir ${dataDir} --from BACKUP --force), ` +
    `or move ${dataDir} away and start afresh.`
  );
}

/** The store's files are not what they must be; `what` names the file and how it differs. */
export function storeDamaged(dataDir: string, what: string): DataDirError {
  return new DataDirError(
    `the store in ${dataDir} is damaged: ${what}. Records may be lost, so it is not used.\n${recovery(dataDir)}`,
  );
}

/** LevelDB refused to open the store (its message names the file when it knows it). */
export function storeCannotOpen(dataDir: string, cause: unknown): DataDirError {
  return new DataDirError(
    `the store ${join(dataDir, 'dynamodb')} cannot be opened: ${causeMessage(cause)}.\n${recovery(dataDir)}`,
    { cause },
  );
}

export function missingStore(dataDir: string, present: readonly string[]): DataDirError {
  return new DataDirError(
    `the store ${join(dataDir, 'dynamodb')} is missing, but ${dataDir} holds ${listing(present)}: its ` +
      `pipelines, approvals and promotion records are gone.\n${recovery(dataDir)} To keep the master key and the ` +
      'Secrets and start with an empty store instead, start pipelinectl serve (or demo) once with --new-store.',
  );
}

export function missingMasterKey(dataDir: string): DataDirError {
  return new DataDirError(
    `${join(dataDir, 'master-key.json')} is missing, but the store ${join(dataDir, 'dynamodb')} exists: every leaf ` +
      "cluster's token is derived from that key, so a new key would make every cluster's events fail with 401.\n" +
      `Restore it from a backup (pipelinectl restore --data-dir ${dataDir} --from BACKUP --force), or start ` +
      "pipelinectl serve (or demo) once with --new-master-key and then re-issue every leaf cluster's token with " +
      '`pipelinectl flux-config`.',
  );
}

/** LevelDB's own words (`Corruption: …`, `IO error: …`), found on the error or its cause. */
export function causeMessage(error: unknown): string {
  let current: unknown = error;
  let message = errorMessage(error);
  while (current instanceof Error && current.cause !== undefined) {
    current = current.cause;
    if (current instanceof Error) message = current.message;
  }
  return message;
}

/** `a`, `a and b`, `a, b and c`. */
function listing(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}` : (names[0] ?? '');
}
