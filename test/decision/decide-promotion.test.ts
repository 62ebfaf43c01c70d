// decide(): what happens at the environment the candidate is promoted to (promotion blocks, manual approval,
// promotion records) and the clearing of stale approval markers (docs/architecture.md, "The decision").
import { describe } from 'node:test';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import {
  NOW,
  approved,
  healthy,
  manualNotification,
  manualPullRequest,
  minutesFromNow,
  notification,
  pipeline,
  pullRequest,
  record,
  requested,
  runRows,
  threeEnvironments,
  unhealthy,
  unsettled,
} from './fixtures.js';

/** dev and staging take the pipeline's notification; prod has its own block: a manual pull request. */
const manualProd = pipeline({
  promotion: notification,
  environments: [
    { name: 'dev', targets: ['flux-system/dev apps'] },
    { name: 'staging', targets: ['flux-system/staging apps'] },
    { name: 'prod', targets: ['flux-system/prod-eu apps', 'flux-system/prod-us apps'], promotion: manualPullRequest },
  ],
});
/** No pipeline-level block: staging has one, prod none. */
const onlyStagingPromotes = pipeline({
  environments: [
    { name: 'dev', targets: ['flux-system/dev apps'] },
    { name: 'staging', targets: ['flux-system/staging apps'], promotion: notification },
    { name: 'prod', targets: ['flux-system/prod-eu apps', 'flux-system/prod-us apps'] },
  ],
});
const three = threeEnvironments();

const prodOn = (revision: string): Record<string, TargetStatus> => ({
  'flux-system/prod-eu apps': healthy(revision),
  'flux-system/prod-us apps': healthy(revision),
});
/** dev runs 6.9.2; staging and prod still 6.9.1. */
const readyForStaging = {
  'flux-system/dev apps': healthy('6.9.2'),
  'flux-system/staging apps': healthy('6.9.1'),
  ...prodOn('6.9.1'),
};
/** dev and staging run 6.9.2; prod still 6.9.1. */
const readyForProd = {
  'flux-system/dev apps': healthy('6.9.2'),
  'flux-system/staging apps': healthy('6.9.2'),
  ...prodOn('6.9.1'),
};

const SHA = '731f7eaddfb6af01cb2173e18f0f75b0ba780ef1';
const OLD_SHA = '2d4f1c0b9e8a7f6e5d4c3b2a1908f7e6d5c4b3a2';
const PR = 'https://github.com/acme/fleet/pull/7';
const ALREADY_ON_BASE = 'already at 6.9.2 on main in https://github.com/acme/fleet';
/** What the poll recorded of the pull request, as its host said it (lib/verifier/pull-request-states.ts). */
const openPull = { state: 'open', seenAt: minutesFromNow(-5) } as const;
const mergedPull = { state: 'merged', seenAt: minutesFromNow(-1) } as const;
const closedPull = { state: 'closed', seenAt: minutesFromNow(-1) } as const;

describe('decide: manual approval', () => {
  runRows([
    {
      name: 'a manual environment gets an approval request for the candidate',
      pipeline: manualProd,
      observed: readyForProd,
      candidate: '6.9.2',
      actions: [{ type: 'request-approval', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'ApprovalRequested' },
      messages: { prod: ['waiting for approval of 6.9.2'] },
    },
    {
      name: 'the request is made once: then it waits',
      pipeline: manualProd,
      observed: readyForProd,
      approvals: [requested('prod', '6.9.2')],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'AwaitingApproval' },
      messages: { prod: ['waiting for approval of 6.9.2', `requested at ${minutesFromNow(-60)}`] },
    },
    {
      name: 'an approval of the candidate promotes it',
      pipeline: manualProd,
      observed: readyForProd,
      approvals: [approved('prod', '6.9.2')],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'Approved' },
      messages: { prod: ['promoting 6.9.2', 'approved by jane@acme.example'] },
    },
    {
      name: 'a newer candidate replaces the marker of an older one',
      pipeline: manualProd,
      observed: readyForProd,
      approvals: [requested('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [{ type: 'request-approval', env: 'prod', revision: '6.9.2', replaces: '6.9.1' }],
      states: { dev: 'source', staging: 'passed', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'ApprovalReplaced' },
      messages: { prod: ['waiting for approval of 6.9.2', 'replaces the request for 6.9.1'] },
    },
    {
      name: 'an approval is valid only for its revision: an approved 6.9.1 does not promote 6.9.2',
      pipeline: manualProd,
      observed: readyForProd,
      approvals: [approved('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [{ type: 'request-approval', env: 'prod', revision: '6.9.2', replaces: '6.9.1' }],
      states: { dev: 'source', staging: 'passed', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'ApprovalReplaced' },
    },
    {
      name: 'an approval is valid only for its OCI digest: 6.6.1+a1b2c3d4e5f6 does not promote 6.6.1+0cc9a8446c95',
      pipeline: manualProd,
      observed: {
        'flux-system/dev apps': healthy('6.6.1+0cc9a8446c95'),
        'flux-system/staging apps': healthy('6.6.1+0cc9a8446c95'),
        ...prodOn('6.6.0+9f8e7d6c5b4a'),
      },
      approvals: [approved('prod', '6.6.1+a1b2c3d4e5f6')],
      candidate: '6.6.1+0cc9a8446c95',
      actions: [
        { type: 'request-approval', env: 'prod', revision: '6.6.1+0cc9a8446c95', replaces: '6.6.1+a1b2c3d4e5f6' },
      ],
      states: { dev: 'source', staging: 'passed', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'ApprovalReplaced' },
    },
    {
      name: 'Kustomization: an approval of the legacy main/<sha> form is an approval of main@sha1:<sha>',
      pipeline: pipeline({
        kind: 'Kustomization',
        environments: [
          { name: 'dev', targets: ['flux-system/dev apps'] },
          { name: 'prod', targets: ['flux-system/prod-eu apps'], promotion: manualPullRequest },
        ],
      }),
      observed: {
        'flux-system/dev apps': healthy(`main@sha1:${SHA}`),
        'flux-system/prod-eu apps': healthy(`main@sha1:${OLD_SHA}`),
      },
      approvals: [approved('prod', `main/${SHA}`)],
      candidate: `main@sha1:${SHA}`,
      actions: [{ type: 'promote', env: 'prod', revision: `main@sha1:${SHA}` }],
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'Approved' },
    },
    {
      name: 'a pipeline-level manual block gates the first promotion too',
      pipeline: threeEnvironments(manualNotification),
      observed: readyForStaging,
      candidate: '6.9.2',
      actions: [{ type: 'request-approval', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'waiting-approval', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'ApprovalRequested', prod: 'StoppedEarlier' },
    },
    {
      name: 'an approved and recorded promotion is not repeated',
      pipeline: manualProd,
      observed: readyForProd,
      approvals: [approved('prod', '6.9.2')],
      promotions: [record('prod', '6.9.2', { state: 'succeeded', result: PR })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'pull-request-open' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'PullRequestOpen' },
    },
  ]);
});

describe('decide: promotion records', () => {
  runRows([
    {
      name: 'a succeeded promotion is not repeated: its pull request, not read yet, is open (it was just opened)',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'succeeded', result: PR })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'pull-request-open', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PullRequestOpen', prod: 'StoppedEarlier' },
      messages: { staging: [`pull request for 6.9.2 open: ${PR}; waiting for its merge`] },
    },
    {
      name: 'the host said the pull request is open: it waits for a person to merge it',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'succeeded', result: PR, pullRequest: openPull })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'pull-request-open', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PullRequestOpen', prod: 'StoppedEarlier' },
      messages: { staging: [PR] },
    },
    {
      name: 'the host said the pull request was merged: the targets are taking it (rolling out)',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'succeeded', result: PR, pullRequest: mergedPull })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'promoted', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PullRequestMerged', prod: 'StoppedEarlier' },
      messages: { staging: [`pull request for 6.9.2 merged: ${PR}; waiting for the targets to run it`] },
    },
    {
      name: 'the host said the pull request was closed unmerged: nothing is promoted, and retry opens a new one',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'succeeded', result: PR, pullRequest: closedPull })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'pull-request-closed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PullRequestClosed', prod: 'StoppedEarlier' },
      messages: {
        staging: [
          `pull request for 6.9.2 closed without merging: ${PR}`,
          '`pipelinectl retry flux-system/podinfo staging --revision 6.9.2` opens a new pull request',
        ],
      },
      waitsFor: { prod: 'staging' },
    },
    {
      name: 'an open pull request whose revision the targets run anyway: rolling out, as the targets say',
      pipeline: three,
      observed: { ...readyForStaging, 'flux-system/staging apps': unsettled('6.9.2') },
      promotions: [record('staging', '6.9.2', { state: 'succeeded', result: PR, pullRequest: openPull })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'in-progress', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RollingOut', prod: 'StoppedEarlier' },
    },
    {
      name: 'a succeeded notification: no pull request to wait for, the targets are taking it',
      pipeline: threeEnvironments(notification),
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'succeeded' })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'promoted', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionSucceeded', prod: 'StoppedEarlier' },
      messages: { staging: ['promotion of 6.9.2 succeeded; waiting for the targets to run it'] },
    },
    {
      name: 'a pull-request promotion that found the base already on the revision opened none: no pull request open',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'succeeded', result: ALREADY_ON_BASE })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'promoted', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionSucceeded', prod: 'StoppedEarlier' },
      messages: { staging: [ALREADY_ON_BASE] },
    },
    {
      name: 'an in-progress promotion with a live lease is left to its worker',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'in-progress', leaseExpiresAt: minutesFromNow(2) })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionInProgress', prod: 'StoppedEarlier' },
      messages: { staging: ['in progress', `leased until ${minutesFromNow(2)}`] },
    },
    {
      name: 'a pending promotion with a live lease is left to its worker',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'pending', leaseExpiresAt: minutesFromNow(1) })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionInProgress', prod: 'StoppedEarlier' },
    },
    {
      name: 'an expired lease is resumed',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'in-progress', leaseExpiresAt: minutesFromNow(-1) })],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionResumed', prod: 'StoppedEarlier' },
      messages: { staging: ['resuming promotion of 6.9.2', `lease expired at ${minutesFromNow(-1)}`] },
    },
    {
      name: 'a lease that ends right now has expired',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'in-progress', leaseExpiresAt: NOW.toISOString() })],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionResumed', prod: 'StoppedEarlier' },
    },
    {
      name: 'a pending record without a lease is resumed',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'pending' })],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionResumed', prod: 'StoppedEarlier' },
      messages: { staging: ['no lease'] },
    },
    {
      name: 'an in-progress record whose lease cannot be read is resumed: nobody can hold it',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'in-progress', leaseExpiresAt: 'soon' })],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionResumed', prod: 'StoppedEarlier' },
      messages: { staging: ['resuming promotion of 6.9.2', 'unreadable lease soon'] },
    },
    {
      name: 'a failed promotion is retried once retryAt has come',
      pipeline: three,
      observed: readyForStaging,
      promotions: [
        record('staging', '6.9.2', {
          state: 'failed',
          attempts: 2,
          retryAt: NOW.toISOString(),
          error: 'GitHub API: 502 Bad Gateway',
        }),
      ],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RetryDue', prod: 'StoppedEarlier' },
      messages: { staging: ['failed (attempt 2): GitHub API: 502 Bad Gateway', 'retrying now'] },
    },
    {
      name: 'a failed promotion waits while retryAt is in the future',
      pipeline: three,
      observed: readyForStaging,
      promotions: [
        record('staging', '6.9.2', {
          state: 'failed',
          retryAt: minutesFromNow(4),
          error: 'GitHub API: 403 API rate limit exceeded',
        }),
      ],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RetryScheduled', prod: 'StoppedEarlier' },
      messages: { staging: [`retrying at ${minutesFromNow(4)}`, 'rate limit exceeded'] },
    },
    {
      name: 'a failed promotion without retryAt is not retried: a person must act',
      pipeline: three,
      observed: readyForStaging,
      promotions: [
        record('staging', '6.9.2', {
          state: 'failed',
          attempts: 5,
          error: 'no "$promotion": "flux-system:podinfo:staging" marker found in https://github.com/acme/fleet@main',
        }),
      ],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'FailedForGood', prod: 'StoppedEarlier' },
      messages: { staging: ['a person must act', 'no "$promotion": "flux-system:podinfo:staging" marker found'] },
    },
    {
      name: 'a failed promotion whose retryAt cannot be read is failed for good',
      pipeline: three,
      observed: readyForStaging,
      promotions: [record('staging', '6.9.2', { state: 'failed', retryAt: 'later', error: 'Bad credentials' })],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'FailedForGood', prod: 'StoppedEarlier' },
      messages: { staging: ['failed (attempt 1): Bad credentials', 'a person must act'] },
    },
    {
      name: 'records of another revision or environment do not count',
      pipeline: three,
      observed: readyForStaging,
      promotions: [
        record('staging', '6.9.1', { state: 'failed', error: 'Bad credentials' }),
        record('prod', '6.9.2', { state: 'in-progress', leaseExpiresAt: minutesFromNow(5) }),
      ],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'Kustomization: a record of the legacy main/<sha> form is the record of main@sha1:<sha>',
      pipeline: threeEnvironments(pullRequest, 'Kustomization'),
      observed: {
        'flux-system/dev apps': healthy(`main@sha1:${SHA}`),
        'flux-system/staging apps': healthy(`main@sha1:${OLD_SHA}`),
        ...prodOn(`main@sha1:${OLD_SHA}`),
      },
      promotions: [record('staging', `main/${SHA}`, { state: 'succeeded', result: PR })],
      candidate: `main@sha1:${SHA}`,
      actions: [],
      states: { dev: 'source', staging: 'pull-request-open', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PullRequestOpen', prod: 'StoppedEarlier' },
    },
  ]);
});

describe('decide: promotion blocks', () => {
  runRows([
    {
      name: 'the pipeline-level block applies where the environment has none (staging: notification)',
      pipeline: manualProd,
      observed: readyForStaging,
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
      messages: { staging: ['promoting 6.9.2 by notification'] },
    },
    {
      name: 'the environment-level block overrides it (prod: manual pull request)',
      pipeline: manualProd,
      observed: readyForProd,
      approvals: [approved('prod', '6.9.2', 'hmac-key')],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'Approved' },
      messages: { prod: ['approved by hmac-key'] },
    },
    {
      name: 'only environments carry a promotion block: staging is promoted to',
      pipeline: onlyStagingPromotes,
      observed: readyForStaging,
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'only environments carry a promotion block: prod has none, so no-strategy',
      pipeline: onlyStagingPromotes,
      observed: readyForProd,
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'no-strategy' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'NoStrategy' },
      messages: { prod: ['no promotion configured for prod'] },
    },
  ]);
});

describe('decide: stale approval markers', () => {
  runRows([
    {
      name: 'a passed environment’s marker for an older revision is cleared before the next promotion',
      pipeline: three,
      observed: readyForProd,
      approvals: [requested('staging', '6.9.1')],
      candidate: '6.9.2',
      actions: [
        { type: 'clear-approval', env: 'staging', revision: '6.9.1' },
        { type: 'promote', env: 'prod', revision: '6.9.2' },
      ],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'PromotionDue' },
    },
    {
      name: 'a passed environment’s marker for the candidate is kept',
      pipeline: three,
      observed: readyForProd,
      approvals: [approved('staging', '6.9.2')],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'PromotionDue' },
    },
    {
      name: 'an in-progress environment’s marker for an older revision is cleared',
      pipeline: manualProd,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.2'),
        'flux-system/prod-us apps': unhealthy('6.9.1', 'Helm upgrade failed: timed out waiting for the condition'),
      },
      approvals: [requested('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [{ type: 'clear-approval', env: 'prod', revision: '6.9.1' }],
      states: { dev: 'source', staging: 'passed', prod: 'in-progress' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'RollingOut' },
    },
    {
      name: 'an ahead environment’s marker is cleared',
      pipeline: manualProd,
      observed: { ...readyForProd, ...prodOn('6.9.3') },
      approvals: [requested('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [{ type: 'clear-approval', env: 'prod', revision: '6.9.1' }],
      states: { dev: 'source', staging: 'passed', prod: 'ahead' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'AheadOfCandidate' },
    },
    {
      name: 'markers on environments not reached, or of unknown status, are left alone',
      pipeline: three,
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        'flux-system/staging apps': healthy('6.9.2'),
        'flux-system/prod-eu apps': healthy('6.9.1'),
      },
      approvals: [requested('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'unknown' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'TargetsUnknown' },
      messages: { prod: ['target flux-system/prod-us apps was never observed'] },
    },
    {
      name: 'a marker beyond the promotion target is left alone',
      pipeline: manualProd,
      observed: readyForStaging,
      approvals: [requested('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'actions come in the order decided: a clear on staging, then the request on prod',
      pipeline: pipeline({
        promotion: manualNotification,
        environments: [
          { name: 'dev', targets: ['flux-system/dev apps'] },
          { name: 'staging', targets: ['flux-system/staging apps'] },
          { name: 'prod', targets: ['flux-system/prod-eu apps', 'flux-system/prod-us apps'] },
        ],
      }),
      observed: readyForProd,
      approvals: [approved('staging', '6.9.1'), requested('prod', '6.9.1')],
      candidate: '6.9.2',
      actions: [
        { type: 'clear-approval', env: 'staging', revision: '6.9.1' },
        { type: 'request-approval', env: 'prod', revision: '6.9.2', replaces: '6.9.1' },
      ],
      states: { dev: 'source', staging: 'passed', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'ApprovalReplaced' },
    },
  ]);
});
