// Environment graphs in the decision (docs/environment-graphs.md): an environment follows the ones its `after`
// names. Fan-out branches are promoted independently, each with its own gates; a fan-in is promoted only once every
// environment it follows has passed the candidate. Time is the fixtures' NOW, never the clock.
import { describe } from 'node:test';
import type { FreezeWindow } from '../../lib/pipeline/environment-policies.js';
import {
  healthy,
  manualPullRequest,
  minutesFromNow,
  pipeline,
  pullRequest,
  runRows,
  unhealthy,
  unsettled,
  type EnvironmentSpec,
} from './fixtures.js';

const STAGING = 'flux-system/staging apps';
const EU = 'flux-system/prod-eu apps';
const US = 'flux-system/prod-us apps';
const GLOBAL = 'flux-system/global apps';
const QA = 'flux-system/qa apps';
const PERF = 'flux-system/perf apps';
const PREPROD = 'flux-system/preprod apps';

/** staging → prod-eu, prod-us (in parallel) → global (after both): a diamond. */
function diamond(eu: Partial<EnvironmentSpec> = {}, us: Partial<EnvironmentSpec> = {}) {
  return pipeline({
    promotion: pullRequest,
    environments: [
      { name: 'staging', targets: [STAGING] },
      { name: 'prod-eu', targets: [EU], after: ['staging'], ...eu },
      { name: 'prod-us', targets: [US], after: ['staging'], ...us },
      { name: 'global', targets: [GLOBAL], after: ['prod-eu', 'prod-us'] },
    ],
  });
}

/** staging → qa, perf (in parallel) → preprod (after both). */
const qaAndPerf = pipeline({
  promotion: pullRequest,
  environments: [
    { name: 'staging', targets: [STAGING] },
    { name: 'qa', targets: [QA] },
    { name: 'perf', targets: [PERF], after: ['staging'] },
    { name: 'preprod', targets: [PREPROD], after: ['qa', 'perf'] },
  ],
});

const NEW = '6.9.2';
const OLD = '6.9.1';
const promote = (env: string) => ({ type: 'promote' as const, env, revision: NEW });
const wednesdayDaytime: FreezeWindow = { from: 'Wed 10:00', to: 'Wed 16:00', timeZone: 'UTC', reason: 'eu freeze' };

describe('decide: environment graphs', () => {
  runRows([
    {
      name: 'a diamond: staging passed, both regions are promoted at once; global waits for both',
      pipeline: diamond(),
      observed: { [STAGING]: healthy(NEW), [EU]: healthy(OLD), [US]: healthy(OLD), [GLOBAL]: healthy(OLD) },
      freezes: [],
      candidate: NEW,
      actions: [promote('prod-eu'), promote('prod-us')],
      states: { staging: 'source', 'prod-eu': 'promoting', 'prod-us': 'promoting', global: 'not-reached' },
      reasons: {
        staging: 'CandidateFound',
        'prod-eu': 'PromotionDue',
        'prod-us': 'PromotionDue',
        global: 'StoppedEarlier',
      },
      waitsFor: { global: 'prod-eu' },
      messages: { global: ['stopped at prod-eu (promoting), prod-us (promoting)'] },
    },
    {
      name: 'a diamond: both regions passed, global is promoted with the evidence of both',
      pipeline: diamond(),
      observed: { [STAGING]: healthy(NEW), [EU]: healthy(NEW), [US]: healthy(NEW), [GLOBAL]: healthy(OLD) },
      since: { [EU]: minutesFromNow(-30), [US]: minutesFromNow(-20) },
      freezes: [],
      candidate: NEW,
      actions: [promote('global')],
      states: { staging: 'source', 'prod-eu': 'passed', 'prod-us': 'passed', global: 'promoting' },
      reasons: {
        staging: 'CandidateFound',
        'prod-eu': 'AllTargetsReady',
        'prod-us': 'AllTargetsReady',
        global: 'PromotionDue',
      },
      evidence: {
        global: {
          from: 'prod-eu',
          targets: [{ name: EU, phase: 'Ready', revision: NEW, healthySince: minutesFromNow(-30) }],
          also: [
            {
              from: 'prod-us',
              targets: [{ name: US, phase: 'Ready', revision: NEW, healthySince: minutesFromNow(-20) }],
            },
          ],
        },
      },
    },
    {
      name: 'a fan-out with one failing branch: prod-eu fails on the candidate, prod-us is promoted all the same',
      pipeline: diamond(),
      observed: {
        [STAGING]: healthy(NEW),
        [EU]: unhealthy(NEW, 'Helm upgrade failed: context deadline exceeded'),
        [US]: healthy(OLD),
        [GLOBAL]: healthy(OLD),
      },
      freezes: [],
      candidate: NEW,
      actions: [promote('prod-us')],
      states: { staging: 'source', 'prod-eu': 'in-progress', 'prod-us': 'promoting', global: 'not-reached' },
      reasons: {
        staging: 'CandidateFound',
        'prod-eu': 'RollingOut',
        'prod-us': 'PromotionDue',
        global: 'StoppedEarlier',
      },
      waitsFor: { global: 'prod-eu' },
      messages: { global: ['prod-eu (in-progress)', 'prod-us (promoting)'] },
    },
    {
      name: 'a fan-in waiting on its slow branch: qa passed, perf still rolls out, preprod waits for perf',
      pipeline: qaAndPerf,
      observed: {
        [STAGING]: healthy(NEW),
        [QA]: healthy(NEW),
        [PERF]: unsettled(NEW),
        [PREPROD]: healthy(OLD),
      },
      candidate: NEW,
      actions: [],
      states: { staging: 'source', qa: 'passed', perf: 'in-progress', preprod: 'not-reached' },
      reasons: { staging: 'CandidateFound', qa: 'AllTargetsReady', perf: 'RollingOut', preprod: 'StoppedEarlier' },
      waitsFor: { preprod: 'perf' },
      messages: { preprod: ['not reached: stopped at perf (in-progress)'] },
    },
    {
      name: 'a branch frozen: prod-eu holds in its window, prod-us is promoted; global waits for prod-eu',
      pipeline: diamond({ freeze: [wednesdayDaytime] }),
      observed: { [STAGING]: healthy(NEW), [EU]: healthy(OLD), [US]: healthy(OLD), [GLOBAL]: healthy(OLD) },
      freezes: [],
      candidate: NEW,
      actions: [promote('prod-us')],
      states: { staging: 'source', 'prod-eu': 'frozen', 'prod-us': 'promoting', global: 'not-reached' },
      reasons: {
        staging: 'CandidateFound',
        'prod-eu': 'FrozenByWindow',
        'prod-us': 'PromotionDue',
        global: 'StoppedEarlier',
      },
      frozenUntil: { 'prod-eu': '2025-10-01T16:00:00Z' },
      messages: { 'prod-eu': ['eu freeze'], global: ['prod-eu (frozen)'] },
    },
    {
      name: 'a manual branch beside an automatic one: prod-eu asks for approval, prod-us is promoted',
      pipeline: diamond({ promotion: manualPullRequest }),
      observed: { [STAGING]: healthy(NEW), [EU]: healthy(OLD), [US]: healthy(OLD), [GLOBAL]: healthy(OLD) },
      freezes: [],
      candidate: NEW,
      actions: [{ type: 'request-approval', env: 'prod-eu', revision: NEW }, promote('prod-us')],
      states: { staging: 'source', 'prod-eu': 'waiting-approval', 'prod-us': 'promoting', global: 'not-reached' },
      reasons: {
        staging: 'CandidateFound',
        'prod-eu': 'ApprovalRequested',
        'prod-us': 'PromotionDue',
        global: 'StoppedEarlier',
      },
      messages: { global: ['prod-eu (waiting-approval)'] },
    },
    {
      name: "a branch's soak holds back the fan-in after it, not its sibling",
      pipeline: diamond({ soak: '1h' }),
      observed: { [STAGING]: healthy(NEW), [EU]: healthy(NEW), [US]: healthy(NEW), [GLOBAL]: healthy(OLD) },
      since: { [EU]: minutesFromNow(-20), [US]: minutesFromNow(-20) },
      candidate: NEW,
      actions: [],
      states: { staging: 'source', 'prod-eu': 'soaking', 'prod-us': 'passed', global: 'not-reached' },
      reasons: {
        staging: 'CandidateFound',
        'prod-eu': 'SoakRunning',
        'prod-us': 'AllTargetsReady',
        global: 'AwaitingSoak',
      },
      soakEndsAt: { 'prod-eu': '2025-10-01T12:40:00Z', global: '2025-10-01T12:40:00Z' },
      waitsFor: { global: 'prod-eu' },
    },
    {
      name: 'after may name an environment listed later: the graph, not the list, says what follows what',
      pipeline: pipeline({
        promotion: pullRequest,
        environments: [
          { name: 'staging', targets: [STAGING] },
          { name: 'global', targets: [GLOBAL], after: ['prod-eu'] },
          { name: 'prod-eu', targets: [EU], after: ['staging'] },
        ],
      }),
      observed: { [STAGING]: healthy(NEW), [EU]: healthy(OLD), [GLOBAL]: healthy(OLD) },
      freezes: [],
      candidate: NEW,
      actions: [promote('prod-eu')],
      states: { staging: 'source', global: 'not-reached', 'prod-eu': 'promoting' },
      reasons: { staging: 'CandidateFound', global: 'StoppedEarlier', 'prod-eu': 'PromotionDue' },
    },
  ]);
});
