import { describe, it } from 'node:test';
import { readKustomizationStatus, readTargetStatus } from '../../lib/flux/index.js';
import { COMMIT, condition, KS_GENERATION, kustomization, NEXT_COMMIT } from '../fixtures/flux-objects.js';
import { expectStatus, type Expected } from './expect-status.js';
import type { TargetReason } from '../../lib/flux/index.js';
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
const dependencyNotReady = condition(
  'Ready',
  'False',
  'DependencyNotReady',
  "dependency 'flux-system/infra-controllers' is not ready",
  g,
);
const ociDigest = '3b6c1f0e2d4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c';

const cases: { name: string; object: FluxObject; expected: Expected }[] = [
  {
    name: 'Flux 2.8: a health check canceled by a newer revision is Progressing, never Failed',
    object: kustomization({
      status: {
        lastAttemptedRevision: next,
        conditions: [
          condition(
            'Ready',
            'False',
            'HealthCheckCanceled',
            `health check canceled: a new revision ${next} is available for reconciliation`,
            g,
          ),
        ],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'HealthCheckCanceled',
      revision: applied,
      message: /^Ready is False \(HealthCheckCanceled\): health check canceled/,
    },
  },
  {
    name: 'an applied revision, Ready with ReconciliationSucceeded',
    object: kustomization(),
    expected: {
      phase: 'Ready',
      reason: 'Applied',
      revision: applied,
      message: new RegExp(`^applied ${applied} \\(ReconciliationSucceeded\\)$`),
    },
  },
  {
    name: 'the legacy main/<sha> form matches main@sha1:<sha>',
    object: kustomization({ status: { lastAppliedRevision: `main/${COMMIT}`, lastAttemptedRevision: applied } }),
    expected: { phase: 'Ready', reason: 'Applied', revision: `main/${COMMIT}`, message: /^applied main\// },
  },
  {
    name: 'a legacy revision of another commit does not match',
    object: kustomization({
      status: { lastAppliedRevision: `main/${COMMIT}`, lastAttemptedRevision: `main/${NEXT_COMMIT}` },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'AttemptPending',
      revision: `main/${COMMIT}`,
      message: /^last attempted main\/5e6f/,
    },
  },
  {
    name: 'an OCI source compares on the digest, tag or not',
    object: kustomization({
      status: { lastAppliedRevision: `latest@sha256:${ociDigest}`, lastAttemptedRevision: `sha256:${ociDigest}` },
    }),
    expected: {
      phase: 'Ready',
      reason: 'Applied',
      revision: `latest@sha256:${ociDigest}`,
      message: /^applied latest@sha256:/,
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
      failedRevision: 'main@sha1:5e6f9d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e',
      phase: 'Failed',
      reason: 'ReconciliationFailed',
      revision: applied,
      message: /^Ready is False \(HealthCheckFailed\): health check failed/,
    },
  },
  {
    name: 'Ready still True while a newer revision is attempted: mid-way',
    object: kustomization({ status: { lastAttemptedRevision: next } }),
    expected: {
      phase: 'Progressing',
      reason: 'AttemptPending',
      revision: applied,
      message: new RegExp(`^last attempted ${next} but ${applied} is applied$`),
    },
  },
  {
    name: 'no lastAttemptedRevision',
    object: kustomization({ status: { lastAttemptedRevision: undefined } }),
    expected: { phase: 'Progressing', reason: 'AttemptPending', revision: applied, message: /last attempted \(none\)/ },
  },
  {
    name: 'a reconciliation in progress',
    object: kustomization({ status: { lastAttemptedRevision: next, conditions: [progressing, reconciling] } }),
    expected: { phase: 'Progressing', reason: 'Reconciling', revision: applied, message: /^Reconciling: Progressing/ },
  },
  {
    name: 'Reconciling True while Ready is still True',
    object: kustomization({ status: { conditions: [ready, reconciling] } }),
    expected: { phase: 'Progressing', reason: 'Reconciling', revision: applied, message: /^Reconciling: Progressing/ },
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
    expected: { phase: 'Failed', reason: 'Stalled', revision: applied, message: /^Stalled is True \(BuildFailed\)/ },
  },
  {
    name: 'a new generation not yet observed',
    object: kustomization({ metadata: { generation: 3 }, status: { observedGeneration: 2, conditions: [ready] } }),
    expected: {
      phase: 'Progressing',
      reason: 'GenerationNotObserved',
      revision: applied,
      message: /^generation 3 not yet observed \(observedGeneration 2\)$/,
    },
  },
  {
    name: 'a new generation failing: KC does not bump observedGeneration, so not settled',
    object: kustomization({
      metadata: { generation: 3 },
      status: { observedGeneration: 2, conditions: [{ ...healthCheckFailed, observedGeneration: 3 }] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'ReconciliationFailed',
      revision: applied,
      message: /^Ready is False \(HealthCheckFailed\)/,
    },
  },
  {
    name: "Ready's own observedGeneration is stale",
    object: kustomization({ status: { conditions: [{ ...ready, observedGeneration: 1 }] } }),
    expected: {
      phase: 'Progressing',
      reason: 'ReadyOutdated',
      revision: applied,
      message: /Ready is for generation 1, not 2/,
    },
  },
  {
    name: 'Ready True with a reason other than ReconciliationSucceeded',
    object: kustomization({ status: { conditions: [{ ...ready, reason: 'Progressing' }] } }),
    expected: {
      phase: 'Failed',
      reason: 'UnexpectedReadyReason',
      revision: applied,
      message: /reason Progressing is not a success/,
    },
  },
  {
    name: 'Ready True before anything was applied',
    object: kustomization({ status: { lastAppliedRevision: undefined } }),
    expected: {
      failedRevision: 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
      phase: 'Failed',
      reason: 'NoRevision',
      revision: undefined,
      message: /no revision applied yet/,
    },
  },
  {
    name: 'v1beta2 follows the same rules',
    object: kustomization({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1beta2' }),
    expected: { phase: 'Ready', reason: 'Applied', revision: applied, message: /^applied / },
  },
  {
    name: 'a Kustomization without status',
    object: kustomization({ status: null }),
    expected: {
      phase: 'Progressing',
      reason: 'NoStatus',
      revision: undefined,
      message: /^Kustomization flux-system\/apps has no status yet$/,
    },
  },
  {
    name: 'Ready False because a dependsOn object is not ready: KC retries it every 30 s, so it is progressing',
    object: kustomization({ status: { conditions: [dependencyNotReady] } }),
    expected: {
      phase: 'Progressing',
      reason: 'DependencyNotReady',
      revision: applied,
      message: /^Ready is False \(DependencyNotReady\): dependency 'flux-system\/infra-controllers' is not ready$/,
    },
  },
  {
    name: 'a new generation waiting for a dependency: KC does not bump observedGeneration, so not settled',
    object: kustomization({
      metadata: { generation: 3 },
      status: { observedGeneration: 2, conditions: [{ ...dependencyNotReady, observedGeneration: 3 }] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'DependencyNotReady',
      revision: applied,
      message: /^Ready is False \(DependencyNotReady\)/,
    },
  },
  {
    name: 'flux suspend: a new generation KC never observes (it returns before touching status): suspended',
    object: kustomization({ metadata: { generation: g + 1 }, spec: { suspend: true } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: applied,
      message: new RegExp(
        `^suspended \\(spec\\.suspend\\): Flux does not reconcile it until it is resumed; runs ${applied}$`,
      ),
    },
  },
  {
    name: 'source artifact not found: KC retries every 30 s, so it is progressing',
    object: kustomization({
      status: {
        conditions: [condition('Ready', 'False', 'ArtifactFailed', 'Source artifact not found, retrying in 30s', g)],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'SourceNotReady',
      revision: applied,
      message: /^Ready is False \(ArtifactFailed\): Source artifact not found, retrying in 30s$/,
    },
  },
  {
    name: 'spec.suspend true: suspended, still telling what was applied',
    object: kustomization({ spec: { suspend: true } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: applied,
      message: new RegExp(
        `^suspended \\(spec\\.suspend\\): Flux does not reconcile it until it is resumed; runs ${applied}$`,
      ),
    },
  },
  {
    name: 'spec.suspend true while a newer revision was attempted: suspended on the applied one',
    object: kustomization({ spec: { suspend: true }, status: { lastAttemptedRevision: next } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: applied,
      message: new RegExp(`; runs ${applied}$`),
    },
  },
];

describe('readKustomizationStatus', () => {
  for (const { name, object, expected } of cases) {
    it(name, () => expectStatus(readKustomizationStatus(object), expected));
  }

  const unreadable: { name: string; object: unknown; reason: TargetReason; message: RegExp }[] = [
    {
      name: 'v1beta1',
      object: kustomization({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1beta1' }),
      reason: 'UnsupportedVersion',
      message: /apiVersion kustomize\.toolkit\.fluxcd\.io\/v1beta1 is not supported/,
    },
    {
      name: "the kustomize CLI's own Kustomization",
      object: { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['deployment.yaml'] },
      reason: 'UnsupportedVersion',
      message: /not supported/,
    },
    {
      name: 'a HelmRelease',
      object: { ...kustomization(), kind: 'HelmRelease' },
      reason: 'UnsupportedKind',
      message: /expected a Kustomization/,
    },
    {
      name: 'malformed conditions',
      object: kustomization({ status: { conditions: [{ status: 'True' }] } }),
      reason: 'InvalidObject',
      message: /^Kustomization flux-system\/apps: status\.conditions\.0\.type is missing$/,
    },
    {
      name: 'a malformed spec.suspend',
      object: kustomization({ spec: { suspend: 'true' } }),
      reason: 'InvalidObject',
      message: /^Kustomization flux-system\/apps: spec\.suspend must be a boolean$/,
    },
  ];
  for (const { name, object, reason, message } of unreadable) {
    it(`is unreadable for ${name}`, () => {
      expectStatus(readKustomizationStatus(object), { phase: 'Unreadable', reason, revision: undefined, message });
    });
  }
});

describe('readTargetStatus', () => {
  it('reads a Kustomization', () => {
    expectStatus(readTargetStatus(kustomization()), {
      phase: 'Ready',
      reason: 'Applied',
      revision: applied,
      message: /^applied /,
    });
  });
});
