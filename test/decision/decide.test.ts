// decide(): the candidate and the walk over the later environments (docs/architecture.md, "The decision").
// Promotion records, approvals and promotion blocks are in decide-promotion.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../lib/decision/index.js';
import type { DecisionInput } from '../../lib/decision/index.js';
import {
  NOW,
  approved,
  healthy,
  inputOf,
  pipeline,
  pullRequest,
  record,
  requested,
  runRows,
  suspended,
  threeEnvironments,
  unhealthy,
  unreadable,
  unsettled,
  withoutEvidence,
} from './fixtures.js';

const three = threeEnvironments();
const prod = { 'flux-system/prod-eu apps': healthy('6.9.1'), 'flux-system/prod-us apps': healthy('6.9.1') };
const twoDevTargets = pipeline({
  promotion: pullRequest,
  environments: [
    { name: 'dev', targets: ['flux-system/dev-eu apps', 'flux-system/dev-us apps'] },
    { name: 'staging', targets: ['flux-system/staging apps'] },
    { name: 'prod', targets: ['flux-system/prod-eu apps'] },
  ],
});

const SHA = '731f7eaddfb6af01cb2173e18f0f75b0ba780ef1';
const OLD_SHA = '2d4f1c0b9e8a7f6e5d4c3b2a1908f7e6d5c4b3a2';
const NEWER_SHA = 'f0e1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d';

describe('decide: the three-environment happy path', () => {
  runRows([
    {
      name: 'dev runs a new version: promote it to staging, prod is not reached',
      pipeline: three,
      observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/staging apps': healthy('6.9.1'), ...prod },
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
      messages: {
        dev: ['candidate 6.9.2'],
        staging: ['promoting 6.9.2 by pull-request'],
        prod: ['not reached', 'staging (promoting)'],
      },
      waitsFor: { prod: 'staging' },
    },
    {
      name: 'staging passed: promote to prod',
      pipeline: three,
      observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/staging apps': healthy('6.9.2'), ...prod },
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'PromotionDue' },
      messages: { staging: ['all targets run 6.9.2 and are healthy'] },
    },
    {
      name: 'every environment passed: nothing to do',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.2'),
        'flux-system/prod-us apps': healthy('6.9.2'),
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'passed' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'AllTargetsReady' },
    },
    {
      name: 'a single-environment pipeline has a candidate and nothing to promote',
      pipeline: pipeline({
        promotion: pullRequest,
        environments: [{ name: 'dev', targets: ['flux-system/dev apps'] }],
      }),
      observed: { 'flux-system/dev apps': healthy('6.9.2') },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source' },
      reasons: { dev: 'CandidateFound' },
    },
  ]);
});

describe('decide: no candidate while the first environment is not done', () => {
  runRows([
    {
      name: 'first-environment targets on different revisions (a stale approval marker is left alone)',
      pipeline: twoDevTargets,
      observed: {
        'flux-system/dev-eu apps': healthy('6.9.2'),
        'flux-system/dev-us apps': healthy('6.9.1'),
        'flux-system/staging apps': healthy('6.9.1'),
        'flux-system/prod-eu apps': healthy('6.9.0'),
      },
      approvals: [requested('staging', '6.9.0')],
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'RevisionsDiffer', staging: 'NoCandidate', prod: 'NoCandidate' },
      waitsFor: { staging: 'dev', prod: 'dev' },
      messages: {
        dev: [
          'waiting for all targets to run the same revision: flux-system/dev-eu apps runs 6.9.2, flux-system/dev-us apps runs 6.9.1',
        ],
        staging: ['not reached: dev has no candidate'],
      },
    },
    {
      name: 'a first-environment target is unhealthy',
      pipeline: twoDevTargets,
      observed: {
        'flux-system/dev-eu apps': healthy('6.9.2'),
        'flux-system/dev-us apps': unhealthy(
          '6.9.2',
          'Helm test failed for release apps/podinfo with chart podinfo@6.9.2',
        ),
        'flux-system/staging apps': healthy('6.9.1'),
        'flux-system/prod-eu apps': healthy('6.9.1'),
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsNotReady', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: {
        dev: ['target flux-system/dev-us apps is not healthy: Helm test failed for release apps/podinfo'],
      },
    },
    {
      name: 'a first-environment target has not settled yet',
      pipeline: three,
      observed: { 'flux-system/dev apps': unsettled('6.9.2'), 'flux-system/staging apps': healthy('6.9.1'), ...prod },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsNotReady', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['target flux-system/dev apps has not settled yet: Running upgrade action'] },
    },
    {
      name: 'a target still Progressing on the candidate (Ready, but already attempting the next) gives no candidate',
      pipeline: three,
      observed: {
        'flux-system/dev apps': {
          phase: 'Progressing',
          reason: 'AttemptPending',
          message: 'last attempted 6.9.3 but 6.9.2 is deployed',
          revision: '6.9.2',
        },
        'flux-system/staging apps': healthy('6.9.1'),
        ...prod,
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsNotReady', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['has not settled yet'] },
    },
    {
      name: 'a first-environment target was never observed',
      pipeline: twoDevTargets,
      observed: { 'flux-system/dev-eu apps': healthy('6.9.2'), 'flux-system/staging apps': healthy('6.9.1') },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsUnknown', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['target flux-system/dev-us apps was never observed'] },
    },
    {
      name: 'a first-environment target cannot be read',
      pipeline: three,
      observed: {
        'flux-system/dev apps': unreadable(
          'Timeout',
          'Get "https://dev.k8s.acme.example/apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo": dial tcp 10.0.0.12:443: i/o timeout',
        ),
        'flux-system/staging apps': healthy('6.9.1'),
        ...prod,
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsUnknown', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['cannot read target flux-system/dev apps: Get "https://dev.k8s.acme.example', 'i/o timeout'] },
    },
    {
      name: 'a first-environment target runs nothing yet',
      pipeline: three,
      observed: {
        'flux-system/dev apps': unhealthy(undefined, 'install retries exhausted'),
        'flux-system/staging apps': healthy('6.9.1'),
        ...prod,
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'NoRevision', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['target flux-system/dev apps runs no revision yet: install retries exhausted'] },
    },
    {
      name: 'a multi-line reason is flattened to one line',
      pipeline: three,
      observed: {
        'flux-system/dev apps': unhealthy('6.9.2', 'Helm upgrade failed:\n  context deadline exceeded\n'),
        'flux-system/staging apps': healthy('6.9.1'),
        ...prod,
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsNotReady', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['is not healthy: Helm upgrade failed: context deadline exceeded'] },
    },
    {
      name: 'a suspended first-environment target gives no candidate, even on a healthy revision',
      pipeline: twoDevTargets,
      observed: {
        'flux-system/dev-eu apps': healthy('6.9.2'),
        'flux-system/dev-us apps': suspended('6.9.2'),
        'flux-system/staging apps': healthy('6.9.1'),
        'flux-system/prod-eu apps': healthy('6.9.1'),
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetSuspended', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['target flux-system/dev-us apps is suspended: suspended', 'no candidate'] },
    },
    {
      name: 'a suspended first-environment target on another revision: no candidate, and the suspension is named',
      pipeline: twoDevTargets,
      observed: {
        'flux-system/dev-eu apps': healthy('6.9.2'),
        'flux-system/dev-us apps': suspended('6.9.1'),
        'flux-system/staging apps': healthy('6.9.1'),
        'flux-system/prod-eu apps': healthy('6.9.1'),
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetSuspended', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['target flux-system/dev-us apps is suspended'] },
    },
    {
      name: 'a first-environment target that is not on its cluster: no candidate',
      pipeline: three,
      observed: {
        'flux-system/dev apps': unreadable('NotFound', 'helmreleases.helm.toolkit.fluxcd.io "podinfo" not found'),
        'flux-system/staging apps': healthy('6.9.1'),
        ...prod,
      },
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsUnknown', staging: 'NoCandidate', prod: 'NoCandidate' },
      messages: { dev: ['target flux-system/dev apps', '"podinfo" not found'] },
    },
    {
      name: 'a first environment without targets has no candidate',
      pipeline: pipeline({
        promotion: pullRequest,
        environments: [
          { name: 'dev', targets: [] },
          { name: 'staging', targets: ['flux-system/staging apps'] },
        ],
      }),
      observed: { 'flux-system/staging apps': healthy('6.9.1') },
      actions: [],
      states: { dev: 'source', staging: 'not-reached' },
      reasons: { dev: 'NoTargets', staging: 'NoCandidate' },
      messages: { dev: ['environment has no targets'] },
    },
  ]);
});

describe('decide: walking the later environments', () => {
  runRows([
    {
      name: 'a later target never observed: unknown, nothing promoted',
      pipeline: three,
      observed: { 'flux-system/dev apps': healthy('6.9.2'), ...prod },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'unknown', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'TargetsUnknown', prod: 'StoppedEarlier' },
      messages: { staging: ['target flux-system/staging apps was never observed'], prod: ['staging (unknown)'] },
    },
    {
      name: 'a later target cannot be read: unknown, even when the other target runs the candidate',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.2'),
        'flux-system/prod-us apps': unreadable(
          'Forbidden',
          'helmreleases.helm.toolkit.fluxcd.io "podinfo" is forbidden',
        ),
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'unknown' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'TargetsUnknown' },
      messages: { prod: ['cannot read target flux-system/prod-us apps: helmreleases.helm.toolkit.fluxcd.io'] },
    },
    {
      name: 'an environment in progress: one of two targets runs the candidate',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.2'),
        'flux-system/prod-us apps': healthy('6.9.1'),
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'in-progress' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'RollingOut' },
      messages: { prod: ['waiting for all targets to run 6.9.2 and be healthy: flux-system/prod-us apps runs 6.9.1'] },
    },
    {
      name: 'an environment in progress: every target runs the candidate, one is still upgrading',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.2'),
        'flux-system/prod-us apps': unsettled('6.9.2'),
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'in-progress' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'RollingOut' },
      messages: { prod: ['flux-system/prod-us apps has not settled yet'] },
    },
    {
      name: 'a suspended target on the candidate in a later environment: suspended, never passed',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.2'),
        'flux-system/prod-us apps': suspended('6.9.2'),
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'suspended' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'TargetSuspended' },
      messages: { prod: ['target flux-system/prod-us apps is suspended'] },
    },
    {
      name: 'a suspended target behind the candidate: nothing is promoted to its environment, or past it',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': suspended('6.9.1'),
        ...prod,
      },
      approvals: [requested('staging', '6.9.0')],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'suspended', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'TargetSuspended', prod: 'StoppedEarlier' },
      messages: { staging: ['target flux-system/staging apps is suspended'], prod: ['staging (suspended)'] },
    },
    {
      name: 'a later target that is not on its cluster: unknown, nothing promoted',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': unreadable('NotFound', 'helmreleases.helm.toolkit.fluxcd.io "podinfo" not found'),
        ...prod,
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'unknown', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'TargetsUnknown', prod: 'StoppedEarlier' },
      messages: { staging: ['target flux-system/staging apps', '"podinfo" not found'], prod: ['staging (unknown)'] },
    },
    {
      name: 'a later environment without targets: unknown, nothing promoted past it',
      pipeline: pipeline({
        promotion: pullRequest,
        environments: [
          { name: 'dev', targets: ['flux-system/dev apps'] },
          { name: 'staging', targets: [] },
          { name: 'prod', targets: ['flux-system/prod-eu apps'] },
        ],
      }),
      observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/prod-eu apps': healthy('6.9.1') },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'unknown', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'NoTargets', prod: 'StoppedEarlier' },
      messages: { staging: ['environment has no targets'] },
    },
    {
      name: 'a later environment whose targetSelector selects no cluster: unknown, the selector named',
      pipeline: ((base) => ({
        ...base,
        environments: base.environments.map((env) =>
          env.name === 'staging'
            ? {
                ...env,
                targetSelector: {
                  clusterSelector: {
                    matchLabels: { tier: 'staging' },
                    matchExpressions: [{ key: 'region', operator: 'In' as const, values: ['eu'] }],
                  },
                  namespace: 'apps',
                },
              }
            : env,
        ),
      }))(
        pipeline({
          promotion: pullRequest,
          environments: [
            { name: 'dev', targets: ['flux-system/dev apps'] },
            { name: 'staging', targets: [] },
            { name: 'prod', targets: ['flux-system/prod-eu apps'] },
          ],
        }),
      ),
      observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/prod-eu apps': healthy('6.9.1') },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'unknown', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'NoTargets', prod: 'StoppedEarlier' },
      messages: {
        staging: ['its targetSelector (tier=staging,region in (eu)) selects no GitopsCluster'],
      },
    },
    {
      name: 'a passed environment whose target regressed to unhealthy: nothing promoted beyond it',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': unhealthy('6.9.2', 'Deployment/apps/podinfo: CrashLoopBackOff'),
        ...prod,
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'in-progress', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RollingOut', prod: 'StoppedEarlier' },
      messages: {
        staging: ['flux-system/staging apps is not healthy: Deployment/apps/podinfo: CrashLoopBackOff'],
        prod: ['stopped at staging (in-progress)'],
      },
    },
    {
      name: 'a later environment already ahead (semver): not downgraded, nothing promoted past it',
      pipeline: three,
      observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/staging apps': healthy('6.9.3'), ...prod },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'ahead', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'AheadOfCandidate', prod: 'StoppedEarlier' },
      messages: {
        staging: ['flux-system/staging apps runs 6.9.3, newer than candidate 6.9.2: not downgrading'],
        prod: ['stopped at staging (ahead)'],
      },
    },
    {
      name: 'one target ahead is enough: the environment is not downgraded',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.1'),
        'flux-system/prod-us apps': healthy('7.0.0'),
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'ahead' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'AheadOfCandidate' },
      messages: { prod: ['flux-system/prod-us apps runs 7.0.0, newer than candidate 6.9.2'] },
    },
    {
      name: 'a later environment with nothing deployed is promoted to',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': unhealthy(undefined, 'HelmChart flux-system/apps-podinfo is not ready'),
        ...prod,
      },
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
  ]);
});

describe('decide: comparing revisions', () => {
  runRows([
    {
      name: 'OCI chart versions: a newer version with build metadata is ahead',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.6.1+0cc9a8446c95'),
        'flux-system/staging apps': healthy('6.6.2+5e8f1c2d9a7b'),
        ...prod,
      },
      candidate: '6.6.1+0cc9a8446c95',
      actions: [],
      states: { dev: 'source', staging: 'ahead', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'AheadOfCandidate', prod: 'StoppedEarlier' },
    },
    {
      name: 'OCI chart versions: the same version with another digest is neither the candidate nor ahead',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.6.1+0cc9a8446c95'),
        'flux-system/staging apps': healthy('6.6.1+a1b2c3d4e5f6'),
        ...prod,
      },
      candidate: '6.6.1+0cc9a8446c95',
      actions: [{ type: 'promote', env: 'staging', revision: '6.6.1+0cc9a8446c95' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'Kustomization: a Git commit is never ahead, whatever the other environment runs',
      pipeline: threeEnvironments(pullRequest, 'Kustomization'),
      observed: {
        'flux-system/dev apps': healthy(`main@sha1:${SHA}`),
        'flux-system/staging apps': healthy(`main@sha1:${NEWER_SHA}`),
        'flux-system/prod-eu apps': healthy(`main@sha1:${OLD_SHA}`),
        'flux-system/prod-us apps': healthy(`main@sha1:${OLD_SHA}`),
      },
      candidate: `main@sha1:${SHA}`,
      actions: [{ type: 'promote', env: 'staging', revision: `main@sha1:${SHA}` }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'Kustomization: a Git tag orders by its version, so a newer tag is ahead',
      pipeline: threeEnvironments(pullRequest, 'Kustomization'),
      observed: {
        'flux-system/dev apps': healthy(`v1.2.3@sha1:${SHA}`),
        'flux-system/staging apps': healthy(`v1.3.0@sha1:${NEWER_SHA}`),
        ...prod,
      },
      candidate: `v1.2.3@sha1:${SHA}`,
      actions: [],
      states: { dev: 'source', staging: 'ahead', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'AheadOfCandidate', prod: 'StoppedEarlier' },
    },
    {
      name: 'Kustomization: revisions compare by digest, so legacy main/<sha> equals main@sha1:<sha>',
      pipeline: pipeline({
        kind: 'Kustomization',
        promotion: pullRequest,
        environments: [
          { name: 'dev', targets: ['flux-system/dev-eu apps', 'flux-system/dev-us apps'] },
          { name: 'staging', targets: ['flux-system/staging apps'] },
          { name: 'prod', targets: ['flux-system/prod-eu apps'] },
        ],
      }),
      observed: {
        'flux-system/dev-eu apps': healthy(`main@sha1:${SHA}`),
        'flux-system/dev-us apps': healthy(`main/${SHA}`),
        'flux-system/staging apps': healthy(`main/${SHA}`),
        'flux-system/prod-eu apps': healthy(`main@sha1:${OLD_SHA}`),
      },
      candidate: `main@sha1:${SHA}`,
      actions: [{ type: 'promote', env: 'prod', revision: `main@sha1:${SHA}` }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'PromotionDue' },
    },
  ]);
});

describe('decide: purity', () => {
  it('does not change a deeply frozen input, and gives the same answer twice', () => {
    const input = inputOf({
      name: 'busy pipeline',
      pipeline: three,
      observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/staging apps': healthy('6.9.2'), ...prod },
      approvals: [requested('staging', '6.9.1'), approved('prod', '6.9.1')],
      promotions: [record('staging', '6.9.2', { state: 'succeeded', attempts: 1 })],
      actions: [],
      states: {},
      reasons: {},
    });
    const before = structuredClone(input);
    deepFreeze(input);

    const first = decide(input);
    assert.deepEqual(input, before);
    assert.deepEqual(decide(input), first);
    assert.deepEqual(withoutEvidence(first.actions), [
      { type: 'clear-approval', env: 'staging', revision: '6.9.1' },
      { type: 'promote', env: 'prod', revision: '6.9.2' },
    ]);
  });

  it('reads the time only from input.now', () => {
    const input: DecisionInput = {
      ...inputOf({
        name: 'lease',
        pipeline: three,
        observed: { 'flux-system/dev apps': healthy('6.9.2'), 'flux-system/staging apps': healthy('6.9.1'), ...prod },
        promotions: [record('staging', '6.9.2', { state: 'in-progress', leaseExpiresAt: '2031-01-01T00:00:00.000Z' })],
        actions: [],
        states: {},
        reasons: {},
      }),
      now: new Date('2031-01-01T00:00:00.001Z'),
    };
    assert.deepEqual(withoutEvidence(decide(input).actions), [{ type: 'promote', env: 'staging', revision: '6.9.2' }]);
    assert.deepEqual(decide({ ...input, now: NOW }).actions, []);
  });

  it('a pipeline without environments decides nothing', () => {
    const empty = pipeline({ environments: [] });
    assert.deepEqual(decide({ pipeline: empty, observed: new Map(), approvals: [], promotions: [], now: NOW }), {
      actions: [],
      environments: [],
    });
  });
});

/** Freezes objects and arrays all the way down; a Map's mutators throw, since Object.freeze does not stop them. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (value instanceof Map) {
    for (const mutator of ['set', 'delete', 'clear']) {
      Object.defineProperty(value, mutator, {
        value: () => assert.fail(`decide called Map.${mutator} on its input`),
      });
    }
    for (const child of value.values()) deepFreeze(child);
  }
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
