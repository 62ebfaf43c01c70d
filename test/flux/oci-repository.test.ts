import { describe, it } from 'node:test';
import { readOciRepositoryStatus, readTargetStatus } from '../../lib/flux/index.js';
import type { TargetReason } from '../../lib/flux/index.js';
import {
  condition,
  OCI_DIGEST,
  OCI_REPOSITORY_GENERATION,
  ociRepository,
  type FluxObject,
} from '../fixtures/flux-objects.js';
import { expectStatus, type Expected } from './expect-status.js';

const g = OCI_REPOSITORY_GENERATION;
const VERSIONS = ['source.toolkit.fluxcd.io/v1', 'source.toolkit.fluxcd.io/v1beta2'];
const stored = `6.6.1@${OCI_DIGEST}`;
const ready = condition('Ready', 'True', 'Succeeded', `stored artifact for digest '${stored}'`, g);
const pulling = condition('Reconciling', 'True', 'NewRevision', `new revision '6.6.2@${OCI_DIGEST}' for '…'`, g);

/** Cases read the same in both API versions: each runs as v1 and as v1beta2. */
const cases: { name: string; object: FluxObject; expected: Expected }[] = [
  {
    name: 'an artifact stored for a tag, Ready with Succeeded',
    object: ociRepository(),
    expected: {
      phase: 'Ready',
      reason: 'Resolved',
      revision: stored,
      message: new RegExp(`^stored 6\\.6\\.1@${OCI_DIGEST} \\(Succeeded\\)$`),
    },
  },
  {
    name: 'an artifact stored for a digest (spec.ref.digest)',
    object: ociRepository({ revision: OCI_DIGEST }),
    expected: { phase: 'Ready', reason: 'Resolved', revision: OCI_DIGEST, message: /^stored sha256:0cc9/ },
  },
  {
    name: 'the revision form before Flux 2.0 (<tag>/<digest>)',
    object: ociRepository({ revision: `6.6.1/${OCI_DIGEST.slice('sha256:'.length)}` }),
    expected: {
      phase: 'Ready',
      reason: 'Resolved',
      revision: `6.6.1/${OCI_DIGEST.slice('sha256:'.length)}`,
      message: /^stored 6\.6\.1\//,
    },
  },
  {
    name: 'Ready, yet no artifact stored',
    object: ociRepository({ status: { artifact: undefined } }),
    expected: { phase: 'Failed', reason: 'NoRevision', revision: undefined, message: /^no artifact stored yet$/ },
  },
  {
    name: 'no status yet',
    object: ociRepository({ status: null }),
    expected: {
      phase: 'Progressing',
      reason: 'NoStatus',
      revision: undefined,
      message: /^OCIRepository flux-system\/podinfo has no status yet$/,
    },
  },
  {
    name: 'only the CRD default status (observedGeneration -1)',
    object: { ...ociRepository(), status: { observedGeneration: -1 } },
    expected: { phase: 'Progressing', reason: 'NoStatus', revision: undefined, message: /has no status yet$/ },
  },
  {
    name: 'pulling a new revision: still the stored one, not settled',
    object: ociRepository({
      status: { conditions: [{ ...ready, status: 'Unknown', reason: 'Progressing' }, pulling] },
    }),
    expected: { phase: 'Progressing', reason: 'Reconciling', revision: stored, message: /^Reconciling: NewRevision$/ },
  },
  {
    name: 'a new generation not yet observed',
    object: ociRepository({ metadata: { generation: g + 1 }, status: { observedGeneration: g, conditions: [ready] } }),
    expected: {
      phase: 'Progressing',
      reason: 'GenerationNotObserved',
      revision: stored,
      message: /^generation 4 not yet observed \(observedGeneration 3\)$/,
    },
  },
  {
    name: 'no Ready condition',
    object: ociRepository({ status: { conditions: [condition('ArtifactInStorage', 'True', 'Succeeded', '…', g)] } }),
    expected: { phase: 'Progressing', reason: 'ReadyMissing', revision: stored, message: /^no Ready condition yet$/ },
  },
  {
    name: "Ready's own observedGeneration is stale",
    object: ociRepository({ status: { conditions: [{ ...ready, observedGeneration: g - 1 }] } }),
    expected: {
      phase: 'Progressing',
      reason: 'ReadyOutdated',
      revision: stored,
      message: /^Ready is for generation 2, not 3$/,
    },
  },
  {
    name: 'Ready Unknown',
    object: ociRepository({ status: { conditions: [{ ...ready, status: 'Unknown', reason: 'Progressing' }] } }),
    expected: { phase: 'Progressing', reason: 'ReadyUnknown', revision: stored, message: /^Ready is Unknown/ },
  },
  {
    name: 'a failed pull the controller retries keeps the artifact stored before',
    object: ociRepository({ ready: false }),
    expected: {
      phase: 'Progressing',
      reason: 'ReconciliationFailed',
      revision: stored,
      message: /^Ready is False \(OCIArtifactPullFailed\): failed to pull artifact/,
    },
  },
  {
    name: 'a URL that cannot work stalls',
    object: ociRepository({
      status: {
        artifact: undefined,
        conditions: [
          condition('Ready', 'False', 'URLInvalid', 'URL must be in format oci://<domain>/<org>/<repo>', g),
          condition('Stalled', 'True', 'URLInvalid', 'URL must be in format oci://<domain>/<org>/<repo>', g),
        ],
      },
    }),
    expected: { phase: 'Failed', reason: 'Stalled', revision: undefined, message: /^Stalled is True \(URLInvalid\)/ },
  },
  {
    name: 'Ready False and nothing retrying',
    object: ociRepository({
      status: { conditions: [condition('Ready', 'False', 'VerificationError', 'no matching signatures', g)] },
    }),
    expected: {
      phase: 'Failed',
      reason: 'ReconciliationFailed',
      revision: stored,
      message: /^Ready is False \(VerificationError\): no matching signatures$/,
    },
  },
  {
    name: 'Ready True with a reason other than Succeeded',
    object: ociRepository({ status: { conditions: [{ ...ready, reason: 'ArtifactOutdated' }] } }),
    expected: {
      phase: 'Failed',
      reason: 'UnexpectedReadyReason',
      revision: stored,
      message: /reason ArtifactOutdated is not a success reason/,
    },
  },
  {
    name: 'spec.suspend true: suspended, still telling the stored artifact',
    object: ociRepository({ spec: { suspend: true } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: stored,
      message: new RegExp(
        `^suspended \\(spec\\.suspend\\): Flux does not reconcile it until it is resumed; runs ${stored}$`,
      ),
    },
  },
  {
    name: 'flux suspend: a generation the controller never observes reads as suspended',
    object: ociRepository({ metadata: { generation: g + 1 }, spec: { suspend: true } }),
    expected: { phase: 'Suspended', reason: 'Suspended', revision: stored, message: new RegExp(`; runs ${stored}$`) },
  },
];

describe('readOciRepositoryStatus', () => {
  for (const apiVersion of VERSIONS) {
    for (const { name, object, expected } of cases) {
      it(`${apiVersion}: ${name}`, () => expectStatus(readOciRepositoryStatus({ ...object, apiVersion }), expected));
    }
  }

  const unreadable: { name: string; object: unknown; reason: TargetReason; message: RegExp }[] = [
    {
      name: 'v1beta1 (never served for OCIRepository)',
      object: ociRepository({ apiVersion: 'source.toolkit.fluxcd.io/v1beta1' }),
      reason: 'UnsupportedVersion',
      message: /^OCIRepository flux-system\/podinfo: apiVersion source\.toolkit\.fluxcd\.io\/v1beta1 is not supported/,
    },
    {
      name: 'a HelmRelease',
      object: { ...ociRepository(), kind: 'HelmRelease' },
      reason: 'UnsupportedKind',
      message: /^expected an OCIRepository, got kind HelmRelease$/,
    },
    {
      name: 'an artifact without a revision',
      object: ociRepository({ status: { artifact: { path: 'x.tar.gz' } } }),
      reason: 'InvalidObject',
      message: /^OCIRepository flux-system\/podinfo: status\.artifact\.revision is missing$/,
    },
    {
      name: 'malformed conditions',
      object: ociRepository({ status: { conditions: [{ type: 'Ready' }] } }),
      reason: 'InvalidObject',
      message: /status\.conditions\.0\.status is missing$/,
    },
    {
      name: 'a malformed spec.suspend',
      object: ociRepository({ spec: { suspend: 1 } }),
      reason: 'InvalidObject',
      message: /spec\.suspend must be a boolean$/,
    },
  ];
  for (const { name, object, reason, message } of unreadable) {
    it(`is unreadable for ${name}`, () => {
      expectStatus(readOciRepositoryStatus(object), { phase: 'Unreadable', reason, revision: undefined, message });
    });
  }
});

describe('readTargetStatus', () => {
  it('reads an OCIRepository', () => {
    expectStatus(readTargetStatus(ociRepository()), {
      phase: 'Ready',
      reason: 'Resolved',
      revision: stored,
      message: /^stored 6\.6\.1@sha256:/,
    });
  });

  it('names the kinds it reads when given another', () => {
    expectStatus(readTargetStatus({ ...ociRepository(), kind: 'GitRepository' }), {
      phase: 'Unreadable',
      reason: 'UnsupportedKind',
      revision: undefined,
      message:
        /^unsupported object kind GitRepository: expected HelmRelease, Kustomization, ImagePolicy or OCIRepository$/,
    });
  });
});
