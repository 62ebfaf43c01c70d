import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readKustomizationStatus, readTargetStatus } from '../../lib/flux/index.js';
import { COMMIT, condition, KS_GENERATION, kustomization, NEXT_COMMIT } from '../fixtures/flux-objects.js';
import { expectStatus, type Expected } from './expect-status.js';
import type { FluxObject } from '../fixtures/flux-objects.js';

const g = KS_GENERATION;
const applied = `main@sha1:${COMMIT}`;
const next = `main@sha1:${NEXT_COMMIT}`;
const ready = condition('Ready', 'True', 'ReconciliationSucceeded', `Applied revision: ${applied}`, g);
const progressing = condition('Ready', 'Unknown', 'Progressing', 'Reconciliation in progress', g);
const reconciling = condition(
  'Reconciling',
  'True',
  'Progressing',
  `Fetching manifests for revision ${next} with a timeout of 5m0s`,
  g,
);
const healthCheckFailed = condition(
  'Ready',
  'False',
  'HealthCheckFailed',
  "health check failed after 5m0.02s: timeout waiting for: [Deployment/apps/podinfo status: 'InProgress']",
  g,
);
const ociDigest = '3b6c1f0e2d4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c';

const cases: { name: string; object: FluxObject; expected: Expected }[] = [
  {
    name: 'an applied revision, Ready with ReconciliationSucceeded',
    object: kustomization(),
    expected: {
      revision: applied,
      healthy: true,
      settled: true,
      reason: new RegExp(`^applied ${applied} \\(ReconciliationSucceeded\\)$`),
    },
  },
  {
    name: 'the legacy main/<sha> form matches main@sha1:<sha>',
    object: kustomization({ status: { lastAppliedRevision: `main/${COMMIT}`, lastAttemptedRevision: applied } }),
    expected: { revision: `main/${COMMIT}`, healthy: true, settled: true, reason: /^applied main\// },
  },
  {
    name: 'a legacy revision of another commit does not match',
    object: kustomization({
      status: { lastAppliedRevision: `main/${COMMIT}`, lastAttemptedRevision: `main/${NEXT_COMMIT}` },
    }),
    expected: { revision: `main/${COMMIT}`, healthy: false, settled: false, reason: /^last attempted main\/5e6f/ },
  },
  {
    name: 'an OCI source compares on the digest, tag or not',
    object: kustomization({
      status: { lastAppliedRevision: `latest@sha256:${ociDigest}`, lastAttemptedRevision: `sha256:${ociDigest}` },
    }),
    expected: {
      revision: `latest@sha256:${ociDigest}`,
      healthy: true,
      settled: true,
      reason: /^applied latest@sha256:/,
    },
  },
  {
    name: 'attempted ahead of applied after a failed health check: old revision, settled, unhealthy',
    object: kustomization({
      status: {
        lastAttemptedRevision: next,
        conditions: [healthCheckFailed, condition('Healthy', 'False', 'HealthCheckFailed', 'health check failed', g)],
      },
    }),
    expected: {
      revision: applied,
      healthy: false,
      settled: true,
      reason: /^Ready is False \(HealthCheckFailed\): health check failed/,
    },
  },
  {
    name: 'Ready still True while a newer revision is attempted: mid-way',
    object: kustomization({ status: { lastAttemptedRevision: next } }),
    expected: {
      revision: applied,
      healthy: false,
      settled: false,
      reason: new RegExp(`^last attempted ${next} but ${applied} is applied$`),
    },
  },
  {
    name: 'no lastAttemptedRevision',
    object: kustomization({ status: { lastAttemptedRevision: undefined } }),
    expected: { revision: applied, healthy: false, settled: false, reason: /last attempted \(none\)/ },
  },
  {
    name: 'a reconciliation in progress',
    object: kustomization({ status: { lastAttemptedRevision: next, conditions: [progressing, reconciling] } }),
    expected: { revision: applied, healthy: false, settled: false, reason: /^Reconciling: Progressing/ },
  },
  {
    name: 'Reconciling True while Ready is still True',
    object: kustomization({ status: { conditions: [ready, reconciling] } }),
    expected: { revision: applied, healthy: false, settled: false, reason: /^Reconciling: Progressing/ },
  },
  {
    name: 'Stalled True is terminal',
    object: kustomization({
      metadata: { generation: 3 },
      status: {
        observedGeneration: 3,
        conditions: [
          condition('Ready', 'False', 'BuildFailed', 'kustomize build failed: accumulating resources: 1 error', 3),
          condition('Stalled', 'True', 'BuildFailed', 'kustomize build failed: accumulating resources: 1 error', 3),
        ],
      },
    }),
    expected: { revision: applied, healthy: false, settled: true, reason: /^Stalled is True \(BuildFailed\)/ },
  },
  {
    name: 'a new generation not yet observed',
    object: kustomization({ metadata: { generation: 3 }, status: { observedGeneration: 2, conditions: [ready] } }),
    expected: {
      revision: applied,
      healthy: false,
      settled: false,
      reason: /^generation 3 not yet observed \(observedGeneration 2\)$/,
    },
  },
  {
    name: 'a new generation failing: KC does not bump observedGeneration, so not settled',
    object: kustomization({
      metadata: { generation: 3 },
      status: { observedGeneration: 2, conditions: [{ ...healthCheckFailed, observedGeneration: 3 }] },
    }),
    expected: { revision: applied, healthy: false, settled: false, reason: /^Ready is False \(HealthCheckFailed\)/ },
  },
  {
    name: "Ready's own observedGeneration is stale",
    object: kustomization({ status: { conditions: [{ ...ready, observedGeneration: 1 }] } }),
    expected: { revision: applied, healthy: false, settled: false, reason: /Ready is for generation 1, not 2/ },
  },
  {
    name: 'Ready True with a reason other than ReconciliationSucceeded',
    object: kustomization({ status: { conditions: [{ ...ready, reason: 'Progressing' }] } }),
    expected: { revision: applied, healthy: false, settled: true, reason: /reason Progressing is not a success/ },
  },
  {
    name: 'Ready True before anything was applied',
    object: kustomization({ status: { lastAppliedRevision: undefined } }),
    expected: { revision: undefined, healthy: false, settled: true, reason: /no revision applied yet/ },
  },
  {
    name: 'v1beta2 follows the same rules',
    object: kustomization({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1beta2' }),
    expected: { revision: applied, healthy: true, settled: true, reason: /^applied / },
  },
  {
    name: 'a Kustomization without status',
    object: kustomization({ status: null }),
    expected: {
      revision: undefined,
      healthy: false,
      settled: false,
      reason: /^Kustomization flux-system\/apps has no status yet$/,
    },
  },
];

describe('readKustomizationStatus', () => {
  for (const { name, object, expected } of cases) {
    it(name, () => expectStatus(readKustomizationStatus(object), expected));
  }

  const unreadable: { name: string; object: unknown; error: RegExp }[] = [
    {
      name: 'v1beta1',
      object: kustomization({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1beta1' }),
      error: /apiVersion kustomize\.toolkit\.fluxcd\.io\/v1beta1 is not supported/,
    },
    {
      name: "the kustomize CLI's own Kustomization",
      object: { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['deployment.yaml'] },
      error: /not supported/,
    },
    { name: 'a HelmRelease', object: { ...kustomization(), kind: 'HelmRelease' }, error: /expected a Kustomization/ },
    {
      name: 'malformed conditions',
      object: kustomization({ status: { conditions: [{ status: 'True' }] } }),
      error: /^Kustomization flux-system\/apps: status\.conditions\.0\.type is missing$/,
    },
  ];
  for (const { name, object, error } of unreadable) {
    it(`is unreadable for ${name}`, () => {
      const status = readKustomizationStatus(object);
      assert.match(status.error ?? '', error);
      assert.equal(status.healthy, false);
    });
  }
});

describe('readTargetStatus', () => {
  it('reads a Kustomization', () => {
    expectStatus(readTargetStatus(kustomization()), {
      revision: applied,
      healthy: true,
      settled: true,
      reason: /^applied /,
    });
  });
});
