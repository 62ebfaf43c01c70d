// What the ConfigSource tests share: the source flux-system/fleet reading `pipelines/`, the GitopsCluster and Pipeline
// YAML its repository holds, the Secrets (the source's token and the cluster's kubeconfig) and the ports `apply` and a
// sync are given over the in-memory store.
import type { ApplyPorts } from '../../lib/apply/index.js';
import type { SyncDeps } from '../../lib/config-source/sync.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { secretKeyNames, StaticSecretSource } from '../../lib/secrets/port.js';
import type { Store } from '../../lib/store/port.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';

export const NS = 'flux-system';
export const SOURCE = { namespace: NS, name: 'fleet' };
export const GIT_SECRET = { namespace: NS, name: 'fleet-config' };
export const KUBECONFIG = { namespace: NS, name: 'dev-kubeconfig' };

/** GitopsCluster `name`, reached with the kubeconfig Secret dev-kubeconfig. */
export const clusterYaml = (name = 'dev') => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: ${name}, namespace: ${NS} }
spec: { secretRef: { name: dev-kubeconfig } }
`;

/** Pipeline `name`: dev then prod, both on cluster dev. */
export const pipelineYaml = (name: string, prodNamespace = 'apps-prod') => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: ${name}, namespace: ${NS} }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name} }
  environments:
    - name: dev
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: prod
      targets: [{ namespace: ${prodNamespace}, clusterRef: { kind: GitopsCluster, name: dev } }]
`;

/** ConfigSource flux-system/fleet reading `path` (default `pipelines`) of `url` on `branch` (default main). */
export function configSourceYaml(spec: {
  url: string;
  type?: string;
  branch?: string;
  path?: string;
  /** More spec fields, YAML lines indented by two spaces. */
  extra?: string;
}): string {
  return `apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: { name: fleet, namespace: ${NS} }
spec:
  url: ${spec.url}
${spec.type ? `  type: ${spec.type}\n` : ''}  branch: ${spec.branch ?? 'main'}
  path: ${spec.path ?? 'pipelines'}
  secretRef: { name: fleet-config }
${spec.extra ?? ''}`;
}

/** The source's token (the fake host's credentials) and the cluster's kubeconfig. */
export function sourceSecrets(gitCredentials: Record<string, string>): StaticSecretSource {
  return new StaticSecretSource([
    { key: GIT_SECRET, values: gitCredentials },
    { key: KUBECONFIG, values: { value: 'apiVersion: v1\nkind: Config\n' } },
  ]);
}

/** What `apply` and a sync write through: the store, the Secrets' key names, and `sent` for what is enqueued. */
export function applyPorts(store: Store, secrets: StaticSecretSource, sent: QueueMessage[] = []): ApplyPorts {
  return {
    description: 'the test store',
    store,
    putSecret: () => Promise.resolve(),
    secretKeys: (key) => secretKeyNames(secrets, key),
    enqueue: (message) => {
      sent.push(message);
      return Promise.resolve(true);
    },
    identity: () => Promise.resolve('local:tester'),
  };
}

/**
 * What a sync of a source on `fake` is given: the host's adapter without retries (a failure is seen as it is), the
 * Secrets, `apply`'s ports and a logger that says nothing.
 */
export function hostSyncDeps(
  fake: FakeHostUnderTest,
  store: Store,
  secrets: StaticSecretSource,
  apply: ApplyPorts,
  now: () => Date = () => new Date(),
): SyncDeps {
  return {
    store,
    git: { hosts: [fake.host({ retries: 0 })], secrets, apiUrls: { [fake.type]: fake.apiUrl } },
    apply,
    logger: { info: () => undefined, warn: () => undefined },
    now,
  };
}
