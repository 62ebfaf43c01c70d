// The demo's simulated Flux, merge bot and CI against the fake Kubernetes API, the fake GitHub (the merge bot also
// the fake GitLab) and a tiny receiver.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { parseFluxEvent, readTargetStatus } from '../../lib/flux/index.js';
import { deriveClusterKey, verifySignature } from '../../lib/signing/hmac.js';
import { fleetManifest } from '../../lib/demo/fleet-manifest.js';
import { MergeBot } from '../../lib/demo/merge-bot.js';
import { nextPatchVersion, ReleaseGenerator } from '../../lib/demo/release-generator.js';
import { FluxSimulator, type FluxActivity } from '../../lib/demo/flux-simulator.js';
import { GitHubFleetRepository } from '../../lib/demo/github-fleet-repository.js';
import { GitLabFleetRepository } from '../../lib/demo/gitlab-fleet-repository.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeGitLab } from '../../lib/testing/fake-gitlab.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { chartVersionIn, withChartVersion } from '../../lib/testing/helm-release.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const MASTER_KEY = 'demo-test-master-key';
const REPO = { owner: 'acme', name: 'fleet' };
const DEV_FILE = 'clusters/dev/podinfo.yaml';
const STAGING_FILE = 'clusters/staging/podinfo.yaml';
const DEV = { namespace: 'flux-system', name: 'dev' };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that records every POST and answers with the next status of `statuses` (then 202). */
async function startReceiver(t: TestContext, statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(statuses.shift() ?? 202, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function startFakes(t: TestContext) {
  const api = await FakeKubeApi.start();
  const github = await FakeGitHub.start();
  t.after(async () => {
    await api.stop();
    await github.stop();
  });
  github.createRepository(REPO.owner, REPO.name, {
    [DEV_FILE]: fleetManifest({ namespace: 'apps', version: '6.9.0' }),
    [STAGING_FILE]: fleetManifest({ namespace: 'apps', version: '6.9.0', marker: 'flux-system:podinfo:staging' }),
  });
  return { api, github, repository: new GitHubFleetRepository(github, REPO.owner, REPO.name) };
}

function release(github: FakeGitHub, file: string, version: string): void {
  const text = github.readFile(REPO.owner, REPO.name, 'main', file) ?? '';
  github.commitFiles(REPO.owner, REPO.name, 'main', { [file]: withChartVersion(text, version) });
}

describe('Flux simulator', () => {
  it('rolls a new version in Git out through a mid-upgrade state, then sends a signed UpgradeSucceeded event', async (t) => {
    const { api, github, repository } = await startFakes(t);
    const receiver = await startReceiver(t);
    const activity: FluxActivity[] = [];
    const simulator = new FluxSimulator({
      repository,
      targets: [{ cluster: DEV, api, namespace: 'apps', file: DEV_FILE }],
      receiverUrl: `${receiver.url}/`,
      masterKey: MASTER_KEY,
      intervalMs: 50,
      reconcileDelayMs: 100,
      upgradeMs: 500,
      onActivity: (event) => activity.push(event),
    }).start();
    t.after(() => simulator.stop());

    const installed = api.object('HelmRelease', 'apps', 'podinfo');
    assert.ok(installed, 'the HelmRelease is installed at start');
    assert.deepEqual(readTargetStatus(installed), {
      phase: 'Ready',
      reason: 'Deployed',
      message: 'deployed 6.9.0 (InstallSucceeded)',
      revision: '6.9.0',
    });

    release(github, DEV_FILE, '6.9.1');
    const midUpgrade = await waitFor('the upgrade to start', () => {
      const object = api.object('HelmRelease', 'apps', 'podinfo');
      return object && readTargetStatus(object).phase === 'Progressing' ? object : undefined;
    });
    const during = readTargetStatus(midUpgrade);
    assert.equal(during.revision, '6.9.0', 'the old release runs while the upgrade is under way');
    assert.equal(during.phase, 'Progressing');
    assert.equal(simulator.states()[0]?.upgradingTo, '6.9.1');

    const event = await waitFor('the event', () => receiver.received[0]);
    const deployed = api.object('HelmRelease', 'apps', 'podinfo');
    assert.ok(deployed);
    assert.deepEqual(readTargetStatus(deployed), {
      phase: 'Ready',
      reason: 'Deployed',
      message: 'deployed 6.9.1 (UpgradeSucceeded)',
      revision: '6.9.1',
    });
    const status = deployed.status as { history: { chartVersion: string; status: string; version: number }[] };
    assert.deepEqual(
      status.history.map((entry) => [entry.version, entry.chartVersion, entry.status]),
      [
        [2, '6.9.1', 'deployed'],
        [1, '6.9.0', 'superseded'],
      ],
    );

    assert.equal(event.path, '/v1/events/flux-system/dev');
    assert.equal(event.headers['content-type'], 'application/json');
    assert.equal(event.headers['gotk-component'], 'helm-controller');
    const key = deriveClusterKey(MASTER_KEY, DEV);
    const signature = event.headers['x-signature'];
    assert.ok(typeof signature === 'string' && signature.startsWith('sha256='));
    assert.ok(verifySignature(signature, Buffer.from(event.body), key, ['sha256']), 'signed with the cluster key');
    const parsed = parseFluxEvent(event.body);
    assert.ok(parsed.ok);
    assert.equal(parsed.event.reason, 'UpgradeSucceeded');
    assert.equal(parsed.event.severity, 'info');
    assert.deepEqual(parsed.event.metadata, { 'app-version': '6.9.1', revision: '6.9.1' });
    assert.deepEqual(
      { ...parsed.event.involvedObject },
      {
        kind: 'HelmRelease',
        namespace: 'apps',
        name: 'podinfo',
        uid: (deployed.metadata as { uid: string }).uid,
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        resourceVersion: (deployed.metadata as { resourceVersion: string }).resourceVersion,
      },
    );
    assert.equal(parsed.event.message, 'Helm upgrade succeeded for release apps/podinfo.v2 with chart podinfo@6.9.1');

    await waitFor('the event-sent activity', () => activity.some((a) => a.type === 'event-sent'));
    assert.deepEqual(
      activity.map((a) => a.type),
      ['upgrade-started', 'upgraded', 'event-sent'],
    );
    assert.equal(receiver.received.length, 1, 'one event per upgrade');
  });

  it('retries an event the receiver answers with a 5xx, and gives up on a 4xx', async (t) => {
    const { api, github, repository } = await startFakes(t);
    const receiver = await startReceiver(t, [503, 202, 401]);
    const activity: FluxActivity[] = [];
    const simulator = new FluxSimulator({
      repository,
      targets: [{ cluster: DEV, api, namespace: 'apps', file: DEV_FILE }],
      receiverUrl: receiver.url,
      masterKey: MASTER_KEY,
      intervalMs: 20,
      reconcileDelayMs: 10,
      upgradeMs: 10,
      eventRetryDelaysMs: [30, 30],
      onActivity: (event) => activity.push(event),
    }).start();
    t.after(() => simulator.stop());

    release(github, DEV_FILE, '6.9.1');
    await waitFor('the retried event', () => activity.some((a) => a.type === 'event-sent'));
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[0]?.body, receiver.received[1]?.body, 'the same body again');

    release(github, DEV_FILE, '6.9.2');
    const failed = await waitFor('the failure', () => activity.find((a) => a.type === 'event-failed'));
    assert.match(failed.message, /dev\/apps\/podinfo: could not deliver the UpgradeSucceeded event: HTTP 401/);
    assert.equal(receiver.received.length, 3, 'a 401 is not retried');
  });

  it('follows each target its own file, and installs missing HelmReleases at the version in Git', async (t) => {
    const { api, github, repository } = await startFakes(t);
    const receiver = await startReceiver(t);
    const simulator = new FluxSimulator({
      repository,
      targets: [
        { cluster: DEV, api, namespace: 'apps', file: DEV_FILE },
        { cluster: DEV, api, namespace: 'staging', file: STAGING_FILE },
      ],
      receiverUrl: receiver.url,
      masterKey: MASTER_KEY,
      intervalMs: 20,
      reconcileDelayMs: 10,
      upgradeMs: 10,
    }).start();
    t.after(() => simulator.stop());

    release(github, STAGING_FILE, '6.9.5');
    await waitFor('staging to run 6.9.5', () => simulator.states()[1]?.status?.revision === '6.9.5');
    await simulator.idle();
    const [dev, staging] = simulator.states();
    assert.equal(dev?.status?.revision, '6.9.0');
    assert.equal(dev?.inGit, '6.9.0');
    assert.equal(staging?.status?.phase, 'Ready');
    assert.equal(staging?.inGit, '6.9.5');
    assert.equal(receiver.received.length, 1);
  });
});

describe('merge bot', () => {
  it('merges open promotion pull requests after the delay, and nothing else', async (t) => {
    const { github, repository } = await startFakes(t);
    const marker = 'flux-system:podinfo:staging';
    const text = fleetManifest({ namespace: 'apps', version: '6.9.1', marker });
    github.commitFiles(REPO.owner, REPO.name, 'promotion-flux-system-podinfo-staging', { [STAGING_FILE]: text });
    github.commitFiles(REPO.owner, REPO.name, 'feature', { 'README.md': 'hello\n' });
    for (const head of ['promotion-flux-system-podinfo-staging', 'feature']) {
      const response = await fetch(`${github.url}/repos/${REPO.owner}/${REPO.name}/pulls`, {
        method: 'POST',
        headers: { authorization: `token ${github.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ head, base: 'main', title: head }),
      });
      assert.equal(response.status, 201, await response.text());
    }
    let now = 1000;
    const merged: string[] = [];
    const bot = new MergeBot({
      repository,
      delayMs: 3000,
      now: () => now,
      onActivity: (activity) => merged.push(activity.message),
    });
    bot.tick();
    assert.equal(bot.mergesAt(1), 4000);
    assert.equal(bot.mergesAt(2), undefined, 'not a promotion branch');
    now = 3999;
    bot.tick();
    assert.deepEqual(merged, []);
    now = 4000;
    bot.tick();
    assert.deepEqual(merged, ['merged #1 promotion-flux-system-podinfo-staging']);
    const pulls = github.pulls(REPO.owner, REPO.name);
    assert.deepEqual(
      pulls.map((pull) => [pull.number, pull.state, pull.merged]),
      [
        [1, 'closed', true],
        [2, 'open', false],
      ],
    );
    assert.equal(chartVersionIn(github.readFile(REPO.owner, REPO.name, 'main', STAGING_FILE) ?? ''), '6.9.1');
  });

  it('merges open promotion merge requests on GitLab the same way, naming them !iid', async (t) => {
    const gitlab = await FakeGitLab.start();
    t.after(() => gitlab.stop());
    const project = 'acme/platform/fleet';
    gitlab.createRepository(project, {
      [STAGING_FILE]: fleetManifest({ namespace: 'apps', version: '6.9.0', marker: 'flux-system:podinfo:staging' }),
    });
    const text = fleetManifest({ namespace: 'apps', version: '6.9.1', marker: 'flux-system:podinfo:staging' });
    gitlab.commitFiles(project, 'promotion-flux-system-podinfo-staging', { [STAGING_FILE]: text });
    gitlab.commitFiles(project, 'feature', { 'README.md': 'hello\n' });
    for (const branch of ['feature', 'promotion-flux-system-podinfo-staging']) {
      const response = await fetch(`${gitlab.url}/projects/${encodeURIComponent(project)}/merge_requests`, {
        method: 'POST',
        headers: { 'private-token': gitlab.token, 'content-type': 'application/json' },
        body: JSON.stringify({ source_branch: branch, target_branch: 'main', title: branch }),
      });
      assert.equal(response.status, 201, await response.text());
    }
    const repository = new GitLabFleetRepository(gitlab, project);
    let now = 1000;
    const merged: string[] = [];
    const bot = new MergeBot({ repository, delayMs: 3000, now: () => now, onActivity: (a) => merged.push(a.message) });
    bot.tick();
    assert.equal(bot.mergesAt(1), undefined, 'not a promotion branch');
    assert.equal(bot.mergesAt(2), 4000);
    now = 4000;
    bot.tick();
    assert.deepEqual(merged, ['merged !2 promotion-flux-system-podinfo-staging']);
    assert.deepEqual(
      repository.pullRequests().map((mr) => [mr.id, mr.state, mr.sourceBranch, mr.url]),
      [
        [1, 'open', 'feature', 'https://gitlab.example.com/acme/platform/fleet/-/merge_requests/1'],
        [
          2,
          'merged',
          'promotion-flux-system-podinfo-staging',
          'https://gitlab.example.com/acme/platform/fleet/-/merge_requests/2',
        ],
      ],
    );
    assert.equal(chartVersionIn(repository.readFile('main', STAGING_FILE) ?? ''), '6.9.1');
    assert.equal(repository.readFile('no-such-branch', STAGING_FILE), undefined);
  });
});

describe('release generator', () => {
  it('commits the next patch version when due, unless held', async (t) => {
    const { github, repository } = await startFakes(t);
    let now = 0;
    let hold: string | undefined = 'staging waits for approval of 6.9.1';
    const seen: (string | undefined)[] = [];
    const generator = new ReleaseGenerator({
      repository,
      files: [DEV_FILE],
      everyMs: 20_000,
      firstAfterMs: 5000,
      intervalMs: 60_000,
      now: () => now,
      hold: (current) => {
        seen.push(current);
        return hold;
      },
    });
    generator.start();
    t.after(() => generator.stop());
    assert.equal(await generator.tick(), undefined, 'not due yet');
    now = 5000;
    assert.equal(await generator.tick(), undefined, 'held');
    assert.deepEqual(generator.state(), { current: '6.9.0', dueAt: 5000, heldBecause: hold });
    hold = undefined;
    now = 9000;
    assert.equal(await generator.tick(), '6.9.1');
    assert.deepEqual(seen, ['6.9.0', '6.9.0']);
    assert.deepEqual(generator.state(), { current: '6.9.1', dueAt: 29_000 });
    const text = github.readFile(REPO.owner, REPO.name, 'main', DEV_FILE) ?? '';
    assert.equal(text, fleetManifest({ namespace: 'apps', version: '6.9.1' }), 'only the version changed');
    now = 28_999;
    assert.equal(await generator.tick(), undefined);
    now = 29_000;
    assert.equal(await generator.tick(), '6.9.2');
  });

  it('counts in patch versions', () => {
    assert.equal(nextPatchVersion('6.9.0'), '6.9.1');
    assert.equal(nextPatchVersion('6.9.9'), '6.9.10');
    assert.throws(() => nextPatchVersion('main'), /not a semantic version/);
  });

  it('keeps the marker and the quotes of a marked version', () => {
    const marker = 'flux-system:podinfo:staging';
    const before = fleetManifest({ namespace: 'apps', version: '6.9.0', marker });
    assert.equal(withChartVersion(before, '6.9.1'), fleetManifest({ namespace: 'apps', version: '6.9.1', marker }));
  });
});
