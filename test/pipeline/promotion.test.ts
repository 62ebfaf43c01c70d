import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Promotion, strategyOf } from '../../lib/pipeline/promotion.js';

const pullRequest = {
  type: 'github',
  url: 'https://github.com/acme/fleet',
  baseBranch: 'main',
  secretRef: { name: 'git' },
} as const;

describe('strategyOf', () => {
  const cases: Array<{ name: string; promotion: Promotion; expected: string }> = [
    { name: 'pull-request alone', promotion: { strategy: { 'pull-request': pullRequest } }, expected: 'pull-request' },
    { name: 'notification alone', promotion: { strategy: { notification: {} } }, expected: 'notification' },
    {
      name: 'both given: pull-request wins',
      promotion: { strategy: { 'pull-request': pullRequest, notification: {} } },
      expected: 'pull-request',
    },
    {
      name: 'manual with notification',
      promotion: { manual: true, strategy: { notification: {} } },
      expected: 'notification',
    },
  ];
  for (const { name, promotion, expected } of cases) {
    it(name, () => assert.equal(strategyOf(promotion), expected));
  }
});
