// Secrets in the local mode: the data directory's secrets.json as a SecretSource (re-read when the file changes, so
// `pipelinectl apply` while `serve` runs takes effect), sources layered one over another, and storing a loaded
// configuration's Secrets with the purposes that reference them. Values never reach a log or an error.
import { purposesBySecret, secretUses } from '../secrets/uses.js';
import { stat } from 'node:fs/promises';
import type { Configuration } from '../config/load.js';
import { registerSecretValues } from '../logging/redaction.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from '../secrets/port.js';
import type { SecretPurpose } from '../secrets/tags.js';
import { dataPath, readSecrets, writeSecrets, type StoredSecret } from './data-dir.js';

const RECENT_CHANGE_MS = 2000;

/** secrets.json as a SecretSource. Each read checks the file's identity and re-reads it only when it changed. */
export class DataDirSecretSource implements SecretSource {
  readonly #dataDir: string;
  #cache: { stamp: string; secrets: Record<string, StoredSecret> } | undefined;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  async getSecret(key: ObjectKey): Promise<Readonly<Record<string, string>> | undefined> {
    const secret = (await this.#secrets())[objectKeyString(key)];
    return secret ? { ...secret.values } : undefined;
  }

  async #secrets(): Promise<Record<string, StoredSecret>> {
    const { stamp, recent } = await this.#stamp();
    if (!recent && this.#cache?.stamp === stamp) return this.#cache.secrets;
    const secrets = await readSecrets(this.#dataDir);
    for (const secret of Object.values(secrets)) registerSecretValues(Object.values(secret.values));
    this.#cache = { stamp, secrets };
    return secrets;
  }

  /**
   * Changes whenever the file is replaced (writes rename a new file into place) or rewritten. A file changed in the
   * last seconds is read again anyway, in case the file system's timestamps are too coarse to tell two writes apart.
   */
  async #stamp(): Promise<{ stamp: string; recent: boolean }> {
    try {
      const info = await stat(dataPath(this.#dataDir, 'secrets'), { bigint: true });
      return {
        stamp: `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
        recent: Date.now() - Number(info.ctimeMs) < RECENT_CHANGE_MS,
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stamp: 'absent', recent: false };
      throw error;
    }
  }
}

/** The first source that has the Secret wins. */
export class LayeredSecretSource implements SecretSource {
  constructor(private readonly layers: readonly SecretSource[]) {}

  async getSecret(key: ObjectKey): Promise<Readonly<Record<string, string>> | undefined> {
    for (const layer of this.layers) {
      const values = await layer.getSecret(key);
      if (values) return values;
    }
    return undefined;
  }
}

/**
 * What each Secret of a configuration is used for, by the references to it: `strategy.secretRef` → webhook-hmac,
 * `pull-request.secretRef` → git-credentials, a GitopsCluster's secretRef (or its Cluster API `<name>-kubeconfig`)
 * → kubeconfig. Keyed by `ns/name`.
 */
export function secretPurposes(configuration: Configuration): Map<string, Set<SecretPurpose>> {
  const uses = [
    ...configuration.pipelineDocuments.flatMap(({ key, document }) => secretUses('Pipeline', key, document)),
    ...configuration.clusters.flatMap(({ key, document }) => secretUses('GitopsCluster', key, document)),
  ];
  const purposes = new Map<string, Set<SecretPurpose>>();
  for (const [name, entry] of purposesBySecret(uses)) purposes.set(name, new Set(entry.purposes));
  return purposes;
}

/**
 * Stores the configuration's Secrets in secrets.json, each with the purposes the configuration gives it added to the
 * ones it had. The file is rewritten only when something changed. Returns the names of the Secrets that changed.
 */
export async function storeConfigurationSecrets(dataDir: string, configuration: Configuration): Promise<string[]> {
  if (configuration.secrets.length === 0) return [];
  const purposes = secretPurposes(configuration);
  const stored = await readSecrets(dataDir);
  const changed: string[] = [];
  for (const secret of configuration.secrets) {
    const name = objectKeyString(secret.key);
    const before = stored[name];
    const merged = new Set<SecretPurpose>([...(before?.purposes ?? []), ...(purposes.get(name) ?? [])]);
    const after: StoredSecret = { values: { ...secret.values }, purposes: [...merged].sort() };
    if (before && sameSecret(before, after)) continue;
    stored[name] = after;
    changed.push(name);
  }
  if (changed.length > 0) await writeSecrets(dataDir, stored);
  return changed;
}

function sameSecret(a: StoredSecret, b: StoredSecret): boolean {
  const keysA = Object.keys(a.values).sort();
  const keysB = Object.keys(b.values).sort();
  return (
    keysA.length === keysB.length &&
    keysA.every((key, index) => key === keysB[index] && a.values[key] === b.values[key]) &&
    [...a.purposes].sort().join() === [...b.purposes].sort().join()
  );
}
