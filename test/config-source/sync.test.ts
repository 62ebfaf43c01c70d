// A ConfigSource's sync against each Git host's fake, driven by that host's adapter and client, over the in-memory
// store: what a platform team sees when its pipelines live in Git. A commit is applied all or nothing, once; a bad
// commit keeps the last good configuration and names the file; a removed file prunes; two sources never fight over
// one object; the CLI may not change what Git owns.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { applyConfiguration, deleteObject, type ApplyPorts } from '../../lib/apply/index.js';
import { syncConfigSource, type SyncDeps } from '../../lib/config-source/sync.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import type { StoredConfigSource } from '../../lib/store/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';
import { HOSTS } from '../promotion/pull-request-subject.js';
import {
  applyPorts,
  clusterYaml,
  configSourceYaml,
  hostSyncDeps,
  NS,
  pipelineYaml,
  SOURCE,
  sourceSecrets,
} from './fixtures.js';

const cluster = clusterYaml;
const pipeline = (name: string) => pipelineYaml(name);
const configSource = (fake: FakeHostUnderTest, extra = '') =>
  configSourceYaml({ url: fake.repositoryUrl, type: fake.type, extra });

/** Applies `text` as `pipelinectl apply` does. */
async function cliApply(ports: ApplyPorts, text: string) {
  return applyConfiguration(ports, { source: { text, file: 'config.yaml' } });
}

function status(stored: StoredConfigSource | undefined) {
  assert.ok(stored, 'the ConfigSource is stored');
  const ready = stored.status.conditions.find((condition) => condition.type === 'Ready');
  assert.ok(ready);
  return { ...stored.status, ready };
}

for (const [type, start] of HOSTS) {
  describe(`a ConfigSource on ${type}`, () => {
    let fake: FakeHostUnderTest;
    let store: MemoryStore;
    let sent: QueueMessage[];
    let ports: ApplyPorts;
    let deps: SyncDeps;
    let clock: number;

    // A fake holds one repository: each test has its own.
    afterEach(() => fake.stop());

    beforeEach(async () => {
      fake = await start();
      fake.createRepository({
        'pipelines/clusters.yaml': cluster('dev'),
        'pipelines/podinfo.yaml': pipeline('podinfo'),
        'pipelines/flux/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [podinfo.yaml]\n',
        'apps/dev/helmrelease.yaml': 'kind: HelmRelease\n',
      });
      store = new MemoryStore();
      sent = [];
      clock = Date.parse('2026-11-29T10:00:00Z');
      const secrets = sourceSecrets(fake.secretValues);
      ports = applyPorts(store, secrets, sent);
      deps = hostSyncDeps(fake, store, secrets, ports, () => new Date((clock += 1000)));
      const applied = await cliApply(ports, configSource(fake));
      assert.ok(applied.ok, JSON.stringify(applied));
    });

    it('applies the folder at the branch head, owned by the source, and says so Flux’s way', async () => {
      assert.deepEqual(sent, [{ type: 'sync-config-source', source: SOURCE, cause: 'apply' }]);
      const head = fake.branchHead('main');
      const outcome = await syncConfigSource(SOURCE, deps);
      assert.equal(outcome.outcome, 'applied');

      const stored = await store.getPipeline({ namespace: NS, name: 'podinfo' });
      assert.deepEqual(stored?.owner, { configSource: SOURCE, revision: `main@sha1:${head}` });
      assert.deepEqual((await store.getCluster({ namespace: NS, name: 'dev' }))?.owner?.configSource, SOURCE);
      const { ready, ...rest } = status(await store.getConfigSource(SOURCE));
      assert.equal(rest.lastAppliedRevision, `main@sha1:${head}`);
      assert.equal(rest.lastAttemptedRevision, `main@sha1:${head}`);
      assert.equal(rest.applied, 2);
      assert.equal(rest.skipped, 1, 'the kustomization.yaml beside the pipelines');
      assert.equal(ready.status, 'True');
      assert.equal(ready.reason, 'Succeeded');

      const [entry, ...older] = (await store.listConfigAudit(SOURCE)).items;
      assert.equal(older.length, 0);
      assert.equal(entry?.type, 'config-applied');
      assert.equal(entry?.revision, `main@sha1:${head}`);
      assert.deepEqual(entry?.created.sort(), ['GitopsCluster flux-system/dev', 'Pipeline flux-system/podinfo']);
      assert.ok(entry?.author, 'the commit’s author as the host reports it');
    });

    it('reads one request and writes nothing when the head was seen before', async () => {
      await syncConfigSource(SOURCE, deps);
      fake.resetRequests();
      const writes = store.counts.writes;
      const outcome = await syncConfigSource(SOURCE, deps);
      assert.equal(outcome.outcome, 'up-to-date');
      assert.equal(fake.requestCount(), 1);
      assert.equal(store.counts.writes, writes);
    });

    it('keeps the last good configuration when a commit is invalid, names the file, and does not retry it', async () => {
      await syncConfigSource(SOURCE, deps);
      const good = fake.branchHead('main');
      fake.commitFiles('main', { 'pipelines/podinfo.yaml': pipeline('podinfo').replace('targets:', 'targetz:') });
      const bad = fake.branchHead('main');
      const outcome = await syncConfigSource(SOURCE, deps);
      assert.equal(outcome.outcome, 'failed');

      const { ready, ...rest } = status(await store.getConfigSource(SOURCE));
      assert.equal(ready.status, 'False');
      assert.equal(ready.reason, 'ValidationFailed');
      assert.match(ready.message, new RegExp(`main@sha1:${bad}`));
      assert.match(ready.message, /pipelines\/podinfo\.yaml:\d+:\d+: Pipeline flux-system\/podinfo: .*targetz/);
      assert.equal(rest.lastAppliedRevision, `main@sha1:${good}`);
      const stored = await store.getPipeline({ namespace: NS, name: 'podinfo' });
      assert.equal(stored?.owner?.revision, `main@sha1:${good}`, 'the pipeline as the good commit left it');
      assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'up-to-date');
    });

    it('prunes the pipeline of a removed file, and never everything for an emptied folder', async () => {
      fake.commitFiles('main', { 'pipelines/frontend.yaml': pipeline('frontend') });
      await syncConfigSource(SOURCE, deps);
      assert.ok(await store.getPipeline({ namespace: NS, name: 'frontend' }));

      fake.commitFiles('main', { 'pipelines/frontend.yaml': null });
      assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'applied');
      assert.equal(await store.getPipeline({ namespace: NS, name: 'frontend' }), undefined);
      assert.deepEqual((await store.listConfigAudit(SOURCE)).items[0]?.pruned, ['Pipeline flux-system/frontend']);

      fake.commitFiles('main', {
        'pipelines/podinfo.yaml': null,
        'pipelines/clusters.yaml': null,
        'pipelines/flux/kustomization.yaml': null,
      });
      const emptied = await syncConfigSource(SOURCE, deps);
      assert.equal(emptied.outcome, 'failed');
      assert.equal(emptied.outcome === 'failed' && emptied.reason, 'NotFound');
      assert.ok(await store.getPipeline({ namespace: NS, name: 'podinfo' }), 'nothing pruned');
    });
  });
}

describe('a ConfigSource and what else defines objects (GitHub)', () => {
  const [, start] = HOSTS[0] ?? assert.fail('no host');
  let fake: FakeHostUnderTest;
  let store: MemoryStore;
  let ports: ApplyPorts;
  let deps: SyncDeps;

  afterEach(() => fake.stop());

  beforeEach(async () => {
    fake = await start();
    fake.createRepository({ 'pipelines/clusters.yaml': cluster('dev'), 'pipelines/podinfo.yaml': pipeline('podinfo') });
    store = new MemoryStore();
    const secrets = sourceSecrets(fake.secretValues);
    ports = applyPorts(store, secrets);
    deps = hostSyncDeps(fake, store, secrets, ports);
    assert.ok((await cliApply(ports, configSource(fake))).ok);
  });

  it('syncs a commit once, however many ask at the same time', async () => {
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => syncConfigSource(SOURCE, deps)));
    assert.equal(outcomes.filter(({ outcome }) => outcome === 'applied').length, 1);
    assert.equal((await store.listConfigAudit(SOURCE)).items.length, 1);
  });

  it('refuses the CLI’s apply and delete of an object Git owns, naming the source', async () => {
    await syncConfigSource(SOURCE, deps);
    const applied = await cliApply(ports, pipeline('podinfo').replace('apps-prod', 'apps-live'));
    assert.equal(applied.ok, false);
    assert.match(applied.ok ? '' : applied.problems.join('\n'), /applied from Git by ConfigSource flux-system\/fleet/);
    await assert.rejects(
      deleteObject(ports, 'pipeline', { namespace: NS, name: 'podinfo' }),
      /applied from Git by ConfigSource flux-system\/fleet/,
    );
  });

  it('adopts an object the CLI applied, and never prunes one it does not define', async () => {
    assert.ok((await cliApply(ports, `${cluster('dev')}---\n${pipeline('podinfo')}---\n${pipeline('legacy')}`)).ok);
    await syncConfigSource(SOURCE, deps);
    assert.deepEqual((await store.getPipeline({ namespace: NS, name: 'podinfo' }))?.owner?.configSource, SOURCE);
    assert.equal((await store.getPipeline({ namespace: NS, name: 'legacy' }))?.owner, undefined);
    fake.commitFiles('main', { 'pipelines/other.yaml': pipeline('other') });
    await syncConfigSource(SOURCE, deps);
    assert.ok(await store.getPipeline({ namespace: NS, name: 'legacy' }), 'applied with the CLI: never pruned');
  });

  it('applies a PipelineSet from Git: its pipelines owned by the source, pruned with an element, all gone with the set', async () => {
    const set = (apps: readonly string[]) => `apiVersion: pipeline-controller.io/v1alpha1
kind: PipelineSet
metadata: { name: web-apps, namespace: ${NS} }
spec:
  generators:
    - list: { elements: [${apps.map((app) => `{ app: ${app} }`).join(', ')}] }
  template:
    metadata: { name: '{{ app }}' }
    spec:
      appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: '{{ app }}' }
      environments:
        - name: dev
          targets: [{ namespace: '{{ app }}', clusterRef: { kind: GitopsCluster, name: dev } }]
`;
    const names = async () => (await store.listPipelines()).items.map(({ document }) => document.metadata.name).sort();
    fake.commitFiles('main', { 'pipelines/web-apps.yaml': set(['frontend', 'checkout']) });
    assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'applied');
    assert.deepEqual(await names(), ['checkout', 'frontend', 'podinfo']);
    assert.deepEqual((await store.getPipeline({ namespace: NS, name: 'frontend' }))?.owner?.configSource, SOURCE);
    assert.deepEqual((await store.getPipelineSet({ namespace: NS, name: 'web-apps' }))?.owner?.configSource, SOURCE);

    fake.commitFiles('main', { 'pipelines/web-apps.yaml': set(['frontend']) });
    assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'applied');
    assert.deepEqual(await names(), ['frontend', 'podinfo']);

    fake.commitFiles('main', { 'pipelines/web-apps.yaml': null });
    assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'applied');
    assert.deepEqual(await names(), ['podinfo']);
    assert.equal(await store.getPipelineSet({ namespace: NS, name: 'web-apps' }), undefined);
  });

  it('gives the later of two sources defining one pipeline a Conflict, and changes nothing of the first', async () => {
    await syncConfigSource(SOURCE, deps);
    const second = configSource(fake).replace('name: fleet,', 'name: team-a,');
    assert.ok((await cliApply(ports, second)).ok);
    const outcome = await syncConfigSource({ namespace: NS, name: 'team-a' }, deps);
    assert.equal(outcome.outcome === 'failed' && outcome.reason, 'Conflict');
    assert.deepEqual((await store.getPipeline({ namespace: NS, name: 'podinfo' }))?.owner?.configSource, SOURCE);
  });

  it('skips what it does not apply, and refuses a Secret with values and an object outside its namespaces', async () => {
    fake.commitFiles('main', {
      'pipelines/secret.yaml':
        'apiVersion: v1\nkind: Secret\nmetadata: { name: leaked, namespace: flux-system }\nstringData: { token: abc }\n',
    });
    const refused = await syncConfigSource(SOURCE, deps);
    assert.equal(refused.outcome === 'failed' && refused.reason, 'ValidationFailed');
    assert.match(
      refused.outcome === 'failed' ? refused.message : '',
      /pipelines\/secret\.yaml:\d+:\d+: Secret flux-system\/leaked: stringData: .*secrets stay out of Git/,
    );

    fake.commitFiles('main', { 'pipelines/secret.yaml': null });
    assert.ok((await cliApply(ports, configSource(fake, '  namespaces: [team-a]\n'))).ok);
    const outside = await syncConfigSource(SOURCE, deps);
    assert.equal(outside.outcome === 'failed' && outside.reason, 'ValidationFailed');
    assert.match(
      outside.outcome === 'failed' ? outside.message : '',
      /namespace flux-system is not one this ConfigSource may define/,
    );
    assert.equal(await store.getPipeline({ namespace: NS, name: 'podinfo' }), undefined, 'nothing half-applied');
  });

  it('names a rejected token and a missing branch, and tries a commit again after the host failed', async () => {
    fake.failNext(401);
    const rejected = await syncConfigSource(SOURCE, deps);
    assert.equal(rejected.outcome === 'failed' && rejected.reason, 'Unauthorized');

    fake.failNext(503);
    const unavailable = await syncConfigSource(SOURCE, deps);
    assert.equal(unavailable.outcome === 'failed' && unavailable.reason, 'GitUnavailable');
    assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'applied', 'the host answers again');

    assert.ok((await cliApply(ports, configSource(fake).replace('branch: main', 'branch: nope'))).ok);
    const missing = await syncConfigSource(SOURCE, deps);
    assert.equal(missing.outcome === 'failed' && missing.reason, 'NotFound');
    assert.match(missing.outcome === 'failed' ? missing.message : '', /branch nope not found/);
  });
});
