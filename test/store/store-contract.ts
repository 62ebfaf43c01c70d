// The behaviour every Store adapter must have. Each adapter's test file calls `storeContract` with a factory.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unreadableTarget, type TargetStatus } from '../../lib/flux/target-status.js';
import type { FreezeSwitch } from '../../lib/pipeline/freeze.js';
import { keyOfMetadata, pollGroupOf, type ObjectKey } from '../../lib/pipeline/model.js';
import type {
  ConfigAuditEntry,
  ConfigSyncReason,
  ConfigSyncResult,
  PollSummaries,
  Store,
} from '../../lib/store/index.js';
import type { PipelineSetDocument } from '../../lib/config/schema.js';
import { app, at, clusterFixture, commit, configSourceFixture, healthy, pipelineFixture } from './fixtures.js';

export interface StoreUnderTest {
  store: Store;
  /** Writes sent to the backend since the last reset, when the adapter can count them. */
  writes(): number;
  reads(): number;
  resetCounts(): void;
  /**
   * Overwrites a promotion record's lease as stored, past the port's rules: what only an older version or a hand edit
   * leaves behind, to check how the rules read it.
   */
  overwriteLease(pipeline: ObjectKey, env: string, revision: string, leaseExpiresAt: string): Promise<void>;
  stop(): Promise<void>;
}

export function storeContract(name: string, start: () => Promise<StoreUnderTest>): void {
  describe(`${name}: configuration and the apps index`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());

    it('stores a pipeline and finds its targets by app', async () => {
      const { store } = subject;
      const shop = pipelineFixture('shop', { dev: ['shop-dev'], prod: ['shop-eu', 'shop-us'] });
      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, at('2026-11-01T10:00:00Z')), {
        changed: true,
      });
      const stored = await store.getPipeline(shop.key);
      assert.equal(stored?.generation, 1);
      assert.deepEqual(stored?.pipeline, shop.pipeline);
      assert.deepEqual(stored?.document, shop.document);
      assert.deepEqual(await store.findTargets(app('shop-us')), [{ pipeline: shop.key, env: 'prod', targetIndex: 1 }]);
      assert.deepEqual(await store.findTargets(app('unknown')), []);
    });

    it('applying an unchanged pipeline writes nothing', async () => {
      const { store } = subject;
      const same = pipelineFixture('shop', { dev: ['shop-dev'], prod: ['shop-eu', 'shop-us'] });
      subject.resetCounts();
      assert.deepEqual(await store.applyPipeline(same.document, same.pipeline, at('2026-11-01T11:00:00Z')), {
        changed: false,
      });
      assert.equal(subject.writes(), 0);
      assert.equal((await store.getPipeline(same.key))?.generation, 1);
    });

    it('replacing a pipeline leaves no stale index entries and keeps the status of unchanged targets', async () => {
      const { store } = subject;
      const before = pipelineFixture('cart', { dev: ['cart-dev'], staging: ['cart-staging'], prod: ['cart-prod'] });
      await store.applyPipeline(before.document, before.pipeline, at('2026-11-01T10:00:00Z'));
      await store.recordTargetStatus(app('cart-dev'), healthy('1.4.0'), at('2026-11-01T10:05:00Z'));
      // staging is gone, prod moves to another namespace, dev stays.
      const after = pipelineFixture('cart', { dev: ['cart-dev'], prod: ['cart-live'] });
      assert.deepEqual(await store.applyPipeline(after.document, after.pipeline, at('2026-11-02T10:00:00Z')), {
        changed: true,
      });
      assert.deepEqual(await store.findTargets(app('cart-staging')), []);
      assert.deepEqual(await store.findTargets(app('cart-prod')), []);
      assert.deepEqual(await store.findTargets(app('cart-live')), [
        { pipeline: after.key, env: 'prod', targetIndex: 0 },
      ]);
      assert.deepEqual(await store.findTargets(app('cart-dev')), [{ pipeline: after.key, env: 'dev', targetIndex: 0 }]);
      assert.equal((await store.getTargetStatus(app('cart-dev')))?.status.revision, '1.4.0');
      assert.equal((await store.getPipeline(after.key))?.generation, 2);
    });

    it('lists the (cluster, kind) pairs in use with their namespaces, across pipelines sharing a cluster', async () => {
      const { store } = subject;
      const a = pipelineFixture('pairs-a', { dev: ['team-a'] }, { cluster: 'shared' });
      const b = pipelineFixture('pairs-b', { dev: ['team-a'], prod: ['team-b'] }, { cluster: 'shared', app: 'api' });
      await store.applyPipeline(a.document, a.pipeline, at('2026-11-01T10:00:00Z'));
      await store.applyPipeline(b.document, b.pipeline, at('2026-11-01T10:00:00Z'));
      const shared = (await store.listClusterKinds()).find((usage) => usage.cluster.name === 'shared');
      assert.deepEqual(shared?.kind, 'HelmRelease');
      assert.deepEqual(shared?.namespaces.sort(), ['team-a', 'team-b']);
      assert.deepEqual(shared?.pipelines.map((p) => p.name).sort(), ['pairs-a', 'pairs-b']);
      const one = await store.getClusterKind({ namespace: 'flux-system', name: 'shared' }, 'HelmRelease');
      assert.deepEqual(one?.namespaces.sort(), ['team-a', 'team-b'], 'one pair, read on its own');
      assert.deepEqual(one?.pipelines.map((p) => p.name).sort(), ['pairs-a', 'pairs-b']);
      assert.equal(
        await store.getClusterKind({ namespace: 'flux-system', name: 'shared' }, 'Kustomization'),
        undefined,
      );
      assert.equal(await store.getClusterKind({ namespace: 'flux-system', name: 'share' }, 'HelmRelease'), undefined);

      assert.equal(await store.deletePipeline(b.key), true);
      const left = (await store.listClusterKinds()).find((usage) => usage.cluster.name === 'shared');
      assert.deepEqual(left?.namespaces, ['team-a'], 'team-a is still used by pairs-a, team-b by nobody');
      assert.deepEqual(left?.pipelines, [a.key]);
      assert.equal(await store.deletePipeline(a.key), true);
      assert.equal(
        (await store.listClusterKinds()).some((usage) => usage.cluster.name === 'shared'),
        false,
      );
    });

    it('removing a pipeline removes its index entries, markers and records', async () => {
      const { store } = subject;
      const gone = pipelineFixture('gone', { dev: ['gone-dev'], prod: ['gone-prod'] });
      await store.applyPipeline(gone.document, gone.pipeline, at('2026-11-01T10:00:00Z'));
      await store.requestApproval(gone.key, 'prod', '2.0.0', at('2026-11-01T10:01:00Z'));
      await store.createPromotion(gone.key, 'prod', '1.9.0', at('2026-11-01T10:02:00Z'));
      assert.equal(await store.deletePipeline(gone.key), true);
      assert.equal(await store.getPipeline(gone.key), undefined);
      assert.deepEqual(await store.findTargets(app('gone-prod')), []);
      assert.equal(await store.getApproval(gone.key, 'prod'), undefined);
      assert.deepEqual(await store.listPromotions(gone.key), []);
      assert.equal(await store.deletePipeline(gone.key), false);
    });

    it('lists pipelines and clusters in pages', async () => {
      const { store } = subject;
      for (const name of ['page-1', 'page-2', 'page-3', 'page-4', 'page-5']) {
        const fixture = pipelineFixture(name, { dev: [`${name}-dev`] });
        await store.applyPipeline(fixture.document, fixture.pipeline, at('2026-11-01T10:00:00Z'));
      }
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listPipelines({ limit: 2, cursor });
        assert.ok(page.items.length <= 2);
        names.push(...page.items.map((item) => item.pipeline.name));
        cursor = page.cursor;
        pages += 1;
      } while (cursor);
      assert.ok(pages >= 3, `expected at least 3 pages, got ${pages}`);
      for (const name of ['page-1', 'page-2', 'page-3', 'page-4', 'page-5']) assert.ok(names.includes(name));
      assert.equal(new Set(names).size, names.length, 'no pipeline listed twice');

      const cluster = {
        apiVersion: 'gitops.weave.works/v1alpha1' as const,
        kind: 'GitopsCluster' as const,
        metadata: { name: 'prod-eu', namespace: 'flux-system' },
        spec: { eks: { clusterName: 'prod-eu', region: 'eu-west-1' } },
      };
      assert.deepEqual(await store.applyCluster(cluster, at('2026-11-01T10:00:00Z')), { changed: true });
      assert.deepEqual(await store.applyCluster(cluster, at('2026-11-01T11:00:00Z')), { changed: false });
      assert.deepEqual((await store.getCluster({ namespace: 'flux-system', name: 'prod-eu' }))?.document, cluster);
      assert.deepEqual(
        (await store.listClusters()).items.map((item) => item.document.metadata.name),
        ['prod-eu'],
      );
    });
  });

  describe(`${name}: observed target status`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());

    it('writes only when the status changes: a redundant observation costs one read and no write', async () => {
      const { store } = subject;
      const target = app('status-apps');
      subject.resetCounts();
      assert.deepEqual(await store.recordTargetStatus(target, healthy('6.9.2'), at('2026-11-01T10:00:00Z')), {
        changed: true,
        written: true,
        created: true,
      });
      assert.equal(subject.writes(), 1);
      subject.resetCounts();
      for (let i = 0; i < 5; i += 1) {
        const result = await store.recordTargetStatus(target, healthy('6.9.2'), at(`2026-11-01T10:0${i + 1}:00Z`));
        assert.deepEqual(result, { changed: false, written: false, created: false });
      }
      assert.equal(subject.writes(), 0, 'five redundant observations, zero writes');
      assert.equal(subject.reads(), 5);
      const stored = await store.getTargetStatus(target);
      assert.deepEqual(stored?.status, healthy('6.9.2'), 'read back in the shape recorded');
      assert.equal(stored.changedAt, '2026-11-01T10:00:00.000Z');

      assert.deepEqual(await store.recordTargetStatus(target, healthy('6.9.3'), at('2026-11-01T10:10:00Z')), {
        changed: true,
        written: true,
        created: false,
      });
      assert.equal((await store.getTargetStatus(target))?.status.revision, '6.9.3');
    });

    it('a change of phase or reason alone is a change; a status without revision reads back without one', async () => {
      const { store } = subject;
      const target = app('status-phase');
      const progressing: TargetStatus = {
        phase: 'Progressing',
        reason: 'Reconciling',
        message: 'Running upgrade',
        revision: '6.9.2',
      };
      await store.recordTargetStatus(target, progressing, at('2026-11-01T10:00:00Z'));
      const failed: TargetStatus = { ...progressing, phase: 'Failed', reason: 'ReconciliationFailed' };
      assert.deepEqual(await store.recordTargetStatus(target, failed, at('2026-11-01T10:01:00Z')), {
        changed: true,
        written: true,
        created: false,
      });
      const gone = unreadableTarget(
        'NotFound',
        'HelmRelease status-phase/podinfo not found on cluster flux-system/fleet-eu',
      );
      assert.deepEqual(await store.recordTargetStatus(target, gone, at('2026-11-01T10:02:00Z')), {
        changed: true,
        written: true,
        created: false,
      });
      const stored = await store.getTargetStatus(target);
      assert.deepEqual(stored?.status, {
        phase: 'Absent',
        reason: 'NotFound',
        message: 'HelmRelease status-phase/podinfo not found on cluster flux-system/fleet-eu',
      });
    });

    it('ignores an observation older than the stored one', async () => {
      const { store } = subject;
      const target = app('status-order');
      await store.recordTargetStatus(target, healthy('2.0.0'), at('2026-11-01T10:00:00Z'));
      assert.deepEqual(await store.recordTargetStatus(target, healthy('1.0.0'), at('2026-11-01T09:59:00Z')), {
        changed: false,
        written: false,
        created: false,
      });
      assert.equal((await store.getTargetStatus(target))?.status.revision, '2.0.0');
    });

    it('refreshes the observation time of an unchanged status only after refreshAfterMs', async () => {
      const { store } = subject;
      const target = app('status-refresh');
      await store.recordTargetStatus(target, healthy('3.0.0'), at('2026-11-01T10:00:00Z'));
      const options = { refreshAfterMs: 5 * 60_000 };
      assert.deepEqual(await store.recordTargetStatus(target, healthy('3.0.0'), at('2026-11-01T10:01:00Z'), options), {
        changed: false,
        written: false,
        created: false,
      });
      assert.deepEqual(await store.recordTargetStatus(target, healthy('3.0.0'), at('2026-11-01T10:06:00Z'), options), {
        changed: false,
        written: true,
        created: false,
      });
      const stored = await store.getTargetStatus(target);
      assert.equal(stored?.observedAt, '2026-11-01T10:06:00.000Z');
      assert.equal(stored?.changedAt, '2026-11-01T10:00:00.000Z');
    });

    it('concurrent observations end with the newest one', async () => {
      const { store } = subject;
      const target = app('status-race');
      const observations = Array.from({ length: 10 }, (_, i) => ({
        status: healthy(`1.0.${i}`),
        time: at(`2026-11-01T10:00:${String(i).padStart(2, '0')}Z`),
      }));
      await Promise.all(observations.reverse().map((o) => store.recordTargetStatus(target, o.status, o.time)));
      assert.equal((await store.getTargetStatus(target))?.status.revision, '1.0.9');
    });

    it('reads many statuses at once, beyond one batch of 100', async () => {
      const { store } = subject;
      const apps = Array.from({ length: 130 }, (_, i) => app(`bulk-${i}`));
      await Promise.all(
        apps.slice(0, 120).map((a, i) => store.recordTargetStatus(a, healthy(`1.${i}.0`), at('2026-11-01T10:00:00Z'))),
      );
      const found = await store.getTargetStatuses(apps);
      assert.equal(found.size, 120, 'the 10 never observed are absent');
      assert.equal(found.get('flux-system/fleet-eu/HelmRelease/bulk-7/podinfo')?.status.revision, '1.7.0');
    });
  });

  describe(`${name}: poll summaries`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());

    /** The store's poll summaries, as the poll handler uses them. */
    const summariesOf = (store: Store): PollSummaries => store;
    const pollCluster = (cluster: string): ObjectKey => ({ namespace: 'flux-system', name: cluster });

    it('reads a pair in use with its usage and an empty summary, in one request; none for a pair not in use', async () => {
      const summaries = summariesOf(subject.store);
      const shop = pipelineFixture('poll-shop', { dev: ['shop-a'], prod: ['shop-b'] }, { cluster: 'poll-1' });
      await subject.store.applyPipeline(shop.document, shop.pipeline, at('2026-11-01T10:00:00Z'));
      subject.resetCounts();
      const read = await summaries.getClusterKindPoll(pollCluster('poll-1'), 'HelmRelease');
      assert.equal(subject.reads(), 1);
      assert.deepEqual(read?.usage, await subject.store.getClusterKind(pollCluster('poll-1'), 'HelmRelease'));
      assert.equal(read?.summary.entries.size, 0);
      assert.equal(await summaries.getClusterKindPoll(pollCluster('poll-none'), 'HelmRelease'), undefined);
    });

    it('fingerprints equal statuses equally, whatever their key order, and tells different ones apart', () => {
      const summaries = summariesOf(subject.store);
      const status = healthy('1.0.0');
      const reordered = { revision: status.revision, message: status.message, reason: status.reason, phase: 'Ready' };
      assert.equal(summaries.statusFingerprint(reordered as TargetStatus), summaries.statusFingerprint(status));
      assert.notEqual(summaries.statusFingerprint(healthy('1.0.1')), summaries.statusFingerprint(status));
    });

    it('records like recordTargetStatus and says where the status item stands', async () => {
      const summaries = summariesOf(subject.store);
      const target = app('shop-a', { cluster: 'poll-1' });
      const print = summaries.statusFingerprint(healthy('2.0.0'));
      assert.deepEqual(await summaries.recordPolledStatus(target, healthy('2.0.0'), at('2026-11-01T10:00:00Z')), {
        changed: true,
        written: true,
        created: true,
        outcome: 'written',
        polled: { fingerprint: print, observedAt: '2026-11-01T10:00:00.000Z' },
      });
      subject.resetCounts();
      assert.deepEqual(await summaries.recordPolledStatus(target, healthy('2.0.0'), at('2026-11-01T10:05:00Z')), {
        changed: false,
        written: false,
        created: false,
        outcome: 'unchanged',
        polled: { fingerprint: print, observedAt: '2026-11-01T10:00:00.000Z' },
      });
      assert.equal(subject.writes(), 0);
      assert.deepEqual(await summaries.recordPolledStatus(target, healthy('1.0.0'), at('2026-11-01T09:00:00Z')), {
        changed: false,
        written: false,
        created: false,
        outcome: 'older',
      });
      assert.equal((await subject.store.getTargetStatus(target))?.status.revision, '2.0.0');
    });

    it('likelyNew: a new status costs one write and no read; a recorded one is handled as without it', async () => {
      const summaries = summariesOf(subject.store);
      const target = app('shop-b', { cluster: 'poll-1' });
      const print = (version: string) => summaries.statusFingerprint(healthy(version));
      subject.resetCounts();
      assert.deepEqual(
        await summaries.recordPolledStatus(target, healthy('2.0.0'), at('2026-11-01T10:00:00Z'), { likelyNew: true }),
        {
          changed: true,
          written: true,
          created: true,
          outcome: 'written',
          polled: { fingerprint: print('2.0.0'), observedAt: '2026-11-01T10:00:00.000Z' },
        },
      );
      assert.equal(subject.writes(), 1);
      assert.equal(subject.reads(), 0);
      const likelyNew = { likelyNew: true };
      assert.deepEqual(
        await summaries.recordPolledStatus(target, healthy('2.0.0'), at('2026-11-01T10:05:00Z'), likelyNew),
        {
          changed: false,
          written: false,
          created: false,
          outcome: 'unchanged',
          polled: { fingerprint: print('2.0.0'), observedAt: '2026-11-01T10:00:00.000Z' },
        },
      );
      assert.deepEqual(
        await summaries.recordPolledStatus(target, healthy('1.0.0'), at('2026-11-01T09:00:00Z'), likelyNew),
        {
          changed: false,
          written: false,
          created: false,
          outcome: 'older',
        },
      );
      assert.deepEqual(
        await summaries.recordPolledStatus(target, healthy('2.1.0'), at('2026-11-01T10:10:00Z'), likelyNew),
        {
          changed: true,
          written: true,
          created: false,
          outcome: 'written',
          polled: { fingerprint: print('2.1.0'), observedAt: '2026-11-01T10:10:00.000Z' },
        },
      );
      const stored = await subject.store.getTargetStatus(target);
      assert.equal(stored?.status.revision, '2.1.0');
      assert.equal(stored?.changedAt, '2026-11-01T10:10:00.000Z');
    });

    it('a pristine pair: the first poll creates the statuses not stored in batches, and leaves a stored one alone', async () => {
      const summaries = summariesOf(subject.store);
      const market = pipelineFixture(
        'poll-market',
        { dev: ['market-a', 'market-b', 'market-c'], prod: ['market-d'] },
        { cluster: 'poll-2' },
      );
      await subject.store.applyPipeline(market.document, market.pipeline, at('2026-11-01T10:00:00Z'));
      const read = await summaries.getClusterKindPoll(pollCluster('poll-2'), 'HelmRelease');
      assert.equal(read?.summary.pristine, true);
      const [a, b, c] = ['market-a', 'market-b', 'market-c'].map((namespace) => app(namespace, { cluster: 'poll-2' }));
      assert.ok(a && b && c);
      await subject.store.recordTargetStatus(c, healthy('1.0.0'), at('2026-11-01T10:01:00Z'));
      subject.resetCounts();
      const created = await summaries.createPolledStatuses(
        [
          { app: a, status: healthy('2.0.0') },
          { app: b, status: healthy('2.0.0') },
          { app: c, status: healthy('2.0.0') },
        ],
        at('2026-11-01T10:02:00Z'),
      );
      const polled = {
        fingerprint: summaries.statusFingerprint(healthy('2.0.0')),
        observedAt: '2026-11-01T10:02:00.000Z',
      };
      assert.deepEqual(created, [
        { app: a, polled },
        { app: b, polled },
      ]);
      assert.ok(!created.some((entry) => entry.app === c), 'the stored one is left to be recorded one by one');
      assert.equal(subject.reads(), 1, 'one batch read');
      assert.equal(subject.writes(), 1, 'one batch write');
      assert.equal((await subject.store.getTargetStatus(a))?.status.revision, '2.0.0');
      assert.equal((await subject.store.getTargetStatus(a))?.changedAt, '2026-11-01T10:02:00.000Z');
      assert.equal((await subject.store.getTargetStatus(c))?.status.revision, '1.0.0', 'a stored status is left alone');
    });

    it('a pair is pristine until a summary is written or a status forgotten in it', async () => {
      const summaries = summariesOf(subject.store);
      const cluster = pollCluster('poll-2');
      assert.equal((await summaries.getClusterKindPoll(cluster, 'HelmRelease'))?.summary.pristine, true);
      await summaries.forgetPolledStatus(app('market-a', { cluster: 'poll-2' }));
      const forgotten = await summaries.getClusterKindPoll(cluster, 'HelmRelease');
      assert.equal(forgotten?.summary.pristine, false, 'a forget moves the version on even without an entry');
      assert.equal(forgotten?.summary.entries.size, 0);
    });

    it('writes a summary over the version read only, and reads it back', async () => {
      const summaries = summariesOf(subject.store);
      const cluster = pollCluster('poll-1');
      const first = await summaries.getClusterKindPoll(cluster, 'HelmRelease');
      assert.ok(first);
      const entry = { fingerprint: summaries.statusFingerprint(healthy('2.0.0')), observedAt: '2026-11-01T10:00:00Z' };
      const other = { fingerprint: summaries.statusFingerprint(healthy('3.0.0')), observedAt: '2026-11-01T10:01:00Z' };
      const changes = new Map([
        ['shop-a/podinfo', entry],
        ['shop-b/podinfo', other],
      ]);
      assert.equal(await summaries.putPollSummary(cluster, 'HelmRelease', first.summary.version, changes), true);
      const second = await summaries.getClusterKindPoll(cluster, 'HelmRelease');
      assert.deepEqual(second?.summary.entries, changes);

      const removal = new Map([['shop-b/podinfo', undefined]]);
      assert.equal(
        await summaries.putPollSummary(cluster, 'HelmRelease', first.summary.version, removal),
        false,
        'over a version another write moved on',
      );
      assert.deepEqual((await summaries.getClusterKindPoll(cluster, 'HelmRelease'))?.summary.entries, changes);
      assert.equal(
        await summaries.putPollSummary(cluster, 'HelmRelease', second?.summary.version ?? '', removal),
        true,
      );
      assert.deepEqual(
        (await summaries.getClusterKindPoll(cluster, 'HelmRelease'))?.summary.entries,
        new Map([['shop-a/podinfo', entry]]),
      );
    });

    it('forgetting a status drops its entry and fails every write over a version read before', async () => {
      const summaries = summariesOf(subject.store);
      const cluster = pollCluster('poll-1');
      const read = await summaries.getClusterKindPoll(cluster, 'HelmRelease');
      assert.ok(read);
      assert.ok(read.summary.entries.has('shop-a/podinfo'));
      await summaries.forgetPolledStatus(app('shop-a', { cluster: 'poll-1' }));
      const afterForget = await summaries.getClusterKindPoll(cluster, 'HelmRelease');
      assert.equal(afterForget?.summary.entries.has('shop-a/podinfo'), false);
      const stale = new Map([['shop-a/podinfo', { fingerprint: 'stale', observedAt: '2026-11-01T10:00:00Z' }]]);
      assert.equal(await summaries.putPollSummary(cluster, 'HelmRelease', read.summary.version, stale), false);
      assert.equal(
        (await summaries.getClusterKindPoll(cluster, 'HelmRelease'))?.summary.entries.has('shop-a/podinfo'),
        false,
      );
      // Forgetting an app no pipeline uses, whose pair has no summary, is nothing to do.
      await summaries.forgetPolledStatus(app('shop-a', { cluster: 'poll-none' }));
      assert.equal(
        await summaries.putPollSummary(
          pollCluster('poll-none'),
          'HelmRelease',
          afterForget?.summary.version ?? '',
          stale,
        ),
        false,
        'no summary for a pair no pipeline uses',
      );
      assert.equal(await summaries.getClusterKindPoll(pollCluster('poll-none'), 'HelmRelease'), undefined);
    });
  });

  describe(`${name}: poll digests and the poll plan`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());

    const digestCluster = (cluster: string): ObjectKey => ({ namespace: 'flux-system', name: cluster });
    const digest = (text: string) => ({
      generation: 3,
      namespaces: ['apps', 'apps-eu'],
      digest: text,
      writtenAt: '2026-11-01T10:00:00.000Z',
    });

    it('moves the configuration generation on with each change of a pipeline, a cluster or a PipelineSet', async () => {
      const { store } = subject;
      const start = await store.getConfigurationGeneration();
      const shop = pipelineFixture('digest-shop', { dev: ['shop-a'] }, { cluster: 'digest-1' });
      await store.applyPipeline(shop.document, shop.pipeline, at('2026-11-01T10:00:00Z'));
      const applied = await store.getConfigurationGeneration();
      assert.ok(applied > start, 'an apply');
      await store.applyPipeline(shop.document, shop.pipeline, at('2026-11-01T10:01:00Z'));
      assert.equal(await store.getConfigurationGeneration(), applied, 'an unchanged apply does not');
      await store.applyCluster(clusterFixture('digest-1'), at('2026-11-01T10:02:00Z'));
      const clustered = await store.getConfigurationGeneration();
      assert.ok(clustered > applied, 'a cluster registration');
      assert.equal(await store.deletePipeline(shop.pipeline), true);
      assert.ok((await store.getConfigurationGeneration()) > clustered, 'a deletion');
    });

    it("keeps each cluster's digests by kind, and removes one", async () => {
      const { store } = subject;
      assert.equal(await store.putPollDigest(digestCluster('digest-a'), 'HelmRelease', digest('one'), 0), true);
      await store.putPollDigest(digestCluster('digest-a'), 'Kustomization', digest('two'), 0);
      await store.putPollDigest(digestCluster('digest-b'), 'HelmRelease', digest('three'), 0);
      const read = await store.getPollDigests([
        digestCluster('digest-a'),
        digestCluster('digest-b'),
        digestCluster('x'),
      ]);
      assert.deepEqual(read.get('flux-system/digest-a')?.get('HelmRelease'), {
        digest: digest('one'),
        invalidations: 0,
      });
      assert.deepEqual(read.get('flux-system/digest-a')?.get('Kustomization')?.digest, digest('two'));
      assert.deepEqual(read.get('flux-system/digest-b')?.get('HelmRelease')?.digest, digest('three'));
      assert.equal(read.has('flux-system/x'), false, 'a cluster without digests');

      await store.invalidatePollDigest(digestCluster('digest-a'), 'HelmRelease');
      const after = await store.getPollDigests([digestCluster('digest-a')]);
      assert.deepEqual(after.get('flux-system/digest-a')?.get('HelmRelease'), { invalidations: 1 });
      assert.deepEqual(after.get('flux-system/digest-a')?.get('Kustomization')?.digest, digest('two'));
    });

    it('writes a digest only over the invalidations its poll read', async () => {
      const { store } = subject;
      const cluster = digestCluster('digest-raced');
      // A poll read the pair (no digest yet); a failed read elsewhere removed the pair's digest meanwhile.
      await store.invalidatePollDigest(cluster, 'HelmRelease');
      assert.equal(await store.putPollDigest(cluster, 'HelmRelease', digest('stale'), 0), false);
      const read = await store.getPollDigests([cluster]);
      assert.deepEqual(read.get('flux-system/digest-raced')?.get('HelmRelease'), { invalidations: 1 });
      // The next poll reads the count and writes its digest; one removal more and the count moves on again.
      assert.equal(await store.putPollDigest(cluster, 'HelmRelease', digest('fresh'), 1), true);
      await store.invalidatePollDigest(cluster, 'HelmRelease');
      await store.invalidatePollDigest(cluster, 'HelmRelease');
      assert.equal(await store.putPollDigest(cluster, 'HelmRelease', digest('late'), 1), false);
      assert.deepEqual((await store.getPollDigests([cluster])).get('flux-system/digest-raced')?.get('HelmRelease'), {
        invalidations: 3,
      });
    });

    it('reads the digests of 250 clusters, over several batches', async () => {
      const { store } = subject;
      const clusters = Array.from({ length: 250 }, (_, index) => digestCluster(`many-${index}`));
      for (const cluster of clusters) await store.putPollDigest(cluster, 'HelmRelease', digest(cluster.name), 0);
      const read = await store.getPollDigests(clusters);
      assert.equal(read.size, 250);
      assert.equal(read.get('flux-system/many-249')?.get('HelmRelease')?.digest?.digest, 'many-249');
    });

    it('reads the digests of clusters of one poll group in one read, of two groups in two', async () => {
      const { store } = subject;
      // 25 clusters of group 3 and 25 of group 11, their names interleaved, each with both kinds' digests.
      const ofGroup = (group: number) =>
        Array.from({ length: 2_000 }, (_, index) => digestCluster(`grouped-${index}`))
          .filter((cluster) => pollGroupOf(cluster) === group)
          .slice(0, 25);
      const [three, eleven] = [ofGroup(3), ofGroup(11)];
      for (const cluster of [...three, ...eleven]) {
        await store.putPollDigest(cluster, 'HelmRelease', digest(`${cluster.name} helm`), 0);
        await store.putPollDigest(cluster, 'Kustomization', digest(`${cluster.name} kustomize`), 0);
      }
      // Every other cluster of group 3: those between them are in the range read, and not answered.
      const asked = three.filter((_, index) => index % 2 === 0);
      subject.resetCounts();
      const read = await store.getPollDigests(asked);
      assert.equal(subject.reads(), 1, 'one read for the group');
      assert.deepEqual([...read.keys()].sort(), asked.map((cluster) => `flux-system/${cluster.name}`).sort());
      for (const cluster of asked) {
        const digests = read.get(`flux-system/${cluster.name}`);
        assert.equal(digests?.get('HelmRelease')?.digest?.digest, `${cluster.name} helm`);
        assert.equal(digests?.get('Kustomization')?.digest?.digest, `${cluster.name} kustomize`);
      }

      subject.resetCounts();
      const both = await store.getPollDigests([...three, ...eleven]);
      assert.equal(subject.reads(), 2, 'one read per group');
      assert.equal(both.size, 50);
    });

    it('keeps the poll plan as written', async () => {
      const { store } = subject;
      assert.equal(await store.getPollPlan(), undefined);
      const plan = {
        generation: 7,
        listedAt: '2026-11-01T10:00:00.000Z',
        pairs: [{ cluster: digestCluster('dev'), kind: 'HelmRelease' as const }],
        pipelines: [{ namespace: 'flux-system', name: 'podinfo' }],
      };
      assert.equal(await store.putPollPlan(plan), true);
      assert.deepEqual(await store.getPollPlan(), plan);
    });
  });

  describe(`${name}: approval markers`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const pipeline = { namespace: 'flux-system', name: 'podinfo' };

    it('requests, replaces with a newer revision, never with an older one, and approves exactly one revision', async () => {
      const { store } = subject;
      assert.equal(await store.requestApproval(pipeline, 'prod', '6.9.2', at('2026-11-01T10:00:00Z')), 'requested');
      assert.equal(await store.requestApproval(pipeline, 'prod', '6.9.2', at('2026-11-01T10:01:00Z')), 'unchanged');
      assert.equal(await store.requestApproval(pipeline, 'prod', '6.9.3', at('2026-11-01T10:02:00Z')), 'requested');
      assert.equal(await store.requestApproval(pipeline, 'prod', '6.9.1', at('2026-11-01T10:03:00Z')), 'superseded');
      assert.equal(await store.approve(pipeline, 'prod', '6.9.2', 'alice', at('2026-11-01T10:04:00Z')), 'not-waiting');
      assert.equal(await store.approve(pipeline, 'prod', '6.9.3', 'alice', at('2026-11-01T10:05:00Z')), 'approved');
      assert.equal(
        await store.approve(pipeline, 'prod', '6.9.3', 'bob', at('2026-11-01T10:06:00Z')),
        'already-approved',
      );
      assert.deepEqual(await store.getApproval(pipeline, 'prod'), {
        env: 'prod',
        revision: '6.9.3',
        requestedAt: '2026-11-01T10:02:00.000Z',
        approvedAt: '2026-11-01T10:05:00.000Z',
        approvedBy: 'alice',
      });
      assert.equal(
        await store.approve(pipeline, 'staging', '6.9.3', 'alice', at('2026-11-01T10:06:00Z')),
        'not-waiting',
      );
    });

    it('clears a marker only for the revision it waits for', async () => {
      const { store } = subject;
      await store.requestApproval(
        pipeline,
        'qa',
        'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
        at('2026-11-01T10:00:00Z'),
      );
      assert.equal(
        await store.clearApproval(pipeline, 'qa', 'main@sha1:0000000000000000000000000000000000000000'),
        false,
      );
      assert.equal(
        await store.clearApproval(pipeline, 'qa', 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1'),
        true,
      );
      assert.equal(await store.getApproval(pipeline, 'qa'), undefined);
    });

    it('concurrent replacements keep the newest revision', async () => {
      const { store } = subject;
      // Newest first: were the write unconditional, the last one to land (the oldest) would win.
      const revisions = Array.from({ length: 10 }, (_, i) => `7.0.${10 - i}`);
      const outcomes = await Promise.all(
        revisions.map((revision) => store.requestApproval(pipeline, 'race', revision, at('2026-11-01T10:00:00Z'))),
      );
      assert.ok(outcomes.includes('requested'));
      assert.equal((await store.getApproval(pipeline, 'race'))?.revision, '7.0.10');
    });
  });

  describe(`${name}: approval policies and rejections`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const pipeline = { namespace: 'flux-system', name: 'podinfo' };
    const t0 = at('2026-11-01T10:00:00Z');
    const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);

    it('needs as many distinct approvers as the policy requires; the same one twice counts once', async () => {
      const { store } = subject;
      await store.requestApproval(pipeline, 'prod', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'prod', '6.9.2', 'alice', minutes(1), 2), 'counted');
      assert.equal(await store.approve(pipeline, 'prod', '6.9.2', 'alice', minutes(2), 2), 'already-counted');
      const waiting = await store.getApproval(pipeline, 'prod');
      assert.equal(waiting?.approvedAt, undefined, 'one approver of two: still waiting');
      assert.deepEqual(waiting?.approvals, [{ by: 'alice', at: '2026-11-01T10:01:00.000Z' }]);
      assert.equal(await store.approve(pipeline, 'prod', '6.9.2', 'bob', minutes(3), 2), 'approved');
      assert.deepEqual(await store.getApproval(pipeline, 'prod'), {
        env: 'prod',
        revision: '6.9.2',
        requestedAt: '2026-11-01T10:00:00.000Z',
        approvedAt: '2026-11-01T10:03:00.000Z',
        approvedBy: 'bob',
        approvals: [
          { by: 'alice', at: '2026-11-01T10:01:00.000Z' },
          { by: 'bob', at: '2026-11-01T10:03:00.000Z' },
        ],
      });
      assert.equal(await store.approve(pipeline, 'prod', '6.9.2', 'carol', minutes(4), 2), 'already-approved');
      assert.equal(await store.approve(pipeline, 'prod', '6.9.2', 'alice', minutes(4), 2), 'already-approved');
      assert.equal((await store.getApproval(pipeline, 'prod'))?.approvals?.length, 2, 'nothing counted after');
      assert.equal(await store.approve(pipeline, 'prod', '6.9.1', 'carol', minutes(5), 2), 'not-waiting');
    });

    it('two session names of one role are one approver; the names are kept as evidence', async () => {
      const { store } = subject;
      const role = 'arn:aws:iam::123456789012:role/ReleaseManager';
      const session = (name: string) => `arn:aws:sts::123456789012:assumed-role/ReleaseManager/${name}`;
      await store.requestApproval(pipeline, 'sessions', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'sessions', '6.9.2', session('alice'), minutes(1), 2), 'counted');
      assert.equal(
        await store.approve(pipeline, 'sessions', '6.9.2', session('alice-2'), minutes(2), 2),
        'already-counted',
      );
      assert.deepEqual(await store.getApproval(pipeline, 'sessions'), {
        env: 'sessions',
        revision: '6.9.2',
        requestedAt: '2026-11-01T10:00:00.000Z',
        approvals: [{ by: session('alice'), at: '2026-11-01T10:01:00.000Z', countedAs: role }],
      });
      // Two sessions of the role at once count once too: the store's own check, not only the read before it.
      await store.requestApproval(pipeline, 'sessions-race', '6.9.2', t0);
      const raced = await Promise.all(
        ['bob', 'bob-2'].map((name, n) =>
          store.approve(pipeline, 'sessions-race', '6.9.2', session(name), minutes(n), 2),
        ),
      );
      assert.deepEqual([...raced].sort(), ['already-counted', 'counted']);
      assert.equal((await store.getApproval(pipeline, 'sessions-race'))?.approvedAt, undefined, 'still waiting');
    });

    it('two IAM Identity Center users of one permission set are two approvers', async () => {
      const { store } = subject;
      const sso = (user: string) =>
        `arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_ReleaseManager_0123abcd/${user}@example.com`;
      await store.requestApproval(pipeline, 'sso', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'sso', '6.9.2', sso('alice'), minutes(1), 2), 'counted');
      assert.equal(await store.approve(pipeline, 'sso', '6.9.2', sso('bob'), minutes(2), 2), 'approved');
      assert.deepEqual(
        (await store.getApproval(pipeline, 'sso'))?.approvals?.map((approval) => approval.by),
        [sso('alice'), sso('bob')],
      );
    });

    it('an approval counts as the identity it is given: two names of one holder count once', async () => {
      const { store } = subject;
      const key = 'hmac-key of Secret flux-system/webhook-hmac';
      await store.requestApproval(pipeline, 'holder', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'holder', '6.9.2', 'local:alice', minutes(1), 2), 'counted');
      assert.equal(
        await store.approve(pipeline, 'holder', '6.9.2', key, minutes(2), 2, 'local:alice'),
        'already-counted',
      );
      assert.equal(await store.approve(pipeline, 'holder', '6.9.2', key, minutes(3), 2), 'approved', 'a key of no one');
    });

    it('counts three approvers for a policy of three, in any order', async () => {
      const { store } = subject;
      await store.requestApproval(pipeline, 'three', '1.0.0', t0);
      assert.equal(await store.approve(pipeline, 'three', '1.0.0', 'carol', minutes(1), 3), 'counted');
      assert.equal(await store.approve(pipeline, 'three', '1.0.0', 'alice', minutes(2), 3), 'counted');
      assert.equal(await store.approve(pipeline, 'three', '1.0.0', 'carol', minutes(3), 3), 'already-counted');
      assert.equal(await store.approve(pipeline, 'three', '1.0.0', 'bob', minutes(4), 3), 'approved');
      const marker = await store.getApproval(pipeline, 'three');
      assert.deepEqual(
        marker?.approvals?.map((approval) => approval.by),
        ['carol', 'alice', 'bob'],
      );
      assert.equal(marker.approvedBy, 'bob');
    });

    it('two approvers racing for the last approval: exactly one approves, both are counted', async () => {
      const { store } = subject;
      for (let round = 0; round < 5; round += 1) {
        const env = `race-${round}`;
        await store.requestApproval(pipeline, env, '6.9.2', t0);
        const outcomes = await Promise.all(
          ['alice', 'bob'].map((by) => store.approve(pipeline, env, '6.9.2', by, minutes(1), 2)),
        );
        assert.deepEqual([...outcomes].sort(), ['approved', 'counted'], `round ${round}`);
        const marker = await store.getApproval(pipeline, env);
        assert.ok(marker?.approvedAt, `round ${round}: approved`);
        assert.deepEqual(marker.approvals?.map((approval) => approval.by).sort(), ['alice', 'bob']);
        assert.equal(marker.approvedBy, marker.approvals?.at(-1)?.by, 'the last to count approved it');
      }
    });

    it('five approvers racing for a policy of three: one approves, two are counted, two come too late', async () => {
      const { store } = subject;
      await store.requestApproval(pipeline, 'crowd', '6.9.2', t0);
      const approvers = ['a', 'b', 'c', 'd', 'e'];
      const outcomes = await Promise.all(
        approvers.map((by) => store.approve(pipeline, 'crowd', '6.9.2', by, minutes(1), 3)),
      );
      assert.deepEqual([...outcomes].sort(), [
        'already-approved',
        'already-approved',
        'approved',
        'counted',
        'counted',
      ]);
      const marker = await store.getApproval(pipeline, 'crowd');
      const counted = marker?.approvals?.map((approval) => approval.by) ?? [];
      assert.equal(counted.length, 3);
      assert.deepEqual(
        counted.sort(),
        approvers.filter((_, i) => outcomes[i] === 'approved' || outcomes[i] === 'counted').sort(),
        'exactly those told they counted are in the list',
      );
    });

    it('the same approver twice at once counts once', async () => {
      const { store } = subject;
      for (const required of [2, 3]) {
        const env = `twice-${required}`;
        await store.requestApproval(pipeline, env, '6.9.2', t0);
        const outcomes = await Promise.all(
          [1, 2].map((n) => store.approve(pipeline, env, '6.9.2', 'alice', minutes(n), required)),
        );
        assert.deepEqual([...outcomes].sort(), ['already-counted', 'counted'], `policy of ${required}`);
        const marker = await store.getApproval(pipeline, env);
        assert.deepEqual(
          marker?.approvals?.map((approval) => approval.by),
          ['alice'],
          `policy of ${required}`,
        );
        assert.equal(marker?.approvedAt, undefined);
      }
    });

    it('approvals counted under a larger policy approve once the policy asks fewer', async () => {
      const { store } = subject;
      await store.requestApproval(pipeline, 'lowered', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'lowered', '6.9.2', 'alice', minutes(1), 3), 'counted');
      assert.equal(await store.approve(pipeline, 'lowered', '6.9.2', 'bob', minutes(2), 3), 'counted');
      // The environment's policy is now two: bob's approval again is enough, carol's would be too.
      assert.equal(await store.approve(pipeline, 'lowered', '6.9.2', 'bob', minutes(3), 2), 'approved');
      const marker = await store.getApproval(pipeline, 'lowered');
      assert.equal(marker?.approvedAt, '2026-11-01T10:03:00.000Z');
      assert.deepEqual(
        marker.approvals?.map((approval) => approval.by),
        ['alice', 'bob'],
      );
    });

    it('a rejection stops the revision: no approval counts after it, and it is recorded with who and why', async () => {
      const { store } = subject;
      await store.requestApproval(pipeline, 'rejected', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'rejected', '6.9.2', 'alice', minutes(1), 2), 'counted');
      assert.equal(
        await store.reject(pipeline, 'rejected', '6.9.2', 'bob', 'breaks the checkout', minutes(2)),
        'rejected',
      );
      assert.equal(await store.approve(pipeline, 'rejected', '6.9.2', 'carol', minutes(3), 2), 'rejected');
      assert.equal(await store.approve(pipeline, 'rejected', '6.9.2', 'carol', minutes(3)), 'rejected');
      assert.equal(
        await store.reject(pipeline, 'rejected', '6.9.2', 'carol', 'me too', minutes(4)),
        'already-rejected',
      );
      assert.deepEqual(await store.getApproval(pipeline, 'rejected'), {
        env: 'rejected',
        revision: '6.9.2',
        requestedAt: '2026-11-01T10:00:00.000Z',
        approvals: [{ by: 'alice', at: '2026-11-01T10:01:00.000Z' }],
        rejectedAt: '2026-11-01T10:02:00.000Z',
        rejectedBy: 'bob',
        rejectionReason: 'breaks the checkout',
      });
      assert.equal(
        await store.requestApproval(pipeline, 'rejected', '6.9.2', minutes(5)),
        'unchanged',
        'the same candidate again stays rejected',
      );
      assert.ok((await store.getApproval(pipeline, 'rejected'))?.rejectedAt);
    });

    it('a newer candidate gets a fresh marker, without the approvals and the rejection of the old one', async () => {
      const { store } = subject;
      assert.equal(await store.requestApproval(pipeline, 'rejected', '6.9.3', minutes(6)), 'requested');
      assert.deepEqual(await store.getApproval(pipeline, 'rejected'), {
        env: 'rejected',
        revision: '6.9.3',
        requestedAt: '2026-11-01T10:06:00.000Z',
      });
      assert.equal(await store.approve(pipeline, 'rejected', '6.9.3', 'alice', minutes(7), 2), 'counted');
      assert.equal(await store.reject(pipeline, 'rejected', '6.9.2', 'bob', 'old news', minutes(8)), 'not-waiting');
    });

    it('a rejection after the approval does not stop the promotion', async () => {
      const { store } = subject;
      await store.requestApproval(pipeline, 'late', '6.9.2', t0);
      assert.equal(await store.approve(pipeline, 'late', '6.9.2', 'alice', minutes(1)), 'approved');
      assert.equal(await store.reject(pipeline, 'late', '6.9.2', 'bob', 'too late', minutes(2)), 'already-approved');
      const marker = await store.getApproval(pipeline, 'late');
      assert.equal(marker?.rejectedAt, undefined);
      assert.equal(marker?.approvedBy, 'alice');
      assert.equal(await store.reject(pipeline, 'nowhere', '6.9.2', 'bob', 'no marker', minutes(2)), 'not-waiting');
    });

    it('a rejection racing the last approval: one of them wins, and the marker says which', async () => {
      const { store } = subject;
      for (let round = 0; round < 5; round += 1) {
        const env = `veto-${round}`;
        await store.requestApproval(pipeline, env, '6.9.2', t0);
        await store.approve(pipeline, env, '6.9.2', 'alice', minutes(1), 2);
        const [approved, rejected] = await Promise.all([
          store.approve(pipeline, env, '6.9.2', 'bob', minutes(2), 2),
          store.reject(pipeline, env, '6.9.2', 'carol', 'no', minutes(2)),
        ]);
        const marker = await store.getApproval(pipeline, env);
        if (approved === 'approved') {
          assert.equal(rejected, 'already-approved', `round ${round}`);
          assert.ok(marker?.approvedAt && marker.rejectedAt === undefined, `round ${round}`);
        } else {
          assert.deepEqual([approved, rejected], ['rejected', 'rejected'], `round ${round}`);
          assert.ok(marker?.rejectedAt && marker.approvedAt === undefined, `round ${round}`);
        }
      }
    });
  });

  describe(`${name}: stop switches`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const podinfo = { namespace: 'flux-system', name: 'podinfo' };
    const shop = { namespace: 'team-a', name: 'shop' };
    const everywhere: FreezeSwitch = {
      scope: { installation: true },
      reason: 'incident 4711',
      by: 'alice',
      at: '2026-11-01T10:00:00.000Z',
    };
    const podinfoProd: FreezeSwitch = {
      scope: { pipeline: podinfo },
      env: 'prod',
      reason: 'quarter end',
      by: 'bob',
      at: '2026-11-01T10:01:00.000Z',
      until: '2026-11-03T08:00:00.000Z',
    };
    const podinfoStaging: FreezeSwitch = { ...podinfoProd, env: 'staging', reason: 'load test' };
    const shopAll: FreezeSwitch = {
      scope: { pipeline: shop },
      reason: 'migration',
      by: 'carol',
      at: '2026-11-01T10:02:00.000Z',
    };
    const installationProd: FreezeSwitch = {
      scope: { installation: true },
      env: 'prod',
      reason: 'weekend',
      by: 'alice',
      at: '2026-11-01T10:03:00.000Z',
      windows: [
        { from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin', reason: 'weekend' },
        { from: '22:00', to: '06:00', timeZone: 'UTC' },
      ],
    };
    const sorted = (freezes: FreezeSwitch[]) => [...freezes].sort((a, b) => a.reason.localeCompare(b.reason));

    it('lists nothing before a switch is set', async () => {
      assert.deepEqual(await subject.store.listFreezes(), []);
    });

    it('sets and lists switches of both scopes, for one environment or all, as they were set', async () => {
      const { store } = subject;
      for (const freeze of [everywhere, podinfoProd, podinfoStaging, shopAll, installationProd]) {
        await store.setFreeze(freeze);
      }
      assert.deepEqual(
        sorted(await store.listFreezes()),
        sorted([everywhere, podinfoProd, podinfoStaging, shopAll, installationProd]),
      );
    });

    it('setting a switch again for the same scope and environment replaces it', async () => {
      const { store } = subject;
      const longer: FreezeSwitch = {
        ...podinfoProd,
        reason: 'quarter end, extended',
        until: '2026-11-05T08:00:00.000Z',
      };
      await store.setFreeze(longer);
      const listed = await store.listFreezes();
      assert.equal(listed.length, 5);
      const { until: _until, ...noEnd } = longer;
      await store.setFreeze(noEnd);
      const prod = (await store.listFreezes()).filter((freeze) => 'pipeline' in freeze.scope && freeze.env === 'prod');
      assert.deepEqual(prod, [noEnd], 'replaced whole: the old end is gone too');
      await store.setFreeze(podinfoProd);
    });

    it('clearing one environment of a scope leaves its other environments and the other scope', async () => {
      const { store } = subject;
      assert.deepEqual(await store.clearFreezes({ pipeline: podinfo }, 'prod'), [podinfoProd]);
      assert.deepEqual(await store.clearFreezes({ pipeline: podinfo }, 'prod'), [], 'nothing left to clear');
      assert.deepEqual(
        sorted(await store.listFreezes()),
        sorted([everywhere, podinfoStaging, shopAll, installationProd]),
      );
      assert.deepEqual(
        await store.clearFreezes({ pipeline: shop }, 'prod'),
        [],
        'a switch for every environment is not cleared by naming one',
      );
    });

    it('clearing a scope without an environment clears all of its switches and nothing else', async () => {
      const { store } = subject;
      assert.deepEqual(
        sorted(await store.clearFreezes({ installation: true })),
        sorted([everywhere, installationProd]),
      );
      assert.deepEqual(sorted(await store.listFreezes()), sorted([podinfoStaging, shopAll]));
      assert.deepEqual(await store.clearFreezes({ pipeline: shop }), [shopAll]);
      assert.deepEqual(await store.listFreezes(), [podinfoStaging]);
      assert.deepEqual(await store.clearFreezes({ pipeline: { namespace: 'flux-system', name: 'podinfo-2' } }), []);
      assert.deepEqual(await store.listFreezes(), [podinfoStaging], 'a pipeline whose name extends another');
    });

    it('keeps `*` and other special characters in names apart from "all"', async () => {
      const { store } = subject;
      const star: FreezeSwitch = { ...podinfoStaging, env: '*', reason: 'an environment named *' };
      const hash: FreezeSwitch = { ...shopAll, scope: { pipeline: { namespace: 'team-a', name: 'shop#x' } } };
      await store.setFreeze(star);
      await store.setFreeze(hash);
      const { env: _env, ...all } = { ...podinfoStaging, reason: 'every environment' };
      await store.setFreeze(all);
      assert.equal((await store.listFreezes()).length, 4);
      assert.deepEqual(await store.clearFreezes({ pipeline: podinfo }, '*'), [star]);
      assert.deepEqual(await store.clearFreezes({ pipeline: shop }), []);
      assert.deepEqual(sorted(await store.clearFreezes({ pipeline: podinfo })), sorted([all, podinfoStaging]));
      assert.deepEqual(await store.listFreezes(), [hash]);
    });
  });

  describe(`${name}: verification records`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const pipeline = { namespace: 'flux-system', name: 'verified' };
    const evaluation = (revision: string, verdict: 'passed' | 'failed', checkedAt: string) => ({
      env: 'staging',
      revision,
      startedAt: '2026-11-01T10:00:00.000Z',
      checkedAt,
      ...(verdict === 'passed' ? { holdingSince: '2026-11-01T10:00:00.000Z' } : {}),
      results: [
        {
          name: 'errors',
          kind: 'cloudwatchAlarms' as const,
          verdict,
          reason: verdict === 'passed' ? ('AlarmsOK' as const) : ('InAlarm' as const),
          value: verdict === 'passed' ? 'podinfo-5xx OK' : 'podinfo-5xx ALARM',
          message: 'every alarm OK',
          checkedAt,
        },
      ],
    });

    it('one record per environment, written only over the version it was read at', async () => {
      const { store } = subject;
      assert.deepEqual(await store.listVerifications(pipeline), []);
      const first = evaluation('6.9.2', 'passed', '2026-11-01T10:00:00.000Z');
      assert.equal(await store.putVerification(pipeline, first, 0), true);
      assert.equal(await store.putVerification(pipeline, first, 0), false, 'a second first write loses');
      const [stored] = await store.listVerifications(pipeline);
      assert.deepEqual(stored, { ...first, pipeline, version: 1 });

      const failed = { ...evaluation('6.9.2', 'failed', '2026-11-01T10:01:00.000Z'), outcome: 'failed' as const };
      const racing = await Promise.all(Array.from({ length: 5 }, () => store.putVerification(pipeline, failed, 1)));
      assert.equal(racing.filter(Boolean).length, 1, 'of concurrent writes over one version, one wins');
      const newer = evaluation('6.9.3', 'passed', '2026-11-01T11:00:00.000Z');
      assert.equal(await store.putVerification(pipeline, newer, 2), true);
      assert.deepEqual(
        (await store.listVerifications(pipeline)).map((record) => [record.env, record.revision, record.version]),
        [['staging', '6.9.3', 3]],
      );
    });

    it('a deleted pipeline takes its records along', async () => {
      const { store } = subject;
      const fixture = pipelineFixture('deleted-verified', { staging: ['apps'] });
      await store.applyPipeline(fixture.document, fixture.pipeline, at('2026-11-01T10:00:00Z'));
      const key = { namespace: fixture.pipeline.namespace, name: fixture.pipeline.name };
      assert.equal(
        await store.putVerification(key, evaluation('1.0.0', 'passed', '2026-11-01T10:00:00.000Z'), 0),
        true,
      );
      assert.equal(await store.deletePipeline(key), true);
      assert.deepEqual(await store.listVerifications(key), []);
    });
  });

  describe(`${name}: the evidence of a release train's members`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const evidence = {
      from: 'staging',
      soak: '30m',
      targets: [
        { name: 'flux-system/staging apps', revision: '6.5.0', phase: 'Ready', healthySince: '2026-11-01T10:00:00Z' },
      ],
    };

    it('keeps the evidence per (pipeline, environment, revision), and a deleted pipeline takes it along', async () => {
      const { store } = subject;
      const fixture = pipelineFixture('train-member', { prod: ['apps'] });
      await store.applyPipeline(fixture.document, fixture.pipeline, at('2026-11-01T10:00:00Z'));
      const key = { namespace: fixture.pipeline.namespace, name: fixture.pipeline.name };
      assert.equal(await store.getPromotionEvidence(key, 'prod', '6.5.0'), undefined);
      await store.recordPromotionEvidence(key, 'prod', '6.5.0', evidence);
      assert.deepEqual(await store.getPromotionEvidence(key, 'prod', '6.5.0'), evidence);
      assert.equal(await store.getPromotionEvidence(key, 'prod', '6.5.1'), undefined);
      assert.equal(await store.deletePipeline(key), true);
      assert.equal(await store.getPromotionEvidence(key, 'prod', '6.5.0'), undefined);
    });
  });

  describe(`${name}: served inputs`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const pipeline = { namespace: 'flux-system', name: 'served' };
    const running = { env: 'prod', version: '6.4.0', servedSince: '2026-11-01T10:00:00.000Z' };
    const promoted = {
      env: 'prod',
      version: '6.5.0',
      previousVersion: '6.4.0',
      promotedAt: '2026-11-01T11:00:00.000Z',
      approvedBy: 'alice',
      servedSince: '2026-11-01T11:00:00.000Z',
    };

    it('the running revision is served only where nothing is; a promotion replaces what is served', async () => {
      const { store } = subject;
      assert.equal(await store.getServedInput(pipeline, 'prod'), undefined);
      assert.equal(await store.seedServedInput(pipeline, running), true);
      assert.equal(await store.seedServedInput(pipeline, { ...running, version: '6.3.0' }), false);
      assert.deepEqual(await store.getServedInput(pipeline, 'prod'), running);
      await store.putServedInput(pipeline, promoted);
      assert.deepEqual(await store.getServedInput(pipeline, 'prod'), promoted);
      assert.equal(await store.seedServedInput(pipeline, running), false, 'never over a promotion');
      assert.deepEqual(await store.listServedInputs(pipeline), [promoted]);
      assert.equal(await store.getServedInput(pipeline, 'staging'), undefined);
    });

    it('a deleted pipeline takes its served inputs along', async () => {
      const { store } = subject;
      const fixture = pipelineFixture('deleted-served', { prod: ['apps'] });
      await store.applyPipeline(fixture.document, fixture.pipeline, at('2026-11-01T10:00:00Z'));
      const key = { namespace: fixture.pipeline.namespace, name: fixture.pipeline.name };
      await store.putServedInput(key, promoted);
      assert.equal(await store.deletePipeline(key), true);
      assert.deepEqual(await store.listServedInputs(key), []);
      assert.equal(await store.getServedInput(key, 'prod'), undefined);
    });
  });

  describe(`${name}: promotion records`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const pipeline = { namespace: 'flux-system', name: 'podinfo' };
    const t0 = at('2026-11-01T10:00:00Z');
    const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);

    it('20 concurrent creates of the same record yield exactly one winner', async () => {
      const { store } = subject;
      const results = await Promise.all(
        Array.from({ length: 20 }, () => store.createPromotion(pipeline, 'prod', '6.9.2', t0)),
      );
      assert.equal(results.filter((r) => r.created).length, 1);
      for (const result of results) {
        assert.equal(result.record.state, 'pending');
        assert.equal(result.record.version, 1);
      }
      assert.equal((await store.listPromotions(pipeline)).filter((r) => r.revision === '6.9.2').length, 1);
    });

    it('concurrent claims give the attempt to one worker only', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'prod', '6.9.3', t0);
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.claimPromotion(pipeline, 'prod', '6.9.3', `worker-${i}`, 60_000, t0),
        ),
      );
      const winners = claims.filter((claim) => claim !== undefined);
      assert.equal(winners.length, 1);
      assert.equal(winners[0]?.state, 'in-progress');
      assert.equal(winners[0]?.attempts, 1);
      assert.equal(winners[0]?.leaseExpiresAt, '2026-11-01T10:01:00.000Z');
    });

    it('a new record created with a claim is held by that worker in one write, as create then claim leaves it', async () => {
      const { store } = subject;
      const claim = { owner: 'worker-a', leaseMs: 60_000 };
      subject.resetCounts();
      const creation = await store.createPromotion(pipeline, 'prod', '8.0.0', t0, claim);
      assert.equal(subject.writes(), 1, 'one conditional write');
      assert.equal(subject.reads(), 0, 'nothing read');
      assert.equal(creation.created, true);
      const stored = await store.getPromotion(pipeline, 'prod', '8.0.0');
      assert.deepEqual(creation.record, stored, 'the returned record is the stored one');
      assert.equal(stored?.state, 'in-progress');
      assert.equal(stored?.attempts, 1);
      assert.equal(stored?.owner, 'worker-a');
      assert.equal(stored?.leaseExpiresAt, '2026-11-01T10:01:00.000Z');
      assert.equal(stored?.createdAt, '2026-11-01T10:00:00.000Z');
      assert.equal(stored?.updatedAt, '2026-11-01T10:00:00.000Z');

      await store.createPromotion(pipeline, 'prod', '8.0.1', t0);
      const twoSteps = await store.claimPromotion(pipeline, 'prod', '8.0.1', claim.owner, claim.leaseMs, t0);
      assert.deepEqual({ ...stored, revision: '8.0.1' }, twoSteps, 'the same record as create, then claim');

      // The worker ends its attempt as it would have after a claim; nobody else can take it meanwhile.
      assert.equal(await store.claimPromotion(pipeline, 'prod', '8.0.0', 'worker-b', 60_000, minutes(0.5)), undefined);
      assert.equal(
        await store.completePromotion(creation.record, 'https://github.com/acme/fleet/pull/44', minutes(0.5)),
        true,
      );
      assert.equal((await store.getPromotion(pipeline, 'prod', '8.0.0'))?.state, 'succeeded');
    });

    it('a record that exists is not overwritten by a create with a claim, and is claimed as before', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'prod', '8.1.0', t0);
      const pending = await store.getPromotion(pipeline, 'prod', '8.1.0');
      subject.resetCounts();
      const again = await store.createPromotion(pipeline, 'prod', '8.1.0', minutes(1), {
        owner: 'worker-a',
        leaseMs: 60_000,
      });
      assert.equal(subject.writes(), 1, 'the refused conditional write only');
      assert.equal(again.created, false);
      assert.deepEqual(again.record, pending, 'the stored record, as it was');
      assert.deepEqual(await store.getPromotion(pipeline, 'prod', '8.1.0'), pending);
      const claimed = await store.claimPromotion(pipeline, 'prod', '8.1.0', 'worker-a', 60_000, minutes(1));
      assert.equal(claimed?.owner, 'worker-a');
      assert.equal(claimed?.attempts, 1);

      // Held by another worker: the create changes nothing, and the claim after it is refused.
      const held = await store.createPromotion(pipeline, 'prod', '8.1.0', minutes(1.5), {
        owner: 'worker-b',
        leaseMs: 60_000,
      });
      assert.equal(held.created, false);
      assert.deepEqual(held.record, claimed);
      assert.equal(await store.claimPromotion(pipeline, 'prod', '8.1.0', 'worker-b', 60_000, minutes(1.5)), undefined);
      assert.equal((await store.getPromotion(pipeline, 'prod', '8.1.0'))?.owner, 'worker-a');
    });

    it('workers racing to create the same record with a claim: exactly one holds it', async () => {
      const { store } = subject;
      const holders = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const owner = `worker-${i}`;
          const creation = await store.createPromotion(pipeline, 'prod', '8.2.0', t0, { owner, leaseMs: 60_000 });
          if (creation.created) return creation.record;
          return store.claimPromotion(pipeline, 'prod', '8.2.0', owner, 60_000, t0);
        }),
      );
      const winners = holders.filter((holder) => holder !== undefined);
      assert.equal(winners.length, 1);
      const stored = await store.getPromotion(pipeline, 'prod', '8.2.0');
      assert.equal(stored?.owner, winners[0]?.owner);
      assert.equal(stored?.attempts, 1);
      assert.equal(stored?.version, winners[0]?.version, 'the winner can still end its attempt');
    });

    it('moves pending → in progress → succeeded with its result, and is never due again', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'staging', '6.9.2', t0);
      const claimed = await store.claimPromotion(pipeline, 'staging', '6.9.2', 'worker-a', 60_000, t0);
      assert.ok(claimed);
      const url = 'https://github.com/acme/fleet/pull/42';
      assert.equal(await store.completePromotion(claimed, url, minutes(0.5)), true);
      const done = await store.getPromotion(pipeline, 'staging', '6.9.2');
      assert.equal(done?.state, 'succeeded');
      assert.equal(done?.result, url);
      assert.equal(done?.leaseExpiresAt, undefined);
      assert.equal(done?.owner, undefined);
      assert.equal(
        await store.claimPromotion(pipeline, 'staging', '6.9.2', 'worker-b', 60_000, minutes(10)),
        undefined,
      );
      assert.equal(await store.completePromotion(claimed, url, minutes(11)), false, 'a stale version is refused');
    });

    it('records what the host says of the pull request, conditionally; a new result forgets it', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'staging', '6.9.3', t0);
      const claimed = await store.claimPromotion(pipeline, 'staging', '6.9.3', 'worker-a', 60_000, t0);
      assert.ok(claimed);
      const url = 'https://github.com/acme/fleet/pull/45';
      assert.equal(await store.completePromotion(claimed, url, minutes(0.5)), true);
      const opened = await store.getPromotion(pipeline, 'staging', '6.9.3');
      assert.ok(opened);
      assert.equal(opened.pullRequest, undefined, 'not read yet');
      assert.equal(await store.recordPullRequestState(opened, 'open', minutes(1)), true);
      const seenOpen = await store.getPromotion(pipeline, 'staging', '6.9.3');
      assert.deepEqual(seenOpen?.pullRequest, { state: 'open', seenAt: '2026-11-01T10:01:00.000Z' });
      assert.equal(seenOpen?.updatedAt, opened.updatedAt, 'the promotion itself did not change');
      assert.equal(seenOpen?.version, opened.version + 1);
      assert.ok(seenOpen);
      assert.equal(await store.recordPullRequestState(seenOpen, 'closed', minutes(2)), true);
      // A worker that read the record before, and the host while the pull request was open, cannot put it back.
      assert.equal(await store.recordPullRequestState(opened, 'open', minutes(3)), false);
      const closed = await store.getPromotion(pipeline, 'staging', '6.9.3');
      assert.deepEqual(closed?.pullRequest, { state: 'closed', seenAt: '2026-11-01T10:02:00.000Z' });
      assert.deepEqual(
        (await store.listPromotions(pipeline)).find((r) => r.env === 'staging' && r.revision === '6.9.3')?.pullRequest,
        closed?.pullRequest,
      );
      // `pipelinectl retry` makes it due; the next attempt opens a new pull request, not read yet.
      assert.ok(closed);
      assert.equal(await store.failPromotion(closed, 'closed without merging', minutes(4), minutes(4)), true);
      const due = await store.claimPromotion(pipeline, 'staging', '6.9.3', 'worker-b', 60_000, minutes(4));
      assert.ok(due);
      assert.equal(await store.completePromotion(due, 'https://github.com/acme/fleet/pull/46', minutes(5)), true);
      assert.equal((await store.getPromotion(pipeline, 'staging', '6.9.3'))?.pullRequest, undefined);
    });

    it("keeps what was recorded on the Git host of a promotion's rollout, conditionally, across attempts", async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'staging', '6.9.4', t0);
      const claimed = await store.claimPromotion(pipeline, 'staging', '6.9.4', 'worker-a', 60_000, t0);
      assert.ok(claimed);
      assert.equal(await store.completePromotion(claimed, 'https://github.com/acme/fleet/pull/47', minutes(1)), true);
      const merged = await store.getPromotion(pipeline, 'staging', '6.9.4');
      assert.ok(merged);
      const rolling = { id: '17', sha: 'a'.repeat(40), state: 'in_progress' as const, at: '2026-11-01T10:02:00.000Z' };
      assert.equal(await store.recordHostDeployment(merged, rolling), true);
      const recorded = await store.getPromotion(pipeline, 'staging', '6.9.4');
      assert.deepEqual(recorded?.hostDeployment, rolling);
      assert.equal(recorded?.updatedAt, merged.updatedAt, 'the promotion itself did not change');
      // A worker that read the record before cannot record over it.
      assert.equal(await store.recordHostDeployment(merged, { ...rolling, state: 'failure' }), false);
      assert.ok(recorded);
      assert.equal(await store.recordHostDeployment(recorded, { ...rolling, state: 'success' }), true);
      assert.deepEqual(
        (await store.listPromotions(pipeline)).find((r) => r.env === 'staging' && r.revision === '6.9.4')
          ?.hostDeployment,
        { ...rolling, state: 'success' },
      );
    });

    it('an expired lease lets another worker resume, and the first one can no longer finish', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'prod', '7.0.0', t0);
      const first = await store.claimPromotion(pipeline, 'prod', '7.0.0', 'worker-a', 60_000, t0);
      assert.ok(first);
      assert.equal(await store.claimPromotion(pipeline, 'prod', '7.0.0', 'worker-b', 60_000, minutes(0.5)), undefined);
      const second = await store.claimPromotion(pipeline, 'prod', '7.0.0', 'worker-b', 60_000, minutes(2));
      assert.equal(second?.owner, 'worker-b');
      assert.equal(second?.attempts, 2);
      assert.equal(await store.completePromotion(first, 'late', minutes(2.5)), false);
      assert.ok(second);
      assert.equal(await store.completePromotion(second, 'https://github.com/acme/fleet/pull/43', minutes(3)), true);
    });

    it('an attempt whose lease cannot be read is claimable, as the decision resumes it', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'prod', '7.0.1', t0);
      const first = await store.claimPromotion(pipeline, 'prod', '7.0.1', 'worker-a', 60_000, t0);
      assert.ok(first);
      await subject.overwriteLease(pipeline, 'prod', '7.0.1', 'not a time');
      // A lease nobody can read never runs out: holding to it would block the promotion for good.
      const second = await store.claimPromotion(pipeline, 'prod', '7.0.1', 'worker-b', 60_000, t0);
      assert.equal(second?.owner, 'worker-b');
      assert.equal(second?.attempts, 2);
      assert.equal(second?.leaseExpiresAt, '2026-11-01T10:01:00.000Z');
      assert.equal(await store.completePromotion(first, 'late', minutes(0.5)), false, 'the first worker lost it');
    });

    it('a failure with retryAt is due again from then on; without it, never', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'prod', '7.1.0', t0);
      const first = await store.claimPromotion(pipeline, 'prod', '7.1.0', 'worker-a', 60_000, t0);
      assert.ok(first);
      assert.equal(await store.failPromotion(first, 'GitHub answered 502', minutes(5), minutes(1)), true);
      const failed = await store.getPromotion(pipeline, 'prod', '7.1.0');
      assert.equal(failed?.state, 'failed');
      assert.equal(failed?.error, 'GitHub answered 502');
      assert.equal(failed?.retryAt, '2026-11-01T10:05:00.000Z');
      assert.equal(await store.claimPromotion(pipeline, 'prod', '7.1.0', 'worker-b', 60_000, minutes(4)), undefined);
      const retry = await store.claimPromotion(pipeline, 'prod', '7.1.0', 'worker-b', 60_000, minutes(5));
      assert.equal(retry?.attempts, 2);
      assert.equal(retry?.retryAt, undefined);
      assert.ok(retry);
      assert.equal(await store.failPromotion(retry, 'no $promotion marker for prod', undefined, minutes(6)), true);
      assert.equal(await store.claimPromotion(pipeline, 'prod', '7.1.0', 'worker-c', 60_000, minutes(600)), undefined);
      assert.equal((await store.getPromotion(pipeline, 'prod', '7.1.0'))?.error, 'no $promotion marker for prod');
    });

    it('keeps why the last attempt failed beside its error; a failure without a kind, or a success, drops it', async () => {
      const { store } = subject;
      await store.createPromotion(pipeline, 'prod', '7.2.0', t0);
      const first = await store.claimPromotion(pipeline, 'prod', '7.2.0', 'worker-a', 60_000, t0);
      assert.ok(first);
      assert.equal(
        await store.failPromotion(first, 'GitHub answered 429', minutes(5), minutes(1), 'RateLimited'),
        true,
      );
      const failed = await store.getPromotion(pipeline, 'prod', '7.2.0');
      assert.equal(failed?.failureKind, 'RateLimited');
      const second = await store.claimPromotion(pipeline, 'prod', '7.2.0', 'worker-b', 60_000, minutes(5));
      assert.equal(second?.failureKind, 'RateLimited', 'an attempt under way still shows why the last one failed');
      assert.ok(second);
      assert.equal(await store.failPromotion(second, 'cut off', minutes(6), minutes(6)), true);
      assert.equal((await store.getPromotion(pipeline, 'prod', '7.2.0'))?.failureKind, undefined, 'not a stale kind');
      const third = await store.claimPromotion(pipeline, 'prod', '7.2.0', 'worker-c', 60_000, minutes(6));
      assert.ok(third);
      assert.equal(await store.failPromotion(third, 'no marker', undefined, minutes(7), 'NoMarkers'), true);
      const forGood = await store.getPromotion(pipeline, 'prod', '7.2.0');
      assert.ok(forGood);
      assert.deepEqual([forGood.failureKind, forGood.retryAt], ['NoMarkers', undefined]);
      // `pipelinectl retry` makes it due now and keeps the error and its kind.
      assert.equal(await store.failPromotion(forGood, 'no marker', minutes(8), minutes(8), forGood.failureKind), true);
      const due = await store.claimPromotion(pipeline, 'prod', '7.2.0', 'worker-d', 60_000, minutes(8));
      assert.equal(due?.failureKind, 'NoMarkers');
      assert.ok(due);
      assert.equal(await store.completePromotion(due, 'https://example.com/pull/1', minutes(9)), true);
      const succeeded = await store.getPromotion(pipeline, 'prod', '7.2.0');
      assert.deepEqual([succeeded?.error, succeeded?.failureKind], [undefined, undefined]);
    });

    it('keeps revisions with special characters apart', async () => {
      const { store } = subject;
      const revisions = [
        'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
        '6.6.1+0cc9a8446c95',
        'feature/x#1@sha1:ab',
      ];
      for (const revision of revisions) await store.createPromotion(pipeline, 'odd', revision, t0);
      const stored = (await store.listPromotions(pipeline)).filter((r) => r.env === 'odd').map((r) => r.revision);
      assert.deepEqual(stored.sort(), [...revisions].sort());
    });
  });

  describe(`${name}: audit trail`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());

    it('appends entries and lists them newest first, in pages', async () => {
      const { store } = subject;
      const pipeline = { namespace: 'flux-system', name: 'podinfo' };
      for (let i = 0; i < 5; i += 1) {
        await store.appendAudit({
          at: `2026-11-01T10:0${i}:00.000Z`,
          pipeline,
          type: 'promotion-started',
          env: 'prod',
          revision: `6.9.${i}`,
          message: `promoting 6.9.${i} by pull-request`,
          actor: 'verifier',
        });
      }
      const first = await store.listAudit(pipeline, { limit: 3 });
      assert.deepEqual(
        first.items.map((entry) => entry.revision),
        ['6.9.4', '6.9.3', '6.9.2'],
      );
      assert.ok(first.cursor);
      const second = await store.listAudit(pipeline, { limit: 3, cursor: first.cursor });
      assert.deepEqual(
        second.items.map((entry) => entry.revision),
        ['6.9.1', '6.9.0'],
      );
      assert.deepEqual(second.items[0], {
        at: '2026-11-01T10:01:00.000Z',
        pipeline,
        type: 'promotion-started',
        env: 'prod',
        revision: '6.9.1',
        message: 'promoting 6.9.1 by pull-request',
        actor: 'verifier',
      });
    });

    it('keeps why a promotion failed on its entry; an entry without a kind reads back without one', async () => {
      const { store } = subject;
      const pipeline = { namespace: 'flux-system', name: 'failures' };
      const entry = {
        pipeline,
        type: 'promotion-failed' as const,
        env: 'prod',
        revision: '6.9.2',
        message: 'GitHub answered 401; not retried',
        actor: 'verifier',
      };
      await store.appendAudit({ ...entry, at: '2026-11-01T10:00:00.000Z' });
      await store.appendAudit({ ...entry, at: '2026-11-01T10:01:00.000Z', failureKind: 'Unauthorized' });
      const { items } = await store.listAudit(pipeline);
      assert.deepEqual(
        items.map((item) => item.failureKind),
        ['Unauthorized', undefined],
      );
      assert.ok(!('failureKind' in (items[1] ?? {})), 'an older entry has no kind at all');
    });
  });

  describe(`${name}: PipelineSets`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const t0 = at('2026-11-01T10:00:00Z');
    const owner = { configSource: { namespace: 'flux-system', name: 'fleet' }, revision: commit('a') };
    const pipelineSet = (name: string, apps: string[], namespace = 'flux-system'): PipelineSetDocument => ({
      apiVersion: 'pipeline-controller.io/v1alpha1',
      kind: 'PipelineSet',
      metadata: { name, namespace },
      spec: {
        generators: [{ list: { elements: apps.map((app) => ({ app })) } }],
        template: { metadata: { name: '{{ app }}' }, spec: { appRef: { name: '{{ app }}' } } },
      },
    });

    it('stores a set, writes nothing for the same one again, and a changed one or owner as a new generation', async () => {
      const { store } = subject;
      const key = { namespace: 'flux-system', name: 'web-apps' };
      assert.deepEqual(await store.applyPipelineSet(pipelineSet('web-apps', ['a', 'b']), t0), { changed: true });
      subject.resetCounts();
      assert.deepEqual(await store.applyPipelineSet(pipelineSet('web-apps', ['a', 'b']), t0), { changed: false });
      assert.equal(subject.writes(), 0);
      assert.deepEqual(await store.applyPipelineSet(pipelineSet('web-apps', ['a']), t0), { changed: true });
      assert.deepEqual(await store.applyPipelineSet(pipelineSet('web-apps', ['a']), t0, owner), { changed: true });
      const stored = await store.getPipelineSet(key);
      assert.deepEqual(stored?.document, pipelineSet('web-apps', ['a']));
      assert.equal(stored?.generation, 3);
      assert.equal(stored?.owner?.configSource.name, 'fleet');
      assert.equal(await store.getPipelineSet({ namespace: 'flux-system', name: 'never-applied' }), undefined);
    });

    it('records what the apps generators found over the generation read, and an apply of the set keeps it', async () => {
      const { store } = subject;
      const key = { namespace: 'flux-system', name: 'found' };
      await store.applyPipelineSet(pipelineSet('found', ['a']), t0);
      const found = { 'flux-system/dev|HelmRelease|apps': [{ name: 'web', labels: { team: 'a' } }] };
      assert.equal(await store.recordPipelineSetApps(key, 1, found), true);
      assert.deepEqual((await store.getPipelineSet(key))?.appsFound, found);
      assert.equal(await store.recordPipelineSetApps(key, 2, {}), false, 'not over a generation never read');
      await store.applyPipelineSet(pipelineSet('found', ['a', 'b']), t0);
      const reapplied = await store.getPipelineSet(key);
      assert.equal(reapplied?.generation, 2);
      assert.deepEqual(reapplied?.appsFound, found);
      assert.equal(await store.recordPipelineSetApps(key, 1, {}), false, 'not over an older generation');
      assert.equal(await store.recordPipelineSetApps({ namespace: 'flux-system', name: 'gone' }, 1, {}), false);
    });

    it('lists sets in pages by namespace and name, and deletes one once', async () => {
      const { store } = subject;
      for (const [name, namespace] of [
        ['c', 'team-a'],
        ['b', 'flux-system'],
        ['a', 'team-a'],
      ] as const) {
        await store.applyPipelineSet(pipelineSet(`list-${name}`, ['x'], namespace), t0);
      }
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listPipelineSets({ limit: 2, cursor });
        listed.push(...page.items.map(({ document }) => `${document.metadata.namespace}/${document.metadata.name}`));
        cursor = page.cursor;
      } while (cursor);
      assert.deepEqual(
        listed.filter((key) => key.includes('/list-')),
        ['flux-system/list-b', 'team-a/list-a', 'team-a/list-c'],
      );
      const gone = { namespace: 'team-a', name: 'list-a' };
      assert.equal(await store.deletePipelineSet(gone), true);
      assert.equal(await store.getPipelineSet(gone), undefined);
      assert.equal(await store.deletePipelineSet(gone), false);
    });
  });

  describe(`${name}: notification claims`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const pipeline = { namespace: 'flux-system', name: 'podinfo' };
    const t0 = at('2026-11-01T10:00:00Z');

    it('20 concurrent claims of the same news give it to exactly one caller, and never again', async () => {
      const { store } = subject;
      const claims = await Promise.all(
        Array.from({ length: 20 }, () => store.claimNotification(pipeline, 'prod', '6.9.2', 'approval-waiting', t0)),
      );
      assert.equal(claims.filter(Boolean).length, 1);
      const later = at('2026-11-02T10:00:00Z');
      assert.equal(await store.claimNotification(pipeline, 'prod', '6.9.2', 'approval-waiting', later), false);
    });

    it('another pipeline, environment, revision or kind is another claim', async () => {
      const { store } = subject;
      assert.equal(await store.claimNotification(pipeline, 'staging', '6.9.2', 'approval-waiting', t0), true);
      assert.equal(await store.claimNotification(pipeline, 'prod', '6.9.3', 'approval-waiting', t0), true);
      assert.equal(await store.claimNotification(pipeline, 'prod', '6.9.2', 'promotion-opened', t0), true);
      const other = { namespace: 'flux-system', name: 'podinfo-2' };
      assert.equal(await store.claimNotification(other, 'prod', '6.9.2', 'approval-waiting', t0), true);
    });

    it('keeps revisions with special characters apart', async () => {
      const { store } = subject;
      // Joined naively, these two would be the same key: `a#b` + `c` and `a` + `b#c`.
      assert.equal(await store.claimNotification(pipeline, 'odd', 'main@sha1:ab#1', 'promotion-failed', t0), true);
      assert.equal(await store.claimNotification(pipeline, 'odd#main@sha1:ab', '1', 'promotion-failed', t0), true);
      assert.equal(await store.claimNotification(pipeline, 'odd', 'feature/x#1', 'promotion-failed', t0), true);
      assert.equal(await store.claimNotification(pipeline, 'odd', 'feature/x#1', 'promotion-failed', t0), false);
    });
  });

  describe(`${name}: ConfigSources`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const t0 = at('2026-11-01T10:00:00Z');
    const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);
    const LEASE_MS = 60_000;
    const succeeded = (revision: string, applied = 2, skipped = 0): ConfigSyncResult => ({
      attempted: true,
      appliedRevision: revision,
      applied,
      skipped,
      ready: { status: 'True', reason: 'Succeeded', message: `applied revision ${revision}` },
    });
    const failed = (reason: ConfigSyncReason, message: string, attempted = true): ConfigSyncResult => ({
      attempted,
      ready: { status: 'False', reason, message },
    });
    /** Claims `revision` for the source's current generation and finishes the sync with `result`. */
    const sync = async (key: ObjectKey, revision: string, result: ConfigSyncResult, now: Date) => {
      const stored = await subject.store.getConfigSource(key);
      assert.ok(stored, `${key.name} is stored`);
      const claim = await subject.store.claimConfigSync(key, revision, stored.generation, now, LEASE_MS);
      assert.ok(claim, `${revision} is claimable`);
      assert.equal(await subject.store.finishConfigSync(claim, result, now), true);
    };

    it('a new source is a change and waits for its first sync: Ready Unknown, reason Pending', async () => {
      const { store } = subject;
      const fleet = configSourceFixture('fleet');
      assert.deepEqual(await store.applyConfigSource(fleet.document, t0), { changed: true });
      const stored = await store.getConfigSource(fleet.key);
      assert.ok(stored);
      assert.deepEqual(stored.document, fleet.document);
      assert.equal(stored.generation, 1);
      assert.equal(stored.appliedAt, '2026-11-01T10:00:00.000Z');
      assert.equal(stored.status.lastAttemptedRevision, undefined);
      assert.equal(stored.status.lastAppliedRevision, undefined);
      assert.equal(stored.status.conditions.length, 1);
      const [ready] = stored.status.conditions;
      assert.deepEqual([ready?.type, ready?.status, ready?.reason], ['Ready', 'Unknown', 'Pending']);
      assert.equal(ready?.lastTransitionTime, '2026-11-01T10:00:00.000Z');
      assert.ok(ready?.message, 'says why it is pending');
      assert.equal(await store.getConfigSource({ namespace: 'flux-system', name: 'never-applied' }), undefined);
    });

    it('the same source again, whatever its key order, writes nothing and keeps its generation', async () => {
      const { store } = subject;
      const fleet = configSourceFixture('fleet');
      const { url, branch, path, secretRef } = fleet.document.spec;
      const reordered = { ...fleet.document, spec: { secretRef, path, branch, url } };
      subject.resetCounts();
      assert.deepEqual(await store.applyConfigSource(fleet.document, minutes(5)), { changed: false });
      assert.deepEqual(await store.applyConfigSource(reordered, minutes(6)), { changed: false });
      assert.equal(subject.writes(), 0);
      const stored = await store.getConfigSource(fleet.key);
      assert.equal(stored?.generation, 1);
      assert.equal(stored?.appliedAt, '2026-11-01T10:00:00.000Z');
    });

    it('a changed spec raises the generation and keeps the status of the last sync', async () => {
      const { store } = subject;
      const source = configSourceFixture('respec');
      await store.applyConfigSource(source.document, t0);
      await sync(source.key, commit('a'), succeeded(commit('a'), 3, 1), minutes(1));
      const synced = await store.getConfigSource(source.key);
      assert.equal(synced?.status.lastAppliedRevision, commit('a'));

      const changed = configSourceFixture('respec', { path: 'clusters/prod', prune: false });
      assert.deepEqual(await store.applyConfigSource(changed.document, minutes(2)), { changed: true });
      const stored = await store.getConfigSource(source.key);
      assert.deepEqual(stored?.document, changed.document);
      assert.equal(stored?.generation, 2);
      assert.equal(stored?.appliedAt, '2026-11-01T10:02:00.000Z');
      assert.deepEqual(stored?.status, synced?.status);
    });

    it('lists sources in pages, by namespace and name as pipelines are, and deletes one once', async () => {
      const { store } = subject;
      const applied = [
        configSourceFixture('list-c', {}, 'team-a'),
        configSourceFixture('list-b'),
        configSourceFixture('list-a', {}, 'team-a'),
        configSourceFixture('list-e'),
        configSourceFixture('list-d', {}, 'team-b'),
      ];
      for (const source of applied) await store.applyConfigSource(source.document, t0);
      const listed: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listConfigSources({ limit: 2, cursor });
        assert.ok(page.items.length <= 2);
        listed.push(...page.items.map(({ document }) => `${document.metadata.namespace}/${document.metadata.name}`));
        cursor = page.cursor;
        pages += 1;
      } while (cursor);
      assert.ok(pages >= 3, `expected at least 3 pages, got ${pages}`);
      assert.deepEqual(
        listed.filter((key) => key.includes('/list-')),
        ['flux-system/list-b', 'flux-system/list-e', 'team-a/list-a', 'team-a/list-c', 'team-b/list-d'],
      );
      assert.deepEqual(listed, [...listed].sort(), 'the whole list in that order');
      assert.equal(new Set(listed).size, listed.length, 'no source listed twice');
      const [first] = (await store.listConfigSources({ limit: 1 })).items;
      assert.equal(first?.generation, 1, 'a listed source carries what get returns');
      assert.deepEqual(first, await store.getConfigSource(keyOfMetadata(first.document.metadata)));

      const gone = configSourceFixture('list-e');
      assert.equal(await store.deleteConfigSource(gone.key), true);
      assert.equal(await store.getConfigSource(gone.key), undefined);
      assert.equal(await store.deleteConfigSource(gone.key), false);
      const left = (await store.listConfigSources()).items.map(({ document }) => document.metadata.name);
      assert.ok(!left.includes('list-e'));
      assert.ok(left.includes('list-b'));
    });

    it('of 30 concurrent claims of one commit exactly one wins; an attempted commit is claimed again only for a new spec', async () => {
      const { store } = subject;
      const source = configSourceFixture('claims');
      await store.applyConfigSource(source.document, t0);
      const claims = await Promise.all(
        Array.from({ length: 30 }, () => store.claimConfigSync(source.key, commit('a'), 1, t0, LEASE_MS)),
      );
      const winners = claims.filter((claim) => claim !== undefined);
      assert.equal(winners.length, 1);
      const [winner] = winners;
      assert.ok(winner);
      assert.deepEqual(
        [winner.source, winner.revision, winner.generation],
        [source.key, commit('a'), 1],
        'the claim names what it is for',
      );
      assert.equal(await store.finishConfigSync(winner, succeeded(commit('a')), minutes(0.5)), true);

      // Long after the lease would have run out, the commit stays done.
      assert.equal(await store.claimConfigSync(source.key, commit('a'), 1, minutes(30), LEASE_MS), undefined);
      // A new commit is another sync.
      await sync(source.key, commit('b'), failed('ValidationFailed', 'pipelines/shop.yaml: bad'), minutes(31));
      assert.equal(await store.claimConfigSync(source.key, commit('b'), 1, minutes(32), LEASE_MS), undefined);

      // A changed spec (another path, say) reads the same commit again.
      await store.applyConfigSource(configSourceFixture('claims', { path: 'fleet' }).document, minutes(33));
      assert.equal(
        await store.claimConfigSync(source.key, commit('c'), 1, minutes(34), LEASE_MS),
        undefined,
        'a claim for the generation before is refused, even of a commit never attempted',
      );
      const again = await store.claimConfigSync(source.key, commit('b'), 2, minutes(34), LEASE_MS);
      assert.equal(again?.generation, 2);
    });

    it('a sync that could not read Git (attempted: false) leaves its commit to be claimed again', async () => {
      const { store } = subject;
      const source = configSourceFixture('unattempted');
      await store.applyConfigSource(source.document, t0);
      const first = await store.claimConfigSync(source.key, commit('c'), 1, t0, LEASE_MS);
      assert.ok(first);
      const unreachable = failed('GitUnavailable', 'github.com answered 503', false);
      assert.equal(await store.finishConfigSync(first, unreachable, minutes(0.5)), true);
      const second = await store.claimConfigSync(source.key, commit('c'), 1, minutes(1), LEASE_MS);
      assert.ok(second, 'claimable again at once: the lease ended with the sync');
      assert.notEqual(second.token, first.token);
      assert.equal(await store.finishConfigSync(second, succeeded(commit('c')), minutes(1.5)), true);
      assert.equal(await store.claimConfigSync(source.key, commit('c'), 1, minutes(2), LEASE_MS), undefined);
    });

    it('a live lease blocks every claim, of any commit, until it ends; the claim that lost it cannot finish', async () => {
      const { store } = subject;
      const source = configSourceFixture('leases');
      await store.applyConfigSource(source.document, t0);
      const first = await store.claimConfigSync(source.key, commit('a'), 1, t0, LEASE_MS);
      assert.ok(first);
      assert.equal(await store.claimConfigSync(source.key, commit('a'), 1, minutes(0.5), LEASE_MS), undefined);
      assert.equal(
        await store.claimConfigSync(source.key, commit('b'), 1, minutes(0.5), LEASE_MS),
        undefined,
        'one sync of a source at a time, whatever its commit',
      );
      const second = await store.claimConfigSync(source.key, commit('b'), 1, minutes(2), LEASE_MS);
      assert.ok(second, 'the lease has run out');

      assert.equal(await store.finishConfigSync(first, succeeded(commit('a')), minutes(2.5)), false);
      const unchanged = await store.getConfigSource(source.key);
      assert.equal(unchanged?.status.lastAttemptedRevision, undefined, 'the lost sync recorded nothing');
      assert.equal(unchanged?.status.conditions[0]?.reason, 'Pending');

      assert.equal(await store.finishConfigSync(second, succeeded(commit('b')), minutes(3)), true);
      assert.equal(await store.finishConfigSync(second, succeeded(commit('b')), minutes(3.5)), false, 'only once');
      assert.equal((await store.getConfigSource(source.key))?.status.lastAppliedRevision, commit('b'));
      // The first commit was never finished: it may still be synced.
      assert.ok(await store.claimConfigSync(source.key, commit('a'), 1, minutes(4), LEASE_MS));
    });

    it('no claim for a source that is not stored; a source deleted during its sync stays deleted', async () => {
      const { store } = subject;
      const source = configSourceFixture('deleted-while-syncing');
      assert.equal(await store.claimConfigSync(source.key, commit('a'), 1, t0, LEASE_MS), undefined);
      await store.applyConfigSource(source.document, t0);
      const claim = await store.claimConfigSync(source.key, commit('a'), 1, t0, LEASE_MS);
      assert.ok(claim);
      assert.equal(await store.deleteConfigSource(source.key), true);
      assert.equal(await store.finishConfigSync(claim, succeeded(commit('a')), minutes(0.5)), false);
      assert.equal(await store.getConfigSource(source.key), undefined);
      assert.equal(await store.claimConfigSync(source.key, commit('a'), 1, minutes(1), LEASE_MS), undefined);
    });

    it('a sync sets the revisions and counts its result says; the Ready condition moves its time only with its status', async () => {
      const { store } = subject;
      const source = configSourceFixture('status');
      await store.applyConfigSource(source.document, t0);
      const status = async () => (await store.getConfigSource(source.key))?.status;

      await sync(source.key, commit('a'), succeeded(commit('a'), 3, 1), minutes(1));
      assert.deepEqual(await status(), {
        lastAttemptedRevision: commit('a'),
        lastAppliedRevision: commit('a'),
        attemptedGeneration: 1,
        applied: 3,
        skipped: 1,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Succeeded',
            message: `applied revision ${commit('a')}`,
            lastTransitionTime: '2026-11-01T10:01:00.000Z',
          },
        ],
      });

      await sync(source.key, commit('b'), succeeded(commit('b'), 4, 0), minutes(2));
      const stillTrue = await status();
      assert.deepEqual(
        [stillTrue?.lastAttemptedRevision, stillTrue?.lastAppliedRevision, stillTrue?.applied, stillTrue?.skipped],
        [commit('b'), commit('b'), 4, 0],
      );
      assert.equal(stillTrue?.conditions[0]?.message, `applied revision ${commit('b')}`);
      assert.equal(stillTrue?.conditions[0]?.lastTransitionTime, '2026-11-01T10:01:00.000Z', 'True → True');

      const invalid = 'pipelines/shop.yaml: spec.environments[0].name: must not be empty';
      await sync(source.key, commit('c'), failed('ValidationFailed', invalid), minutes(3));
      assert.deepEqual(await status(), {
        lastAttemptedRevision: commit('c'),
        lastAppliedRevision: commit('b'),
        attemptedGeneration: 1,
        applied: 4,
        skipped: 0,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ValidationFailed',
            message: invalid,
            lastTransitionTime: '2026-11-01T10:03:00.000Z',
          },
        ],
      });

      await sync(source.key, commit('d'), failed('Conflict', 'Pipeline flux-system/shop: owned by other'), minutes(4));
      const stillFalse = (await status())?.conditions[0];
      assert.deepEqual(
        [stillFalse?.reason, stillFalse?.message],
        ['Conflict', 'Pipeline flux-system/shop: owned by other'],
      );
      assert.equal(stillFalse?.lastTransitionTime, '2026-11-01T10:03:00.000Z', 'False → False');

      await sync(source.key, commit('e'), failed('GitUnavailable', 'github.com answered 503', false), minutes(5));
      const unreachable = await status();
      assert.equal(unreachable?.lastAttemptedRevision, commit('d'), 'a commit never read was not attempted');
      assert.equal(unreachable?.lastAppliedRevision, commit('b'));
      assert.equal(unreachable?.conditions[0]?.reason, 'GitUnavailable');

      await sync(source.key, commit('e'), succeeded(commit('e')), minutes(6));
      const recovered = (await status())?.conditions[0];
      assert.equal(recovered?.lastTransitionTime, '2026-11-01T10:06:00.000Z', 'False → True');
    });

    it('keeps each source its trail of applied commits, newest first, in pages, every field read back', async () => {
      const { store } = subject;
      const fleet = configSourceFixture('audited');
      const other = configSourceFixture('audited', {}, 'team-a');
      const entry = (source: ObjectKey, i: number): ConfigAuditEntry => ({
        at: `2026-11-01T10:0${i}:00.000Z`,
        configSource: source,
        type: 'config-applied',
        revision: commit(String(i)),
        author: `Ann Example <ann${i}@example.com>`,
        message: `applied ${commit(String(i))}`,
        created: [`Pipeline flux-system/new-${i}`],
        configured: [`Pipeline flux-system/shop`, `GitopsCluster flux-system/prod-${i}`],
        pruned: i % 2 === 0 ? [] : [`Pipeline flux-system/old-${i}`],
        actor: 'config-sync',
      });
      for (let i = 0; i < 5; i += 1) await store.appendConfigAudit(entry(fleet.key, i));
      for (let i = 5; i < 7; i += 1) await store.appendConfigAudit(entry(other.key, i));
      const { author: _author, actor: _actor, ...anonymous } = entry(other.key, 7);
      await store.appendConfigAudit(anonymous);

      const first = await store.listConfigAudit(fleet.key, { limit: 2 });
      assert.deepEqual(first.items, [entry(fleet.key, 4), entry(fleet.key, 3)]);
      assert.ok(first.cursor);
      const revisions = first.items.map((item) => item.revision);
      let cursor: string | undefined = first.cursor;
      while (cursor) {
        const page = await store.listConfigAudit(fleet.key, { limit: 2, cursor });
        revisions.push(...page.items.map((item) => item.revision));
        cursor = page.cursor;
      }
      assert.deepEqual(
        revisions,
        ['4', '3', '2', '1', '0'].map((digit) => commit(digit)),
      );

      const { items } = await store.listConfigAudit(other.key);
      assert.deepEqual(items, [anonymous, entry(other.key, 6), entry(other.key, 5)]);
      assert.ok(!('author' in (items[0] ?? {})) && !('actor' in (items[0] ?? {})), 'absent fields stay absent');
      assert.deepEqual((await store.listConfigAudit(configSourceFixture('unaudited').key)).items, []);
    });
  });

  describe(`${name}: objects owned by a ConfigSource`, () => {
    let subject: StoreUnderTest;
    before(async () => (subject = await start()));
    after(() => subject.stop());
    const fleet = configSourceFixture('fleet').key;
    const other = configSourceFixture('other').key;
    const t0 = at('2026-11-01T10:00:00Z');

    it('a pipeline records its source and commit; a commit that leaves it as it is writes nothing', async () => {
      const { store } = subject;
      const shop = pipelineFixture('owned-shop', { dev: ['owned-dev'] });
      const owner = { configSource: fleet, revision: commit('a') };
      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, t0, owner), { changed: true });
      assert.deepEqual((await store.getPipeline(shop.key))?.owner, owner);
      const listed = (await store.listPipelines()).items.find((item) => item.pipeline.name === 'owned-shop');
      assert.deepEqual(listed?.owner, owner);

      subject.resetCounts();
      const later = { configSource: fleet, revision: commit('b') };
      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, t0, later), { changed: false });
      assert.equal(subject.writes(), 0);
      const kept = await store.getPipeline(shop.key);
      assert.deepEqual(kept?.owner, owner, 'the commit that last changed it');
      assert.equal(kept?.generation, 1);
    });

    it('a pipeline moves to another source, or to the CLI, as a change', async () => {
      const { store } = subject;
      const shop = pipelineFixture('owned-shop', { dev: ['owned-dev'] });
      const taken = { configSource: other, revision: commit('c') };
      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, t0, taken), { changed: true });
      assert.deepEqual((await store.getPipeline(shop.key))?.owner, taken);

      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, t0), { changed: true });
      const released = await store.getPipeline(shop.key);
      assert.ok(released && !('owner' in released), 'applied with the CLI: no owner');
      assert.equal(released.generation, 3);
      const listed = (await store.listPipelines()).items.find((item) => item.pipeline.name === 'owned-shop');
      assert.ok(listed && !('owner' in listed));
      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, t0), { changed: false });

      const adopted = { configSource: fleet, revision: commit('d') };
      assert.deepEqual(await store.applyPipeline(shop.document, shop.pipeline, t0, adopted), { changed: true });
      assert.deepEqual((await store.getPipeline(shop.key))?.owner, adopted);
      assert.deepEqual(
        await store.findTargets(app('owned-dev')),
        [{ pipeline: shop.key, env: 'dev', targetIndex: 0 }],
        'its targets are indexed as ever',
      );
    });

    it('a cluster records its source the same way', async () => {
      const { store } = subject;
      const cluster = clusterFixture('owned-eu');
      const key = { namespace: 'flux-system', name: 'owned-eu' };
      const owner = { configSource: fleet, revision: commit('a') };
      assert.deepEqual(await store.applyCluster(cluster, t0, owner), { changed: true });
      assert.deepEqual((await store.getCluster(key))?.owner, owner);
      const listed = (await store.listClusters()).items.find((item) => item.document.metadata.name === 'owned-eu');
      assert.deepEqual(listed?.owner, owner);

      subject.resetCounts();
      const later = { configSource: fleet, revision: commit('b') };
      assert.deepEqual(await store.applyCluster(cluster, t0, later), { changed: false });
      assert.equal(subject.writes(), 0);
      assert.deepEqual((await store.getCluster(key))?.owner, owner);

      const taken = { configSource: other, revision: commit('c') };
      assert.deepEqual(await store.applyCluster(cluster, t0, taken), { changed: true });
      assert.deepEqual((await store.getCluster(key))?.owner, taken);
      assert.deepEqual(await store.applyCluster(cluster, t0), { changed: true });
      const released = await store.getCluster(key);
      assert.ok(released && !('owner' in released), 'applied with the CLI: no owner');
      assert.equal(released.generation, 3);
      assert.deepEqual(await store.applyCluster(cluster, t0), { changed: false });
      assert.deepEqual(await store.applyCluster(cluster, t0, owner), { changed: true });
      assert.deepEqual(await store.applyCluster(clusterFixture('owned-eu', 'us-east-1'), t0, owner), { changed: true });
      assert.equal((await store.getCluster(key))?.generation, 5);
    });
  });
}
