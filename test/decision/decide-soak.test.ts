// `spec.environments[].soak` (docs/soak.md): an environment healthy on the candidate counts as passed, and what comes
// after it may be promoted, only once every target of it has been healthy for the soak, measured from when the
// verifier recorded each target's status as it is (`statusSince`) and the decision's `now`.
import type { TargetStatus } from '../../lib/flux/target-status.js';
import type { SourceObject } from '../../lib/pipeline/model.js';
import { describe } from 'node:test';
import {
  healthy,
  manualPullRequest,
  minutesFromNow,
  pipeline,
  pullRequest,
  requested,
  runRows,
  threeEnvironments,
  unhealthy,
} from './fixtures.js';

/** dev (two targets, soak 30m) → staging (soak 1h) → prod; `manualStaging` makes staging wait for an approval. */
function soaked(options: { manualStaging?: boolean; devSoak?: string; stagingSoak?: string } = {}) {
  return pipeline({
    promotion: pullRequest,
    environments: [
      {
        name: 'dev',
        targets: ['flux-system/dev-eu apps', 'flux-system/dev-us apps'],
        soak: options.devSoak ?? '30m',
      },
      {
        name: 'staging',
        targets: ['flux-system/staging apps'],
        soak: options.stagingSoak ?? '1h',
        ...(options.manualStaging ? { promotion: manualPullRequest } : {}),
      },
      { name: 'prod', targets: ['flux-system/prod apps'] },
    ],
  });
}

const DEV_EU = 'flux-system/dev-eu apps';
const DEV_US = 'flux-system/dev-us apps';
const STAGING = 'flux-system/staging apps';
const PROD = 'flux-system/prod apps';

/** Every target's status and since: dev on `dev` since the given minutes ago, the rest on 6.9.1 for a day. */
function world(dev: { revision?: string; euSince: number; usSince: number; eu?: TargetStatus }) {
  const revision = dev.revision ?? '6.9.2';
  return {
    observed: {
      [DEV_EU]: dev.eu ?? healthy(revision),
      [DEV_US]: healthy(revision),
      [STAGING]: healthy('6.9.1'),
      [PROD]: healthy('6.9.1'),
    },
    since: {
      [DEV_EU]: minutesFromNow(-dev.euSince),
      [DEV_US]: minutesFromNow(-dev.usSince),
      [STAGING]: minutesFromNow(-24 * 60),
      [PROD]: minutesFromNow(-24 * 60),
    },
  };
}

describe('decide: a soak running', () => {
  runRows([
    {
      name: 'dev healthy for 10 of its 30 minutes: staging is not promoted and says what it waits for',
      pipeline: soaked(),
      ...world({ euSince: 10, usSince: 10 }),
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      waitsFor: { staging: 'dev', prod: 'staging' },
      soakEndsAt: { dev: '2025-10-01T12:20:00Z', staging: '2025-10-01T12:20:00Z' },
      messages: {
        dev: ['candidate 6.9.2', 'soaking 30m: 20m left, until 2025-10-01T12:20:00Z'],
        staging: ['6.9.2 comes here once the soak of dev is served (20m left, until 2025-10-01T12:20:00Z)'],
        prod: ['stopped at staging (waiting for the soak of dev)'],
      },
    },
    {
      name: 'the soak counts from the last target to become healthy',
      pipeline: soaked(),
      ...world({ euSince: 6 * 60, usSince: 5 }),
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      soakEndsAt: { dev: '2025-10-01T12:25:00Z', staging: '2025-10-01T12:25:00Z' },
      messages: { dev: ['25m left'] },
    },
    {
      name: 'one second before the end: still soaking, the time left in seconds',
      pipeline: soaked(),
      ...world({ euSince: 30, usSince: 30 }),
      now: new Date(Date.parse(minutesFromNow(0)) - 1000),
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      soakEndsAt: { dev: '2025-10-01T12:00:00Z', staging: '2025-10-01T12:00:00Z' },
      messages: { dev: ['1s left'] },
    },
    {
      name: 'a target whose time was not recorded counts as just now',
      pipeline: soaked(),
      observed: world({ euSince: 60, usSince: 60 }).observed,
      since: { [DEV_EU]: minutesFromNow(-60) },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      soakEndsAt: { dev: '2025-10-01T12:30:00Z', staging: '2025-10-01T12:30:00Z' },
    },
    {
      name: 'a soak holds back every promotion after it, though the next environment already runs the candidate',
      pipeline: soaked({ stagingSoak: '1s' }),
      observed: { ...world({ euSince: 10, usSince: 10 }).observed, [STAGING]: healthy('6.9.2') },
      since: { ...world({ euSince: 10, usSince: 10 }).since, [STAGING]: minutesFromNow(-5) },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'passed', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'SoakServed', prod: 'AwaitingSoak' },
      soakEndsAt: { dev: '2025-10-01T12:20:00Z', prod: '2025-10-01T12:20:00Z' },
      messages: { staging: ['healthy for its whole 1s soak'], prod: ['once the soak of dev is served'] },
    },
    {
      name: 'the last environment soaking holds nothing back',
      pipeline: threeEnvironmentsWithProdSoak(),
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        [STAGING]: healthy('6.9.2'),
        ...prodTargets(healthy('6.9.2')),
      },
      since: { 'flux-system/dev apps': minutesFromNow(-90), ...prodTargets(minutesFromNow(-10)) },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'passed', prod: 'soaking' },
      reasons: { dev: 'CandidateFound', staging: 'AllTargetsReady', prod: 'SoakRunning' },
      soakEndsAt: { prod: '2025-10-01T13:50:00Z' },
      messages: { prod: ['all targets run 6.9.2 and are healthy; soaking 2h: 1h50m left'] },
    },
  ]);
});

describe('decide: a soak ended', () => {
  runRows([
    {
      name: 'dev healthy for its whole soak: staging is promoted',
      pipeline: soaked(),
      ...world({ euSince: 45, usSince: 30 }),
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
      messages: { dev: ['candidate 6.9.2', 'healthy for its whole 30m soak'] },
    },
    {
      name: 'staging soaking after its promotion holds prod back; served, prod is promoted',
      pipeline: soaked(),
      observed: { ...world({ euSince: 120, usSince: 120 }).observed, [STAGING]: healthy('6.9.2') },
      since: { ...world({ euSince: 120, usSince: 120 }).since, [STAGING]: minutesFromNow(-59) },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'soaking', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'SoakRunning', prod: 'AwaitingSoak' },
      soakEndsAt: { staging: '2025-10-01T12:01:00Z', prod: '2025-10-01T12:01:00Z' },
      messages: { prod: ['once the soak of staging is served (1m left'] },
    },
    {
      name: '… and a minute later prod is promoted',
      pipeline: soaked(),
      observed: { ...world({ euSince: 120, usSince: 120 }).observed, [STAGING]: healthy('6.9.2') },
      since: { ...world({ euSince: 120, usSince: 120 }).since, [STAGING]: minutesFromNow(-60) },
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'SoakServed', prod: 'PromotionDue' },
      messages: { staging: ['all targets run 6.9.2 and are healthy; healthy for its whole 1h soak'] },
    },
  ]);
});

describe('decide: a soak reset by a regression', () => {
  runRows([
    {
      name: 'a dev target failing now: no candidate, nothing soaks',
      pipeline: soaked(),
      ...world({ euSince: 1, usSince: 29, eu: unhealthy('6.9.2', 'Helm test failed') }),
      actions: [],
      states: { dev: 'source', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'TargetsNotReady', staging: 'NoCandidate', prod: 'NoCandidate' },
    },
    {
      name: 'healthy again: the soak counts from the recovery, not from the first time it was healthy',
      pipeline: soaked(),
      ...world({ euSince: 2, usSince: 29 }),
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      soakEndsAt: { dev: '2025-10-01T12:28:00Z', staging: '2025-10-01T12:28:00Z' },
      messages: { dev: ['28m left'] },
    },
    {
      name: 'a staging target back on the candidate after running another revision: its soak restarts',
      pipeline: soaked(),
      observed: { ...world({ euSince: 120, usSince: 120 }).observed, [STAGING]: healthy('6.9.2') },
      since: { ...world({ euSince: 120, usSince: 120 }).since, [STAGING]: minutesFromNow(-3) },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'soaking', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'SoakRunning', prod: 'AwaitingSoak' },
      soakEndsAt: { staging: '2025-10-01T12:57:00Z', prod: '2025-10-01T12:57:00Z' },
    },
  ]);
});

describe('decide: a soak with a manual next environment', () => {
  runRows([
    {
      name: 'while dev soaks, no approval is requested for staging',
      pipeline: soaked({ manualStaging: true }),
      ...world({ euSince: 10, usSince: 10 }),
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      soakEndsAt: { dev: '2025-10-01T12:20:00Z', staging: '2025-10-01T12:20:00Z' },
    },
    {
      name: 'a request for an older revision is left alone while dev soaks',
      pipeline: soaked({ manualStaging: true }),
      ...world({ euSince: 10, usSince: 10 }),
      approvals: [requested('staging', '6.9.1')],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'soaking', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', staging: 'AwaitingSoak', prod: 'StoppedEarlier' },
      soakEndsAt: { dev: '2025-10-01T12:20:00Z', staging: '2025-10-01T12:20:00Z' },
    },
    {
      name: 'once the soak is served, the approval is requested',
      pipeline: soaked({ manualStaging: true }),
      ...world({ euSince: 30, usSince: 30 }),
      candidate: '6.9.2',
      actions: [{ type: 'request-approval', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'waiting-approval', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'ApprovalRequested', prod: 'StoppedEarlier' },
    },
  ]);
});

describe('decide: a soak on the first environment of a pipeline with a source', () => {
  runRows([
    {
      name: 'dev runs the version the source names and soaks: the candidate is its revision, prod waits',
      pipeline: withSource(),
      observed: { source: resolved('6.5.0'), 'flux-system/dev apps': healthy('6.5.0'), [PROD]: healthy('6.4.0') },
      since: { 'flux-system/dev apps': minutesFromNow(-5) },
      candidate: '6.5.0',
      actions: [],
      states: { dev: 'soaking', prod: 'not-reached' },
      reasons: { dev: 'SoakRunning', prod: 'AwaitingSoak' },
      soakEndsAt: { dev: '2025-10-01T12:10:00Z', prod: '2025-10-01T12:10:00Z' },
      source: { state: 'found', reason: 'VersionFound', version: '6.5.0' },
    },
  ]);
});

describe('decide: no soak field', () => {
  runRows([
    {
      name: 'recorded times change nothing: staging is promoted the moment dev is healthy',
      pipeline: threeEnvironments(),
      observed: {
        'flux-system/dev apps': healthy('6.9.2'),
        [STAGING]: healthy('6.9.1'),
        ...prodTargets(healthy('6.9.1')),
      },
      since: { 'flux-system/dev apps': minutesFromNow(0) },
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
  ]);
});

function threeEnvironmentsWithProdSoak() {
  const three = threeEnvironments();
  return {
    ...three,
    environments: three.environments.map((env) => (env.name === 'prod' ? { ...env, soak: '2h' } : env)),
  };
}

/** The same value for both prod targets of threeEnvironments(). */
function prodTargets<T>(value: T): Record<string, T> {
  return { 'flux-system/prod-eu apps': value, 'flux-system/prod-us apps': value };
}

function withSource() {
  const source: SourceObject = {
    cluster: { namespace: 'flux-system', name: 'build' },
    kind: 'ImagePolicy',
    namespace: 'flux-system',
    name: 'podinfo',
  };
  return pipeline({
    source,
    promotion: pullRequest,
    environments: [
      { name: 'dev', targets: ['flux-system/dev apps'], soak: '15m' },
      { name: 'prod', targets: [PROD] },
    ],
  });
}

function resolved(revision: string): TargetStatus {
  return { phase: 'Ready', reason: 'Resolved', message: `latest version ${revision}`, revision };
}
