// A full pipeline, dev → staging (manual) → prod, promoted through pull requests against the fake GitHub, driven
// by signed Flux events as leaf clusters would send them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { GitHubPullRequestPromoter } from '../../lib/testing/github-pull-request-promoter.js';
import { StrategyPromoter } from '../../lib/promotion/index.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { PIPELINE, deployed, settled, startLoop, upgradeEvent } from './harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { loadPipelineView } from '../../lib/views/pipeline-view.js';
import { statusJson, type EnvironmentStatusJson } from '../../lib/cli/operations/status.js';
import { retryPromotion } from '../../lib/cli/operations/retry.js';
import type { Backend } from '../../lib/cli/backend.js';
import type { Store } from '../../lib/store/index.js';

const pullRequest = {
  type: 'github' as const,
  url: 'https://github.com/acme/fleet',
  baseBranch: 'main',
  secretRef: { name: 'github' },
};

const pipeline: PipelineDocument = {
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { name: 'podinfo', namespace: 'flux-system' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
      {
        name: 'staging',
        targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'staging' } }],
        promotion: { manual: true, strategy: { 'pull-request': pullRequest } },
      },
      {
        name: 'prod',
        targets: [
          { namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
          { namespace: 'apps-eu', clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
        ],
      },
    ],
    promotion: { strategy: { 'pull-request': pullRequest, secretRef: { name: 'webhook-hmac' } } },
  },
};

const release = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps
spec:
  interval: 10m
  chart:
    spec:
      chart: podinfo
      # the version this environment runs
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
      sourceRef: {kind: HelmRepository, name: podinfo, namespace: flux-system}
`;

describe('a full pipeline through pull requests', () => {
  it('dev → staging (manual) → prod, from signed events to merged pull requests', async (t) => {
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', {
      'clusters/dev/podinfo.yaml': release('dev', '6.9.1'),
      'clusters/staging/podinfo.yaml': release('staging', '6.9.1'),
      'clusters/prod/podinfo.yaml': release('prod', '6.9.1'),
      'README.md': '# fleet\n',
    });
    const loop = await startLoop(t, {
      pipeline,
      clusters: ['dev', 'staging', 'prod'],
      secrets: { github: { token: github.token } },
      promoter: (secrets) =>
        new StrategyPromoter({
          pullRequest: new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, writeIntervalMs: 0 }),
        }),
    });
    const [dev, staging, prod] = ['dev', 'staging', 'prod'].map((name) => loop.cluster(name));
    await loop.deployEverywhere('6.9.1');
    assert.equal(github.pulls('acme', 'fleet').length, 0);

    // 1. A new release reaches dev; Flux reports it. Staging is manual: an approval is requested, no PR yet.
    dev?.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await waitFor(
      'the staging approval request',
      async () => (await loop.store.getApproval(PIPELINE, 'staging'))?.revision,
    );
    await settled(loop.queue);
    assert.equal(github.pulls('acme', 'fleet').length, 0);

    // 2. Someone approves; the staging pull request is opened with Weave's title, body and branch.
    assert.equal(await loop.approve('staging', '6.9.2'), 202);
    const stagingPull = await waitFor('the staging pull request', () => github.pulls('acme', 'fleet')[0]);
    assert.equal(stagingPull.title, 'Promote flux-system/podinfo in staging to 6.9.2');
    assert.equal(stagingPull.head, 'promotion-flux-system-podinfo-staging');
    assert.equal(stagingPull.base, 'main');
    // Weave's block first, byte for byte, then the evidence: dev's target as the verifier observed it.
    const weaveBlock =
      '<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\nflux-system/podinfo/staging\n</details>';
    assert.ok(stagingPull.body.startsWith(`${weaveBlock}\n`), stagingPull.body);
    assert.match(stagingPull.body, /### Evidence\n\nPromoted from \*\*dev\*\*\./);
    assert.match(stagingPull.body, /\| flux-system\/dev apps \| 6\.9\.2 \| Ready \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \|/);
    assert.equal(
      github.readFile('acme', 'fleet', 'promotion-flux-system-podinfo-staging', 'clusters/staging/podinfo.yaml'),
      release('staging', '6.9.2'),
    );
    assert.equal(
      github.readFile('acme', 'fleet', 'promotion-flux-system-podinfo-staging', 'clusters/prod/podinfo.yaml'),
      release('prod', '6.9.1'),
      'prod is not touched by the staging promotion',
    );
    await waitFor('the recorded URL', async () => {
      const record = await loop.store.getPromotion(PIPELINE, 'staging', '6.9.2');
      return record?.state === 'succeeded' && record.result === stagingPull.htmlUrl;
    });

    // 3. The PR is merged and Flux rolls staging out; staging's controller reports it. Prod is next.
    github.merge('acme', 'fleet', stagingPull.number);
    staging?.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2')), 202);
    const prodPull = await waitFor('the prod pull request', () =>
      github.pulls('acme', 'fleet').find((pull) => pull.head === 'promotion-flux-system-podinfo-prod'),
    );
    assert.equal(prodPull.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    assert.equal(
      github.readFile('acme', 'fleet', prodPull.head, 'clusters/prod/podinfo.yaml'),
      release('prod', '6.9.2'),
    );
    assert.equal(
      github.readFile('acme', 'fleet', prodPull.head, 'clusters/staging/podinfo.yaml'),
      release('staging', '6.9.2'),
      'the prod branch starts from main, which has the merged staging change',
    );

    // 4. Merged and rolled out to both prod targets: the pipeline is done; nothing more is opened.
    github.merge('acme', 'fleet', prodPull.number);
    prod?.put(deployed('6.9.2'));
    prod?.put(deployed('6.9.2', 'apps-eu'));
    assert.equal(await loop.sendEvent('prod', upgradeEvent('6.9.2')), 202);
    assert.equal(await loop.sendEvent('prod', upgradeEvent('6.9.2', 'apps-eu')), 202);
    await settled(loop.queue);
    await loop.poll();
    await settled(loop.queue);
    assert.equal(github.pulls('acme', 'fleet').length, 2, 'one pull request per environment');
    assert.deepEqual(
      github.pulls('acme', 'fleet').map((pull) => [pull.head, pull.merged]),
      [
        ['promotion-flux-system-podinfo-staging', true],
        ['promotion-flux-system-podinfo-prod', true],
      ],
    );
    const prodRecord = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
    assert.equal(prodRecord?.result, prodPull.htmlUrl);
  });
});

/** dev → staging, promoted by a pull request that a person merges (or closes). */
const toStaging: PipelineDocument = {
  ...pipeline,
  spec: {
    ...pipeline.spec,
    environments: [
      { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
      { name: 'staging', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'staging' } }] },
    ],
  },
};

/** An environment as `pipelinectl status -o json` prints it now. */
async function statusOf(store: Store, env: string): Promise<EnvironmentStatusJson> {
  const view = await loadPipelineView(store, PIPELINE, new Date());
  assert.ok(view);
  const found = statusJson(view).environments.find((environment) => environment.name === env);
  assert.ok(found, env);
  return found;
}

describe('the pull request of a promotion, as the host says it', () => {
  it('open until merged, then rolling out, then passed; closed unmerged says so; one read per open pull request per poll', async (t) => {
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', {
      'clusters/dev/podinfo.yaml': release('dev', '6.9.1'),
      'clusters/staging/podinfo.yaml': release('staging', '6.9.1'),
    });
    const logged: string[] = [];
    const keep = (message: string, attributes?: Record<string, unknown>) =>
      logged.push(`${message} ${JSON.stringify(attributes ?? {})}`);
    const loop = await startLoop(t, {
      pipeline: toStaging,
      logger: { debug() {}, info() {}, warn: keep, error: keep },
      clusters: ['dev', 'staging'],
      secrets: { github: { token: github.token } },
      promoter: (secrets) =>
        new StrategyPromoter({
          pullRequest: new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, writeIntervalMs: 0 }),
        }),
    });
    await loop.deployEverywhere('6.9.1');
    /** The requests one scheduled poll makes to the Git host, by route. */
    const pollRequests = async () => {
      github.resetRequests();
      await loop.poll();
      await settled(loop.queue);
      return github.countsByRoute();
    };
    const listPulls = 'GET /repos/{owner}/{repo}/pulls';
    const record = () => loop.store.getPromotion(PIPELINE, 'staging', '6.9.2');

    // 1. dev runs 6.9.2: the staging pull request is opened. Nobody merged it: it is open, not a promotion done.
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    const first = await waitFor('the staging pull request', () => github.pulls('acme', 'fleet')[0]);
    await waitFor('the recorded pull request', async () => (await record())?.result === first.htmlUrl);
    await settled(loop.queue);
    let staging = await statusOf(loop.store, 'staging');
    assert.deepEqual(
      [staging.state, staging.stateText, staging.reason, staging.pullRequest],
      ['pull-request-open', 'pull request open', 'PullRequestOpen', { url: first.htmlUrl, state: 'open' }],
    );
    assert.ok(staging.message.includes(first.htmlUrl), staging.message);

    // 2. A Flux event reads no Git host; each poll asks the host once about the open pull request, and nothing else.
    github.resetRequests();
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await settled(loop.queue);
    assert.equal(github.count(), 0);
    assert.deepEqual(await pollRequests(), { [listPulls]: 1 });
    assert.equal((await record())?.pullRequest?.state, 'open');
    assert.deepEqual(await pollRequests(), { [listPulls]: 1 });

    // A host that cannot be read (here it refuses the token, and repeats it) leaves the state as it was, logged
    // without the credential, and the poll goes on; the next poll reads it again.
    const before = await record();
    github.echoCredentialsNext(401, { route: listPulls });
    assert.deepEqual(await pollRequests(), { [listPulls]: 1 });
    assert.deepEqual(await record(), before, 'the record is as it was');
    const warning = logged.find((line) => line.startsWith('cannot read the promotion pull request'));
    assert.ok(warning, logged.join('\n'));
    assert.ok(warning.includes(first.htmlUrl), warning);
    assert.ok(!logged.some((line) => line.includes(github.token)), 'no credential in the log');
    assert.equal((await statusOf(loop.store, 'staging')).state, 'pull-request-open');

    // 3. A person closes it without merging: the next poll says so, and the host is not asked again.
    github.closePull('acme', 'fleet', first.number);
    assert.deepEqual(await pollRequests(), { [listPulls]: 1 });
    staging = await statusOf(loop.store, 'staging');
    assert.deepEqual(
      [staging.state, staging.stateText, staging.reason, staging.pullRequest],
      [
        'pull-request-closed',
        'pull request closed without merging',
        'PullRequestClosed',
        { url: first.htmlUrl, state: 'closed' },
      ],
    );
    assert.ok(
      staging.message.includes(
        '`pipelinectl retry flux-system/podinfo staging --revision 6.9.2` opens a new pull request',
      ),
      staging.message,
    );
    assert.deepEqual(await pollRequests(), {});
    assert.equal(github.pulls('acme', 'fleet').length, 1, 'nothing is opened again by itself');

    // 4. The command the message names opens a new pull request.
    const unused = () => Promise.reject(new Error('not used by retry'));
    const backend: Backend = {
      description: 'the loop',
      store: loop.store,
      putSecret: unused,
      secretKeys: unused,
      enqueue: async (message) => {
        await loop.queue.send(message);
        return true;
      },
      masterKeys: unused,
      identity: () => Promise.resolve('local:sre'),
      close: () => Promise.resolve(),
    };
    await retryPromotion(backend, PIPELINE, 'staging', '6.9.2');
    const second = await waitFor('a new staging pull request', () =>
      github.pulls('acme', 'fleet').find((pull) => pull.number !== first.number),
    );
    await waitFor('the new pull request recorded', async () => {
      const current = await record();
      return current?.state === 'succeeded' && current.result === second.htmlUrl;
    });
    await settled(loop.queue);
    staging = await statusOf(loop.store, 'staging');
    assert.deepEqual(
      [staging.state, staging.pullRequest],
      ['pull-request-open', { url: second.htmlUrl, state: 'open' }],
    );

    // 5. Merged: the next poll reads it, the targets are taking it (rolling out), and the host is not asked again.
    github.merge('acme', 'fleet', second.number);
    assert.deepEqual(await pollRequests(), { [listPulls]: 1 });
    staging = await statusOf(loop.store, 'staging');
    assert.deepEqual(
      [staging.state, staging.stateText, staging.reason, staging.pullRequest],
      ['promoted', 'rolling out', 'PullRequestMerged', { url: second.htmlUrl, state: 'merged' }],
    );
    assert.deepEqual(await pollRequests(), {});

    // 6. Flux rolls it out on staging: passed.
    loop.cluster('staging').put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2')), 202);
    await waitFor('staging passed', async () => (await statusOf(loop.store, 'staging')).state === 'passed');
    assert.deepEqual(await pollRequests(), {});
  });
});
