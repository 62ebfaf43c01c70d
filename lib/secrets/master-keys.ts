// The master HMAC key from which every cluster's event-signing key is derived (docs/how-it-works.md, "Cluster keys"). It has a
// current and an optional previous value, both accepted while leaf clusters move to keys derived from the new one.
import { registerSecretValues } from '../logging/redaction.js';
import type { SecretSource } from './port.js';

export interface MasterKeys {
  current: string;
  previous?: string;
}

/** Reads `{ current, previous? }` from a Secret's values; the error never contains a value. */
export function masterKeysFromValues(values: Readonly<Record<string, string>> | undefined, where: string): MasterKeys {
  const current = values?.current;
  if (!current) throw new Error(`${where} has no non-empty "current" key`);
  const previous = values.previous;
  registerSecretValues(previous ? [current, previous] : [current]);
  return previous ? { current, previous } : { current };
}

export async function loadMasterKeys(
  secrets: SecretSource,
  key: { namespace: string; name: string },
): Promise<MasterKeys> {
  return masterKeysFromValues(await secrets.getSecret(key), `master key secret ${key.namespace}/${key.name}`);
}
