// `pipelinectl serve` end to end, as a user runs it: a child process on a temporary data directory, a leaf cluster
// that is a fake Kubernetes API, GitHub that is a fake GitHub. It polls and records, turns a signed Flux event into a
// pull request, stops cleanly on SIGTERM, and after a restart on the same data directory still has its state and
// does not open the pull request again.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { loadOrCreateMasterKeys, readSecrets } from '../../lib/local/data-dir.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import { podinfoReleaseYaml, podinfoServeFiles } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { tempFiles } from '../support/temp-files.js';
import { deployed, upgradeEvent } from '../loop/harness.js';
import { startServe } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const CLUSTER = { namespace: 'flux-system', name: 'fleet' };
const app = (namespace: string): AppKey => ({ cluster: CLUSTER, kind: 'HelmRelease', namespace, name: 'podinfo' });

const release = (env: string, version: string) => podinfoReleaseYaml(env, env, version);

describe('pipelinectl serve', () => {
  it('polls, promotes a signed event through a pull request, stops on SIGTERM and resumes from its data', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    kube.put(deployed('6.9.1', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', {
      'clusters/dev/podinfo.yaml': release('dev', '6.9.1'),
      'clusters/prod/podinfo.yaml': release('prod', '6.9.1'),
    });
    const root = await tempFiles(t, podinfoServeFiles(kube.kubeconfig(), github.token));
    const dataDir = join(root, 'data');
    const args = ['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0'];
    const serveArgs = [...args, '--poll-interval', '1s', '--github-api-url', github.url];

    // 1. Start: the configuration is applied, the first poll records both targets.
    const first = await startServe(t, serveArgs);
    assert.match(first.receiverUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const secrets = await readSecrets(dataDir);
    assert.deepEqual(secrets['flux-system/github']?.purposes, ['git-credentials']);
    assert.deepEqual(secrets['flux-system/fleet-kubeconfig']?.purposes, ['kubeconfig']);
    const backend = await openLocalBackend(dataDir); // through serve.json while serve runs
    t.after(() => backend.close());
    assert.match(backend.description, /serve running/);
    await waitFor('both targets recorded by the poll', async () => {
      const statuses = await backend.store.getTargetStatuses([app('dev'), app('prod')]);
      return [...statuses.values()].filter((observed) => observed.status.revision === '6.9.1').length === 2;
    });
    assert.equal(github.pulls('acme', 'fleet').length, 0, 'dev and prod run the same version: nothing to promote');

    // 2. dev runs 6.9.2 and Flux says so, signed with the cluster's key: prod gets a pull request.
    kube.put(deployed('6.9.2', 'dev'));
    const body = upgradeEvent('6.9.2', 'dev');
    const key = deriveClusterKey((await loadOrCreateMasterKeys(dataDir)).current, CLUSTER);
    const response = await fetch(`${first.receiverUrl}/v1/events/flux-system/fleet`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'gotk-component': 'helm-controller',
        'x-signature': signatureHeader(body, key),
      },
      body,
    });
    assert.equal(response.status, 202);
    const pull = await waitFor('the prod pull request', () => github.pulls('acme', 'fleet')[0]);
    assert.equal(pull.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    assert.equal(pull.head, 'promotion-flux-system-podinfo-prod');
    assert.equal(github.readFile('acme', 'fleet', pull.head, 'clusters/prod/podinfo.yaml'), release('prod', '6.9.2'));
    await waitFor('the succeeded promotion record', async () => {
      const record = await backend.store.getPromotion(PIPELINE, 'prod', '6.9.2');
      return record?.state === 'succeeded' && record.result === pull.htmlUrl;
    });
    await backend.close();

    // 3. SIGTERM: a clean stop, exit 0, serve.json removed.
    const stopped = await first.stop('SIGTERM');
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(existsSync(join(dataDir, 'serve.json')), false);
    assert.ok(stopped.stdout.includes('"message":"stopped"'));

    // 4. The state is in the data directory (opened directly now that no serve runs).
    const offline = await openLocalBackend(dataDir);
    try {
      assert.doesNotMatch(offline.description, /serve running/);
      assert.equal((await offline.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.state, 'succeeded');
      assert.equal((await offline.store.getTargetStatus(app('dev')))?.status.revision, '6.9.2');
    } finally {
      await offline.close();
    }

    // 5. Restart on the same data directory: nothing re-applied, the record and statuses are there, and the polls
    // after the restart (two LISTs: the queue runs one batch at a time, so the first poll has fully decided) open no
    // second pull request.
    const listsBefore = kube.count('list');
    const githubRequestsBefore = github.requests.length;
    const second = await startServe(t, serveArgs);
    const applied = second.logLines().filter((line) => line.message === 'applied' || line.message === 'unchanged');
    assert.deepEqual(
      applied.map((line) => [line.message, line.kind]),
      [
        ['unchanged', 'GitopsCluster'],
        ['unchanged', 'Pipeline'],
      ],
    );
    await waitFor('two polls after the restart', () => kube.count('list') >= listsBefore + 2);
    const again = await openLocalBackend(dataDir);
    try {
      const record = await again.store.getPromotion(PIPELINE, 'prod', '6.9.2');
      assert.equal(record?.state, 'succeeded');
      assert.equal(record.result, pull.htmlUrl);
      const statuses = await again.store.getTargetStatuses([app('dev'), app('prod')]);
      assert.deepEqual([...statuses.values()].map((observed) => observed.status.revision).sort(), ['6.9.1', '6.9.2']);
    } finally {
      await again.close();
    }
    assert.equal(github.pulls('acme', 'fleet').length, 1, 'no second pull request');
    assert.deepEqual(
      github.requests.slice(githubRequestsBefore).filter((request) => request.method !== 'GET'),
      [],
      'no write to GitHub after the restart',
    );
    const final = await second.stop('SIGINT');
    assert.equal(final.code, 0, final.stderr);
    assert.equal(existsSync(join(dataDir, 'serve.json')), false);
  });
});
