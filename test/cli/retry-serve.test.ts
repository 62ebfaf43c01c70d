// `pipelinectl retry` as an SRE runs it, against `pipelinectl serve` (child processes, a fake leaf cluster, a fake
// GitHub): a pull request that failed for good on a bad token is opened once the token is fixed and the promotion
// retried, through serve's message route (serve polls only hourly here, so nothing else retries it); without a
// running serve the retry is stored, a note says so, and the next serve's first poll runs it.
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { loadOrCreateMasterKeys } from '../../lib/local/data-dir.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import { podinfoOnOneClusterYaml, podinfoReleaseYaml, secretYaml } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployed, upgradeEvent } from '../loop/harness.js';
import { runPipelinectl, startServe } from '../local/serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { tempFiles } from '../support/temp-files.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const CLUSTER = { namespace: 'flux-system', name: 'fleet' };
const app = (namespace: string): AppKey => ({ cluster: CLUSTER, kind: 'HelmRelease', namespace, name: 'podinfo' });
const IDENTITY = `local:${userInfo().username}`;

const release = (env: string, version: string) => podinfoReleaseYaml(env, env, version);
const githubSecret = (token: string) => secretYaml('github', { token });

describe('pipelinectl retry with serve', () => {
  it('a pull request refused for bad credentials is opened once the token is fixed and the promotion retried', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    kube.put(deployed('6.9.1', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', { 'clusters/prod/podinfo.yaml': release('prod', '6.9.1') });
    const root = await tempFiles(t, {
      'config/fleet.yaml': podinfoOnOneClusterYaml(kube.kubeconfig()),
      'config/github.yaml': githubSecret('ghp_revoked'),
      'fixed/github.yaml': githubSecret(github.token),
      // What the SRE's configuration is once fixed: a later serve applies it at its start.
      'later/fleet.yaml': podinfoOnOneClusterYaml(kube.kubeconfig()),
      'later/github.yaml': githubSecret(github.token),
    });
    const dataDir = join(root, 'data');
    const serveArgs = (config: string) => [
      ...['--config', join(root, config), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1h'],
      ...['--github-api-url', github.url],
    ];
    const cli = (...args: string[]) => runPipelinectl([...args, '--data-dir', dataDir]);
    const record = async (revision: string) => {
      const backend = await openLocalBackend(dataDir);
      try {
        return await backend.store.getPromotion(PIPELINE, 'prod', revision);
      } finally {
        await backend.close();
      }
    };

    // 1. dev runs 6.9.2: the pull request for prod fails for good, GitHub refusing the token.
    const serve = await startServe(t, serveArgs('config'));
    await waitFor('both targets recorded by the first poll', async () => {
      const backend = await openLocalBackend(dataDir);
      try {
        return (await backend.store.getTargetStatuses([app('dev'), app('prod')])).size === 2;
      } finally {
        await backend.close();
      }
    });
    kube.put(deployed('6.9.2', 'dev'));
    const body = upgradeEvent('6.9.2', 'dev');
    const key = deriveClusterKey((await loadOrCreateMasterKeys(dataDir)).current, CLUSTER);
    const response = await fetch(`${serve.receiverUrl}/v1/events/flux-system/fleet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': signatureHeader(body, key) },
      body,
    });
    assert.equal(response.status, 202);
    const failed = await waitFor('the failed promotion', async () => {
      const found = await record('6.9.2');
      return found?.state === 'failed' ? found : undefined;
    });
    assert.equal(failed.retryAt, undefined, 'failed for good');
    assert.match(failed.error ?? '', /401/);
    assert.equal(github.pulls('acme', 'fleet').length, 0);

    // 2. The SRE fixes the token and retries: serve opens the pull request at once.
    const applied = await cli('apply', '-f', join(root, 'fixed'));
    assert.equal(applied.code, 0, applied.stderr);
    const retried = await cli('retry', 'flux-system/podinfo', 'prod');
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(retried.stdout, `retrying flux-system/podinfo prod 6.9.2 (attempt 2) as ${IDENTITY}\n`);
    assert.equal(retried.stderr, '');
    const pull = await waitFor('the pull request', () => github.pulls('acme', 'fleet')[0]);
    assert.equal(pull.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    const succeeded = await waitFor('the succeeded record', async () => {
      const found = await record('6.9.2');
      return found?.state === 'succeeded' ? found : undefined;
    });
    assert.equal(succeeded.attempts, 2);
    assert.equal(succeeded.result, pull.htmlUrl);

    const again = await cli('retry', 'flux-system/podinfo', 'prod');
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.equal(
      again.stderr,
      'error: the promotion of 6.9.2 to flux-system/podinfo prod succeeded (attempt 2): nothing to retry\n',
    );
    assert.equal(github.pulls('acme', 'fleet').length, 1, 'one pull request');
    assert.equal((await serve.stop('SIGTERM')).code, 0);

    // 3. Without serve: 6.9.3 failed for good (as a verifier would have left it); the retry is stored and noted.
    kube.put(deployed('6.9.3', 'dev'));
    const offline = await openLocalBackend(dataDir);
    try {
      const now = new Date();
      await offline.store.recordTargetStatus(
        app('dev'),
        { phase: 'Ready', reason: 'Deployed', message: 'ok', revision: '6.9.3' },
        now,
      );
      await offline.store.createPromotion(PIPELINE, 'prod', '6.9.3', now);
      const claimed = await offline.store.claimPromotion(PIPELINE, 'prod', '6.9.3', 'verifier', 60_000, now);
      assert.ok(claimed);
      assert.ok(await offline.store.failPromotion(claimed, 'no marker in the repository', undefined, now));
    } finally {
      await offline.close();
    }
    const stored = await cli('retry', 'flux-system/podinfo', 'prod');
    assert.equal(stored.code, 0, stored.stderr);
    assert.equal(stored.stdout, `retrying flux-system/podinfo prod 6.9.3 (attempt 2) as ${IDENTITY}\n`);
    assert.equal(
      stored.stderr,
      `note: pipelinectl serve is not running on local data directory ${dataDir}: it retries when it starts\n`,
    );
    const due = await record('6.9.3');
    assert.equal(due?.state, 'failed');
    assert.ok(due?.retryAt !== undefined && Date.parse(due.retryAt) <= Date.now(), 'due now');
    const backend = await openLocalBackend(dataDir);
    try {
      const [entry] = (await backend.store.listAudit(PIPELINE)).items;
      assert.equal(entry?.type, 'promotion-retry-requested');
      assert.equal(entry.actor, IDENTITY);
      assert.equal(entry.revision, '6.9.3');
    } finally {
      await backend.close();
    }

    // 4. The next serve's first poll runs it: the same pull request now promotes 6.9.3.
    const next = await startServe(t, serveArgs('later'));
    await waitFor('the retried promotion of 6.9.3', async () => (await record('6.9.3'))?.state === 'succeeded');
    assert.deepEqual(
      github.pulls('acme', 'fleet').map((p) => p.title),
      ['Promote flux-system/podinfo in prod to 6.9.3'],
    );
    assert.equal((await next.stop('SIGTERM')).code, 0);
  });
});
