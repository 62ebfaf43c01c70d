// Manual approval end to end: a manual environment waits for an approval of exactly the candidate,
// given through Weave's /approval endpoint, and is then promoted once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { signatureHeader } from '../../lib/http/index.js';
import { PIPELINE, deployed, pipelineDocument, settled, startLoop, upgradeEvent } from './harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';

const manualProd: PipelineDocument = {
  ...pipelineDocument,
  spec: {
    ...pipelineDocument.spec,
    environments: pipelineDocument.spec.environments.map((env) =>
      env.name === 'prod' ? { ...env, promotion: { manual: true, strategy: { notification: {} } } } : env,
    ),
  },
};

async function startAtBaseline(t: Parameters<typeof startLoop>[0]) {
  const loop = await startLoop(t, { pipeline: manualProd });
  await loop.deployEverywhere('6.9.1');
  return loop;
}

describe('manual approval', () => {
  it('asks for approval of the candidate, refuses anything but that revision, then promotes it once', async (t) => {
    const loop = await startAtBaseline(t);
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    const marker = await waitFor('the approval request', () => loop.store.getApproval(PIPELINE, 'prod'));
    assert.equal(marker.revision, '6.9.2');
    assert.equal(marker.approvedAt, undefined);
    await settled(loop.queue);
    assert.deepEqual(loop.promoter.promotions(), [], 'nothing is promoted before the approval');

    assert.equal(await loop.approve('prod', '6.9.1'), 422, 'an older revision');
    assert.equal(await loop.approve('prod', '6.9.3'), 422, 'a revision nobody asked for');
    assert.equal(await loop.approve('prod', '6.9.2', ''), 401, 'unsigned');
    assert.equal(
      await loop.approve('prod', '6.9.2', signatureHeader('', 'another-key')),
      401,
      'signed with another key',
    );
    assert.equal(await loop.approve('staging', '6.9.2'), 422, 'an environment the pipeline does not have');
    await settled(loop.queue);
    assert.deepEqual(loop.promoter.promotions(), []);
    assert.equal((await loop.store.getApproval(PIPELINE, 'prod'))?.approvedAt, undefined, 'nothing changed');

    assert.equal(await loop.approve('prod', '6.9.2'), 202);
    await waitFor('the approved promotion', () => loop.promoter.promotions().length === 1);
    assert.equal(await loop.approve('prod', '6.9.2'), 202, 'approving twice is harmless');
    await settled(loop.queue);
    assert.deepEqual(loop.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    const approved = await loop.store.getApproval(PIPELINE, 'prod');
    assert.equal(approved?.approvedBy, 'hmac-key of Secret flux-system/webhook-hmac');
    const audit = (await loop.store.listAudit(PIPELINE)).items.filter((entry) => !isEnvironmentFact(entry)).reverse();
    assert.deepEqual(
      audit.filter((entry) => entry.type !== 'approved').map((entry) => entry.type),
      ['approval-requested', 'promotion-started', 'promotion-succeeded'],
    );
    // The webhook's approval leaves the same trace as pipelinectl's, once: who approved, here the name of the key.
    assert.deepEqual(
      audit
        .filter((entry) => entry.type === 'approved')
        .map(({ env, revision, actor, message }) => ({ env, revision, actor, message })),
      [
        {
          env: 'prod',
          revision: '6.9.2',
          actor: 'hmac-key of Secret flux-system/webhook-hmac',
          message: '6.9.2 approved for prod with the approval webhook',
        },
      ],
    );
  });

  it('a newer candidate replaces the request, and the superseded revision can no longer be approved', async (t) => {
    const loop = await startAtBaseline(t);
    loop.dev.put(deployed('6.9.2'));
    await loop.sendEvent('dev', upgradeEvent('6.9.2'));
    await waitFor(
      'the first request',
      async () => (await loop.store.getApproval(PIPELINE, 'prod'))?.revision === '6.9.2',
    );

    loop.dev.put(deployed('6.9.3'));
    await loop.sendEvent('dev', upgradeEvent('6.9.3'));
    await waitFor(
      'the new request',
      async () => (await loop.store.getApproval(PIPELINE, 'prod'))?.revision === '6.9.3',
    );
    assert.equal(await loop.approve('prod', '6.9.2'), 422);
    assert.equal(await loop.approve('prod', '6.9.3'), 202);
    await waitFor('the promotion of 6.9.3', () => loop.promoter.promotions().length === 1);
    assert.equal(loop.promoter.promotions()[0]?.revision, '6.9.3');
  });

  it('a waiting approval survives a restart of the process', async (t) => {
    const loop = await startAtBaseline(t);
    loop.dev.put(deployed('6.9.2'));
    await loop.sendEvent('dev', upgradeEvent('6.9.2'));
    await waitFor('the request', () => loop.store.getApproval(PIPELINE, 'prod'));
    await settled(loop.queue);

    await loop.restart();
    assert.equal(await loop.approve('prod', '6.9.2'), 202);
    await waitFor('the promotion after the restart', () => loop.promoter.promotions().length === 1);
  });
});
