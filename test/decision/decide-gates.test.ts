// The gates in the decision: freeze windows and stop switches (docs/freeze.md), approval policies and
// rejections (docs/approval-policies.md), rollbacks (docs/rollback.md) and the evidence a promotion carries
// (docs/evidence.md). Time is the row's `now` (fixtures' NOW, a Wednesday, 12:00 UTC), never the clock.
import { describe } from 'node:test';
import { readHelmReleaseStatus } from '../../lib/flux/index.js';
import { condition, helmRelease, HR_GENERATION } from '../fixtures/flux-objects.js';
import type { FreezeSwitch } from '../../lib/pipeline/freeze.js';
import type { FreezeWindow } from '../../lib/pipeline/environment-policies.js';
import {
  approved,
  healthy,
  manualPullRequest,
  minutesFromNow,
  pipeline,
  pullRequest,
  record,
  requested,
  runRows,
  unhealthy,
  type EnvironmentSpec,
} from './fixtures.js';

const DEV = 'flux-system/dev apps';
const STAGING = 'flux-system/staging apps';
const PROD = 'flux-system/prod apps';

/** dev → staging → prod, one target each; `prod` takes the given gates. */
function gated(prod: Partial<EnvironmentSpec> = {}, staging: Partial<EnvironmentSpec> = {}) {
  return pipeline({
    promotion: pullRequest,
    environments: [
      { name: 'dev', targets: [DEV] },
      { name: 'staging', targets: [STAGING], ...staging },
      { name: 'prod', targets: [PROD], ...prod },
    ],
  });
}

/** prod is the environment the candidate 6.9.2 goes to next. */
const prodBehind = { [DEV]: healthy('6.9.2'), [STAGING]: healthy('6.9.2'), [PROD]: healthy('6.9.1') };
const since = { [DEV]: minutesFromNow(-120), [STAGING]: minutesFromNow(-90), [PROD]: minutesFromNow(-3000) };
const passed = { dev: 'source', staging: 'passed' } as const;
const passedReasons = { dev: 'CandidateFound', staging: 'AllTargetsReady' } as const;
const promoteProd = [{ type: 'promote' as const, env: 'prod', revision: '6.9.2' }];

/** Wednesday 10:00–16:00 UTC holds NOW; 14:00 CEST is NOW in Berlin (summer time on 1 October). */
const wednesdayDaytime: FreezeWindow = { from: 'Wed 10:00', to: 'Wed 16:00', timeZone: 'UTC', reason: 'release train' };
const berlinLunch: FreezeWindow = { from: '13:00', to: '15:00', timeZone: 'Europe/Berlin' };
const weekend: FreezeWindow = { from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin' };

function stopSwitch(fields: Partial<FreezeSwitch> = {}): FreezeSwitch {
  return {
    scope: { installation: true },
    reason: 'incident 4711',
    by: 'local:alice',
    at: minutesFromNow(-30),
    ...fields,
  };
}

describe('decide: freeze windows and stop switches', () => {
  runRows([
    {
      name: 'within a weekly window: prod is frozen until the window ends, nothing is promoted',
      pipeline: gated({ freeze: [wednesdayDaytime] }),
      observed: prodBehind,
      since,
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenByWindow' },
      frozenUntil: { prod: '2025-10-01T16:00:00Z' },
      messages: { prod: ['release train', 'until 2025-10-01T16:00:00Z'] },
    },
    {
      name: 'a daily window in Europe/Berlin follows summer time: 13:00–15:00 CEST holds 12:00 UTC',
      pipeline: gated({ freeze: [berlinLunch] }),
      observed: prodBehind,
      since,
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenByWindow' },
      frozenUntil: { prod: '2025-10-01T13:00:00Z' },
    },
    {
      name: 'the window has ended: the promotion starts (the switches are asked for, none is set)',
      pipeline: gated({ freeze: [wednesdayDaytime] }),
      observed: prodBehind,
      since,
      now: new Date('2025-10-01T16:00:00.000Z'),
      freezes: [],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionDue' },
      needs: {},
    },
    {
      name: 'outside the weekend window: promoted',
      pipeline: gated({ freeze: [weekend] }),
      observed: prodBehind,
      since,
      freezes: [],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionDue' },
    },
    {
      name: 'switches not read and no window holds: the promotion is decided but the switches are asked for',
      pipeline: gated(),
      observed: prodBehind,
      since,
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionDue' },
      needs: { freezes: true },
    },
    {
      name: 'an installation-wide stop switch without an end: frozen until unfrozen',
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [stopSwitch()],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenBySwitch' },
      frozenUntil: {},
      messages: { prod: ['until unfrozen', 'incident 4711', 'local:alice'] },
      needs: {},
    },
    {
      name: 'a switch with --until holds until then',
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [stopSwitch({ until: minutesFromNow(45) })],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenBySwitch' },
      frozenUntil: { prod: '2025-10-01T12:45:00Z' },
    },
    {
      name: 'a switch whose --until has passed holds nothing',
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [stopSwitch({ until: minutesFromNow(-1) })],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionDue' },
    },
    {
      name: 'a switch for another environment, or another pipeline, holds nothing here',
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [
        stopSwitch({ env: 'staging' }),
        stopSwitch({ scope: { pipeline: { namespace: 'flux-system', name: 'other' } } }),
      ],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionDue' },
    },
    {
      name: "a switch on this pipeline's prod holds it",
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [stopSwitch({ env: 'prod', scope: { pipeline: { namespace: 'flux-system', name: 'podinfo' } } })],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenBySwitch' },
    },
    {
      name: 'an installation schedule (a switch with windows) holds only within its windows',
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [stopSwitch({ windows: [wednesdayDaytime] }), stopSwitch({ env: 'prod', windows: [weekend] })],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenByWindow' },
      frozenUntil: { prod: '2025-10-01T16:00:00Z' },
    },
    {
      name: 'a promotion already under way finishes: a resumed attempt is not held',
      pipeline: gated({ freeze: [wednesdayDaytime] }),
      observed: prodBehind,
      since,
      freezes: [stopSwitch()],
      promotions: [record('prod', '6.9.2', { state: 'in-progress', leaseExpiresAt: minutesFromNow(-1) })],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionResumed' },
    },
    {
      name: 'a retry that comes due during a freeze waits for its end',
      pipeline: gated(),
      observed: prodBehind,
      since,
      freezes: [stopSwitch({ until: minutesFromNow(10) })],
      promotions: [record('prod', '6.9.2', { state: 'failed', retryAt: minutesFromNow(-1), error: 'HTTP 502' })],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenBySwitch' },
    },
    {
      name: 'a manual environment still asks for its approval during a freeze',
      pipeline: gated({ promotion: manualPullRequest, freeze: [wednesdayDaytime] }),
      observed: prodBehind,
      since,
      candidate: '6.9.2',
      actions: [{ type: 'request-approval', env: 'prod', revision: '6.9.2' }],
      states: { ...passed, prod: 'waiting-approval' },
      reasons: { ...passedReasons, prod: 'ApprovalRequested' },
    },
    {
      name: 'an approval that arrives during a freeze is kept; the promotion waits for the end',
      pipeline: gated({ promotion: manualPullRequest, freeze: [wednesdayDaytime] }),
      observed: prodBehind,
      since,
      approvals: [approved('prod', '6.9.2')],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'frozen' },
      reasons: { ...passedReasons, prod: 'FrozenByWindow' },
    },
  ]);
});

const twoApprovers = { required: 2, approvers: { users: ['alice', 'bob', 'carol'] } };

describe('decide: approval policies and rejections', () => {
  runRows([
    {
      name: 'one approval of two required: still waiting, saying who approved',
      pipeline: gated({ promotion: manualPullRequest, approval: twoApprovers }),
      observed: prodBehind,
      since,
      approvals: [{ ...requested('prod', '6.9.2'), approvals: [{ by: 'local:alice', at: minutesFromNow(-3) }] }],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'waiting-approval' },
      reasons: { ...passedReasons, prod: 'ApprovalsShort' },
      messages: { prod: ['1 of 2 approvals', 'local:alice', 'waiting for 1 more'] },
    },
    {
      name: 'the policy is met (the store set approvedAt): promoted',
      pipeline: gated({ promotion: manualPullRequest, approval: twoApprovers }),
      observed: prodBehind,
      since,
      freezes: [],
      approvals: [
        {
          ...approved('prod', '6.9.2', 'local:bob'),
          approvals: [
            { by: 'local:alice', at: minutesFromNow(-9) },
            { by: 'local:bob', at: minutesFromNow(-5) },
          ],
        },
      ],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'Approved' },
      messages: { prod: ['local:alice, local:bob'] },
    },
    {
      name: 'a rejected candidate is not promoted, and nothing more is asked',
      pipeline: gated({ promotion: manualPullRequest }),
      observed: prodBehind,
      since,
      approvals: [
        {
          ...requested('prod', '6.9.2'),
          rejectedAt: minutesFromNow(-2),
          rejectedBy: 'local:carol',
          rejectionReason: 'breaks the checkout',
        },
      ],
      candidate: '6.9.2',
      actions: [],
      states: { ...passed, prod: 'rejected' },
      reasons: { ...passedReasons, prod: 'Rejected' },
      messages: { prod: ['local:carol', 'breaks the checkout', 'newer candidate'] },
    },
    {
      name: 'a newer candidate after a rejection asks for approval again, replacing the rejected request',
      pipeline: gated({ promotion: manualPullRequest }),
      observed: { ...prodBehind, [DEV]: healthy('6.9.3'), [STAGING]: healthy('6.9.3') },
      since,
      approvals: [{ ...requested('prod', '6.9.2'), rejectedAt: minutesFromNow(-2), rejectedBy: 'local:carol' }],
      candidate: '6.9.3',
      actions: [{ type: 'request-approval', env: 'prod', revision: '6.9.3', replaces: '6.9.2' }],
      states: { ...passed, prod: 'waiting-approval' },
      reasons: { ...passedReasons, prod: 'ApprovalReplaced' },
    },
  ]);
});

/**
 * prod's HelmRelease as Flux 2.8 leaves it when new values arrive during 6.9.2's health check, read by the reader:
 * Ready False on the promoted revision, yet nothing failed.
 */
const healthCheckCanceled = readHelmReleaseStatus(
  helmRelease({
    status: {
      lastAttemptedRevision: '6.9.2',
      conditions: [
        condition(
          'Ready',
          'False',
          'HealthCheckCanceled',
          'health check canceled: a new revision is available',
          HR_GENERATION,
        ),
      ],
    },
  }),
);

/** prod was promoted to 6.9.2 and fails on it since `failedMinutesAgo`; rollback after 10m. */
function failingProd(failedMinutesAgo: number) {
  return {
    pipeline: gated({ rollback: { strategy: 'pull-request', after: '10m' } }),
    observed: { ...prodBehind, [PROD]: unhealthy('6.9.2', 'UpgradeFailed: context deadline exceeded') },
    since: { ...since, [PROD]: minutesFromNow(-failedMinutesAgo) },
    promotions: [record('prod', '6.9.2', { state: 'succeeded', result: 'https://git.example/pr/7' })],
    candidate: '6.9.2',
  };
}
const rollbackTo691 = [{ type: 'rollback' as const, env: 'prod', revision: '6.9.1', from: '6.9.2' }];

describe('decide: rollback by pull request', () => {
  runRows([
    {
      name: 'failing on the promoted revision within the grace period: rollback at the end of it',
      ...failingProd(4),
      actions: [],
      states: { ...passed, prod: 'in-progress' },
      reasons: { ...passedReasons, prod: 'RollbackGracePeriod' },
      rollbackAt: { prod: '2025-10-01T12:06:00Z' },
    },
    {
      name: 'past the grace period without the history: the decision asks for it',
      ...failingProd(11),
      actions: [],
      states: { ...passed, prod: 'in-progress' },
      reasons: { ...passedReasons, prod: 'RollingOut' },
      needs: { lastPassed: ['prod'] },
    },
    {
      name: 'past the grace period: roll back to the last revision that was healthy there',
      ...failingProd(11),
      lastPassed: { prod: ['6.9.2', '6.9.1', '6.9.0'] },
      actions: rollbackTo691,
      states: { ...passed, prod: 'rolling-back' },
      reasons: { ...passedReasons, prod: 'RollbackDue' },
      messages: { prod: ['6.9.2', '6.9.1'] },
    },
    {
      name: 'no earlier revision was ever healthy there: a person must act',
      ...failingProd(11),
      lastPassed: { prod: ['6.9.2'] },
      actions: [],
      states: { ...passed, prod: 'in-progress' },
      reasons: { ...passedReasons, prod: 'NothingToRollBackTo' },
    },
    {
      name: 'the rollback was opened: once per (environment, failed revision)',
      ...failingProd(60),
      lastPassed: { prod: ['6.9.1'] },
      promotions: [
        record('prod', '6.9.2', { state: 'succeeded' }),
        record('rollback:prod', '6.9.2', { state: 'succeeded', result: 'https://git.example/pr/8' }),
      ],
      actions: [],
      states: { ...passed, prod: 'rolling-back' },
      reasons: { ...passedReasons, prod: 'RollbackOpened' },
      messages: { prod: ['https://git.example/pr/8'] },
    },
    {
      name: 'a rollback that failed and is due again is retried',
      ...failingProd(60),
      lastPassed: { prod: ['6.9.1'] },
      promotions: [
        record('prod', '6.9.2', { state: 'succeeded' }),
        record('rollback:prod', '6.9.2', { state: 'failed', retryAt: minutesFromNow(-1), error: 'HTTP 502' }),
      ],
      actions: rollbackTo691,
      states: { ...passed, prod: 'rolling-back' },
      reasons: { ...passedReasons, prod: 'RollbackDue' },
      messages: { prod: ['retrying'] },
    },
    {
      name: 'a rollback retry scheduled later: waiting',
      ...failingProd(60),
      promotions: [
        record('prod', '6.9.2', { state: 'succeeded' }),
        record('rollback:prod', '6.9.2', { state: 'failed', retryAt: minutesFromNow(5), error: 'HTTP 502' }),
      ],
      actions: [],
      states: { ...passed, prod: 'rolling-back' },
      reasons: { ...passedReasons, prod: 'RollbackRetryScheduled' },
    },
    {
      name: "Flux 2.8's HealthCheckCanceled (a newer revision cut the health check short) is never rolled back",
      ...failingProd(60),
      observed: { ...prodBehind, [PROD]: healthCheckCanceled },
      lastPassed: { prod: ['6.9.1'] },
      actions: [],
      states: { ...passed, prod: 'in-progress' },
      reasons: { ...passedReasons, prod: 'RollingOut' },
    },
    {
      name: 'a revision not promoted here (no record) is not rolled back',
      ...failingProd(60),
      promotions: [],
      lastPassed: { prod: ['6.9.1'] },
      // Without a record, the walk promotes the candidate into prod again (its targets do not run it healthily).
      actions: [],
      states: { ...passed, prod: 'in-progress' },
      reasons: { ...passedReasons, prod: 'RollingOut' },
    },
    {
      name: 'an environment without a rollback policy is left for a person',
      ...failingProd(60),
      pipeline: gated(),
      actions: [],
      states: { ...passed, prod: 'in-progress' },
      reasons: { ...passedReasons, prod: 'RollingOut' },
    },
    {
      name: 'a newer candidate rolls forward instead: the promotion replaces the rollback',
      ...failingProd(60),
      observed: {
        [DEV]: healthy('6.9.3'),
        [STAGING]: healthy('6.9.3'),
        [PROD]: unhealthy('6.9.2', 'UpgradeFailed'),
      },
      lastPassed: { prod: ['6.9.1'] },
      candidate: '6.9.3',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.3' }],
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, prod: 'PromotionDue' },
    },
  ]);
});

describe('decide: the evidence a promotion carries', () => {
  runRows([
    {
      name: 'the source environment as observed, with when each target became healthy and the soak served',
      pipeline: gated({}, { soak: '1h' }),
      observed: prodBehind,
      since,
      candidate: '6.9.2',
      actions: promoteProd,
      states: { ...passed, prod: 'promoting' },
      reasons: { ...passedReasons, staging: 'SoakServed', prod: 'PromotionDue' },
      evidence: {
        prod: {
          from: 'staging',
          targets: [{ name: STAGING, revision: '6.9.2', phase: 'Ready', healthySince: since[STAGING] }],
          soak: '1h',
        },
      },
    },
  ]);
});
