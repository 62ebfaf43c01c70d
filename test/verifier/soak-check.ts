// The verifier's own re-check at the end of a soak (lib/verifier/effects/schedule-soak-check.ts): a chain of delayed
// `check-pipeline` messages, each at most SQS's 15 minutes, started by an evaluation that recorded a change (or an
// apply) and continued by its own links only, so that redundant events and polls during a soak add none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { rolledBackHelmRelease } from '../fixtures/flux-objects.js';
import { DEV, PIPELINE, PROD, PROD_EU, deployed, verifierWorld, type World } from './world.js';

const MINUTE = 60_000;
const checkDev: QueueMessage = { type: 'check-app', app: DEV, cause: 'event', attempt: 0 };
const link: QueueMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false };
const poll: QueueMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'poll', readTargets: false };
const apply: QueueMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: true };

/** dev (soak 30m) and prod have run 6.9.1 for hours; dev's cluster now serves 6.9.2, not yet read. */
async function devUpgraded(): Promise<World> {
  const world = await verifierWorld({ devSoak: '30m' });
  for (const app of [DEV, PROD, PROD_EU]) await world.deploy(app, '6.9.1');
  world.advance(3 * 60 * MINUTE);
  await world.deploy(DEV, '6.9.2', false);
  return world;
}

/** The soak re-checks sent since the last call, as their delays in seconds. */
function soakChecks(world: World): number[] {
  return world
    .sent()
    .filter(({ message }) => message.type === 'check-pipeline')
    .map(({ message, delaySeconds }) => {
      assert.deepEqual(message, link, 'a re-check decides from the stored records');
      return delaySeconds ?? 0;
    });
}

const promoted = (world: World) => world.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`);

describe('the soak re-check', () => {
  it('is chained in links of at most 15 minutes and promotes when the soak is served, without a poll', async () => {
    const world = await devUpgraded();

    await world.handle(checkDev);
    assert.deepEqual(soakChecks(world), [900], 'the status change starts the chain: 30 minutes left');
    assert.deepEqual(promoted(world), []);

    world.advance(15 * MINUTE);
    await world.handle(link);
    assert.deepEqual(soakChecks(world), [900], 'the next link: 15 minutes and the slack second, capped at 900');
    assert.deepEqual(promoted(world), []);

    world.advance(15 * MINUTE);
    await world.handle(link);
    assert.deepEqual(promoted(world), ['prod 6.9.2'], 'served: prod is promoted by the last link');
    assert.deepEqual(soakChecks(world), [], 'and the chain ends');
  });

  it('sends the last link for the time left, plus a second', async () => {
    const world = await devUpgraded();
    await world.handle(checkDev);
    soakChecks(world);

    world.advance(25 * MINUTE);
    await world.handle(link);
    assert.deepEqual(soakChecks(world), [301]);
  });

  it('adds nothing for redundant events, the poll, or an approval during the soak', async () => {
    const world = await devUpgraded();
    await world.handle(checkDev);
    soakChecks(world);

    world.advance(MINUTE);
    await world.handle(checkDev);
    await world.handle(poll);
    await world.handle({ type: 'promote', pipeline: PIPELINE, env: 'prod', revision: '6.9.2' });
    assert.deepEqual(soakChecks(world), []);
    assert.deepEqual(promoted(world), []);
  });

  it('is started by an apply, which may have added the soak', async () => {
    const world = await devUpgraded();
    await world.deploy(DEV, '6.9.2');
    world.advance(20 * MINUTE);

    await world.handle(apply);
    assert.deepEqual(soakChecks(world), [601]);
  });

  it('ends when dev regresses, and a new chain starts from the recovery', async () => {
    const world = await devUpgraded();
    await world.handle(checkDev);
    soakChecks(world);

    world.advance(10 * MINUTE);
    world.clusters.put(DEV, rolledBackHelmRelease() as unknown as Record<string, unknown>);
    await world.handle(checkDev);
    assert.deepEqual(soakChecks(world), [], 'dev failing: no candidate, nothing soaks');

    world.advance(5 * MINUTE);
    await world.handle(link);
    assert.deepEqual(soakChecks(world), [], 'the old chain ends at its next link');

    world.advance(MINUTE);
    world.clusters.put(DEV, deployed('6.9.2'));
    await world.handle(checkDev);
    assert.deepEqual(soakChecks(world), [900], 'healthy again: the clock restarts');

    world.advance(29 * MINUTE);
    await world.handle(link);
    assert.deepEqual(promoted(world), [], '45 minutes after the first upgrade, 29 after the recovery');
    assert.deepEqual(soakChecks(world), [61]);

    world.advance(MINUTE + 1000);
    await world.handle(link);
    assert.deepEqual(promoted(world), ['prod 6.9.2']);
  });

  it('is never sent for a pipeline without a soak', async () => {
    const world = await verifierWorld();
    for (const app of [DEV, PROD, PROD_EU]) await world.deploy(app, '6.9.1');
    await world.deploy(DEV, '6.9.2', false);
    await world.handle(checkDev);
    assert.deepEqual(soakChecks(world), []);
    assert.deepEqual(promoted(world), ['prod 6.9.2']);
  });
});
