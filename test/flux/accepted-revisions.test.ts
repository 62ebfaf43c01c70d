// Which revisions are taken from a cluster (docs/flux-status.md, "Revisions"): a version of the kind of object it comes
// from, and nothing else. A value that is not one makes its target Unreadable with reason InvalidRevision, shown
// escaped and cut short, and is never the target's revision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  readHelmReleaseStatus,
  readImagePolicyStatus,
  readKustomizationStatus,
  readOciRepositoryStatus,
} from '../../lib/flux/index.js';
import { isRevisionOf, shownRevision, type RevisionKind } from '../../lib/flux/revision.js';
import { isPrintable } from '../../lib/logging/printable.js';
import {
  COMMIT,
  OCI_DIGEST,
  helmRelease,
  helmReleaseV2beta1,
  imagePolicy,
  kustomization,
  ociRepository,
  PODINFO_IMAGE,
  snapshot,
  type FluxObject,
} from '../fixtures/flux-objects.js';

const sha1 = COMMIT;
const sha256 = OCI_DIGEST.slice('sha256:'.length);
const MEGABYTE = 'x'.repeat(1 << 20);

/** The values a leaf cluster was seen to slip into a pipeline, refused whatever kind they claim to be. */
const REFUSED_EVERYWHERE = [
  '',
  '*',
  '>=0.0.0',
  'evil.example/backdoor:1',
  '@acme/admins',
  '6.9.2\nevil: true',
  '6.9.2\n',
  ' 6.9.2',
  '6.9.2\u202e',
  '6.9.2\u001b[2J',
  MEGABYTE,
  `1.2.3-${MEGABYTE}`,
];

const ACCEPTED: Record<RevisionKind, string[]> = {
  'chart-version': [
    '6.9.2',
    '0.0.0',
    '6.6.1+0cc9a8446c95',
    '1.2.3+a1b2c3d4e5f6',
    '6.0.3+4',
    '1.0.0-rc.1',
    '1.2.3-alpha.1+build.5',
    'v1.2.3',
  ],
  'oci-tag': [
    'latest',
    '6.6.1',
    'v6.6.1-rc.1',
    'main-731f7ead-1727700000',
    '_internal',
    'a'.repeat(128),
    `6.5.0@sha256:${sha256}`,
  ],
  'oci-artifact': [`6.6.1@sha256:${sha256}`, `latest@sha256:${sha256}`, `sha256:${sha256}`, `6.6.1/${sha256}`],
  'source-revision': [
    `main@sha1:${sha1}`,
    `refs/heads/main@sha1:${sha1}`,
    `v1.2.3@sha1:${sha1}`,
    `refs/tags/v1.0@sha1:${sha1}`,
    `feature/x@sha1:${sha1}`,
    `refs/pull/1/head@sha1:${sha1}`,
    `release-1.x@sha1:${sha1}`,
    `sha1:${sha1}`,
    `latest@sha256:${sha256}`,
    `sha256:${sha256}`,
    `main/${sha1}`,
    `latest/${sha256}`,
  ],
};

const REFUSED: Record<RevisionKind, string[]> = {
  'chart-version': [
    'latest',
    '1.2',
    '1',
    '^1.2.3',
    '~1.2.3',
    '1.2.x',
    '1.2.3 || 2.0.0',
    '=1.2.3',
    '01.2.3',
    '1.2.3-01',
    `main@sha1:${sha1}`,
    `6.6.1@sha256:${sha256}`,
  ],
  'oci-tag': [
    '-latest',
    '.latest',
    'a'.repeat(129),
    'latest\n',
    'a b',
    `6.5.0@sha256:${sha256.slice(0, 12)}`,
    `6.5.0@sha256:${sha256.toUpperCase()}`,
    `sha256:${sha256}`,
  ],
  'oci-artifact': [
    'latest',
    '6.6.1',
    `6.6.1@sha256:0cc9a8446c95`,
    `sha1:${sha1}`,
    `main@sha1:${sha1}`,
    `evil.example/backdoor:1@sha256:${sha256}`,
    `6.6.1/${sha1}`,
  ],
  'source-revision': [
    'main',
    'latest',
    '6.9.2',
    `main@sha1:abc1234`,
    `main@md5:${sha1}`,
    `@sha1:${sha1}`,
    `/main@sha1:${sha1}`,
    `main/@sha1:${sha1}`,
    `feature//x@sha1:${sha1}`,
    `a..b@sha1:${sha1}`,
    `x.lock@sha1:${sha1}`,
    `main.@sha1:${sha1}`,
    `ma in@sha1:${sha1}`,
    `main@sha1:${sha1}\n`,
    `${'a'.repeat(256)}@sha1:${sha1}`,
  ],
};

describe('isRevisionOf', () => {
  for (const kind of Object.keys(ACCEPTED) as RevisionKind[]) {
    describe(kind, () => {
      for (const value of ACCEPTED[kind]) {
        it(`accepts ${shownRevision(value)}`, () => assert.equal(isRevisionOf(kind, value), true));
      }
      for (const value of [...REFUSED[kind], ...REFUSED_EVERYWHERE]) {
        it(`refuses ${shownRevision(value)}`, () => assert.equal(isRevisionOf(kind, value), false));
      }
    });
  }
});

describe('shownRevision', () => {
  it('quotes the value and escapes what a terminal would act on', () => {
    assert.equal(shownRevision('6.9.2\nevil'), '"6.9.2\\u{a}evil"');
    assert.equal(shownRevision('\u001b[2J'), '"\\u{1b}[2J"');
  });
  it('cuts a long value short', () => {
    const shown = shownRevision(MEGABYTE);
    assert.equal(shown, `"${'x'.repeat(64)}…"`);
  });
});

/** Flux leaves these fields empty before there is a revision: empty reads as none yet, not as a revision. */
const NONE_YET = [''];

/** One object per reader, its revision field set to `value`. */
const READERS: {
  kind: string;
  field: RegExp;
  read: (object: unknown) => ReturnType<typeof readHelmReleaseStatus>;
  object: (value: string) => FluxObject;
  accepted: string;
  /** Values that are no revision in this field at all, as the reader reads it. */
  notRevisions?: string[];
}[] = [
  {
    kind: 'HelmRelease (v2, the deployed release)',
    field: /^HelmRelease apps\/podinfo: status\.history\.0\.chartVersion "/,
    read: readHelmReleaseStatus,
    object: (value) => helmRelease({ status: { history: [snapshot({ chartVersion: value })] } }),
    accepted: '6.9.2',
  },
  {
    kind: 'HelmRelease (v2, the last attempt)',
    field: /^HelmRelease apps\/podinfo: status\.lastAttemptedRevision "/,
    read: readHelmReleaseStatus,
    object: (value) => helmRelease({ status: { lastAttemptedRevision: value } }),
    accepted: '6.9.2',
    notRevisions: NONE_YET,
  },
  {
    kind: 'HelmRelease (v2beta1)',
    field: /^HelmRelease apps\/podinfo: status\.lastAppliedRevision "/,
    read: readHelmReleaseStatus,
    object: (value) => helmReleaseV2beta1({ status: { lastAppliedRevision: value } }),
    accepted: '6.9.2',
    notRevisions: NONE_YET,
  },
  {
    kind: 'Kustomization',
    field: /^Kustomization flux-system\/apps: status\.lastAppliedRevision "/,
    read: readKustomizationStatus,
    object: (value) => kustomization({ status: { lastAppliedRevision: value, lastAttemptedRevision: value } }),
    accepted: `main@sha1:${sha1}`,
    notRevisions: NONE_YET,
  },
  {
    kind: 'ImagePolicy (latestRef)',
    field: /^ImagePolicy flux-system\/podinfo: status\.latestRef\.tag "/,
    read: readImagePolicyStatus,
    object: (value) => imagePolicy({ tag: value }),
    accepted: '6.6.1',
    notRevisions: NONE_YET,
  },
  {
    kind: 'ImagePolicy (latestImage, before Flux 2.6)',
    field: /^ImagePolicy flux-system\/podinfo: status\.latestImage "/,
    read: readImagePolicyStatus,
    object: (value) =>
      imagePolicy({
        apiVersion: 'image.toolkit.fluxcd.io/v1beta2',
        status: { latestRef: undefined, observedPreviousRef: undefined, latestImage: `${PODINFO_IMAGE}:${value}` },
      }),
    accepted: '6.6.1',
    // `<image>:` names no tag (no tag selected yet); `<image>:evil.example/backdoor:1` is an image with the tag `1`;
    // `<image>:@acme/admins` is a digest reference without a tag.
    notRevisions: ['', 'evil.example/backdoor:1', '@acme/admins'],
  },
  {
    kind: 'OCIRepository',
    field: /^OCIRepository flux-system\/podinfo: status\.artifact\.revision "/,
    read: readOciRepositoryStatus,
    object: (value) => ociRepository({ revision: value }),
    accepted: `6.6.1@${OCI_DIGEST}`,
    notRevisions: NONE_YET,
  },
];

describe('each reader takes only a version of its kind', () => {
  for (const reader of READERS) {
    describe(reader.kind, () => {
      it(`reads ${reader.accepted}`, () => {
        const status = reader.read(reader.object(reader.accepted));
        assert.equal(status.phase, 'Ready', status.message);
        assert.equal(status.revision, reader.accepted);
      });
      for (const value of REFUSED_EVERYWHERE.filter((refused) => !reader.notRevisions?.includes(refused))) {
        it(`is Unreadable on ${shownRevision(value)}: no revision, the value escaped and cut short`, () => {
          const status = reader.read(reader.object(value));
          assert.deepEqual(
            { phase: status.phase, reason: status.reason, revision: status.revision },
            { phase: 'Unreadable', reason: 'InvalidRevision', revision: undefined },
            status.message,
          );
          assert.match(status.message, reader.field);
          assert.ok(status.message.length < 200, `a short message, not ${status.message.length} characters`);
          assert.ok(isPrintable(status.message), status.message);
          assert.equal(JSON.stringify(status).length < 300, true, 'what is stored is small');
        });
      }
    });
  }

  // `latest` is a tag, not a chart version: what a value may be depends on the object it comes from.
  it('takes `latest` from an ImagePolicy but not from a HelmRelease', () => {
    assert.equal(readImagePolicyStatus(imagePolicy({ tag: 'latest' })).revision, 'latest');
    const chart = readHelmReleaseStatus(helmRelease({ status: { history: [snapshot({ chartVersion: 'latest' })] } }));
    assert.equal(chart.reason, 'InvalidRevision');
    assert.match(chart.message, /"latest" is not a Helm chart version \(SemVer 2\)$/);
  });

  it('takes helm-controller’s digest suffix on a chart version', () => {
    const object = helmRelease({
      status: {
        lastAttemptedRevision: '1.2.3+a1b2c3d4e5f6',
        history: [snapshot({ chartVersion: '1.2.3+a1b2c3d4e5f6' })],
      },
    });
    assert.equal(readHelmReleaseStatus(object).revision, '1.2.3+a1b2c3d4e5f6');
  });

  it('refuses a chart version also on a suspended HelmRelease', () => {
    const object = helmRelease({ spec: { suspend: true }, status: { history: [snapshot({ chartVersion: '*' })] } });
    assert.equal(readHelmReleaseStatus(object).reason, 'InvalidRevision');
  });

  it('still reads an empty last-applied revision as none yet', () => {
    const status = readKustomizationStatus(kustomization({ status: { lastAppliedRevision: '' } }));
    assert.equal(status.reason, 'NoRevision');
  });
});
