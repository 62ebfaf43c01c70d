// `pipelinectl retry --rollback`: a rollback pull request that failed for good (docs/rollback.md) is made due again
// once the person fixed its cause, under the caller's identity; refused, writing nothing, when there is none to retry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryPromotion } from '../../lib/cli/operations/retry.js';
import type { Backend } from '../../lib/cli/backend.js';
import { CliError } from '../../lib/cli/errors.js';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { PIPELINE, pipelineDocument } from '../loop/harness.js';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-24T12:00:00.000Z');
const cluster = (name: string) => ({ namespace: 'flux-system', name });
const appOn = (name: string, namespace = 'apps') =>
  ({ cluster: cluster(name), kind: 'HelmRelease', namespace, name: 'podinfo' }) as const;

const withRollback: PipelineDocument = {
  ...pipelineDocument,
  spec: {
    ...pipelineDocument.spec,
    environments: pipelineDocument.spec.environments.map((env) =>
      env.name === 'prod' ? { ...env, rollback: 'pull-request' } : env,
    ),
    promotion: {
      strategy: {
        'pull-request': {
          type: 'github',
          url: 'https://github.com/acme/fleet',
          baseBranch: 'main',
          secretRef: { name: 'github' },
        },
      },
    },
  },
};

/** prod was promoted to 6.9.3 and fails on it (rolled back by helm-controller); its rollback failed for good. */
async function failedRollback(): Promise<{ store: MemoryStore; sent: QueueMessage[]; backend: Backend }> {
  const store = new MemoryStore();
  const before = new Date(NOW.getTime() - 2 * HOUR);
  await store.applyPipeline(withRollback, resolvePipeline(withRollback), before);
  await store.recordTargetStatus(
    appOn('dev'),
    { phase: 'Ready', reason: 'Deployed', message: 'ok', revision: '6.9.3' },
    before,
  );
  for (const namespace of ['apps', 'apps-eu']) {
    await store.recordTargetStatus(
      appOn('prod', namespace),
      { phase: 'Failed', reason: 'RolledBack', message: 'rolled back', revision: '6.9.2', failedRevision: '6.9.3' },
      before,
    );
  }
  await store.appendAudit({
    at: new Date(NOW.getTime() - 3 * HOUR).toISOString(),
    pipeline: PIPELINE,
    type: 'environment-passed',
    env: 'prod',
    revision: '6.9.2',
    message: 'prod passed on 6.9.2',
  });
  await store.createPromotion(PIPELINE, 'prod', '6.9.3', before);
  const promoted = await store.claimPromotion(PIPELINE, 'prod', '6.9.3', 'test', 60_000, before);
  assert.ok(promoted && (await store.completePromotion(promoted, 'https://github.com/acme/fleet/pull/1', before)));
  await store.createPromotion(PIPELINE, 'rollback:prod', '6.9.3', before);
  const rollback = await store.claimPromotion(PIPELINE, 'rollback:prod', '6.9.3', 'test', 60_000, before);
  assert.ok(rollback && (await store.failPromotion(rollback, 'bad credentials', undefined, before)));

  const sent: QueueMessage[] = [];
  const unused = () => Promise.reject(new Error('not used by retry'));
  const backend: Backend = {
    description: 'the test store',
    store,
    putSecret: unused,
    secretKeys: unused,
    enqueue: (message) => Promise.resolve((sent.push(message), true)),
    masterKeys: unused,
    identity: () => Promise.resolve('local:alice'),
    close: () => Promise.resolve(),
  };
  return { store, sent, backend };
}

describe('pipelinectl retry --rollback', () => {
  it('makes the failed rollback due now, recorded with who asked, and re-checks the pipeline', async () => {
    const { store, sent, backend } = await failedRollback();
    const result = await retryPromotion(backend, PIPELINE, 'prod', undefined, NOW, { rollback: true });
    assert.deepEqual(result, {
      revision: '6.9.3',
      attempt: 2,
      by: 'local:alice',
      at: NOW.toISOString(),
      delivered: true,
    });
    const record = await store.getPromotion(PIPELINE, 'rollback:prod', '6.9.3');
    assert.equal(record?.retryAt, NOW.toISOString());
    assert.deepEqual(sent, [
      { type: 'check-pipeline', pipeline: PIPELINE, env: 'prod', cause: 'retry', readTargets: false },
    ]);
    const [entry] = (await store.listAudit(PIPELINE)).items;
    assert.equal(entry?.type, 'promotion-retry-requested');
    assert.equal(entry?.actor, 'local:alice');
    assert.match(entry?.message ?? '', /rollback of prod from 6\.9\.3/);
  });

  it('without --rollback the failed rollback is not what is retried (the promotion succeeded)', async () => {
    const { backend, sent } = await failedRollback();
    await assert.rejects(
      retryPromotion(backend, PIPELINE, 'prod', undefined, NOW),
      (error) => error instanceof CliError && /succeeded/.test(error.message),
    );
    assert.deepEqual(sent, []);
  });

  it('refuses where no rollback was recorded, writing nothing', async () => {
    const { backend, sent } = await failedRollback();
    await assert.rejects(
      retryPromotion(backend, PIPELINE, 'dev', undefined, NOW, { rollback: true }),
      (error) =>
        error instanceof CliError && /no rollback in flux-system\/podinfo dev was recorded/.test(error.message),
    );
    assert.deepEqual(sent, []);
  });
});
