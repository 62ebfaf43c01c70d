// Whether time alone can change a pipeline's decision (lib/decision/time-dependence.ts): the poll's check of every
// pipeline reads a pipeline's target statuses only when it can. Each row is one reason, or none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timeDependence, type TimeDependence } from '../../lib/decision/index.js';
import type { PromotionRecord } from '../../lib/decision/index.js';
import type { FreezeSwitch } from '../../lib/pipeline/freeze.js';
import { resolvePipeline, type Pipeline } from '../../lib/pipeline/model.js';
import { pipelineDocument } from '../verifier/world.js';

const NOW = new Date('2026-11-24T12:00:00Z');
const LATER = '2026-11-24T12:05:00Z';
const EARLIER = '2026-11-24T11:55:00Z';

function pipeline(prod: Record<string, unknown> = {}, options: { devSoak?: string } = {}): Pipeline {
  const document = pipelineDocument(options);
  const environments = document.spec.environments.map((env) => (env.name === 'prod' ? { ...env, ...prod } : env));
  const changed = { ...document, spec: { ...document.spec, environments } };
  return resolvePipeline(changed);
}

const record = (fields: Partial<PromotionRecord>): PromotionRecord => ({
  env: 'prod',
  revision: '6.9.2',
  state: 'succeeded',
  attempts: 1,
  updatedAt: EARLIER,
  ...fields,
});

const switchFor = (scope: FreezeSwitch['scope']): FreezeSwitch => ({
  scope,
  reason: 'incident',
  by: 'sre',
  at: EARLIER,
});

describe('timeDependence', () => {
  const cases: {
    name: string;
    pipeline: Pipeline;
    promotions?: PromotionRecord[];
    freezes?: FreezeSwitch[];
    expected: TimeDependence | undefined;
  }[] = [
    { name: 'no soak, window, rollback, open record or switch: none', pipeline: pipeline(), expected: undefined },
    { name: 'dev soaks', pipeline: pipeline({}, { devSoak: '30m' }), expected: 'soak' },
    {
      name: 'prod has a freeze window',
      pipeline: pipeline({ freeze: [{ from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin' }] }),
      expected: 'freeze-window',
    },
    { name: 'prod rolls back by pull request', pipeline: pipeline({ rollback: 'pull-request' }), expected: 'rollback' },
    {
      name: 'a promotion under a lease',
      pipeline: pipeline(),
      promotions: [record({ state: 'in-progress', leaseExpiresAt: LATER })],
      expected: 'open-promotion',
    },
    {
      name: 'a promotion whose lease expired',
      pipeline: pipeline(),
      promotions: [record({ state: 'in-progress', leaseExpiresAt: EARLIER })],
      expected: 'open-promotion',
    },
    {
      name: 'a failed promotion with a retry to come',
      pipeline: pipeline(),
      promotions: [record({ state: 'failed', retryAt: LATER })],
      expected: 'open-promotion',
    },
    {
      name: 'a pending record (created by an older version)',
      pipeline: pipeline(),
      promotions: [record({ state: 'pending' })],
      expected: 'open-promotion',
    },
    {
      name: 'succeeded and failed-for-good records only: none',
      pipeline: pipeline(),
      promotions: [record({}), record({ revision: '6.9.3', state: 'failed' })],
      expected: undefined,
    },
    {
      name: 'an installation-wide stop switch',
      pipeline: pipeline(),
      freezes: [switchFor({ installation: true })],
      expected: 'freeze-switch',
    },
    {
      name: "the pipeline's own stop switch",
      pipeline: pipeline(),
      freezes: [switchFor({ pipeline: { namespace: 'flux-system', name: 'podinfo' } })],
      expected: 'freeze-switch',
    },
    {
      name: "another pipeline's stop switch: none",
      pipeline: pipeline(),
      freezes: [switchFor({ pipeline: { namespace: 'flux-system', name: 'other' } })],
      expected: undefined,
    },
  ];
  for (const { name, pipeline: subject, promotions = [], freezes = [], expected } of cases) {
    it(name, () => {
      assert.equal(timeDependence(subject, promotions, freezes, NOW), expected);
    });
  }
});
