// A ConfigSource commit that fails for good tells people once: the verifier as both runtimes assemble it, its
// `sync-config-source` handler reading a fake GitHub through the real adapter, the installation's Slack sink a fake
// Slack. Syncs of the same bad commit by other workers, and again after the source's spec changed, send nothing more;
// the next bad commit is news again.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { applyConfiguration, type ApplyPorts } from '../../lib/apply/index.js';
import { parseNotificationSettings, peopleNotificationsOf } from '../../lib/notify/index.js';
import type { SyncConfigSourceMessage } from '../../lib/queue/messages.js';
import { assembleVerifier, type VerifierOfWorker } from '../../lib/runtime/assemble-verifier.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';
import { startGitHubUnderTest } from '../promotion/github-support.js';
import { applyPorts, clusterYaml, configSourceYaml, NS, SOURCE, sourceSecrets } from './fixtures.js';
import { silentLogger } from '../../lib/logging/logger.js';

const cluster = clusterYaml();

const pipeline = (field = 'targets') => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: podinfo, namespace: ${NS} }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo }
  environments:
    - name: dev
      ${field}: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
`;

const configSource = (fake: FakeHostUnderTest, prune: boolean) =>
  configSourceYaml({
    url: fake.repositoryUrl,
    extra: `  prune: ${prune}
`,
  });

interface SlackText {
  text: string;
}

describe('config-sync-failed through the verifier', () => {
  let fake: FakeHostUnderTest;
  let slack: FakeSlack;
  let store: MemoryStore;
  let ports: ApplyPorts;
  let verifierOf: VerifierOfWorker;
  let clock: number;
  let worker = 0;

  beforeEach(async () => {
    [fake, slack] = await Promise.all([startGitHubUnderTest(), FakeSlack.start()]);
    fake.createRepository({ 'pipelines/clusters.yaml': cluster, 'pipelines/podinfo.yaml': pipeline() });
    store = new MemoryStore();
    clock = Date.parse('2026-11-29T10:00:00Z');
    const now = () => new Date((clock += 1000));
    const secrets = sourceSecrets(fake.secretValues);
    ports = applyPorts(store, secrets);
    const people = peopleNotificationsOf({
      settings: parseNotificationSettings({ slack: { webhookUrl: slack.webhookUrl } }),
      store,
      logger: silentLogger,
      now,
    });
    verifierOf = assembleVerifier({
      store,
      queue: new RecordingQueue(),
      secrets,
      logger: silentLogger,
      now,
      promotion: { githubApiUrl: fake.apiUrl },
      people,
    });
    await apply(configSource(fake, true));
  });

  afterEach(() => Promise.all([fake.stop(), slack.stop()]));

  async function apply(text: string): Promise<void> {
    const applied = await applyConfiguration(ports, { source: { text, file: 'config.yaml' } });
    assert.ok(applied.ok, JSON.stringify(applied));
  }

  /** One `sync-config-source` message, handled by a worker of its own (as each Lambda invocation is). */
  async function sync(): Promise<void> {
    worker += 1;
    const message: SyncConfigSourceMessage = { type: 'sync-config-source', source: SOURCE, cause: 'poll' };
    await verifierOf(`worker-${worker}`)(message, { messageId: `m${worker}`, receiveCount: 1 });
  }

  async function ready() {
    const stored = await store.getConfigSource(SOURCE);
    const condition = stored?.status.conditions.find((candidate) => candidate.type === 'Ready');
    assert.ok(stored && condition);
    return { status: stored.status, generation: stored.generation, condition };
  }

  it('tells Slack once per bad commit, naming the source, the commit, the reason and the file', async () => {
    await sync();
    assert.equal((await ready()).condition.status, 'True');
    assert.equal(slack.messages.length, 0, 'an applied commit is no news');

    fake.commitFiles('main', { 'pipelines/podinfo.yaml': pipeline('targetz') });
    const bad = `main@sha1:${fake.branchHead('main')}`;
    await sync();
    await sync();
    assert.equal((await ready()).condition.reason, 'ValidationFailed');
    assert.equal(slack.messages.length, 1);
    const { text } = slack.messages[0] as SlackText;
    assert.ok(text.startsWith(`Config sync failed: ${NS}/fleet ${bad}: ValidationFailed: 2 problems: `), text);
    assert.match(text, /pipelines\/podinfo\.yaml:\d+:\d+: Pipeline flux-system\/podinfo: .*targetz/);

    // A changed spec tries the same commit again; it fails again, and people were told of it already.
    await apply(configSource(fake, false));
    await sync();
    const retried = await ready();
    assert.equal(retried.status.attemptedGeneration, retried.generation, 'the commit was tried again');
    assert.equal(retried.status.lastAttemptedRevision, bad);
    assert.equal(retried.condition.reason, 'ValidationFailed');
    assert.equal(slack.messages.length, 1, 'the same commit is not told twice');

    fake.commitFiles('main', { 'pipelines/other.yaml': 'kind: Pipeline\nmetadata: { name: other }\n' });
    await sync();
    assert.equal(slack.messages.length, 2, 'the next bad commit is news');
    assert.match((slack.messages[1] as SlackText).text, new RegExp(`main@sha1:${fake.branchHead('main')}`));
  });
});
