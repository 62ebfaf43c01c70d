import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeCondition,
  firstLine,
  isFalse,
  isTrue,
  isUnknown,
  readHelmReleaseStatus,
  readTargetStatus,
} from '../../lib/flux/index.js';
import {
  condition,
  HR_GENERATION,
  helmRelease,
  helmReleaseV2beta1,
  ociHelmRelease,
  OTHER_CONFIG_DIGEST,
  rolledBackHelmRelease,
  snapshot,
} from '../fixtures/flux-objects.js';
import { expectStatus, type Expected } from './expect-status.js';
import type { TargetReason } from '../../lib/flux/index.js';
import type { FluxObject } from '../fixtures/flux-objects.js';

const g = HR_GENERATION;
const upgraded = 'Helm upgrade succeeded for release apps/podinfo.v3 with chart podinfo@6.9.2';
const ready = condition('Ready', 'True', 'UpgradeSucceeded', upgraded, g);
const released = condition('Released', 'True', 'UpgradeSucceeded', upgraded, g);
const reconciling = condition('Reconciling', 'True', 'Progressing', "Running 'upgrade' action with timeout of 5m0s", g);
const testsEnabled = { test: { enable: true } };
const rollback = 'Helm rollback to previous release apps/podinfo.v3 with chart podinfo@6.9.2 succeeded';

const cases: { name: string; object: FluxObject; expected: Expected }[] = [
  {
    name: 'a fresh upgrade is deployed and healthy',
    object: helmRelease(),
    expected: {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.9.2',
      message: /^deployed 6\.9\.2 \(UpgradeSucceeded\)$/,
    },
  },
  {
    name: 'the history entry with the highest version wins, whatever the order',
    object: helmRelease({
      status: {
        lastAttemptedRevision: '6.9.2',
        history: [
          snapshot({ version: 2, chartVersion: '6.9.1', status: 'superseded' }),
          snapshot({ version: 3, chartVersion: '6.9.2' }),
          snapshot({ version: 1, chartVersion: '6.9.0', status: 'superseded' }),
        ],
      },
    }),
    expected: { phase: 'Ready', reason: 'Deployed', revision: '6.9.2', message: /deployed 6\.9\.2/ },
  },
  {
    name: 'a rollback leaves the old version deployed, unhealthy and settled',
    object: rolledBackHelmRelease(),
    expected: {
      failedRevision: '6.9.3',
      phase: 'Failed',
      reason: 'RolledBack',
      revision: '6.9.2',
      message: /^Ready is False \(RollbackSucceeded\): Helm rollback/,
    },
  },
  {
    name: 'a failed latest release means nothing is known to be deployed',
    object: helmRelease({
      status: {
        lastAttemptedRevision: '6.9.3',
        history: [snapshot({ version: 4, chartVersion: '6.9.3', status: 'failed' }), snapshot({ version: 3 })],
        conditions: [
          condition(
            'Ready',
            'False',
            'UpgradeFailed',
            'Helm upgrade failed for release apps/podinfo with chart podinfo@6.9.3: context deadline exceeded\n\nLast Helm logs:\n\nwaiting for 1 resource(s) to become ready',
            g,
          ),
        ],
      },
    }),
    expected: {
      failedRevision: '6.9.3',
      phase: 'Failed',
      reason: 'ReconciliationFailed',
      revision: undefined,
      message: /^Ready is False \(UpgradeFailed\): Helm upgrade failed .*context deadline exceeded$/,
    },
  },
  {
    name: 'Flux 2.8: a health check canceled by a newer revision is Progressing, never Failed',
    object: helmRelease({
      spec: { upgrade: { remediation: { retries: 3 } } },
      status: {
        lastAttemptedRevision: '6.9.4',
        history: [snapshot({ version: 4, chartVersion: '6.9.3', status: 'failed' }), snapshot({ version: 3 })],
        conditions: [
          condition(
            'Ready',
            'False',
            'HealthCheckCanceled',
            'health check canceled: a new revision 6.9.4 is available for reconciliation',
            g,
          ),
        ],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'HealthCheckCanceled',
      revision: undefined,
      message: /^Ready is False \(HealthCheckCanceled\): health check canceled/,
    },
  },
  {
    name: 'Flux 2.7 RetryOnFailure: a failed upgrade without remediation is Failed while it fails',
    object: helmRelease({
      spec: { upgrade: { strategy: { name: 'RetryOnFailure', retryInterval: '5m' } } },
      status: {
        lastAttemptedRevision: '6.9.3',
        upgradeFailures: 2,
        history: [snapshot({ version: 4, chartVersion: '6.9.3', status: 'failed' }), snapshot({ version: 3 })],
        conditions: [
          condition('Ready', 'False', 'UpgradeFailed', 'Helm upgrade failed for release apps/podinfo: timed out', g),
          condition('Released', 'False', 'UpgradeFailed', 'Helm upgrade failed for release apps/podinfo: timed out', g),
        ],
      },
    }),
    expected: {
      failedRevision: '6.9.3',
      phase: 'Failed',
      reason: 'ReconciliationFailed',
      revision: undefined,
      message: /^Ready is False \(UpgradeFailed\)/,
    },
  },
  {
    name: 'Flux 2.7 RetryOnFailure: the failure clears when a retry succeeds',
    object: helmRelease({
      spec: { upgrade: { strategy: { name: 'RetryOnFailure', retryInterval: '5m' } } },
      status: {
        lastAttemptedRevision: '6.9.3',
        history: [
          snapshot({ version: 5, chartVersion: '6.9.3', appVersion: '6.9.3' }),
          snapshot({ version: 4, chartVersion: '6.9.3', status: 'failed' }),
          snapshot({ version: 3, status: 'superseded' }),
        ],
        conditions: [
          condition('Ready', 'True', 'UpgradeSucceeded', 'Helm upgrade succeeded for release apps/podinfo.v5', g),
          condition('Released', 'True', 'UpgradeSucceeded', 'Helm upgrade succeeded for release apps/podinfo.v5', g),
        ],
      },
    }),
    expected: {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.9.3',
      message: /^deployed 6\.9\.3 \(UpgradeSucceeded\)$/,
    },
  },
  {
    name: "Flux 2.8's new fields (snapshot action and apiVersion, inventory, Helm v4 health checks) change nothing read",
    object: helmRelease({
      status: {
        history: [
          { ...snapshot(), action: 'upgrade', apiVersion: 'v2' },
          {
            ...snapshot({ version: 2, chartVersion: '6.9.1', status: 'superseded' }),
            action: 'install',
            apiVersion: 'v2',
          },
        ],
        inventory: {
          entries: [
            { id: 'apps_podinfo_apps_Deployment', v: 'v1' },
            { id: 'apps_podinfo__Service', v: 'v1' },
          ],
        },
        lastAttemptedReleaseActionDuration: '12.3s',
      },
    }),
    expected: {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.9.2',
      message: /^deployed 6\.9\.2 \(UpgradeSucceeded\)$/,
    },
  },
  {
    name: 'a latest release still pending is not settled',
    object: helmRelease({
      status: {
        history: [snapshot({ version: 4, chartVersion: '6.9.2', status: 'pending-upgrade' }), snapshot({ version: 3 })],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'ReleasePending',
      revision: undefined,
      message: /latest release v4 \(6\.9\.2\) is pending-upgrade/,
    },
  },
  {
    name: 'Reconciling True while Ready is still True from the last run',
    object: helmRelease({ status: { conditions: [ready, released, reconciling] } }),
    expected: { phase: 'Progressing', reason: 'Reconciling', revision: '6.9.2', message: /^Reconciling: Progressing/ },
  },
  {
    name: 'an upgrade in progress (Ready Unknown, Reconciling True)',
    object: helmRelease({
      status: {
        lastAttemptedRevision: '6.9.3',
        conditions: [
          condition('Ready', 'Unknown', 'Progressing', 'Fresh install in progress', g),
          released,
          reconciling,
        ],
      },
    }),
    expected: { phase: 'Progressing', reason: 'Reconciling', revision: '6.9.2', message: /^Reconciling: Progressing/ },
  },
  {
    name: 'Ready Unknown without Reconciling is not settled',
    object: helmRelease({
      status: { conditions: [condition('Ready', 'Unknown', 'Progressing', 'Upgrade in progress', g)] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'ReadyUnknown',
      revision: '6.9.2',
      message: /^Ready is Unknown \(Progressing\)/,
    },
  },
  {
    name: 'Stalled True is terminal: settled and unhealthy',
    object: helmRelease({
      status: {
        lastAttemptedRevision: '6.9.3',
        history: [snapshot({ version: 4, chartVersion: '6.9.3', status: 'failed' }), snapshot({ version: 3 })],
        conditions: [
          condition('Ready', 'False', 'UpgradeFailed', 'Helm upgrade failed for release apps/podinfo', g),
          condition('Stalled', 'True', 'RetriesExceeded', 'Failed to upgrade after 4 attempt(s)', g),
        ],
      },
    }),
    expected: {
      failedRevision: '6.9.3',
      phase: 'Failed',
      reason: 'Stalled',
      revision: undefined,
      message: /^Stalled is True \(RetriesExceeded\)/,
    },
  },
  {
    name: 'Stalled True settles even before the generation is observed',
    object: helmRelease({
      metadata: { generation: 5 },
      status: {
        observedGeneration: 4,
        conditions: [
          condition('Ready', 'False', 'ValuesError', 'could not resolve Secret chart values reference', 5),
          condition('Stalled', 'True', 'ValuesError', 'could not resolve Secret chart values reference', 5),
        ],
      },
    }),
    expected: { phase: 'Failed', reason: 'Stalled', revision: '6.9.2', message: /^Stalled is True \(ValuesError\)/ },
  },
  {
    name: 'Stalled True next to Ready True is still unhealthy',
    object: helmRelease({
      status: { conditions: [ready, condition('Stalled', 'True', 'RetriesExceeded', 'Failed to upgrade', g)] },
    }),
    expected: { phase: 'Failed', reason: 'Stalled', revision: '6.9.2', message: /Stalled/ },
  },
  {
    name: 'a new generation not yet observed',
    object: helmRelease({
      metadata: { generation: 5 },
      status: { observedGeneration: 4, conditions: [condition('Ready', 'True', 'UpgradeSucceeded', upgraded, 4)] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'GenerationNotObserved',
      revision: '6.9.2',
      message: /^generation 5 not yet observed \(observedGeneration 4\)$/,
    },
  },
  {
    name: "Ready's own observedGeneration is stale",
    object: helmRelease({
      status: { conditions: [condition('Ready', 'True', 'UpgradeSucceeded', upgraded, g - 1), released] },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'ReadyOutdated',
      revision: '6.9.2',
      message: /Ready is for generation 3, not 4/,
    },
  },
  {
    name: 'no Ready condition at all',
    object: helmRelease({ status: { conditions: [released] } }),
    expected: { phase: 'Progressing', reason: 'ReadyMissing', revision: '6.9.2', message: /no Ready condition/ },
  },
  {
    name: 'Ready True with a reason that is not a success',
    object: helmRelease({
      status: {
        conditions: [condition('Ready', 'True', 'ReconciliationSucceeded', 'Release reconciliation succeeded', g)],
      },
    }),
    expected: {
      phase: 'Failed',
      reason: 'UnexpectedReadyReason',
      revision: '6.9.2',
      message: /reason ReconciliationSucceeded is not a success/,
    },
  },
  {
    name: 'lastAttemptedRevision ahead of the deployed chart: mid-way, not settled',
    object: helmRelease({ status: { lastAttemptedRevision: '6.9.3' } }),
    expected: {
      phase: 'Progressing',
      reason: 'AttemptPending',
      revision: '6.9.2',
      message: /^last attempted 6\.9\.3 but 6\.9\.2 is deployed$/,
    },
  },
  {
    name: 'attempted config digest differs from the deployed one',
    object: helmRelease({ status: { lastAttemptedConfigDigest: OTHER_CONFIG_DIGEST } }),
    expected: {
      phase: 'Progressing',
      reason: 'ConfigPending',
      revision: '6.9.2',
      message: /^last attempted config sha256:4b1e0c2f9a8d… but sha256:e15c415d6276… is deployed$/,
    },
  },
  {
    name: 'no attempted config digest: nothing to compare',
    object: helmRelease({ status: { lastAttemptedConfigDigest: undefined } }),
    expected: { phase: 'Ready', reason: 'Deployed', revision: '6.9.2', message: /deployed 6\.9\.2/ },
  },
  {
    name: 'tests enabled but no TestSuccess yet',
    object: helmRelease({ spec: testsEnabled }),
    expected: {
      phase: 'Progressing',
      reason: 'TestsPending',
      revision: '6.9.2',
      message: /^tests are enabled but TestSuccess is missing$/,
    },
  },
  {
    name: 'tests enabled and awaiting',
    object: helmRelease({
      spec: testsEnabled,
      status: {
        conditions: [
          ready,
          released,
          condition('TestSuccess', 'Unknown', 'AwaitingTests', 'Release is awaiting tests', g),
        ],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'TestsPending',
      revision: '6.9.2',
      message: /TestSuccess is Unknown \(AwaitingTests\)/,
    },
  },
  {
    name: 'tests enabled and failed',
    object: helmRelease({
      spec: testsEnabled,
      status: {
        conditions: [
          ready,
          released,
          condition('TestSuccess', 'False', 'TestFailed', 'Helm test failed for release apps/podinfo.v3', g),
        ],
      },
    }),
    expected: {
      phase: 'Failed',
      reason: 'TestsFailed',
      revision: '6.9.2',
      message: /TestSuccess is False \(TestFailed\)/,
    },
  },
  {
    name: 'tests enabled and passed',
    object: helmRelease({
      spec: testsEnabled,
      status: {
        conditions: [
          condition(
            'Ready',
            'True',
            'TestSucceeded',
            'Helm test succeeded for release apps/podinfo.v3 with chart podinfo@6.9.2: 1 test hooks completed successfully',
            g,
          ),
          released,
          condition('TestSuccess', 'True', 'TestSucceeded', 'Helm test succeeded', g),
        ],
      },
    }),
    expected: {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.9.2',
      message: /^deployed 6\.9\.2 \(TestSucceeded\)$/,
    },
  },
  {
    name: 'tests enabled with ignoreFailures: TestSuccess does not count',
    object: helmRelease({
      spec: { test: { enable: true, ignoreFailures: true } },
      status: { conditions: [ready, released, condition('TestSuccess', 'False', 'TestFailed', 'Helm test failed', g)] },
    }),
    expected: { phase: 'Ready', reason: 'Deployed', revision: '6.9.2', message: /deployed 6\.9\.2/ },
  },
  {
    name: 'an OCI chart keeps its digest suffix in the version',
    object: ociHelmRelease(),
    expected: {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.6.1+0cc9a8446c95',
      message: /^deployed 6\.6\.1\+0cc9a8446c95 \(InstallSucceeded\)$/,
    },
  },
  {
    name: 'an OCI chart with the same version but a new digest attempted is mid-way',
    object: ociHelmRelease({ status: { lastAttemptedRevision: '6.6.1+3b6c1f0e2d4a' } }),
    expected: {
      phase: 'Progressing',
      reason: 'AttemptPending',
      revision: '6.6.1+0cc9a8446c95',
      message: /last attempted 6\.6\.1\+3b6c1f0e2d4a/,
    },
  },
  {
    name: 'v2beta2 reads the history and ignores a stale lastAppliedRevision',
    object: helmRelease({ apiVersion: 'helm.toolkit.fluxcd.io/v2beta2', status: { lastAppliedRevision: '6.5.0' } }),
    expected: { phase: 'Ready', reason: 'Deployed', revision: '6.9.2', message: /deployed 6\.9\.2/ },
  },
  {
    name: 'v2beta2 without history has no revision, whatever lastAppliedRevision says',
    object: helmRelease({
      apiVersion: 'helm.toolkit.fluxcd.io/v2beta2',
      status: { lastAppliedRevision: '6.9.2', history: [] },
    }),
    expected: {
      failedRevision: '6.9.2',
      phase: 'Failed',
      reason: 'NoRelease',
      revision: undefined,
      message: /no Helm release in history/,
    },
  },
  {
    name: 'v2beta1 reads lastAppliedRevision',
    object: helmReleaseV2beta1(),
    expected: {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.9.2',
      message: /^deployed 6\.9\.2 \(ReconciliationSucceeded\)$/,
    },
  },
  {
    name: 'v2beta1 with an attempt ahead of what is applied',
    object: helmReleaseV2beta1({ status: { lastAttemptedRevision: '6.9.3' } }),
    expected: {
      phase: 'Progressing',
      reason: 'AttemptPending',
      revision: '6.9.2',
      message: /last attempted 6\.9\.3 but 6\.9\.2 is deployed/,
    },
  },
  {
    name: 'v2beta1 after a failed upgrade',
    object: helmReleaseV2beta1({
      status: {
        lastAttemptedRevision: '6.9.3',
        conditions: [
          condition('Ready', 'False', 'UpgradeFailed', 'Helm upgrade failed: timed out waiting for the condition', g),
        ],
      },
    }),
    expected: {
      failedRevision: '6.9.3',
      phase: 'Failed',
      reason: 'ReconciliationFailed',
      revision: '6.9.2',
      message: /^Ready is False \(UpgradeFailed\)/,
    },
  },
  {
    name: 'v2beta1 with a generation not yet observed',
    object: helmReleaseV2beta1({ metadata: { generation: 5 } }),
    expected: {
      phase: 'Progressing',
      reason: 'GenerationNotObserved',
      revision: '6.9.2',
      message: /generation 5 not yet observed/,
    },
  },
  {
    name: 'v2beta1 without conditions still tells what was applied',
    object: helmReleaseV2beta1({ status: { conditions: [] } }),
    expected: {
      phase: 'Progressing',
      reason: 'NoStatus',
      revision: '6.9.2',
      message: /^HelmRelease apps\/podinfo has no status yet$/,
    },
  },
  {
    name: 'a HelmRelease without status',
    object: helmRelease({ status: null }),
    expected: {
      phase: 'Progressing',
      reason: 'NoStatus',
      revision: undefined,
      message: /^HelmRelease apps\/podinfo has no status yet$/,
    },
  },
  {
    name: 'a v2 status with history but no conditions yet',
    object: helmRelease({ status: { conditions: [] } }),
    expected: { phase: 'Progressing', reason: 'NoStatus', revision: undefined, message: /has no status yet/ },
  },
  {
    name: 'Ready True with RollbackSucceeded: the old version runs, so it is rolled back, not deployed',
    object: rolledBackHelmRelease({
      status: { conditions: [condition('Ready', 'True', 'RollbackSucceeded', rollback, g)] },
    }),
    expected: {
      failedRevision: '6.9.3',
      phase: 'Failed',
      reason: 'RolledBack',
      revision: '6.9.2',
      message: /^Ready is True but reason RollbackSucceeded is not a success reason$/,
    },
  },
  {
    name: 'an install that remediation uninstalled runs nothing',
    object: helmRelease({
      status: {
        history: [snapshot({ version: 1, status: 'uninstalled' })],
        conditions: [
          condition('Ready', 'False', 'UninstallSucceeded', 'Helm uninstall succeeded for release apps/podinfo.v1', g),
        ],
      },
    }),
    expected: {
      failedRevision: '6.9.2',
      phase: 'Failed',
      reason: 'Uninstalled',
      revision: undefined,
      message: /^Ready is False \(UninstallSucceeded\): Helm uninstall succeeded/,
    },
  },
  {
    name: 'Ready False because a dependsOn object is not ready: retried by helm-controller, so progressing',
    object: helmRelease({
      status: {
        conditions: [
          condition('Ready', 'False', 'DependencyNotReady', "dependency 'flux-system/cert-manager' is not ready", g),
        ],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'DependencyNotReady',
      revision: '6.9.2',
      message: /^Ready is False \(DependencyNotReady\): dependency 'flux-system\/cert-manager' is not ready$/,
    },
  },
  {
    name: 'spec.suspend true: suspended, still telling what runs',
    object: helmRelease({ spec: { suspend: true } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: '6.9.2',
      message: /^suspended \(spec\.suspend\): Flux does not reconcile it until it is resumed; runs 6\.9\.2$/,
    },
  },
  {
    name: 'spec.suspend true on a rolled-back release: suspended, the failure kept in the message',
    object: rolledBackHelmRelease({ spec: { suspend: true } }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: '6.9.2',
      message: /^suspended \(spec\.suspend\).*; runs 6\.9\.2$/,
    },
  },
  {
    name: 'flux suspend: generation raised and observed, the conditions left at the old one: suspended, no generation talk',
    object: helmRelease({
      metadata: { generation: g + 1 },
      spec: { suspend: true },
      status: { observedGeneration: g + 1 },
    }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: '6.9.2',
      message: /^suspended \(spec\.suspend\): Flux does not reconcile it until it is resumed; runs 6\.9\.2$/,
    },
  },
  {
    name: 'Ready False with ArtifactFailed (the chart is not available yet): retried, so progressing',
    object: helmRelease({
      status: {
        conditions: [
          condition('Ready', 'False', 'ArtifactFailed', 'HelmChart flux-system/apps-podinfo is not ready', g),
        ],
      },
    }),
    expected: {
      phase: 'Progressing',
      reason: 'SourceNotReady',
      revision: '6.9.2',
      message: /^Ready is False \(ArtifactFailed\): HelmChart flux-system\/apps-podinfo is not ready$/,
    },
  },
  {
    name: 'spec.suspend true before the controller wrote a status: suspended, no revision',
    object: helmRelease({ spec: { suspend: true }, status: null }),
    expected: {
      phase: 'Suspended',
      reason: 'Suspended',
      revision: undefined,
      message: /^suspended \(spec\.suspend\).*; runs no revision$/,
    },
  },
  {
    name: 'spec.suspend false reads as usual',
    object: helmRelease({ spec: { suspend: false } }),
    expected: { phase: 'Ready', reason: 'Deployed', revision: '6.9.2', message: /^deployed 6\.9\.2 / },
  },
];

describe('readHelmReleaseStatus', () => {
  for (const { name, object, expected } of cases) {
    it(name, () => expectStatus(readHelmReleaseStatus(object), expected));
  }

  it('keeps only the first line of a long condition message, at most ~200 characters', () => {
    const long = `Helm upgrade failed for release apps/podinfo with chart podinfo@6.9.3: ${'x'.repeat(400)}\nLast Helm logs:`;
    const status = readHelmReleaseStatus(
      helmRelease({ status: { conditions: [condition('Ready', 'False', 'UpgradeFailed', long, g)] } }),
    );
    assert.equal(status.reason, 'ReconciliationFailed');
    assert.ok(status.message.length <= 240, `message is ${status.message.length} characters`);
    assert.ok(!status.message.includes('Last Helm logs'));
    assert.ok(status.message.endsWith('…'));
  });

  const unreadable: { name: string; object: unknown; reason: TargetReason; message: RegExp }[] = [
    {
      name: 'an apiVersion it does not know',
      object: helmRelease({ apiVersion: 'helm.toolkit.fluxcd.io/v3' }),
      reason: 'UnsupportedVersion',
      message: /HelmRelease apps\/podinfo: apiVersion helm\.toolkit\.fluxcd\.io\/v3 is not supported/,
    },
    {
      name: 'another group',
      object: helmRelease({ apiVersion: 'example.com/v2' }),
      reason: 'UnsupportedVersion',
      message: /not supported/,
    },
    {
      name: 'another kind',
      object: { ...helmRelease(), kind: 'HelmChart' },
      reason: 'UnsupportedKind',
      message: /expected a HelmRelease, got kind HelmChart/,
    },
    {
      name: 'not an object',
      object: 'HelmRelease',
      reason: 'UnsupportedKind',
      message: /expected a HelmRelease, got kind \(none\)/,
    },
    { name: 'null', object: null, reason: 'UnsupportedKind', message: /expected a HelmRelease/ },
    {
      name: 'a malformed history',
      object: helmRelease({ status: { history: [{ ...snapshot(), version: 'three' }] } }),
      reason: 'InvalidObject',
      message: /^HelmRelease apps\/podinfo: status\.history\.0\.version must be a number$/,
    },
    {
      name: 'no generation',
      object: helmRelease({ metadata: { generation: undefined } }),
      reason: 'InvalidObject',
      message: /metadata\.generation is missing/,
    },
    {
      name: 'a malformed object, even when suspended',
      object: helmRelease({ spec: { suspend: 'yes' } }),
      reason: 'InvalidObject',
      message: /^HelmRelease apps\/podinfo: spec\.suspend must be a boolean$/,
    },
  ];
  for (const { name, object, reason, message } of unreadable) {
    it(`is unreadable for ${name}`, () => {
      expectStatus(readHelmReleaseStatus(object), { phase: 'Unreadable', reason, revision: undefined, message });
    });
  }
});

describe('readTargetStatus', () => {
  it('reads a HelmRelease', () => {
    expectStatus(readTargetStatus(helmRelease()), {
      phase: 'Ready',
      reason: 'Deployed',
      revision: '6.9.2',
      message: /deployed 6\.9\.2/,
    });
  });

  it('refuses kinds it does not read', () => {
    const status = readTargetStatus({ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: {} });
    expectStatus(status, {
      phase: 'Unreadable',
      reason: 'UnsupportedKind',
      revision: undefined,
      message: /unsupported object kind GitRepository/,
    });
  });
});

describe('conditions', () => {
  const conditions = [ready, condition('Released', 'False', 'UpgradeFailed', 'Helm upgrade failed', g)];

  it('reads True, False and Unknown like fluxcd/pkg: a missing condition is Unknown', () => {
    assert.deepEqual(
      ['Ready', 'Released', 'Stalled'].map((type) => [
        isTrue(conditions, type),
        isFalse(conditions, type),
        isUnknown(conditions, type),
      ]),
      [
        [true, false, false],
        [false, true, false],
        [false, false, true],
      ],
    );
  });

  it('describes a condition on one line', () => {
    assert.equal(firstLine('first\nsecond'), 'first');
    assert.equal(
      describeCondition(condition('Ready', 'False', 'UpgradeFailed', 'Helm upgrade failed\n\nLast Helm logs:', g)),
      'Ready is False (UpgradeFailed): Helm upgrade failed',
    );
  });
});
