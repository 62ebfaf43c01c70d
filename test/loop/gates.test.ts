// The gates end to end (docs/freeze.md, docs/rollback.md): a stop switch holds prod's promotion until
// `unfreeze`, which re-checks the pipeline at once; a freeze window holds it until the window ends, when the
// verifier's own delayed re-check makes it without a poll; a promoted revision that fails in prod past its grace
// period gets exactly one rollback pull request with the bytes of the last healthy revision. Time is a manual clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { clearFreeze } from '../../lib/freeze/clear-freeze.js';
import { setFreeze } from '../../lib/freeze/set-freeze.js';
import { GitHubPullRequestPromoter } from '../../lib/testing/github-pull-request-promoter.js';
import { StrategyPromoter } from '../../lib/promotion/index.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { rolledBackHelmRelease } from '../fixtures/flux-objects.js';
import { loadPipelineView } from '../../lib/views/pipeline-view.js';
import { ManualClock, PIPELINE, deployed, idle, pipelineDocument, startLoop, upgradeEvent } from './harness.js';

const MINUTE = 60_000;

async function startAtBaseline(t: Parameters<typeof startLoop>[0], pipeline: PipelineDocument = pipelineDocument) {
  const clock = new ManualClock();
  const loop = await startLoop(t, { pipeline, clock });
  await loop.deployEverywhere('6.9.1');
  clock.advance(3 * 60 * MINUTE);
  return { loop, clock };
}

type Loop = Awaited<ReturnType<typeof startAtBaseline>>['loop'];

async function devRuns(loop: Loop, version: string): Promise<void> {
  loop.dev.put(deployed(version));
  assert.equal(await loop.sendEvent('dev', upgradeEvent(version)), 202);
  await idle(loop.queue);
}

async function prodState(loop: Loop, clock: ManualClock) {
  const view = await loadPipelineView(loop.store, PIPELINE, new Date(clock.now()));
  const prod = view?.environments.find((env) => env.name === 'prod');
  return { state: prod?.state, reason: prod?.reason, frozenUntil: prod?.frozenUntil, rollbackAt: prod?.rollbackAt };
}

/** `HH:MM` in UTC, `minutes` from the clock's now. */
function utcClock(clock: ManualClock, minutes: number): string {
  return new Date(clock.now() + minutes * MINUTE).toISOString().slice(11, 16);
}

describe('freeze', () => {
  it('a stop switch holds the promotion; unfreeze re-checks and it is made at once', async (t) => {
    const { loop, clock } = await startAtBaseline(t);
    const now = () => new Date(clock.now());
    const frozen = await setFreeze(
      { store: loop.store },
      {
        scope: { installation: true },
        env: 'prod',
        reason: 'incident 4711',
        by: 'local:alice',
        via: 'test',
        now: now(),
      },
    );
    assert.equal(frozen.outcome, 'frozen');

    await devRuns(loop, '6.9.2');
    assert.deepEqual(loop.promoter.promotions(), [], 'frozen: nothing promoted');
    assert.deepEqual(await prodState(loop, clock), {
      state: 'frozen',
      reason: 'FrozenBySwitch',
      frozenUntil: undefined,
      rollbackAt: undefined,
    });

    clock.advance(20 * MINUTE);
    const lifted = await clearFreeze(
      { store: loop.store, enqueue: async (message) => (await loop.queue.send(message), true) },
      { scope: { installation: true }, env: 'prod', by: 'local:alice', via: 'test', now: now() },
    );
    assert.equal(lifted.outcome, 'unfrozen');
    await idle(loop.queue);
    assert.deepEqual(
      loop.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
      ['prod 6.9.2'],
      'promoted right after unfreeze, without a poll',
    );
    const trail = await loop.store.listAudit(PIPELINE, { limit: 50 });
    const types = trail.items.map((entry) => `${entry.type} ${entry.actor ?? ''}`.trim());
    assert.ok(types.includes('freeze-set local:alice'), types.join(', '));
    assert.ok(types.includes('freeze-cleared local:alice'), types.join(', '));
  });

  it('a freeze window holds the promotion until it ends; the verifier re-checks then by itself', async (t) => {
    const clock = new ManualClock();
    // The clock on a whole minute, so that the window's end reads back exactly.
    clock.advance(MINUTE - (clock.now() % MINUTE));
    const window = { from: utcClock(clock, 3 * 60 - 5), to: utcClock(clock, 3 * 60 + 40), timeZone: 'UTC' };
    const pipeline: PipelineDocument = {
      ...pipelineDocument,
      spec: {
        ...pipelineDocument.spec,
        environments: pipelineDocument.spec.environments.map((env) =>
          env.name === 'prod' ? { ...env, freeze: [{ ...window, reason: 'release train' }] } : env,
        ),
      },
    };
    const loop = await startLoop(t, { pipeline, clock });
    await loop.deployEverywhere('6.9.1');
    clock.advance(3 * 60 * MINUTE);

    await devRuns(loop, '6.9.2');
    const held = await prodState(loop, clock);
    assert.equal(held.state, 'frozen');
    assert.equal(held.reason, 'FrozenByWindow');
    assert.equal(held.frozenUntil, new Date(clock.now() + 40 * MINUTE).toISOString().replace('.000Z', 'Z'));

    for (let waited = 0; waited < 39; waited += 13) {
      clock.advance(13 * MINUTE);
      await idle(loop.queue);
    }
    assert.deepEqual(loop.promoter.promotions(), [], 'a minute before the window ends: nothing promoted');
    clock.advance(MINUTE + 2000);
    await idle(loop.queue);
    assert.deepEqual(
      loop.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
      ['prod 6.9.2'],
    );
  });
});

const pullRequest = {
  type: 'github' as const,
  url: 'https://github.com/acme/fleet',
  baseBranch: 'main',
  secretRef: { name: 'github' },
};

const release = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
`;

describe('rollback by pull request', () => {
  it('a promoted revision failing in prod past the grace period gets one rollback pull request', async (t) => {
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', {
      'clusters/dev/podinfo.yaml': release('dev', '6.9.2'),
      'clusters/prod/podinfo.yaml': release('prod', '6.9.2'),
    });
    const pipeline: PipelineDocument = {
      ...pipelineDocument,
      spec: {
        ...pipelineDocument.spec,
        environments: pipelineDocument.spec.environments.map((env) =>
          env.name === 'prod' ? { ...env, rollback: 'pull-request', rollbackAfter: '10m' } : env,
        ),
        promotion: { strategy: { 'pull-request': pullRequest, secretRef: { name: 'webhook-hmac' } } },
      },
    };
    const clock = new ManualClock();
    const loop = await startLoop(t, {
      pipeline,
      clock,
      secrets: { github: { token: github.token } },
      promoter: (secrets) =>
        new StrategyPromoter({
          pullRequest: new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, writeIntervalMs: 0 }),
        }),
    });
    // prod has been healthy on 6.9.2: the environment-passed fact the rollback goes back to.
    await loop.deployEverywhere('6.9.2');
    await idle(loop.queue);
    clock.advance(60 * MINUTE);

    await devRuns(loop, '6.9.3');
    const promotion = github.pulls('acme', 'fleet');
    assert.equal(promotion.length, 1, 'the promotion of 6.9.3 to prod');
    github.merge('acme', 'fleet', promotion[0]!.number);

    // helm-controller upgraded prod to 6.9.3, it failed and was remediated: Failed on 6.9.3.
    for (const namespace of ['apps', 'apps-eu']) {
      loop.prod.put(rolledBackHelmRelease({ metadata: { namespace } }));
    }
    for (const namespace of ['apps', 'apps-eu']) {
      assert.equal(await loop.sendEvent('prod', upgradeEvent('6.9.3', namespace)), 202);
    }
    await idle(loop.queue);
    const grace = await prodState(loop, clock);
    assert.equal(grace.reason, 'RollbackGracePeriod');
    assert.equal(github.pulls('acme', 'fleet').length, 1, 'within the grace period: no rollback yet');

    clock.advance(10 * MINUTE + 2000);
    await idle(loop.queue);
    const pulls = github.pulls('acme', 'fleet');
    assert.equal(pulls.length, 2, 'the rollback pull request, opened by the verifier’s own re-check');
    const rollbackPull = pulls.find((pull) => pull.head !== promotion[0]!.head);
    assert.ok(rollbackPull);
    assert.match(rollbackPull.title, /6\.9\.3.*6\.9\.2/);
    assert.equal(
      github.readFile('acme', 'fleet', rollbackPull.head, 'clusters/prod/podinfo.yaml'),
      release('prod', '6.9.2'),
    );
    assert.equal(rollbackPull.merged, false, 'never merged automatically');

    // More events and polls while it still fails: still one rollback.
    assert.equal(await loop.sendEvent('prod', upgradeEvent('6.9.3')), 202);
    await loop.poll();
    await idle(loop.queue);
    assert.equal(github.pulls('acme', 'fleet').length, 2);
    assert.equal((await prodState(loop, clock)).reason, 'RollbackOpened');
  });
});
