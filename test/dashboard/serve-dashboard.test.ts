// `pipelinectl serve --dashboard-port` as an operator runs it (a child process, a fake leaf cluster, a fake GitHub):
// the dashboard on its own loopback port, named in the ready line, reading serve's store; an approval made on it is
// promoted by serve's verifier at once. The receiver's port never answers with the dashboard, an equal port is
// refused before anything starts, and a port in use is named.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
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
import { runPipelinectl, startServe } from '../local/serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
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

/** `serve --dashboard-port 0` over a fake leaf cluster and a fake GitHub: podinfo's prod waits for 6.9.2. */
async function serveWithDashboard(t: TestContext) {
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
  return { serve, github, root };
}

const PIPELINE_PAGE = '/pipelines/flux-system/podinfo';
/** The OS user `nobody`. */
const NOBODY = 65534;

/**
 * What another local user tries, run as `nobody` (plain Node, no project files: they cannot read them): the owner's
 * URL from the data directory, then with no cookie and with a guessed one each page, the approval (with the form
 * token, had a page shown one), a freeze, and the event stream; and a guessed token in the URL. Prints the answers.
 */
const SECOND_USER_SCRIPT = `
import { readFile } from 'node:fs/promises';
const base = process.env.DASHBOARD_URL;
const { origin, port } = new URL(base);
const answers = [];
const answer = async (what, path, init = {}) => {
  const response = await fetch(new URL(path, base), { redirect: 'manual', ...init });
  const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const body = streaming ? '[an event stream]' : await response.text();
  if (streaming) await response.body.cancel();
  answers.push({ what, status: response.status, body, setCookie: response.headers.get('set-cookie') });
  return body;
};
const csrfOf = (page) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? 'guessed';
let read = 'read';
await readFile(process.env.DASHBOARD_FILE, 'utf8').catch((error) => (read = error.code));
const form = { 'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin' };
const pipeline = '${PIPELINE_PAGE}';
for (const [how, headers] of [['no cookie', {}], ['a guessed cookie', { cookie: 'pipelinectl-dashboard-' + port + '=guessed' }]]) {
  await answer(how + ': the fleet page', '/', { headers });
  const approval = await answer(how + ': the approval page', pipeline + '/environments/prod/approve?revision=6.9.2', { headers });
  await answer(how + ': the approval', pipeline + '/environments/prod/approve', {
    method: 'POST', headers: { ...form, ...headers }, body: new URLSearchParams({ revision: '6.9.2', csrf: csrfOf(approval) }).toString(),
  });
  const freeze = await answer(how + ': the freeze form', pipeline + '/freeze', { headers });
  await answer(how + ': the freeze', pipeline + '/freeze', {
    method: 'POST', headers: { ...form, ...headers }, body: new URLSearchParams({ env: 'prod', reason: 'mine now', csrf: csrfOf(freeze) }).toString(),
  });
  await answer(how + ': the event stream', '/events', { headers });
}
await answer('a guessed token in the URL', '/?token=' + 'A'.repeat(43));
console.log(JSON.stringify({ uid: process.getuid(), read, answers }));
`;

describe('pipelinectl serve --dashboard-port', () => {
  it('serves the dashboard on its own loopback port; an approval there is promoted by serve at once', async (t) => {
    const { serve, github, root } = await serveWithDashboard(t);
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

  it('another OS user on the machine gets 401 and no data: no page, no form token, no approval, no freeze, no event stream', async (t) => {
    if (process.getuid?.() !== 0) {
      t.skip(
        `needs root, to run a process as the OS user nobody (uid ${NOBODY}): here the uid is ${process.getuid?.()}`,
      );
      return;
    }
    const { serve, github } = await serveWithDashboard(t);
    const ready = serve.logLines().find((line) => line.message === 'ready');
    const dashboardUrl = String(ready?.dashboardUrl);
    const urlFile = String(ready?.dashboardUrlFile);
    const ownerUrl = String((JSON.parse(await readFile(urlFile, 'utf8')) as { url?: unknown }).url);
    const cookie = await ownerCookieOf(ownerUrl);
    const asOwner = (path: string) => fetch(new URL(path, dashboardUrl), { headers: { cookie } });
    // What there is to steal: an approval request (serve's first poll), and a pipeline nothing freezes.
    await waitFor('the Approve link of 6.9.2 in prod', async () =>
      (await (await asOwner(PIPELINE_PAGE)).text()).includes('>Approve 6.9.2</a>'),
    );

    const intruder = spawn(process.execPath, ['--input-type=module', '-e', SECOND_USER_SCRIPT], {
      uid: NOBODY,
      gid: NOBODY,
      cwd: '/',
      env: { PATH: process.env.PATH ?? '', DASHBOARD_URL: dashboardUrl, DASHBOARD_FILE: urlFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    intruder.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    intruder.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const [code] = (await once(intruder, 'close')) as [number | null];
    assert.equal(code, 0, err);
    const report = JSON.parse(out) as {
      uid: number;
      read: string;
      answers: { what: string; status: number; body: string; setCookie: string | null }[];
    };
    assert.equal(report.uid, NOBODY);
    assert.equal(report.read, 'EACCES', 'the file with the owner URL is not theirs to read');
    assert.equal(report.answers.length, 13);
    for (const answer of report.answers) {
      assert.equal(answer.status, 401, `${answer.what}: ${answer.body}`);
      assert.equal(answer.setCookie, null, answer.what);
      assert.match(answer.body, /Open the URL that pipelinectl printed/, answer.what);
      assert.doesNotMatch(answer.body, /podinfo|flux-system|prod|6\.9\.|csrf|value=/, `${answer.what} shows no data`);
    }

    // Nothing they tried took effect; the owner, with the cookie, still gets through, event stream included.
    const page = await (await asOwner(PIPELINE_PAGE)).text();
    assert.match(page, />Approve 6\.9\.2<\/a>/);
    assert.match(page, /No stop switch holds this pipeline\./);
    assert.deepEqual(github.pulls('acme', 'fleet'), []);
    const events = await asOwner('/events');
    assert.equal(events.status, 200);
    assert.match(events.headers.get('content-type') ?? '', /^text\/event-stream/);
    await events.body?.cancel();
    assert.equal((await serve.stop('SIGTERM')).code, 0);
    assert.ok(!`${serve.stdout()}${serve.stderr()}`.includes(new URL(ownerUrl).searchParams.get('token') ?? '-'));
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
