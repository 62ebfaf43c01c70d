// What each Secret is for (webhook HMAC key, Git credentials, kubeconfig), over the configuration as it will be once
// applied: what is stored, with what this configuration replaces taken out. A Secret is marked for every use,
// including uses by objects applied earlier; a Secret used for two purposes that must not share one is a problem.
import { keyOf } from '../config/references.js';
import { formatProblem, type ConfigProblem, type Configuration } from '../config/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { SecretPurpose } from '../secrets/tags.js';
import { purposeConflict, purposesBySecret, secretUses, type SecretUse } from '../secrets/uses.js';
import type { ApplyPorts } from './ports.js';
import type { StoredObjects } from './stored-objects.js';

export interface SecretPurposes {
  /** The purposes a Secret will be marked with. */
  of: (key: ObjectKey) => SecretPurpose[];
  /** Secrets applied earlier whose uses this configuration may change: they are re-marked, values untouched. */
  remark: ObjectKey[];
  /** One line per Secret used for conflicting purposes: nothing may be applied while there is one. */
  problems: string[];
}

interface UsingDocument {
  kind: 'Pipeline' | 'GitopsCluster';
  key: ObjectKey;
  document: unknown;
}

export function planSecretPurposes(stored: StoredObjects, configuration: Configuration): SecretPurposes {
  const replacing = new Set([
    ...configuration.pipelineDocuments.map(({ key }) => `Pipeline ${objectKeyString(key)}`),
    ...configuration.clusters.map(({ key }) => `GitopsCluster ${objectKeyString(key)}`),
  ]);
  const storedDocuments: UsingDocument[] = [
    ...stored.pipelines.map((p) => ({
      kind: 'Pipeline' as const,
      key: keyOf(p.document.metadata),
      document: p.document,
    })),
    ...stored.clusters.map((c) => ({
      kind: 'GitopsCluster' as const,
      key: keyOf(c.document.metadata),
      document: c.document,
    })),
  ];
  const newDocuments: UsingDocument[] = [
    ...configuration.pipelineDocuments.map(({ key, document }) => ({ kind: 'Pipeline' as const, key, document })),
    ...configuration.clusters.map(({ key, document }) => ({ kind: 'GitopsCluster' as const, key, document })),
  ];
  const usesOf = (documents: UsingDocument[]): SecretUse[] =>
    documents.flatMap(({ kind, key, document }) => secretUses(kind, key, document));
  const isReplaced = ({ kind, key }: UsingDocument) => replacing.has(`${kind} ${objectKeyString(key)}`);
  const replaced = storedDocuments.filter(isReplaced);
  const kept = storedDocuments.filter((document) => !isReplaced(document));
  const purposes = purposesBySecret([...usesOf(kept), ...usesOf(newDocuments)]);
  const of = (key: ObjectKey): SecretPurpose[] => purposes.get(objectKeyString(key))?.purposes ?? [];

  const inConfiguration = new Set(configuration.secrets.map(({ key }) => objectKeyString(key)));
  const remark = new Map<string, ObjectKey>();
  for (const use of [...usesOf(replaced), ...usesOf(newDocuments)]) {
    const id = objectKeyString(use.secret);
    if (!inConfiguration.has(id)) remark.set(id, use.secret);
  }

  const problems: string[] = [];
  const conflict = (key: ObjectKey, origin?: string) => {
    const id = objectKeyString(key);
    const why = purposeConflict(of(key));
    if (!why) return;
    const users = (purposes.get(id)?.uses ?? []).map((use) => `${use.by} (${use.purpose})`).join(', ');
    const problem: ConfigProblem = { file: origin, document: `Secret ${id}`, message: `${why}; used by ${users}` };
    problems.push(formatProblem(problem));
  };
  for (const secret of configuration.secrets) conflict(secret.key, secret.origin);
  for (const key of remark.values()) conflict(key);

  return { of, remark: [...remark.values()], problems };
}

/**
 * Re-marks the Secrets applied earlier (where the backend marks Secrets at all), after the objects that use them
 * are stored; one line per Secret whose marks changed.
 */
export async function remarkSecrets(backend: ApplyPorts, purposes: SecretPurposes): Promise<string[]> {
  if (!backend.setSecretPurposes) return [];
  const lines: string[] = [];
  for (const key of purposes.remark) {
    const purposesNow = purposes.of(key);
    if ((await backend.setSecretPurposes(key, purposesNow)) === 'changed') {
      const marked = purposesNow.length > 0 ? `marked ${purposesNow.join('+')}` : 'no longer marked for any use';
      lines.push(`secret ${objectKeyString(key)} ${marked}`);
    }
  }
  return lines;
}
