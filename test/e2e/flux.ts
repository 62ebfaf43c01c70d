// What Flux puts on a leaf cluster and what its notification-controller posts, for the end-to-end suite: a
// HelmRelease installed from an OCI chart (revisions such as `6.6.1+0cc9a8446c95`), a Kustomization applied from Git
// (`main@sha1:<40 hex>`), and the event bodies a generic-hmac Provider sends about them (examples B and C of docs/flux-status.md).
import { createHash } from 'node:crypto';
import {
  condition,
  kustomization,
  KS_GENERATION,
  ociHelmRelease,
  snapshot,
  type FluxObject,
} from '../fixtures/flux-objects.js';

/** A Git revision as Flux writes it: `main@sha1:<40 hex>`, from a word, so tests read `commit('release-2')`. */
export function commit(word: string): string {
  return `main@sha1:${createHash('sha1').update(word).digest('hex')}`;
}

/** A v2 HelmRelease `namespace/name` that installed `version` from an OCI chart and is healthy. */
export function helmReleaseRunning(namespace: string, version: string, name = 'podinfo'): FluxObject {
  const message = `Helm install succeeded for release ${namespace}/${name}.v1 with chart ${name}@${version}`;
  const digest = `sha256:${createHash('sha256').update(version).digest('hex')}`;
  return ociHelmRelease({
    metadata: { name, namespace },
    status: {
      lastAttemptedRevision: version,
      lastAttemptedRevisionDigest: digest,
      storageNamespace: namespace,
      history: [
        snapshot({
          name,
          chartName: name,
          chartVersion: version,
          appVersion: version.split('+')[0],
          namespace,
          version: 1,
          ociDigest: digest,
          apiVersion: 'v2',
          action: 'install',
        }),
      ],
      conditions: [
        condition('Ready', 'True', 'InstallSucceeded', message, 1),
        condition('Released', 'True', 'InstallSucceeded', message, 1),
      ],
    },
  });
}

/** A v1 Kustomization `flux-system/name` that applied `revision` and passed its health checks. */
export function kustomizationApplied(name: string, revision: string): FluxObject {
  return kustomization({
    metadata: { name, namespace: 'flux-system' },
    status: {
      lastAppliedRevision: revision,
      lastAttemptedRevision: revision,
      conditions: [
        condition('Ready', 'True', 'ReconciliationSucceeded', `Applied revision: ${revision}`, KS_GENERATION),
        condition('Healthy', 'True', 'Succeeded', 'Health check passed in 12.3s', KS_GENERATION),
      ],
    },
  });
}

/** An event about `object` as it is stored on the cluster (uid and resourceVersion are copied from it). */
interface StoredObject {
  metadata: Record<string, unknown>;
}

function involvedObject(object: StoredObject, kind: string, apiVersion: string) {
  const { namespace, name, uid, resourceVersion } = object.metadata;
  return { kind, namespace, name, uid, apiVersion, resourceVersion };
}

/** helm-controller's install event for an OCI chart, as a generic-hmac Provider posts it (example B). */
export function helmReleaseEvent(object: StoredObject, version: string): string {
  const { namespace, name } = object.metadata as { namespace: string; name: string };
  return JSON.stringify({
    involvedObject: involvedObject(object, 'HelmRelease', 'helm.toolkit.fluxcd.io/v2'),
    severity: 'info',
    timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    message: `Helm install succeeded for release ${namespace}/${name}.v1 with chart ${name}@${version}`,
    reason: 'InstallSucceeded',
    metadata: { 'app-version': version.split('+')[0], revision: version },
    reportingController: 'helm-controller',
    reportingInstance: 'helm-controller-5f7d8c9b6-x2k4q',
  });
}

/** kustomize-controller's reconciliation event (example C). */
export function kustomizationEvent(object: StoredObject, revision: string): string {
  return JSON.stringify({
    involvedObject: involvedObject(object, 'Kustomization', 'kustomize.toolkit.fluxcd.io/v1'),
    severity: 'info',
    timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    message: 'Reconciliation finished in 3.412954331s, next run in 10m0s',
    reason: 'ReconciliationSucceeded',
    metadata: { commit_status: 'update', revision },
    reportingController: 'kustomize-controller',
    reportingInstance: 'kustomize-controller-7c7b47f5f-8bhrp',
  });
}
