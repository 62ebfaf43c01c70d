// The `flaggerCanary` check, read from fake leaf clusters through the product's cluster reader (the real
// @kubernetes/client-node over HTTPS): each phase's verdict, a Canary decided before the target reached the
// candidate, clusters combined, and the ways a read fails.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import { FLAGGER_GROUP, type FakeKubeApi, type FakeKubeApiOptions } from '../../lib/testing/fake-kube-api.js';
import { evaluateFlaggerCanaryCheck, type CanaryTarget } from '../../lib/verification/flagger-canary-check.js';
import { canary, type CanaryOptions } from '../fixtures/flagger-objects.js';
import { gitopsCluster, Registry, startFake } from '../clusters/helpers.js';

const CHECK = { name: 'podinfo', namespace: 'apps' };
/** When the targets reached the candidate; the Canaries' phases change after it unless a test says otherwise. */
const REACHED = '2026-03-02T09:50:00.250Z';
const AFTER = '2026-03-02T10:00:00Z';
const BEFORE = '2026-03-02T09:40:00Z';
const NOW = new Date('2026-03-02T10:05:00Z');

const EU: ObjectKey = { namespace: 'flux-system', name: 'prod-eu' };
const US: ObjectKey = { namespace: 'flux-system', name: 'prod-us' };

interface Leaf {
  key: ObjectKey;
  fake: FakeKubeApi;
}

/** A fake API server per cluster, each registered as a GitopsCluster with a kubeconfig Secret. */
async function leafClusters(
  t: TestContext,
  keys: readonly ObjectKey[],
  options: FakeKubeApiOptions = {},
): Promise<{ leaves: Leaf[]; registry: Registry }> {
  const registry = new Registry();
  const leaves: Leaf[] = [];
  for (const key of keys) {
    const fake = await startFake(t, options);
    registry.setCluster(gitopsCluster(key));
    registry.secrets.set({ namespace: key.namespace, name: `${key.name}-kubeconfig` }, { value: fake.kubeconfig() });
    leaves.push({ key, fake });
  }
  return { leaves, registry };
}

function evaluate(registry: Registry, keys: readonly ObjectKey[], options: { timeoutMs?: number } = {}) {
  const targets: CanaryTarget[] = keys.map((cluster) => ({ cluster, reachedCandidateAt: REACHED }));
  const clusters = registry.reader({ timeoutMs: options.timeoutMs });
  return evaluateFlaggerCanaryCheck('canary', CHECK, { clusters, targets, now: () => NOW });
}

/** One cluster whose Canary is `options` (absent when undefined). */
async function oneCluster(t: TestContext, options: CanaryOptions | undefined) {
  const { leaves, registry } = await leafClusters(t, [EU]);
  if (options) leaves[0]?.fake.put(canary(options));
  return evaluate(registry, [EU]);
}

describe('flaggerCanary check', () => {
  it('passes when the Canary Succeeded after the target reached the candidate', async (t) => {
    const result = await oneCluster(t, { phase: 'Succeeded', lastTransitionTime: AFTER });
    assert.deepEqual(result, {
      name: 'canary',
      kind: 'flaggerCanary',
      verdict: 'passed',
      reason: 'CanarySucceeded',
      value: 'Succeeded on flux-system/prod-eu',
      message: "Canary apps/podinfo succeeded for the candidate on every target's cluster",
      checkedAt: NOW.toISOString(),
    });
  });

  it('fails when the Canary Failed after the target reached the candidate, with Flagger’s message', async (t) => {
    const result = await oneCluster(t, { phase: 'Failed', lastTransitionTime: AFTER });
    assert.equal(result.verdict, 'failed');
    assert.equal(result.reason, 'CanaryFailed');
    assert.equal(result.value, 'Failed: Canary analysis failed, Deployment scaled to zero. on flux-system/prod-eu');
    assert.match(result.message, /^Canary apps\/podinfo on flux-system\/prod-eu: Failed: Canary analysis failed/);
  });

  for (const phase of [
    'Initialized',
    'Waiting',
    'Progressing',
    'WaitingPromotion',
    'Promoting',
    'Finalising',
  ] as const) {
    it(`is pending while the Canary is ${phase}`, async (t) => {
      const result = await oneCluster(t, { phase, lastTransitionTime: AFTER });
      assert.equal(result.verdict, 'pending');
      assert.equal(result.reason, 'CanaryProgressing');
      assert.match(result.value, new RegExp(`^${phase}( \\(weight 20\\))? on flux-system/prod-eu$`));
    });
  }

  it('is pending while a Canary that Succeeded before the target reached the candidate has not analysed it', async (t) => {
    const result = await oneCluster(t, { phase: 'Succeeded', lastTransitionTime: BEFORE });
    assert.equal(result.verdict, 'pending');
    assert.equal(result.reason, 'CanaryProgressing');
    assert.equal(result.value, 'Succeeded before the candidate on flux-system/prod-eu');
    assert.match(result.message, /Succeeded since 2026-03-02T09:40:00\.000Z, before the target reached the candidate/);
  });

  it('is pending, not failed, while a Canary that Failed on an earlier revision has not analysed the candidate', async (t) => {
    const result = await oneCluster(t, { phase: 'Failed', lastTransitionTime: BEFORE });
    assert.equal(result.verdict, 'pending');
    assert.equal(result.reason, 'CanaryProgressing');
  });

  it('counts a phase reached in the same second as the target, whose time has milliseconds', async (t) => {
    const result = await oneCluster(t, { phase: 'Succeeded', lastTransitionTime: '2026-03-02T09:50:00Z' });
    assert.equal(result.verdict, 'passed');
  });

  it('is inconclusive when the cluster has no such Canary', async (t) => {
    const result = await oneCluster(t, undefined);
    assert.equal(result.verdict, 'inconclusive');
    assert.equal(result.reason, 'CanaryNotFound');
    assert.equal(result.value, 'not found on flux-system/prod-eu');
  });

  it('is inconclusive when the cluster does not serve Flagger’s API at all', async (t) => {
    const { leaves, registry } = await leafClusters(t, [EU]);
    leaves[0]?.fake.setServedVersions(FLAGGER_GROUP, []);
    const result = await evaluate(registry, [EU]);
    assert.equal(result.verdict, 'inconclusive');
    assert.equal(result.reason, 'CanaryNotFound');
  });

  it('is inconclusive on a status it cannot read, and quotes no more than a line of what the cluster says', async (t) => {
    const unreadable = await oneCluster(t, { status: { phase: 7 } });
    assert.equal(unreadable.verdict, 'inconclusive');
    assert.equal(unreadable.reason, 'InvalidAnswer');

    const long = `Failed\n${'x'.repeat(5000)}`;
    const { leaves, registry } = await leafClusters(t, [EU]);
    leaves[0]?.fake.put(canary({ phase: 'Failed', lastTransitionTime: AFTER, message: long }));
    const failed = await evaluate(registry, [EU]);
    assert.equal(failed.verdict, 'failed');
    assert.ok(!failed.value.includes('\n') && failed.value.length <= 400, failed.value);
    assert.ok(!failed.message.includes('\n') && failed.message.length < 400, failed.message);
  });

  describe('two clusters', () => {
    it('pass when the Canary Succeeded on both', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU, US]);
      for (const leaf of leaves) leaf.fake.put(canary({ phase: 'Succeeded', lastTransitionTime: AFTER }));
      const result = await evaluate(registry, [EU, US]);
      assert.equal(result.verdict, 'passed');
      assert.equal(result.value, 'Succeeded on flux-system/prod-eu, flux-system/prod-us');
    });

    it('fail when one failed, whatever the other says, naming the cluster that failed', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU, US]);
      leaves[0]?.fake.put(canary({ phase: 'Progressing', lastTransitionTime: AFTER }));
      leaves[1]?.fake.put(canary({ phase: 'Failed', lastTransitionTime: AFTER }));
      const result = await evaluate(registry, [EU, US]);
      assert.equal(result.verdict, 'failed');
      assert.match(result.value, /^Failed: .* on flux-system\/prod-us$/);
    });

    it('are inconclusive before pending: one missing, one progressing', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU, US]);
      leaves[0]?.fake.put(canary({ phase: 'Progressing', lastTransitionTime: AFTER }));
      const result = await evaluate(registry, [EU, US]);
      assert.equal(result.verdict, 'inconclusive');
      assert.equal(result.value, 'not found on flux-system/prod-us');
    });

    it('are pending while one is still progressing and the other succeeded', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU, US]);
      leaves[0]?.fake.put(canary({ phase: 'Succeeded', lastTransitionTime: AFTER }));
      leaves[1]?.fake.put(canary({ phase: 'Progressing', lastTransitionTime: AFTER }));
      const result = await evaluate(registry, [EU, US]);
      assert.equal(result.verdict, 'pending');
      assert.equal(result.value, 'Progressing (weight 20) on flux-system/prod-us');
    });

    it('read a cluster with two targets once, against the later of their times', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU]);
      leaves[0]?.fake.put(canary({ phase: 'Succeeded', lastTransitionTime: AFTER }));
      const later = '2026-03-02T10:02:00Z';
      const result = await evaluateFlaggerCanaryCheck('canary', CHECK, {
        clusters: registry.reader(),
        targets: [
          { cluster: EU, reachedCandidateAt: REACHED },
          { cluster: EU, reachedCandidateAt: later },
        ],
        now: () => NOW,
      });
      assert.equal(result.verdict, 'pending');
      assert.equal(leaves[0]?.fake.count('get'), 1);
    });
  });

  describe('a cluster that cannot be read', () => {
    it('answering 403 to the GET is inconclusive, Unauthorized', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU], {
        user: { name: 'flux-reader', namespaces: ['flux-system'] },
      });
      leaves[0]?.fake.put(canary({ phase: 'Succeeded', lastTransitionTime: AFTER }));
      const result = await evaluate(registry, [EU]);
      assert.equal(result.verdict, 'inconclusive');
      assert.equal(result.reason, 'Unauthorized');
      assert.match(result.message, /403 Forbidden reading canaries\/podinfo in apps/);
    });

    it('refusing the token is Unauthorized; one that does not answer is Timeout; a 5xx is ServerError', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU]);
      const fake = leaves[0]?.fake;
      assert.ok(fake);
      fake.put(canary({ phase: 'Succeeded', lastTransitionTime: AFTER }));

      fake.injectFault({ type: 'status', status: 401 }, { path: '/canaries/' });
      assert.equal((await evaluate(registry, [EU])).reason, 'Unauthorized');

      fake.injectFault({ type: 'status', status: 503 }, { path: '/canaries/' });
      assert.equal((await evaluate(registry, [EU])).reason, 'ServerError');

      fake.injectFault({ type: 'hang' }, { path: '/canaries/' });
      const timedOut = await evaluate(registry, [EU], { timeoutMs: 500 });
      assert.deepEqual([timedOut.verdict, timedOut.reason], ['inconclusive', 'Timeout']);
    });

    it('that is offline is Unreachable', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU]);
      leaves[0]?.fake.offline();
      const result = await evaluate(registry, [EU]);
      assert.deepEqual([result.verdict, result.reason], ['inconclusive', 'Unreachable']);
    });

    it('answering more than the reader reads is AnswerTooLarge', async (t) => {
      const { leaves, registry } = await leafClusters(t, [EU]);
      leaves[0]?.fake.put({
        ...canary({ phase: 'Succeeded', lastTransitionTime: AFTER }),
        spec: { padding: 'x'.repeat(5 * 1024 * 1024) },
      });
      const result = await evaluate(registry, [EU]);
      assert.deepEqual([result.verdict, result.reason], ['inconclusive', 'AnswerTooLarge']);
    });
  });
});
