// `pipelinectl serve` refusing what it must refuse, as a child process: a bad configuration (every problem printed,
// exit 1), bad flags, a second serve on a data directory in use, and unsigned messages on its message route.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { signatureHeader } from '../../lib/signing/hmac.js';
import { LOCAL_MESSAGES_PATH } from '../../lib/local/messages-route.js';
import { encodeMessage } from '../../lib/queue/messages.js';
import { clusterWithKubeconfigYaml } from '../../lib/testing/config-yaml.js';
import { tempFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const BAD_CONFIG = {
  'config/pipeline.yaml': `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: web, namespace: apps}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: web}
  environments:
    - name: dev
      targets: [{namespace: web, clusterRef: {kind: GitopsCluster, name: missing}}]
    - name: prod
      targets: [{namespace: web, cluster: prod}]
`,
  'config/clusters.yaml': `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: apps}
spec:
  secretRef: {name: prod-kubeconfig}
`,
};

const CLUSTER_ONLY = { 'config/cluster.yaml': clusterWithKubeconfigYaml('dev', 'apiVersion: v1\nkind: Config\n') };

describe('pipelinectl serve refuses', () => {
  it('a bad configuration: exit 1, every problem on stderr with its place, nothing served', async (t) => {
    const root = await tempFiles(t, BAD_CONFIG);
    const dataDir = join(root, 'data');
    const result = await runPipelinectl([
      'serve',
      '--config',
      join(root, 'config'),
      '--data-dir',
      dataDir,
      '--port',
      '0',
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^3 configuration problems:\n/);
    assert.match(
      result.stderr,
      /clusters\.yaml:5:\d+: GitopsCluster apps\/prod: spec\.secretRef\.name: Secret apps\/prod-kubeconfig not found/,
    );
    assert.match(result.stderr, /pipeline\.yaml:8:\d+: Pipeline apps\/web: .*GitopsCluster apps\/missing not found/);
    assert.match(result.stderr, /pipeline\.yaml:10:\d+: Pipeline apps\/web: .*unknown field "cluster"/);
    assert.doesNotMatch(result.stdout, /"message":"ready"/);
    assert.equal(existsSync(join(dataDir, 'serve.json')), false);
  });

  it('a bad flag, with one line naming it', async () => {
    const result = await runPipelinectl(['serve', '--config', 'nowhere', '--poll-interval', '5']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'error: --poll-interval must be a duration such as 30s, 5m or 1h (got "5")\n');
  });

  it('a second serve on a data directory in use, and messages that are not signed with the master key', async (t) => {
    const root = await tempFiles(t, CLUSTER_ONLY);
    const dataDir = join(root, 'data');
    const args = ['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1h'];
    const serve = await startServe(t, args);
    const info = JSON.parse(await readFile(join(dataDir, 'serve.json'), 'utf8')) as {
      pid: number;
      receiverUrl: string;
    };
    assert.equal(info.receiverUrl, serve.receiverUrl);
    assert.equal(info.pid, serve.child.pid);

    // A second serve: one clear line, non-zero, and the first one is unharmed.
    const second = await runPipelinectl(['serve', ...args]);
    assert.notEqual(second.code, 0);
    assert.equal(
      second.stderr,
      `error: the data directory ${dataDir} is in use by pipelinectl serve (pid ${info.pid}, receiver ${info.receiverUrl})\n`,
    );
    assert.equal((await fetch(`${serve.receiverUrl}/healthz`)).status, 200);

    // The message route, as the other commands use it: signed with the master key, accepted and enqueued.
    const backend = await openLocalBackend(dataDir);
    t.after(() => backend.close());
    const message = {
      type: 'check-pipeline' as const,
      pipeline: { namespace: 'flux-system', name: 'none' },
      cause: 'apply' as const,
    };
    assert.equal(await backend.enqueue(message), true);
    await waitFor('the enqueued message in the log', () =>
      serve.logLines().some((line) => line.message === 'local message enqueued' && line.type === 'check-pipeline'),
    );

    // Unsigned, signed with another key, or not a message: refused.
    const url = `${serve.receiverUrl}${LOCAL_MESSAGES_PATH}`;
    const body = encodeMessage(message);
    const post = async (payload: string, signature?: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (signature) headers['x-signature'] = signature;
      const response = await fetch(url, { method: 'POST', headers, body: payload });
      await response.arrayBuffer();
      return response.status;
    };
    const masterKey = (await backend.masterKeys()).current;
    assert.equal(await post(body), 401);
    assert.equal(await post(body, signatureHeader(body, 'not-the-master-key')), 401);
    assert.equal(await post(body, signatureHeader(body, masterKey, 'sha512')), 401);
    const notAMessage = JSON.stringify({ v: 1, type: 'reboot' });
    assert.equal(await post(notAMessage, signatureHeader(notAMessage, masterKey)), 400);
    assert.equal(await post(body, signatureHeader(body, masterKey)), 202);
    assert.equal((await fetch(url)).status, 405);

    const stopped = await serve.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(existsSync(join(dataDir, 'serve.json')), false);
    const offline = await openLocalBackend(dataDir);
    try {
      assert.equal(await offline.enqueue(message), false, 'no serve to take the message any more');
    } finally {
      await offline.close();
    }
  });
});
