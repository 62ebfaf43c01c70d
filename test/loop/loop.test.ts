// The core loop end to end: signed event → receiver → queue → verifier → leaf cluster → store →
// decision → promotion, and the ways it must not go wrong.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { PIPELINE, deployed, pipelineDocument, settled, startLoop, upgradeEvent, upgrading } from './harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';

const devApp = {
  cluster: { namespace: 'flux-system', name: 'dev' },
  kind: 'HelmRelease' as const,
  namespace: 'apps',
  name: 'podinfo',
};
const prodApp = { ...devApp, cluster: { namespace: 'flux-system', name: 'prod' } };

describe('the core loop', () => {
  it('a signed event for a new dev revision promotes it to prod exactly once, however often it is repeated', async (t) => {
    const loop = await startLoop(t);
    await loop.deployEverywhere('6.9.1');
    assert.deepEqual(loop.promoter.promotions(), [], 'every environment already runs 6.9.1');

    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await waitFor('the promotion', () => loop.promoter.promotions().length === 1);
    assert.deepEqual(loop.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    // The promoter is called before the record is finished: wait for the record, not for the call.
    const record = await waitFor('the finished record', async () => {
      const found = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
      return found?.state === 'in-progress' ? undefined : found;
    });
    assert.equal(record.state, 'succeeded');
    assert.equal(record.result, 'recorded:flux-system/podinfo prod 6.9.2');

    // Flux retries a delivery it thinks failed, and several controllers may report the same rollout.
    const statuses = await Promise.all(Array.from({ length: 5 }, () => loop.sendEvent('dev', upgradeEvent('6.9.2'))));
    assert.deepEqual(statuses, [202, 202, 202, 202, 202]);
    await settled(loop.queue);
    assert.deepEqual(loop.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    const audit = await loop.store.listAudit(PIPELINE);
    assert.deepEqual(
      audit.items
        .filter((entry) => !isEnvironmentFact(entry))
        .map((entry) => entry.type)
        .reverse(),
      ['promotion-started', 'promotion-succeeded'],
    );
  });

  it('unsigned, wrongly signed, oversized and malformed requests enqueue nothing and read nothing', async (t) => {
    const loop = await startLoop(t);
    loop.dev.put(deployed('6.9.2'));
    const body = upgradeEvent('6.9.2');
    assert.equal(await loop.sendEvent('dev', body, ''), 401);
    assert.equal(await loop.sendEvent('dev', body, `sha256=${'0'.repeat(64)}`), 401);
    assert.equal(await loop.sendEvent('dev', body, 'sha1=2fd4e1c67a2d28fced849ee1bb76e7391b93eb12'), 401);
    // Signed with the key of another cluster.
    const prodSigned = await fetch(`${loop.server.url}/v1/events/flux-system/dev`, {
      method: 'POST',
      headers: { 'x-signature': (await import('../../lib/http/index.js')).signatureHeader(body, 'not-the-dev-key') },
      body,
    });
    assert.equal(prodSigned.status, 401);
    assert.equal(await loop.sendEvent('dev', body.slice(0, -1)), 400, 'malformed JSON, correctly signed');
    assert.equal(await loop.sendEvent('dev', '{"hello":"world"}'), 400, 'not a Flux event, correctly signed');
    assert.equal(await loop.sendEvent('dev', JSON.stringify({ pad: 'x'.repeat(3 * 1024 * 1024) })), 413, 'over 3 MiB');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(loop.queue.stats(), { visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 });
    assert.equal(loop.dev.count(), 0, 'the leaf cluster was never read');
  });

  it('an event that arrives before the HelmRelease settles is checked again, then acted on', async (t) => {
    const loop = await startLoop(t);
    await loop.deployEverywhere('6.9.1');

    // helm-controller sends UpgradeSucceeded before it writes the new status.
    loop.dev.put(upgrading('6.9.1', '6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    const unsettled = await waitFor('the unsettled status', async () => {
      const observed = await loop.store.getTargetStatus(devApp);
      return observed?.status.phase === 'Progressing' ? observed : undefined;
    });
    assert.equal(unsettled.status.revision, '6.9.1', 'what is deployed is still 6.9.1');
    assert.equal(unsettled.status.reason, 'GenerationNotObserved', 'helm-controller is on the new spec, not done');
    assert.deepEqual(loop.promoter.promotions(), []);

    loop.dev.put(deployed('6.9.2')); // the controller finishes; no second event is sent
    await waitFor('the promotion after the re-check', () => loop.promoter.promotions().length === 1);
    assert.equal(loop.promoter.promotions()[0]?.revision, '6.9.2');
    assert.ok(loop.dev.count('get') >= 2, 'the target was read again');
  });

  it('a lost event is repaired by the poll', async (t) => {
    const loop = await startLoop(t);
    await loop.deployEverywhere('6.9.1');

    loop.dev.put(deployed('6.9.3')); // the event for this rollout never arrives
    assert.equal(await loop.poll(), 2, 'one poll per (cluster, kind): dev and prod HelmReleases');
    await waitFor('the promotion from the poll', () => loop.promoter.promotions().length === 1);
    assert.deepEqual(loop.promoter.promotions()[0], {
      pipeline: 'flux-system/podinfo',
      env: 'prod',
      revision: '6.9.3',
      calls: 1,
    });
  });

  it('an unreachable cluster is recorded and retried, then dead-lettered, and recovers once it is back', async (t) => {
    const loop = await startLoop(t, { maxReceiveCount: 3 });
    loop.dev.put(deployed('6.9.2'));
    loop.prod.put(deployed('6.9.1'));
    loop.prod.put(deployed('6.9.1', 'apps-eu'));
    loop.prod.offline();
    await loop.poll();
    const dead = await waitFor('the dead-lettered poll', () =>
      loop.queue.deadLetters().find((letter) => letter.body.includes('"poll"') && letter.body.includes('"prod"')),
    );
    assert.equal(dead.receiveCount, 3);
    const recorded = await loop.store.getTargetStatus(prodApp);
    assert.deepEqual([recorded?.status.phase, recorded?.status.reason], ['Unreadable', 'Unreachable']);
    assert.match(recorded?.status.message ?? '', /prod/);
    assert.deepEqual(loop.promoter.promotions(), [], 'nothing is promoted into an environment we cannot see');

    loop.prod.online();
    await loop.poll();
    await waitFor('the promotion once prod is back', () => loop.promoter.promotions().length === 1);
    const recovered = await loop.store.getTargetStatus(prodApp);
    assert.equal(recovered?.status.phase, 'Ready');
  });

  it('a poll that finds nothing changed decides nothing, and a change once per cluster it was found on', async (t) => {
    const clusters = ['dev-a', 'dev-b', 'dev-c', 'prod-a', 'prod-b', 'prod-c'];
    const pipeline = devOnThreeClusters(clusters);
    // Poll messages reuse a definition read up to an hour ago here (30 s by default): deterministic counts.
    const loop = await startLoop(t, { pipeline, clusters, settings: { pollPipelineMaxAgeMs: 3_600_000 } });
    await loop.deployEverywhere('6.9.1');
    // Every decision starts by reading the pipeline's target statuses; count those reads, and the definition's.
    let decisions = 0;
    let definitionReads = 0;
    const getTargetStatuses = loop.store.getTargetStatuses.bind(loop.store);
    loop.store.getTargetStatuses = (apps) => {
      decisions += 1;
      return getTargetStatuses(apps);
    };
    const getPipeline = loop.store.getPipeline.bind(loop.store);
    loop.store.getPipeline = (key) => {
      definitionReads += 1;
      return getPipeline(key);
    };

    await loop.poll();
    await settled(loop.queue);
    // The poll's check of the pipeline decides nothing either: time alone cannot change this pipeline's decision.
    assert.equal(decisions, 0, 'six (cluster, kind) polls, nothing changed: no decision');
    assert.equal(
      definitionReads,
      0,
      'no definition: each LIST is what its digest says, and the check of the pipeline kept the definition it read ' +
        'since the configuration last changed',
    );
    for (const name of clusters) assert.equal(loop.cluster(name).count('list') >= 2, true, `${name} was listed again`);

    // A change on one cluster is decided on by that cluster's poll.
    for (const name of clusters.slice(0, 3)) loop.cluster(name).put(deployed('6.9.2'));
    decisions = 0;
    await loop.poll();
    await settled(loop.queue);
    assert.equal(decisions, 3, 'three changed dev clusters (decided within each poll message in this test)');
    assert.deepEqual(
      loop.promoter.promotions().map((promotion) => [promotion.env, promotion.revision]),
      [['prod', '6.9.2']],
    );
  });

  it('with the delayed decision (the default), the changes of one poll are decided once, after it', async (t) => {
    const clusters = ['dev-a', 'dev-b', 'dev-c', 'prod-a'];
    const pipeline = devOnThreeClusters(clusters);
    const loop = await startLoop(t, { pipeline, clusters, settings: { pollDecisionDelaySeconds: 1 } });
    await loop.deployEverywhere('6.9.1');
    let decisions = 0;
    const getTargetStatuses = loop.store.getTargetStatuses.bind(loop.store);
    loop.store.getTargetStatuses = (apps) => {
      decisions += 1;
      return getTargetStatuses(apps);
    };

    for (const name of clusters.slice(0, 3)) loop.cluster(name).put(deployed('6.9.2'));
    await loop.poll();
    await settled(loop.queue);
    assert.equal(decisions, 1, 'three changed dev clusters: one delayed decision');
    assert.deepEqual(
      loop.promoter.promotions().map((promotion) => [promotion.env, promotion.revision]),
      [['prod', '6.9.2']],
      'the delayed decision saw all three',
    );
  });

  it('one poll of a fleet of many apps costs exactly one LIST per (cluster, kind) and no GET', async (t) => {
    const loop = await startLoop(t);
    const apps = 120;
    for (let i = 0; i < apps; i += 1) {
      const name = `svc-${i}`;
      const document: PipelineDocument = {
        ...pipelineDocument,
        metadata: { name, namespace: 'flux-system' },
        spec: {
          ...pipelineDocument.spec,
          appRef: { ...pipelineDocument.spec.appRef, name },
          environments: [
            { name: 'dev', targets: [{ namespace: 'fleet', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
            { name: 'prod', targets: [{ namespace: 'fleet', clusterRef: { kind: 'GitopsCluster', name: 'prod' } }] },
          ],
        },
      };
      await loop.store.applyPipeline(document, resolvePipeline(document), new Date());
      for (const fake of [loop.dev, loop.prod]) {
        const object = deployed('1.0.0', 'fleet') as { metadata: { name: string } };
        object.metadata.name = name;
        fake.put(object);
      }
    }
    loop.dev.resetRequests();
    loop.prod.resetRequests();
    await loop.poll();
    await settled(loop.queue);
    for (const fake of [loop.dev, loop.prod]) {
      assert.equal(fake.count('list'), 1);
      assert.equal(fake.count('get'), 0);
    }
    const statuses = await loop.store.getTargetStatuses(
      Array.from({ length: apps }, (_, i) => ({ ...prodApp, namespace: 'fleet', name: `svc-${i}` })),
    );
    assert.equal(statuses.size, apps);
    assert.ok(
      [...statuses.values()].every((entry) => entry.status.phase === 'Ready' && entry.status.revision === '1.0.0'),
    );
  });
});

/** dev on the first three of `clusters`, prod on the others, each target in namespace `apps`. */
function devOnThreeClusters(clusters: readonly string[]): PipelineDocument {
  const across = (names: readonly string[]) =>
    names.map((name) => ({ namespace: 'apps', clusterRef: { kind: 'GitopsCluster' as const, name } }));
  return {
    ...pipelineDocument,
    spec: {
      ...pipelineDocument.spec,
      environments: [
        { name: 'dev', targets: across(clusters.slice(0, 3)) },
        { name: 'prod', targets: across(clusters.slice(3)) },
      ],
    },
  };
}
