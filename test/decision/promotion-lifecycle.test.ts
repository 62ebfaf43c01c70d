// The promotion record's lifecycle (lib/decision/promotion-lifecycle.ts): the one rule of where a record is at a
// given time, which the decision, the store's claim, `pipelinectl retry` and the local mode all read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isClaimable,
  promotionStage,
  type PromotionLifecycleFields,
  type PromotionStage,
} from '../../lib/decision/promotion-lifecycle.js';

const NOW = new Date('2026-11-01T10:00:00.000Z');
const BEFORE = '2026-11-01T09:59:59.999Z';
const AFTER = '2026-11-01T10:00:00.001Z';
const AT_NOW = NOW.toISOString();

const cases: { name: string; record: PromotionLifecycleFields; stage: PromotionStage }[] = [
  { name: 'created, never claimed', record: { state: 'pending' }, stage: 'pending' },
  { name: 'pending under a live lease', record: { state: 'pending', leaseExpiresAt: AFTER }, stage: 'leased' },
  {
    name: 'pending under an expired lease',
    record: { state: 'pending', leaseExpiresAt: BEFORE },
    stage: 'lease-expired',
  },
  { name: 'in progress under a live lease', record: { state: 'in-progress', leaseExpiresAt: AFTER }, stage: 'leased' },
  {
    name: 'in progress, the lease ends this very instant',
    record: { state: 'in-progress', leaseExpiresAt: AT_NOW },
    stage: 'lease-expired',
  },
  {
    name: 'in progress, the lease expired',
    record: { state: 'in-progress', leaseExpiresAt: BEFORE },
    stage: 'lease-expired',
  },
  // The old disagreement: the decision resumed it, the store would not let anyone claim it.
  {
    name: 'in progress with an unreadable lease',
    record: { state: 'in-progress', leaseExpiresAt: 'not a time' },
    stage: 'lease-expired',
  },
  { name: 'in progress without a lease', record: { state: 'in-progress' }, stage: 'lease-expired' },
  { name: 'failed, the retry time has come', record: { state: 'failed', retryAt: BEFORE }, stage: 'retry-due' },
  { name: 'failed, retried this very instant', record: { state: 'failed', retryAt: AT_NOW }, stage: 'retry-due' },
  { name: 'failed, retried later', record: { state: 'failed', retryAt: AFTER }, stage: 'retry-scheduled' },
  { name: 'failed without a retry time', record: { state: 'failed' }, stage: 'failed-for-good' },
  {
    name: 'failed with an unreadable retry time',
    record: { state: 'failed', retryAt: 'soon' },
    stage: 'failed-for-good',
  },
  { name: 'succeeded', record: { state: 'succeeded' }, stage: 'succeeded' },
  {
    name: 'succeeded, a stale lease and retry time notwithstanding',
    record: { state: 'succeeded', leaseExpiresAt: AFTER, retryAt: BEFORE },
    stage: 'succeeded',
  },
];

describe('promotionStage', () => {
  for (const { name, record, stage } of cases) {
    it(`${name}: ${stage}`, () => assert.equal(promotionStage(record, NOW), stage));
  }
});

describe('isClaimable', () => {
  const claimable: Record<PromotionStage, boolean> = {
    pending: true,
    leased: false,
    'lease-expired': true,
    'retry-due': true,
    'retry-scheduled': false,
    'failed-for-good': false,
    succeeded: false,
  };
  for (const [stage, expected] of Object.entries(claimable) as [PromotionStage, boolean][]) {
    it(`${stage}: ${expected ? 'an attempt may start' : 'no attempt starts'}`, () =>
      assert.equal(isClaimable(stage), expected));
  }
});
