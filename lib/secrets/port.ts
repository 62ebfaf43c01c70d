// Where Secrets (kubeconfigs, Git tokens, HMAC keys) come from. The values never reach a log or an error message:
// every source registers the values it reads for redaction (lib/logging/redaction.ts), in case an outside answer
// repeats one.
import { registerSecretValues } from '../logging/redaction.js';
import type { ObjectKey } from '../pipeline/model.js';

export interface SecretSource {
  /** The Secret's keys and values, or undefined when there is no such Secret. */
  getSecret(key: ObjectKey): Promise<Readonly<Record<string, string>> | undefined>;
}

/** The key names of a Secret (never its values), or undefined when there is none: what `apply` checks references by. */
export async function secretKeyNames(source: SecretSource, key: ObjectKey): Promise<string[] | undefined> {
  const values = await source.getSecret(key);
  return values && Object.keys(values);
}

/** Secrets held in memory: the ones a loaded configuration carried (local mode, tests). */
export class StaticSecretSource implements SecretSource {
  private readonly secrets = new Map<string, Readonly<Record<string, string>>>();

  constructor(secrets: Iterable<{ key: ObjectKey; values: Record<string, string> }> = []) {
    for (const secret of secrets) this.set(secret.key, secret.values);
  }

  set(key: ObjectKey, values: Record<string, string>): void {
    registerSecretValues(Object.values(values));
    this.secrets.set(`${key.namespace}/${key.name}`, { ...values });
  }

  getSecret(key: ObjectKey): Promise<Readonly<Record<string, string>> | undefined> {
    return Promise.resolve(this.secrets.get(`${key.namespace}/${key.name}`));
  }
}
