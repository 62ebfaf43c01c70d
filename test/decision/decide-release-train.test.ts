// Release trains in the decision (docs/release-trains.md): an environment whose pull-request promotion is in a group
// with `waitForAll` starts its promotion only once every other member of the group is due there. The
// other members are an observation (`groups`), asked for only when a promotion would start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Promotion } from '../../lib/config/schema.js';
import { holdsTheTrain, type EnvironmentState } from '../../lib/decision/index.js';
import { healthy, minutesFromNow, pipeline, pullRequest, record, runRows } from './fixtures.js';

const DEV = 'flux-system/dev apps';
const PROD = 'flux-system/prod apps';

function train(waitForAll: boolean): Promotion {
  const spec = pullRequest.strategy['pull-request'];
  if (!spec) throw new Error('no pull-request block');
  return { strategy: { 'pull-request': { ...spec, group: 'shop', ...(waitForAll ? { waitForAll } : {}) } } };
}

const member = (waitForAll: boolean) =>
  pipeline({
    promotion: train(waitForAll),
    environments: [
      { name: 'dev', targets: [DEV] },
      { name: 'prod', targets: [PROD] },
    ],
  });

const prodBehind = { [DEV]: healthy('6.9.2'), [PROD]: healthy('6.9.1') };
const promoteProd = [{ type: 'promote' as const, env: 'prod', revision: '6.9.2' }];

describe('a release train that waits for all its members', () => {
  runRows([
    {
      name: 'asks for the other members before its promotion would start, and starts nothing meanwhile',
      pipeline: member(true),
      observed: prodBehind,
      freezes: [],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', prod: 'waiting-group' },
      reasons: { dev: 'CandidateFound', prod: 'GroupUnread' },
      needs: { groups: ['prod'] },
      messages: { prod: ['6.9.2 is due here', 'group shop'] },
    },
    {
      name: 'waits while another member is not due, naming it',
      pipeline: member(true),
      observed: prodBehind,
      freezes: [],
      groups: {
        prod: {
          waitingFor: [
            { pipeline: 'flux-system/cart', state: 'waiting-approval' },
            { pipeline: 'flux-system/web', state: 'not-reached' },
          ],
        },
      },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', prod: 'waiting-group' },
      reasons: { dev: 'CandidateFound', prod: 'AwaitingGroup' },
      needs: {},
      messages: { prod: ['group shop', 'flux-system/cart (waiting-approval)', 'flux-system/web (not-reached)'] },
    },
    {
      name: 'promotes once every member is due',
      pipeline: member(true),
      observed: prodBehind,
      freezes: [],
      groups: { prod: { waitingFor: [] } },
      candidate: '6.9.2',
      actions: promoteProd,
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'PromotionDue' },
      needs: {},
    },
    {
      name: 'resumes a promotion the train started, whatever the members do since',
      pipeline: member(true),
      observed: prodBehind,
      freezes: [],
      promotions: [record('prod', '6.9.2', { state: 'in-progress', leaseExpiresAt: minutesFromNow(-1) })],
      groups: { prod: { waitingFor: [{ pipeline: 'flux-system/web', state: 'not-reached' }] } },
      candidate: '6.9.2',
      actions: promoteProd,
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'PromotionResumed' },
    },
    {
      name: 'a group without waitForAll promotes each member as it comes due, reading nothing more',
      pipeline: member(false),
      observed: prodBehind,
      freezes: [],
      candidate: '6.9.2',
      actions: promoteProd,
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'PromotionDue' },
      needs: {},
    },
  ]);
});

describe('which members hold a train back', () => {
  it('every member not due: one with nothing new to promote too, so the train waits for all', () => {
    assert.deepEqual(
      ['promoting', 'pull-request-open', 'passed', 'not-reached', 'waiting-approval', 'failed', 'promoted'].filter(
        (state) => holdsTheTrain(state as EnvironmentState),
      ),
      ['passed', 'not-reached', 'waiting-approval', 'failed'],
    );
  });
});
