// A ConfigSource applied while one of its syncs is claimed or finished, on DynamoDB: the apply reads the item, then
// writes it, and a claim or a finish may land in between. The apply changes the spec only, so what the sync wrote
// (its lease, its status) must survive it. The test holds the apply's write until the sync's write has landed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDynamoStore, type ConfigSyncResult, type Store } from '../../lib/store/index.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import { at, commit, configSourceFixture } from './fixtures.js';

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand']);
const LEASE_MS = 60_000;
const t0 = at('2026-11-01T10:00:00Z');
const seconds = (n: number) => new Date(t0.getTime() + n * 1000);

/** Holds the next write to a ConfigSource item, once armed, until released. */
class HeldWrite {
  #armed = false;
  #reached: () => void = () => undefined;
  #release: () => void = () => undefined;
  #released = Promise.resolve();

  /** Arms the hold; the promise resolves once a write is held. */
  arm(): Promise<void> {
    this.#armed = true;
    this.#released = new Promise((resolve) => (this.#release = resolve));
    return new Promise((resolve) => (this.#reached = resolve));
  }

  release(): void {
    this.#release();
  }

  async pass(command: string, input: unknown): Promise<void> {
    if (!this.#armed || !WRITES.has(command) || !JSON.stringify(input).includes('CONFIGSOURCE#')) return;
    this.#armed = false;
    this.#reached();
    await this.#released;
  }
}

describe('a ConfigSource applied while its sync is claimed or finished (DynamoDB)', () => {
  let dynamo: LocalDynamo;
  let store: Store;
  const held = new HeldWrite();
  before(async () => {
    dynamo = await startDynalite();
    dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        await held.pass(String(context.commandName), args.input);
        return next(args);
      },
      { step: 'initialize', name: 'holdConfigSourceWrite' },
    );
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
  });
  after(() => dynamo.stop());

  const succeeded = (revision: string): ConfigSyncResult => ({
    attempted: true,
    appliedRevision: revision,
    applied: 2,
    skipped: 0,
    ready: { status: 'True', reason: 'Succeeded', message: `applied revision ${revision}` },
  });

  it('a sync finished meanwhile keeps its status and lets go of its lease', async () => {
    const source = configSourceFixture('finished-meanwhile');
    await store.applyConfigSource(source.document, t0);
    const claim = await store.claimConfigSync(source.key, commit('a'), 1, t0, LEASE_MS);
    assert.ok(claim);

    const reached = held.arm();
    const changed = configSourceFixture('finished-meanwhile', { path: 'fleet' });
    const applying = store.applyConfigSource(changed.document, seconds(10));
    await reached;
    assert.equal(await store.finishConfigSync(claim, succeeded(commit('a')), seconds(20)), true);
    held.release();
    assert.deepEqual(await applying, { changed: true });

    const stored = await store.getConfigSource(source.key);
    assert.deepEqual(stored?.document, changed.document);
    assert.equal(stored?.generation, 2);
    assert.equal(stored?.status.lastAppliedRevision, commit('a'), 'the finished sync is not undone');
    assert.equal(stored?.status.conditions[0]?.reason, 'Succeeded');
    const next = await store.claimConfigSync(source.key, commit('a'), 2, seconds(30), LEASE_MS);
    assert.ok(next, 'the new spec syncs at once: the finished sync holds no lease');
  });

  it('a sync claimed meanwhile still holds its lease and can finish', async () => {
    const source = configSourceFixture('claimed-meanwhile');
    await store.applyConfigSource(source.document, t0);

    const reached = held.arm();
    const changed = configSourceFixture('claimed-meanwhile', { branch: 'release' });
    const applying = store.applyConfigSource(changed.document, seconds(10));
    await reached;
    const claim = await store.claimConfigSync(source.key, commit('a'), 1, seconds(10), LEASE_MS);
    assert.ok(claim);
    held.release();
    assert.deepEqual(await applying, { changed: true });

    assert.equal(
      await store.claimConfigSync(source.key, commit('b', 'release'), 2, seconds(20), LEASE_MS),
      undefined,
      'one sync of a source at a time',
    );
    assert.equal(await store.finishConfigSync(claim, succeeded(commit('a')), seconds(30)), true);
    assert.ok(await store.claimConfigSync(source.key, commit('b', 'release'), 2, seconds(40), LEASE_MS));
  });
});
