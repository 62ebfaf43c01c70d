// Pipelines in Git (docs/config-sources.md), end to end through `pipelinectl serve` and a fake GitHub: the
// configuration directory holds only the ConfigSource and its Secret; the pipelines come from the repository, a
// commit is applied by the next poll, a bad commit keeps the last good configuration and names the file, a removed
// file prunes its pipeline, and a pipeline that came from Git promotes as any other.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import type { Store } from '../../lib/store/port.js';
import { FakeGitLab } from '../../lib/testing/fake-gitlab.js';
import { startServe } from '../local/serve-process.js';
import { tempFiles } from '../support/temp-files.js';
import { pushCredentialHeaders } from '../../lib/signing/push-signatures.js';
import { pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { pushWebhook } from '../fixtures/push-webhooks.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { NAMESPACE, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

const podinfoRelease = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: podinfo, namespace: ${env}}
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
`;

const pipeline = (name: string) =>
  pipelineYaml({
    name,
    environments: [
      { name: 'dev', targets: [{ namespace: 'dev', cluster: 'dev' }] },
      { name: 'prod', targets: [{ namespace: 'prod', cluster: 'prod' }] },
    ],
    strategy: { url: REPOSITORY_URL },
  });

const CONFIG_SOURCE = `apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: {name: fleet, namespace: ${NAMESPACE}}
spec:
  url: ${REPOSITORY_URL}
  branch: main
  path: pipelines
  secretRef: {name: fleet-config}
`;

describe('pipelines in Git, through pipelinectl serve', () => {
  it('applies each commit of the folder, keeps the last good one, prunes, and promotes what it applied', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: {
        'apps/dev/podinfo.yaml': podinfoRelease('dev', '6.4.0'),
        'apps/prod/podinfo.yaml': podinfoRelease('prod', '6.4.0'),
        'pipelines/podinfo.yaml': pipeline('podinfo'),
        'pipelines/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n',
      },
      // The ConfigSource reads with a token of its own; the world's `github` Secret opens the pull requests.
      pipelines: yamlDocuments(CONFIG_SOURCE),
      pollInterval: '1s',
    });
    const { github } = world;
    const source = { namespace: NAMESPACE, name: 'fleet' };
    const sourceStatus = () => world.readStore((store) => store.getConfigSource(source));
    const pipelineOf = (name: string) => world.readStore((store) => store.getPipeline({ namespace: NAMESPACE, name }));

    const dev = world.cluster('dev');
    const prod = world.cluster('prod');
    dev.put(helmReleaseRunning('dev', '6.4.0'));
    prod.put(helmReleaseRunning('prod', '6.4.0'));
    // Secrets stay out of Git: the source's token is applied with the CLI, before serve applies the source.
    await world.apply(secretYaml('fleet-config', { token: github.token }, NAMESPACE));
    await world.startServe();

    // 1. The folder at main's head is applied: the pipeline, owned by the source; the kustomization.yaml skipped.
    const head = github.ref(OWNER, REPOSITORY, 'main');
    const applied = await waitFor('the first commit applied', async () => {
      const stored = await sourceStatus();
      return stored?.status.lastAppliedRevision === `main@sha1:${head}` ? stored : undefined;
    });
    assert.equal(applied.status.skipped, 1);
    assert.deepEqual((await pipelineOf('podinfo'))?.owner?.configSource, source);

    // 2. A pipeline that came from Git promotes as any other.
    const released = dev.put(helmReleaseRunning('dev', '6.5.0'));
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(released, '6.5.0'), 'helm-controller'), 202);
    const pull = await waitFor('the prod pull request', () =>
      github.pulls(OWNER, REPOSITORY).find((each) => each.head === 'promotion-flux-system-podinfo-prod'),
    );
    assert.equal(pull.title, 'Promote flux-system/podinfo in prod to 6.5.0');

    // 3. A commit adding a pipeline is applied by the next poll, with no webhook.
    github.commitFiles(OWNER, REPOSITORY, 'main', { 'pipelines/frontend.yaml': pipeline('frontend') });
    await waitFor('frontend applied by a poll', () => pipelineOf('frontend'));

    // 4. An invalid commit keeps the last good configuration and names the file.
    github.commitFiles(OWNER, REPOSITORY, 'main', {
      'pipelines/frontend.yaml': pipeline('frontend').replace('environments:', 'environmentz:'),
    });
    const bad = github.ref(OWNER, REPOSITORY, 'main');
    const failed = await waitFor('the bad commit attempted', async () => {
      const stored = await sourceStatus();
      return stored?.status.lastAttemptedRevision === `main@sha1:${bad}` ? stored : undefined;
    });
    const ready = failed.status.conditions.find((condition) => condition.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'ValidationFailed');
    assert.match(ready?.message ?? '', /pipelines\/frontend\.yaml:\d+:\d+: Pipeline flux-system\/frontend/);
    assert.ok(await pipelineOf('frontend'), 'the last good frontend stays in force');

    // 5. Removing the file prunes its pipeline.
    github.commitFiles(OWNER, REPOSITORY, 'main', { 'pipelines/frontend.yaml': null });
    await waitFor('frontend pruned', async () => (await pipelineOf('frontend')) === undefined);
    assert.ok(await pipelineOf('podinfo'));

    // 6. A second source defining the same pipeline gets a Conflict; the first keeps it.
    await world.apply(CONFIG_SOURCE.replace('name: fleet,', 'name: team-a,'));
    const conflicted = await waitFor('the second source attempted', async () => {
      const stored = await world.readStore((store) => store.getConfigSource({ namespace: NAMESPACE, name: 'team-a' }));
      return stored?.status.lastAttemptedRevision ? stored : undefined;
    });
    assert.equal(conflicted.status.conditions.find((condition) => condition.type === 'Ready')?.reason, 'Conflict');
    assert.deepEqual((await pipelineOf('podinfo'))?.owner?.configSource, source);
  });

  it('syncs at once on a signed push webhook, once for many, and not at all for a forged one', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: { 'pipelines/podinfo.yaml': pipeline('podinfo') },
      pipelines: yamlDocuments(CONFIG_SOURCE),
      // One poll, at start: anything later is the webhook's doing.
      pollInterval: '1h',
    });
    const { github } = world;
    const webhookSecret = 'push-secret-of-the-fleet-repository';
    await world.apply(secretYaml('fleet-config', { token: github.token, 'webhook-secret': webhookSecret }, NAMESPACE));
    const source = { namespace: NAMESPACE, name: 'fleet' };
    const attempted = () => world.readStore(async (store) => (await store.getConfigSource(source))?.status);
    const trail = () => world.readStore(async (store) => (await store.listConfigAudit(source)).items);
    await world.startServe();
    await waitFor('the first commit applied at start', async () => (await attempted())?.lastAppliedRevision);

    const push = pushWebhook('github', 'refs/heads/main');
    const post = (headers: Record<string, string>) =>
      fetch(`${world.serve().receiverUrl}/v1/config-sources/${NAMESPACE}/fleet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...push.headers, ...headers },
        body: push.body,
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });

    github.commitFiles(OWNER, REPOSITORY, 'main', { 'pipelines/frontend.yaml': pipeline('frontend') });
    const head = github.ref(OWNER, REPOSITORY, 'main');
    const headReads = () => github.count(/^GET \/repos\/acme\/fleet\/(git\/ref|branches)/);
    const readsBefore = headReads();
    assert.equal(await post(pushCredentialHeaders('github', push.body, 'not-the-secret')), 401);
    assert.equal(await post({}), 401);
    assert.equal(headReads(), readsBefore, 'a forged webhook reads nothing of the repository');

    const signed = pushCredentialHeaders('github', push.body, webhookSecret);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => post(signed)));
    assert.deepEqual(new Set(statuses), new Set([202]));
    await waitFor(
      'the pushed commit applied',
      async () => (await attempted())?.lastAppliedRevision === `main@sha1:${head}`,
    );
    // Every message read the head; one of them synced the commit.
    await waitFor('every webhook handled', () => headReads() >= readsBefore + 50);
    const entries = (await trail()).filter((entry) => entry.revision === `main@sha1:${head}`);
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0]?.created, ['Pipeline flux-system/frontend']);
  });

  it('does the same with a GitLab project, its merged commits and its push hook token', async (t) => {
    const gitlab = await FakeGitLab.start({ webHost: 'gitlab.example.com' });
    t.after(() => gitlab.stop());
    const project = 'acme/platform/fleet';
    gitlab.createRepository(project, { 'pipelines/podinfo.yaml': eksPipeline('podinfo') });
    const hookToken = 'gitlab-push-hook-token';
    const root = await tempFiles(t, {
      'config/source.yaml': yamlDocuments(
        secretYaml('fleet-config', { token: gitlab.token, 'webhook-secret': hookToken }, NAMESPACE),
        `apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: {name: fleet, namespace: ${NAMESPACE}}
spec:
  url: https://gitlab.example.com/${project}
  type: gitlab
  branch: main
  path: pipelines
  secretRef: {name: fleet-config}
`,
      ),
    });
    const dataDir = join(root, 'data');
    const serve = await startServe(t, [
      ...['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0'],
      ...['--poll-interval', '1h', '--gitlab-api-url', gitlab.url],
    ]);
    const source = { namespace: NAMESPACE, name: 'fleet' };
    const status = () => readLocalStore(dataDir, async (store) => (await store.getConfigSource(source))?.status);
    const applied = (revision: string | undefined) => async () =>
      (await status())?.lastAppliedRevision === `main@sha1:${revision}`;

    await waitFor('the project applied at start', applied(gitlab.ref(project, 'main')));
    gitlab.commitFiles(project, 'main', { 'pipelines/frontend.yaml': eksPipeline('frontend') });
    const push = pushWebhook('gitlab', 'refs/heads/main');
    const post = (token: string) =>
      fetch(`${serve.receiverUrl}/v1/config-sources/${NAMESPACE}/fleet`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...push.headers,
          ...pushCredentialHeaders('gitlab', push.body, token),
        },
        body: push.body,
      }).then((response) => response.status);
    assert.equal(await post('a-guess'), 401);
    assert.equal(await post(hookToken), 202);
    await waitFor('the pushed commit applied', applied(gitlab.ref(project, 'main')));
    const frontend = await readLocalStore(dataDir, (store) =>
      store.getPipeline({ namespace: NAMESPACE, name: 'frontend' }),
    );
    assert.deepEqual(frontend?.owner?.configSource, source);
  });
});

/** A pipeline on an EKS cluster (no kubeconfig Secret needed to apply it), with the cluster in the same file. */
function eksPipeline(name: string): string {
  return yamlDocuments(
    `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}-eks, namespace: ${NAMESPACE}}
spec: {eks: {clusterName: ${name}, region: eu-west-1}}
`,
    `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${name}, namespace: ${NAMESPACE}}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name}}
  environments:
    - name: dev
      targets: [{namespace: dev, clusterRef: {kind: GitopsCluster, name: ${name}-eks}}]
`,
  );
}

/** Reads the data directory's store through the running serve, as the CLI does. */
async function readLocalStore<T>(dataDir: string, read: (store: Store) => Promise<T>): Promise<T> {
  const backend = await openLocalBackend(dataDir);
  try {
    return await read(backend.store);
  } finally {
    await backend.close();
  }
}
