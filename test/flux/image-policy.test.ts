import { describe, it } from 'node:test';
import { readImagePolicyStatus, readTargetStatus } from '../../lib/flux/index.js';
import type { TargetReason } from '../../lib/flux/index.js';
import {
  condition,
  IMAGE_POLICY_GENERATION,
  imagePolicy,
  OCI_DIGEST,
  PODINFO_IMAGE,
  type FluxObject,
} from '../fixtures/flux-objects.js';
import { expectStatus, type Expected } from './expect-status.js';

const g = IMAGE_POLICY_GENERATION;
const VERSIONS = ['image.toolkit.fluxcd.io/v1', 'image.toolkit.fluxcd.io/v1beta2'];
const resolved = condition('Ready', 'True', 'Succeeded', `Latest image tag for ${PODINFO_IMAGE} resolved to 6.6.1`, g);

/** An ImagePolicy as image-reflector-controller before Flux 2.6 wrote it: `latestImage` only. */
function withLatestImage(latestImage: string | undefined, overrides: Parameters<typeof imagePolicy>[0] = {}) {
  return imagePolicy({
    ...overrides,
    status: { latestRef: undefined, observedPreviousRef: undefined, latestImage, ...overrides.status },
  });
}

/** Cases read the same in both API versions: each runs as v1 and as v1beta2. */
const cases: { name: string; object: FluxObject; expected: Expected }[] = [
  {
    name: 'a selected tag (latestRef), Ready with Succeeded',
    object: imagePolicy(),
    expected: {
      phase: 'Ready',
      reason: 'Resolved',
      revision: '6.6.1',
      message: /^selected tag 6\.6\.1 \(Succeeded\)$/,
    },
  },
  {
    name: 'a reflected digest is not part of the tag',
    object: imagePolicy({ status: { latestRef: { name: PODINFO_IMAGE, tag: '6.6.1', digest: OCI_DIGEST } } }),
    expected: { phase: 'Ready', reason: 'Resolved', revision: '6.6.1', message: /^selected tag 6\.6\.1 / },
  },
  {
    name: 'latestRef wins over the deprecated latestImage',
    object: imagePolicy({ status: { latestImage: `${PODINFO_IMAGE}:6.6.0` } }),
    expected: { phase: 'Ready', reason: 'Resolved', revision: '6.6.1', message: /^selected tag 6\.6\.1 / },
  },
  {
    name: 'latestImage only (before Flux 2.6)',
    object: withLatestImage(`${PODINFO_IMAGE}:6.6.1`),
    expected: { phase: 'Ready', reason: 'Resolved', revision: '6.6.1', message: /^selected tag 6\.6\.1 / },
  },
  {
    name: 'latestImage on a registry with a port',
    object: withLatestImage('registry.local:5000/team/podinfo:6.6.1'),
    expected: { phase: 'Ready', reason: 'Resolved', revision: '6.6.1', message: /^selected tag 6\.6\.1 / },
  },
  {
    name: 'latestImage with a port and a digest',
    object: withLatestImage(`registry.local:5000/podinfo:6.6.1@${OCI_DIGEST}`),
    expected: { phase: 'Ready', reason: 'Resolved', revision: '6.6.1', message: /^selected tag 6\.6\.1 / },
  },
  {
    name: 'latestImage with a port but no tag: the port is not a tag',
    object: withLatestImage('registry.local:5000/podinfo'),
    expected: { phase: 'Failed', reason: 'NoRevision', revision: undefined, message: /^no image tag selected yet$/ },
  },
  {
    name: 'Ready, yet no tag selected',
    object: withLatestImage(undefined),
    expected: { phase: 'Failed', reason: 'NoRevision', revision: undefined, message: /^no image tag selected yet$/ },
  },
  {
    name: 'no status yet',
    object: imagePolicy({ status: null }),
    expected: {
      phase: 'Progressing',
      reason: 'NoStatus',
      revision: undefined,
      message: /^ImagePolicy flux-system\/podinfo has no status yet$/,
    },
  },
  {
    name: 'only the CRD default status (observedGeneration -1)',
    object: { ...imagePolicy(), status: { observedGeneration: -1 } },
    expected: { phase: 'Progressing', reason: 'NoStatus', revision: undefined, message: /has no status yet$/ },
  },
  {
    name: 'a new generation not yet observed',
    object: imagePolicy({ metadata: { generation: g + 1 }, status: { observedGeneration: g, conditions: [resolved] } }),
    expected: {
      phase: 'Progressing',
      reason: 'GenerationNotObserved',
      revision: '6.6.1',
      message: /^generation 2 not yet observed \(observedGeneration 1\)$/,
    },
  },
  {
    name: 'a new generation being processed',
    object: imagePolicy({
      metadata: { generation: g + 1 },
      status: {
        conditions: [
          { ...resolved, observedGeneration: g },
          condition('Reconciling', 'True', 'Progressing', 'processing object: new generation 1 -> 2', g + 1),
        ],
      },
    }),
    expected: { phase: 'Progressing', reason: 'Reconciling', revision: '6.6.1', message: /^Reconciling: Progressing$/ },
  },
  {
    name: 'no Ready condition',
    object: imagePolicy({ status: { conditions: [condition('Reconciling', 'False', 'Succeeded', 'done', g)] } }),
    expected: { phase: 'Progressing', reason: 'ReadyMissing', revision: '6.6.1', message: /^no Ready condition yet$/ },
  },
  {
    name: "Ready's own observedGeneration is stale",
    object: imagePolicy({
      metadata: { generation: g + 1 },
      status: { observedGeneration: g + 1, conditions: [resolved] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'ReadyOutdated',
      revision: '6.6.1',
      message: /^Ready is for generation 1, not 2$/,
    },
  },
  {
    name: 'Ready Unknown',
    object: imagePolicy({ status: { conditions: [{ ...resolved, status: 'Unknown', reason: 'Progressing' }] } }),
    expected: { phase: 'Progressing', reason: 'ReadyUnknown', revision: '6.6.1', message: /^Ready is Unknown/ },
  },
  {
    name: 'no tags scanned yet: waiting for its ImageRepository, retried by the controller',
    object: withLatestImage(undefined, {
      status: { conditions: [condition('Ready', 'False', 'DependencyNotReady', 'no tags in database', g)] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'DependencyNotReady',
      revision: undefined,
      message: /^Ready is False \(DependencyNotReady\): no tags in database$/,
    },
  },
  {
    name: 'a failed attempt the controller retries keeps the tag selected before',
    object: imagePolicy({ ready: false }),
    expected: {
      phase: 'Progressing',
      reason: 'ReconciliationFailed',
      revision: '6.6.1',
      message: /^Ready is False \(Failure\): failed to read tags/,
    },
  },
  {
    name: 'an invalid policy stalls',
    object: imagePolicy({
      status: {
        conditions: [
          condition('Ready', 'False', 'InvalidPolicy', 'invalid semver range: 6.x.y.z', g),
          condition('Stalled', 'True', 'InvalidPolicy', 'invalid semver range: 6.x.y.z', g),
        ],
      },
    }),
    expected: { phase: 'Failed', reason: 'Stalled', revision: '6.6.1', message: /^Stalled is True \(InvalidPolicy\)/ },
  },
  {
    name: 'Ready False and nothing retrying',
    object: imagePolicy({
      status: { conditions: [condition('Ready', 'False', 'AccessDenied', 'cross-namespace references', g)] },
    }),
    expected: {
      phase: 'Failed',
      reason: 'ReconciliationFailed',
      revision: '6.6.1',
      message: /^Ready is False \(AccessDenied\)/,
    },
  },
  {
    name: 'Ready True with a reason other than Succeeded',
    object: imagePolicy({ status: { conditions: [{ ...resolved, reason: 'Progressing' }] } }),
    expected: {
      phase: 'Failed',
      reason: 'UnexpectedReadyReason',
      revision: '6.6.1',
      message: /reason Progressing is not a success reason/,
    },
  },
  {
    name: 'spec.suspend true: suspended, still telling the tag selected',
    object: imagePolicy({ spec: { suspend: true } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: '6.6.1',
      message: /^suspended \(spec\.suspend\): Flux does not reconcile it until it is resumed; runs 6\.6\.1$/,
    },
  },
  {
    name: 'flux suspend: a generation the controller never observes reads as suspended',
    object: imagePolicy({ metadata: { generation: g + 1 }, spec: { suspend: true } }),
    expected: { phase: 'Suspended', reason: 'Suspended', revision: '6.6.1', message: /; runs 6\.6\.1$/ },
  },
];

describe('readImagePolicyStatus', () => {
  for (const apiVersion of VERSIONS) {
    for (const { name, object, expected } of cases) {
      it(`${apiVersion}: ${name}`, () => expectStatus(readImagePolicyStatus({ ...object, apiVersion }), expected));
    }
  }

  const unreadable: { name: string; object: unknown; reason: TargetReason; message: RegExp }[] = [
    {
      name: 'v1beta1 (removed in Flux 2.7, not read)',
      object: imagePolicy({ apiVersion: 'image.toolkit.fluxcd.io/v1beta1' }),
      reason: 'UnsupportedVersion',
      message: /^ImagePolicy flux-system\/podinfo: apiVersion image\.toolkit\.fluxcd\.io\/v1beta1 is not supported/,
    },
    {
      name: 'another project’s ImagePolicy',
      object: imagePolicy({ apiVersion: 'policy.example.com/v1' }),
      reason: 'UnsupportedVersion',
      message: /apiVersion policy\.example\.com\/v1 is not supported/,
    },
    {
      name: 'an OCIRepository',
      object: { ...imagePolicy(), kind: 'OCIRepository' },
      reason: 'UnsupportedKind',
      message: /^expected an ImagePolicy, got kind OCIRepository$/,
    },
    { name: 'null', object: null, reason: 'UnsupportedKind', message: /got kind \(none\)$/ },
    {
      name: 'a latestRef without a tag',
      object: imagePolicy({ status: { latestRef: { name: PODINFO_IMAGE } } }),
      reason: 'InvalidObject',
      message: /^ImagePolicy flux-system\/podinfo: status\.latestRef\.tag is missing$/,
    },
    {
      name: 'a latestImage that is not a string',
      object: imagePolicy({ status: { latestImage: 661 } }),
      reason: 'InvalidObject',
      message: /^ImagePolicy flux-system\/podinfo: status\.latestImage must be a string$/,
    },
    {
      name: 'no metadata.generation',
      object: imagePolicy({ metadata: { generation: undefined } }),
      reason: 'InvalidObject',
      message: /metadata\.generation is missing$/,
    },
    {
      name: 'a malformed spec.suspend',
      object: imagePolicy({ spec: { suspend: 'true' } }),
      reason: 'InvalidObject',
      message: /spec\.suspend must be a boolean$/,
    },
  ];
  for (const { name, object, reason, message } of unreadable) {
    it(`is unreadable for ${name}`, () => {
      expectStatus(readImagePolicyStatus(object), { phase: 'Unreadable', reason, revision: undefined, message });
    });
  }
});

describe('readTargetStatus', () => {
  it('reads an ImagePolicy', () => {
    expectStatus(readTargetStatus(imagePolicy({ tag: '6.7.0' })), {
      phase: 'Ready',
      reason: 'Resolved',
      revision: '6.7.0',
      message: /^selected tag 6\.7\.0 \(Succeeded\)$/,
    });
  });
});
