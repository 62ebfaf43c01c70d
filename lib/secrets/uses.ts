// Which Secrets a Pipeline or GitopsCluster refers to, and for what: the purpose a Secret is marked with where it is
// stored (on AWS, the tag the receiver's IAM policy matches exactly: only `webhook-hmac` Secrets are readable by it).
import { isRecord } from '../util/is-record.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { SecretPurpose } from './tags.js';

export interface SecretUse {
  secret: ObjectKey;
  purpose: SecretPurpose;
  /** Who refers to it, e.g. `Pipeline flux-system/podinfo`. */
  by: string;
}

/**
 * The Secrets a document refers to, read leniently (the document may not be valid yet): a Pipeline's
 * `strategy.secretRef` (webhook HMAC key) and `strategy.pull-request.secretRef` (Git credentials), at the pipeline
 * level and in each environment, and the credentials of each environment's verification checks (an HTTP check's
 * `secretRef`, a Prometheus check's `auth.secretRef`); a GitopsCluster's `secretRef` or Cluster API `<name>-kubeconfig` (kubeconfig).
 */
export function secretUses(kind: string, key: ObjectKey, document: unknown): SecretUse[] {
  const spec = isRecord(document) && isRecord(document.spec) ? document.spec : {};
  const by = `${kind} ${objectKeyString(key)}`;
  const uses: SecretUse[] = [];
  const use = (name: unknown, purpose: SecretPurpose, suffix = '') => {
    if (typeof name === 'string' && name !== '') {
      uses.push({ secret: { namespace: key.namespace, name: `${name}${suffix}` }, purpose, by });
    }
  };
  if (kind === 'Pipeline') {
    const environments = Array.isArray(spec.environments) ? (spec.environments as unknown[]) : [];
    for (const promotion of [
      spec.promotion,
      ...environments.map((env) => (isRecord(env) ? env.promotion : undefined)),
    ]) {
      const strategy = isRecord(promotion) && isRecord(promotion.strategy) ? promotion.strategy : {};
      use(refName(strategy.secretRef), 'webhook-hmac');
      use(
        refName(isRecord(strategy['pull-request']) ? strategy['pull-request'].secretRef : undefined),
        'git-credentials',
      );
    }
    for (const env of environments) {
      const verification = isRecord(env) && isRecord(env.verification) ? env.verification : {};
      const checks = Array.isArray(verification.checks) ? (verification.checks as unknown[]) : [];
      for (const check of checks) {
        if (!isRecord(check)) continue;
        if (isRecord(check.http)) use(refName(check.http.secretRef), 'check-credentials');
        if (isRecord(check.prometheus) && isRecord(check.prometheus.auth)) {
          use(refName(check.prometheus.auth.secretRef), 'check-credentials');
        }
      }
    }
  }
  // The receiver reads a ConfigSource's Secret for its push webhooks' secret (docs/config-sources.md).
  if (kind === 'ConfigSource') use(refName(spec.secretRef), 'config-source');
  if (kind === 'GitopsCluster') {
    use(refName(spec.secretRef), 'kubeconfig');
    // Cluster API writes the kubeconfig of cluster X to the Secret X-kubeconfig.
    use(refName(spec.capiClusterRef), 'kubeconfig', '-kubeconfig');
  }
  return uses;
}

/** Purposes by Secret (`ns/name`), each list sorted and without repeats, with who uses the Secret for what. */
export function purposesBySecret(
  uses: readonly SecretUse[],
): Map<string, { purposes: SecretPurpose[]; uses: SecretUse[] }> {
  const bySecret = new Map<string, { purposes: SecretPurpose[]; uses: SecretUse[] }>();
  for (const use of uses) {
    const id = objectKeyString(use.secret);
    const entry = bySecret.get(id) ?? { purposes: [], uses: [] };
    if (!entry.purposes.includes(use.purpose)) entry.purposes = [...entry.purposes, use.purpose].sort();
    entry.uses.push(use);
    bySecret.set(id, entry);
  }
  return bySecret;
}

/**
 * Why a Secret cannot serve these purposes together, or undefined when it can. The receiver may read a Secret
 * only when its purpose is exactly `webhook-hmac`; marking a Secret that also holds Git credentials or a kubeconfig
 * that way would hand those to the receiver, and marking it otherwise would lock the receiver out of its HMAC key.
 */
export function purposeConflict(purposes: readonly SecretPurpose[]): string | undefined {
  const unique = [...new Set(purposes)];
  if (unique.includes('config-source') && unique.length > 1) {
    const others = unique.filter((purpose) => purpose !== 'config-source').sort();
    return (
      `it would hold a ConfigSource's credentials (config-source) and ${others.join(' and ')}: the receiver reads ` +
      "a ConfigSource's Secret for its webhook secret, so give the ConfigSource a Secret of its own (a read-only token)"
    );
  }
  if (!unique.includes('webhook-hmac') || unique.length === 1) return undefined;
  const others = unique.filter((purpose) => purpose !== 'webhook-hmac').sort();
  return (
    `it would hold the webhook HMAC key (webhook-hmac) and ${others.join(' and ')}: the receiver may read only ` +
    'Secrets used for webhook-hmac alone, so split it into one Secret per use'
  );
}

/** The purposes as one tag value (`git-credentials+kubeconfig`); undefined when there are none. */
export function purposeTagValue(purposes: readonly SecretPurpose[]): string | undefined {
  const unique = [...new Set(purposes)].sort();
  return unique.length === 0 ? undefined : unique.join('+');
}

function refName(ref: unknown): unknown {
  return isRecord(ref) ? ref.name : undefined;
}
