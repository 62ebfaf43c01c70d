// The kubeconfig of a GitopsCluster with a `secretRef` or a `capiClusterRef`: which Secret and key hold it, and the
// checks it passes before client-node sees it. Messages name the Secret and the problem, never the content.
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { GitopsClusterDocument } from '../config/schema.js';
import { registerSecretValues } from '../logging/redaction.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from '../secrets/port.js';
import { badConfig } from './access-errors.js';
import { isRecord } from '../util/is-record.js';
import { isHttpUrl } from '../util/http-url.js';

/** A kubeconfig's text and where it was found, e.g. `Secret flux-system/dev-kubeconfig (spec.secretRef) key "value"`. */
export interface KubeconfigSource {
  text: string;
  where: string;
}

/**
 * The keys a kubeconfig is read from, first present first. Cluster API writes `value`; Weave's cluster-controller
 * reads `value` or `value.yaml`, and its pipeline-controller read `kubeconfig` (docs/weave-compatibility.md).
 */
const SECRET_REF_KEYS = ['value', 'value.yaml', 'kubeconfig'] as const;
const CAPI_KEYS = ['value', 'value.yaml'] as const;

/**
 * The kubeconfig text of a secretRef cluster (the named Secret) or a capiClusterRef cluster (`<cluster>-kubeconfig`,
 * as Cluster API names it), from the GitopsCluster's namespace.
 */
export async function kubeconfigFromSecret(
  secrets: SecretSource,
  key: ObjectKey,
  spec: GitopsClusterDocument['spec'],
): Promise<KubeconfigSource> {
  const name = objectKeyString(key);
  let secretName: string;
  let keys: readonly string[];
  let field: string;
  if (spec.secretRef) {
    secretName = spec.secretRef.name;
    keys = SECRET_REF_KEYS;
    field = 'spec.secretRef';
  } else if (spec.capiClusterRef) {
    secretName = `${spec.capiClusterRef.name}-kubeconfig`;
    keys = CAPI_KEYS;
    field = 'spec.capiClusterRef';
  } else {
    throw badConfig(name, 'the GitopsCluster sets none of secretRef, capiClusterRef and eks');
  }
  const secretKey = { namespace: key.namespace, name: secretName };
  const secret = await secrets.getSecret(secretKey);
  const where = `Secret ${objectKeyString(secretKey)} (${field})`;
  if (!secret) throw badConfig(name, `${where} does not exist`);
  const found = keys.find((candidate) => secret[candidate] !== undefined);
  const text = found === undefined ? undefined : secret[found];
  if (found === undefined || text === undefined) {
    const present = Object.keys(secret);
    throw badConfig(name, `${where} has no key ${alternatives(keys)} (its keys: ${present.join(', ') || 'none'})`);
  }
  if (text.trim() === '') throw badConfig(name, `${where} key "${found}" is empty`);
  return { text, where: `${where} key "${found}"` };
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
function alternatives(keys: readonly string[]): string {
  const quoted = keys.map((key) => `"${key}"`);
  const last = quoted.pop();
  return quoted.length === 0 ? (last ?? '') : `${quoted.join(', ')} or ${last}`;
}

/** kubeconfig fields that make client-node read local files or run programs: never from a Secret. */
const FORBIDDEN_USER_FIELDS = ['exec', 'auth-provider', 'token-file', 'tokenFile', 'client-certificate', 'client-key'];
const FORBIDDEN_CLUSTER_FIELDS = ['certificate-authority'];

/**
 * Parses and checks a kubeconfig from a Secret. The text is parsed here first and only the checked structure (as
 * JSON, which has no anchors or merge keys) reaches `kc.loadFromString`, because client-node reads `token-file`
 * while it parses.
 */
export function loadKubeconfig(cluster: string, where: string, text: string): KubeConfig {
  const fail = (problem: string) => badConfig(cluster, `${where} does not hold a usable kubeconfig: ${problem}`);
  let document: unknown;
  try {
    document = parse(text, { merge: true, maxAliasCount: 100, logLevel: 'error' });
  } catch {
    // The parser's message quotes the text: leave it out.
    throw fail('it is not valid YAML');
  }
  if (!isRecord(document)) throw fail('it is not a YAML mapping');
  for (const [section, entry, forbidden] of [
    ['users', 'user', FORBIDDEN_USER_FIELDS],
    ['clusters', 'cluster', FORBIDDEN_CLUSTER_FIELDS],
  ] as const) {
    const list = document[section];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw fail(`${section} is not a list`);
    for (const [index, item] of list.entries()) {
      const body = isRecord(item) ? item[entry] : undefined;
      if (!isRecord(body)) continue;
      const bad = forbidden.find((field) => field in body);
      if (bad) {
        throw fail(
          `${section}[${index}].${entry}.${bad} is not supported (it would read a local file or run a program); embed the credentials with the *-data fields or a token`,
        );
      }
    }
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromString(JSON.stringify(document));
  } catch (error) {
    // client-node's messages name fields (e.g. "clusters[0].cluster.server is missing"), not values.
    throw fail(error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable') : 'unreadable');
  }
  if (!kc.getCurrentContext() && kc.getContexts().length === 1) {
    kc.setCurrentContext(kc.getContexts()[0]?.name ?? '');
  }
  const contextName = kc.getCurrentContext();
  if (!contextName) throw fail('it has no current-context');
  const context = kc.getContextObject(contextName);
  if (!context) throw fail(`current-context "${contextName}" is not among its contexts`);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw fail(`the cluster of context "${contextName}" is missing or has no server`);
  if (!isHttpUrl(server)) {
    throw fail(`the server of context "${contextName}" is not an http(s) URL`);
  }
  if (!kc.getCurrentUser()) throw fail(`the user of context "${contextName}" is missing`);
  // The Secret's value is the whole kubeconfig; an API server's answer would repeat a credential inside it.
  registerSecretValues(
    kc.getUsers().flatMap((user) => [user.token, user.password, user.keyData].filter((value) => value !== undefined)),
  );
  return kc;
}
