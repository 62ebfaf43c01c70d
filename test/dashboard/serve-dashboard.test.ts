// `pipelinectl serve --dashboard-port` as an operator runs it (a child process, a fake leaf cluster, a fake GitHub):
// the dashboard on its own loopback port, named in the ready line, reading serve's store; an approval made on it is
// promoted by serve's verifier at once. The receiver's port never answers with the dashboard, an equal port is
// refused before anything starts, and a port in use is named.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  clusterWithKubeconfigYaml,
  pipelineYaml,
  podinfoReleaseYaml,
  secretYaml,
  yamlDocuments,
} from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployed } from '../loop/harness.js';
import { runPipelinectl, startServe, waitFor } from '../local/serve-process.js';
import { tempFiles } from '../support/temp-files.js';
import { ownerCookieOf } from './owner-cookie.js';

/** podinfo on one cluster, dev → prod, prod waiting for an approval; promoted by pull request on acme/fleet. */
const fleetYaml = (kubeconfig: string) =>
  yamlDocuments(
    clusterWithKubeconfigYaml('fleet', kubeconfig),
    pipelineYaml({
      name: 'podinfo',
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev', cluster: 'fleet' }] },
        { name: 'prod', targets: [{ namespace: 'prod', cluster: 'fleet' }], manual: true },
      ],
      strategy: { url: 'https://github.com/acme/fleet' },
    }),
  );

describe('pipelinectl serve --dashboard-port', () => {
  it('serves the dashboard on its own loopback port; an approval there is promoted by serve at once', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    kube.put(deployed('6.9.2', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', {
      'clusters/prod/podinfo.yaml': podinfoReleaseYaml('prod', 'prod', '6.9.1'),
    });
    const root = await tempFiles(t, {
      'config/fleet.yaml': fleetYaml(kube.kubeconfig()),
      'config/github.yaml': secretYaml('github', { token: github.token }),
    });
    const serve = await startServe(t, [
      ...['--config', join(root, 'config'), '--data-dir', join(root, 'data'), '--port', '0'],
      ...['--poll-interval', '1h', '--github-api-url', github.url, '--dashboard-port', '0'],
    ]);
    const ready = serve.logLines().find((line) => line.message === 'ready');
    const dashboardUrl = String(ready?.dashboardUrl);
    assert.match(dashboardUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.notEqual(new URL(dashboardUrl).port, new URL(serve.receiverUrl).port);
    // The log names the URL without the token, and the file (the owner's alone) that holds the URL with it.
    const urlFile = String(ready?.dashboardUrlFile);
    assert.equal(urlFile, join(root, 'data', 'dashboard.json'));
    assert.equal((await stat(urlFile)).mode & 0o777, 0o600);
    const ownerUrl = String((JSON.parse(await readFile(urlFile, 'utf8')) as { url?: unknown }).url);
    assert.match(ownerUrl, new RegExp(`^${dashboardUrl.replace(/\./g, '\\.')}\\?token=[A-Za-z0-9_-]{43}$`));
    const token = new URL(ownerUrl).searchParams.get('token') ?? '';
    const cookie = await ownerCookieOf(ownerUrl);
    assert.equal((await fetch(dashboardUrl)).status, 401, 'without the cookie');
    const get = async (path: string, base = dashboardUrl) => {
      const response = await fetch(new URL(path, base), { redirect: 'manual', headers: { cookie } });
      return { status: response.status, body: await response.text() };
    };

    // The receiver, which Flux reaches, has no dashboard.
    const onReceiver = await get('/', serve.receiverUrl);
    assert.equal(onReceiver.status, 404);
    assert.doesNotMatch(onReceiver.body, /pipelinectl dashboard/);

    const fleet = await get('/');
    assert.equal(fleet.status, 200);
    assert.match(fleet.body, /<a href="\/pipelines\/flux-system\/podinfo">flux-system\/podinfo<\/a>/);
    assert.match(fleet.body, /local data directory .* \(serve running at http:\/\/127\.0\.0\.1:\d+\)/);
    // The Approve link shows once serve's verifier has stored the approval request (its first poll).
    await waitFor('the Approve link of 6.9.2 in prod', async () =>
      (await get('/pipelines/flux-system/podinfo')).body.includes('>Approve 6.9.2</a>'),
    );

    const confirmation = await get('/pipelines/flux-system/podinfo/environments/prod/approve?revision=6.9.2');
    const csrf = /name="csrf" value="([^"]+)"/.exec(confirmation.body)?.[1] ?? '';
    const origin = new URL(dashboardUrl).origin;
    const approved = await fetch(new URL('/pipelines/flux-system/podinfo/environments/prod/approve', dashboardUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin', cookie },
      body: new URLSearchParams({ revision: '6.9.2', csrf }).toString(),
    });
    assert.equal(approved.status, 303);
    // No `note=not-delivered`: the approval went to serve's verifier, which opens the pull request now.
    assert.equal(approved.headers.get('location'), '/pipelines/flux-system/podinfo#env-prod');
    const pull = await waitFor('the pull request', () => github.pulls('acme', 'fleet')[0]);
    assert.equal(pull.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    await waitFor('the page linking the pull request', async () =>
      (await get('/pipelines/flux-system/podinfo')).body.includes(`href="${pull.htmlUrl}"`),
    );

    assert.equal((await serve.stop('SIGTERM')).code, 0);
    await assert.rejects(fetch(dashboardUrl), 'the dashboard stopped with serve');
    assert.equal(existsSync(urlFile), false, 'the file with the token went with it');
    assert.ok(!`${serve.stdout()}${serve.stderr()}`.includes(token), "the token is nowhere in serve's log");
  });

  it('refuses the receiver port, and names a dashboard port in use, before anything starts', async (t) => {
    const root = await tempFiles(t, { 'config/fleet.yaml': fleetYaml('apiVersion: v1\nkind: Config\n') });
    const dataDir = join(root, 'data');
    const args = ['serve', '--config', join(root, 'config'), '--data-dir', dataDir];

    const same = await runPipelinectl([...args, '--port', '8089', '--dashboard-port', '8089']);
    assert.equal(same.code, 1);
    assert.equal(
      same.stderr,
      "error: --dashboard-port 8089 is the receiver's --port: the dashboard needs a port of its own (0 picks a free " +
        'one)\n',
    );
    assert.equal(existsSync(dataDir), false, 'nothing started');

    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    t.after(() => taken.close());
    const { port } = taken.address() as AddressInfo;
    const busy = await runPipelinectl([...args, '--port', '0', '--dashboard-port', String(port)]);
    assert.equal(busy.code, 1);
    assert.match(
      busy.stderr,
      new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use: pick another with --dashboard-port`),
    );
    assert.equal(existsSync(join(dataDir, 'serve.json')), false);
  });
});
