// The first environment is promoted too (docs/configuration.md, "The first environment is promoted too"): a pipeline with a source
// promotes its first environment to the version the source names, with the guarantees of any promotion (one record
// per revision, manual approval, never a downgrade), then walks the rest from the first environment's revision.
import { describe } from 'node:test';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import type { SourceObject } from '../../lib/pipeline/model.js';
import {
  approved,
  healthy,
  manualPullRequest,
  pipeline,
  pullRequest,
  record,
  requested,
  runRows,
  suspended,
  unreadable,
  unsettled,
} from './fixtures.js';

const imagePolicy: SourceObject = {
  cluster: { namespace: 'flux-system', name: 'build' },
  kind: 'ImagePolicy',
  namespace: 'flux-system',
  name: 'podinfo',
};
const ociRepository: SourceObject = { ...imagePolicy, kind: 'OCIRepository' };

/** The source resolved `revision` (a tag for an ImagePolicy, `tag@sha256:…` for an OCIRepository). */
function resolved(revision: string): TargetStatus {
  return { phase: 'Ready', reason: 'Resolved', message: `latest version ${revision}`, revision };
}

const withSource = (source: SourceObject = imagePolicy, first = pullRequest) =>
  pipeline({
    source,
    promotion: pullRequest,
    environments: [
      { name: 'dev', targets: ['flux-system/dev apps'], promotion: first },
      { name: 'prod', targets: ['flux-system/prod apps'] },
    ],
  });
const DIGEST = '0cc9a8446c95f8b8b4a0b0b1c1d1e1f1a1b1c1d1e1f10123456789abcdef0123';

describe('decide: a pipeline with a source', () => {
  runRows([
    {
      name: 'a new tag: the first environment is promoted to it, nothing beyond',
      pipeline: withSource(),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.5.0',
      actions: [{ type: 'promote', env: 'dev', revision: '6.5.0' }],
      states: { dev: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'PromotionDue', prod: 'StoppedEarlier' },
      messages: { dev: ['promoting 6.5.0 by pull-request'], prod: ['stopped at dev (promoting)'] },
      source: {
        state: 'found',
        reason: 'VersionFound',
        version: '6.5.0',
        message: 'ImagePolicy flux-system/podinfo on flux-system/build names 6.5.0',
      },
    },
    {
      name: 'the first environment promoted and waiting for its merge: no second promotion',
      pipeline: withSource(),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      promotions: [record('dev', '6.5.0', { state: 'succeeded', result: 'https://github.com/acme/fleet/pull/7' })],
      candidate: '6.5.0',
      actions: [],
      states: { dev: 'pull-request-open', prod: 'not-reached' },
      reasons: { dev: 'PullRequestOpen', prod: 'StoppedEarlier' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'the first environment runs the tag and is healthy: the rest follows from its revision',
      pipeline: withSource(),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': healthy('6.5.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      promotions: [record('dev', '6.5.0', { state: 'succeeded' })],
      candidate: '6.5.0',
      actions: [{ type: 'promote', env: 'prod', revision: '6.5.0' }],
      states: { dev: 'passed', prod: 'promoting' },
      reasons: { dev: 'AllTargetsReady', prod: 'PromotionDue' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'the first environment rolling the tag out: wait',
      pipeline: withSource(),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': unsettled('6.5.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.5.0',
      actions: [],
      states: { dev: 'in-progress', prod: 'not-reached' },
      reasons: { dev: 'RollingOut', prod: 'StoppedEarlier' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'a manual first environment waits for an approval of the tag',
      pipeline: withSource(imagePolicy, manualPullRequest),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.5.0',
      actions: [{ type: 'request-approval', env: 'dev', revision: '6.5.0' }],
      states: { dev: 'waiting-approval', prod: 'not-reached' },
      reasons: { dev: 'ApprovalRequested', prod: 'StoppedEarlier' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'a manual first environment approved for the tag is promoted',
      pipeline: withSource(imagePolicy, manualPullRequest),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      approvals: [approved('dev', '6.5.0')],
      candidate: '6.5.0',
      actions: [{ type: 'promote', env: 'dev', revision: '6.5.0' }],
      states: { dev: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'Approved', prod: 'StoppedEarlier' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'an approval request for an older tag is replaced by the newer one',
      pipeline: withSource(imagePolicy, manualPullRequest),
      observed: {
        source: resolved('6.5.1'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      approvals: [requested('dev', '6.5.0')],
      candidate: '6.5.1',
      actions: [{ type: 'request-approval', env: 'dev', revision: '6.5.1', replaces: '6.5.0' }],
      states: { dev: 'waiting-approval', prod: 'not-reached' },
      reasons: { dev: 'ApprovalReplaced', prod: 'StoppedEarlier' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.1' },
    },
    {
      name: 'the first environment ahead of the source is not downgraded',
      pipeline: withSource(),
      observed: {
        source: resolved('6.5.0'),
        'flux-system/dev apps': healthy('7.0.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.5.0',
      actions: [],
      states: { dev: 'ahead', prod: 'not-reached' },
      reasons: { dev: 'AheadOfCandidate', prod: 'StoppedEarlier' },
      messages: { dev: ['not downgrading'] },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'an OCIRepository revision: the tag is promoted, a HelmRelease on it (digest as build metadata) passes',
      pipeline: withSource(ociRepository),
      observed: {
        source: resolved(`6.5.0@sha256:${DIGEST}`),
        'flux-system/dev apps': healthy(`6.5.0+${DIGEST.slice(0, 12)}`),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: `6.5.0+${DIGEST.slice(0, 12)}`,
      actions: [{ type: 'promote', env: 'prod', revision: `6.5.0+${DIGEST.slice(0, 12)}` }],
      states: { dev: 'passed', prod: 'promoting' },
      reasons: { dev: 'AllTargetsReady', prod: 'PromotionDue' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'an OCIRepository revision not yet run: the first environment is promoted to its tag',
      pipeline: withSource(ociRepository),
      observed: {
        source: resolved(`6.5.0@sha256:${DIGEST}`),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.5.0',
      actions: [{ type: 'promote', env: 'dev', revision: '6.5.0' }],
      states: { dev: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'PromotionDue', prod: 'StoppedEarlier' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
    {
      name: 'a source never read: the first environment is the candidate, as without a source',
      pipeline: withSource(),
      observed: { 'flux-system/dev apps': healthy('6.4.0'), 'flux-system/prod apps': healthy('6.3.0') },
      candidate: '6.4.0',
      actions: [{ type: 'promote', env: 'prod', revision: '6.4.0' }],
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'PromotionDue' },
      source: { state: 'unavailable', reason: 'SourceUnknown', message: 'was never read' },
    },
    {
      name: 'a source that cannot be read names why',
      pipeline: withSource(),
      observed: {
        source: unreadable('Unreachable', 'cluster flux-system/build: connect ECONNREFUSED'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.4.0',
      actions: [],
      states: { dev: 'source', prod: 'passed' },
      reasons: { dev: 'CandidateFound', prod: 'AllTargetsReady' },
      source: { state: 'unavailable', reason: 'SourceUnknown', message: 'ECONNREFUSED' },
    },
    {
      name: 'a suspended source gives no new version',
      pipeline: withSource(),
      observed: {
        source: suspended('6.5.0'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.4.0',
      actions: [],
      states: { dev: 'source', prod: 'passed' },
      reasons: { dev: 'CandidateFound', prod: 'AllTargetsReady' },
      source: { state: 'unavailable', reason: 'SourceSuspended' },
    },
    {
      name: 'a source still resolving gives no version yet',
      pipeline: withSource(),
      observed: {
        source: unsettled('6.5.0', 'scanning tags'),
        'flux-system/dev apps': healthy('6.4.0'),
        'flux-system/prod apps': healthy('6.4.0'),
      },
      candidate: '6.4.0',
      actions: [],
      states: { dev: 'source', prod: 'passed' },
      reasons: { dev: 'CandidateFound', prod: 'AllTargetsReady' },
      source: { state: 'unavailable', reason: 'SourceNotReady', message: 'scanning tags' },
    },
  ]);
});
