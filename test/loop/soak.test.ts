// A soak end to end (docs/soak.md): dev's `soak: 30m` holds prod's promotion back until dev has been
// healthy on the candidate for 30 minutes, and the verifier's own delayed re-check makes the promotion when the soak
// is served, without a poll. The loop runs on a manual clock: time is moved, never slept on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { decide } from '../../lib/decision/index.js';
import { decisionInputOf, readPipelineState } from '../../lib/pipeline-state/pipeline-state.js';
import { rolledBackHelmRelease } from '../fixtures/flux-objects.js';
import { ManualClock, PIPELINE, deployed, idle, pipelineDocument, startLoop, upgradeEvent } from './harness.js';

const MINUTE = 60_000;

const devSoaks: PipelineDocument = {
  ...pipelineDocument,
  spec: {
    ...pipelineDocument.spec,
    environments: pipelineDocument.spec.environments.map((env) => (env.name === 'dev' ? { ...env, soak: '30m' } : env)),
  },
};

/** Every target on 6.9.1 for hours; the clock stands still until the test moves it. */
async function startAtBaseline(t: Parameters<typeof startLoop>[0]) {
  const clock = new ManualClock();
  const loop = await startLoop(t, { pipeline: devSoaks, clock });
  await loop.deployEverywhere('6.9.1');
  clock.advance(3 * 60 * MINUTE);
  return { loop, clock };
}

type Loop = Awaited<ReturnType<typeof startAtBaseline>>['loop'];

/** dev runs `object` now, and Flux says so: what the receiver hears from dev's notification-controller. */
async function devRuns(loop: Loop, object: Record<string, unknown>): Promise<void> {
  loop.dev.put(object);
  assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
  await idle(loop.queue);
}

/** Moves the clock and lets whatever came due be handled. */
async function advance(loop: Loop, clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await idle(loop.queue);
}

/** The state, reason and soakEndsAt of each environment, as `pipelinectl status` would decide them now. */
async function environments(loop: Loop, clock: ManualClock) {
  const state = await readPipelineState(loop.store, PIPELINE);
  assert.ok(state);
  const decision = decide(decisionInputOf(state, new Date(clock.now())));
  return Object.fromEntries(
    decision.environments.map(({ env, state, reason, soakEndsAt }) => [env, { state, reason, soakEndsAt }]),
  );
}

const at = (clock: ManualClock, ms: number) => new Date(clock.now() + ms).toISOString().replace('.000Z', 'Z');

describe('soak', () => {
  it('promotes prod when dev has been healthy for its soak, by the verifier’s own delayed re-check', async (t) => {
    const { loop, clock } = await startAtBaseline(t);
    // The clock is at a whole second, so the soak's end reads back exactly.
    clock.advance(1000 - (clock.now() % 1000));
    const soakEndsAt = at(clock, 30 * MINUTE);

    await devRuns(loop, deployed('6.9.2'));
    assert.deepEqual(await environments(loop, clock), {
      dev: { state: 'soaking', reason: 'SoakRunning', soakEndsAt },
      prod: { state: 'not-reached', reason: 'AwaitingSoak', soakEndsAt },
    });
    assert.equal(loop.queue.stats().delayed, 1, 'one re-check waits for the soak');

    await advance(loop, clock, 15 * MINUTE);
    assert.deepEqual(loop.promoter.promotions(), [], 'halfway: nothing promoted');
    assert.equal(loop.queue.stats().delayed, 1, 'the next link of the chain');

    await advance(loop, clock, 15 * MINUTE - 2000);
    assert.deepEqual(loop.promoter.promotions(), [], 'two seconds before the end: nothing promoted');

    await advance(loop, clock, 2000);
    assert.deepEqual(loop.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    assert.equal(loop.queue.stats().delayed, 0, 'the chain ends with the soak');
  });

  it('restarts the soak when a dev target regresses during it', async (t) => {
    const { loop, clock } = await startAtBaseline(t);
    await devRuns(loop, deployed('6.9.2'));

    await advance(loop, clock, 10 * MINUTE);
    await devRuns(loop, rolledBackHelmRelease() as unknown as Record<string, unknown>);
    const failing = await environments(loop, clock);
    assert.deepEqual([failing.dev?.reason, failing.prod?.reason], ['TargetsNotReady', 'NoCandidate']);

    await advance(loop, clock, 6 * MINUTE);
    assert.equal(loop.queue.stats().delayed, 0, 'the first chain ended at its next link');

    await devRuns(loop, deployed('6.9.2'));
    await advance(loop, clock, 15 * MINUTE);
    assert.deepEqual(loop.promoter.promotions(), [], '31 minutes after the first upgrade: the clock restarted');

    await advance(loop, clock, 15 * MINUTE + 1000);
    assert.deepEqual(
      loop.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
      ['prod 6.9.2'],
    );
  });
});
